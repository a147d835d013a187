"""A private working copy of a cached clone.

Every test run happens here, never in the cache: the copy leaves out ``.git``
(tests do not need history, and a corrupted tree must not carry the original
code in its object store) and byte-code caches. ``patched`` swaps file
contents in and puts the exact original bytes back afterwards, so one
workspace serves many candidate corruptions.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from corrupt.errors import InputError
from corrupt.repos.models import Checkout

IGNORED = shutil.ignore_patterns(".git", "__pycache__", "*.pyc")


class Workspace:
    """``with Workspace(checkout) as ws: ws.path`` is a throwaway copy of ``checkout.path``."""

    def __init__(self, checkout: Checkout, *, parent: Path | None = None) -> None:
        self.checkout = checkout
        self._parent = parent
        self._root: Path | None = None

    @property
    def path(self) -> Path:
        if self._root is None:
            raise RuntimeError("Workspace is not open; use it as a context manager")
        return self._root / "tree"

    def __enter__(self) -> Workspace:
        self._root = Path(tempfile.mkdtemp(prefix="corrupt-ws-", dir=self._parent))
        shutil.copytree(self.checkout.path, self._root / "tree", symlinks=True, ignore=IGNORED)
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)
            self._root = None

    def _resolve(self, relative: str) -> Path:
        target = (self.path / relative).resolve()
        if not target.is_relative_to(self.path.resolve()):
            raise InputError(f"path {relative!r} is outside the working copy")
        return target

    @contextmanager
    def patched(self, files: dict[str, str]) -> Iterator[Path]:
        """Write ``files`` (relative path -> text) and restore the originals exactly on exit."""
        saved: dict[Path, bytes | None] = {}
        try:
            for relative, text in files.items():
                target = self._resolve(relative)
                if target not in saved:
                    saved[target] = target.read_bytes() if target.exists() else None
                target.parent.mkdir(parents=True, exist_ok=True)
                with open(target, "w", encoding="utf-8", newline="") as fh:
                    fh.write(text)
            yield self.path
        finally:
            for target, original in saved.items():
                if original is None:
                    target.unlink(missing_ok=True)
                else:
                    target.write_bytes(original)
