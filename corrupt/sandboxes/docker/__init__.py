"""The docker sandbox: a throwaway container per command on a Docker-compatible engine (``--sandbox docker``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from corrupt.errors import InputError, SandboxError

if TYPE_CHECKING:
    from corrupt.sandboxes.docker.sandbox import DockerSandbox


def open_sandbox(*, base_image: str | None, isolation: bool, **options: Any) -> DockerSandbox:
    """A container per command on the engine ``DOCKER_HOST`` names; always isolated."""
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
