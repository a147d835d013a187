"""The local sandbox: a bubblewrap box per command on this machine (``--sandbox local``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from corrupt.errors import InputError

if TYPE_CHECKING:
    from corrupt.sandboxes.local.sandbox import LocalSandbox


def open_sandbox(*, base_image: str | None, isolation: bool, **options: Any) -> LocalSandbox:
    """A box per command; with ``isolation`` off (UNSAFE) none at all."""
    if base_image:
        raise InputError("--base-image only applies with --sandbox docker")
    from corrupt.sandboxes.local.sandbox import LocalSandbox

    return LocalSandbox(isolation=isolation, **options)
