"""Pick a sandbox by name; the docker one is imported only when asked for."""

from __future__ import annotations

from corrupt.errors import InputError, SandboxError
from corrupt.repos.sandbox import Sandbox

SANDBOXES = ("local", "docker")


def get_sandbox(name: str, **options) -> Sandbox:
    """``"local"`` (the default, needs nothing) or ``"docker"`` (needs a container engine)."""
    if name == "local":
        from corrupt.repos.local import LocalSandbox

        return LocalSandbox(**options)
    if name == "docker":
        try:
            from corrupt.repos.docker_sandbox import DockerSandbox
        except ImportError as exc:
            raise SandboxError(f"the docker sandbox is not available ({exc}); use --sandbox local") from None
        return DockerSandbox(**options)
    raise InputError(f"unknown sandbox {name!r}; choose one of: {', '.join(SANDBOXES)}")
