"""Pick a sandbox by name; the docker one is imported only when asked for."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from corrupt.errors import InputError, SandboxError
from corrupt.sandboxes.base import Sandbox


class SandboxName(StrEnum):
    LOCAL = "local"  # a bubblewrap box per command (or, with --no-isolation, none)
    DOCKER = "docker"  # a container per command; needs a Docker-compatible engine


def get_sandbox(
    name: str, *, base_image: str | None = None, isolation: bool = True, **options: Any
) -> Sandbox:
    """``"local"`` (the default: a bubblewrap box, or with ``isolation=False`` none at
    all) or ``"docker"`` (needs a container engine; always isolated)."""
    if name == "local":
        if base_image:
            raise InputError("--base-image only applies with --sandbox docker")
        from corrupt.sandboxes.local.sandbox import LocalSandbox

        return LocalSandbox(isolation=isolation, **options)
    if name == "docker":
        if not isolation:
            raise InputError(
                "--no-isolation only applies to the local sandbox; containers are always isolated"
            )
        try:
            from corrupt.sandboxes.docker.sandbox import DockerSandbox
        except ImportError as exc:
            raise SandboxError(
                f"the docker sandbox is not available ({exc}); use --sandbox local"
            ) from None
        return DockerSandbox(base_image=base_image, **options)
    raise InputError(f"unknown sandbox {name!r}; choose one of: {', '.join(SandboxName)}")
