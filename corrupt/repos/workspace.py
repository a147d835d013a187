"""A private working copy of a cached clone.

Every test run happens here, never in the cache: the copy leaves out ``.git``
(tests do not need history, and a corrupted tree must not carry the original
code in its object store) and byte-code caches. ``patched`` swaps file
contents in and puts the exact original bytes back afterwards, so one
workspace serves many candidate corruptions.

Tests run in this tree and may leave anything in it, symlinks out of it
included, so every write corrupt makes here re-checks the real path of the
folder it writes into and never follows a link at the file itself.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from corrupt.errors import InputError, SandboxError
from corrupt.repos.models import Checkout
from corrupt.scratch import remove_tree, scratch_dir

IGNORED = shutil.ignore_patterns(".git", "__pycache__", "*.pyc")


class Workspace:
    """``with Workspace(checkout) as ws: ws.path`` is a throwaway copy of ``checkout.path``."""

    def __init__(self, checkout: Checkout) -> None:
        self.checkout = checkout
        self._root: Path | None = None

    @property
    def path(self) -> Path:
        if self._root is None:
            raise RuntimeError("Workspace is not open; use it as a context manager")
        return self._root / "tree"

    def __enter__(self) -> Workspace:
        self._root = scratch_dir("ws-")
        shutil.copytree(self.checkout.path, self._root / "tree", symlinks=True, ignore=IGNORED)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        if self._root is not None:
            remove_tree(self._root)
            self._root = None

    def _resolve(self, relative: str) -> Path:
        """The file's path with its folder's real path, which must lie inside the tree."""
        tree = self.path.resolve()
        target = tree / relative
        folder = target.parent.resolve()
        if not folder.is_relative_to(tree) or target.name in ("", ".", ".."):
            raise InputError(f"path {relative!r} is outside the working copy")
        return folder / target.name

    def read(self, relative: str) -> str | None:
        """A regular file's text in the working copy (never through a link); None otherwise."""
        data = _read_regular(self._resolve(relative))
        return None if data is None else data.decode("utf-8", errors="replace")

    def put(self, files: dict[str, str | None]) -> None:
        """Write ``files`` (relative path -> text, None to remove) for good; no restore."""
        for relative, text in files.items():
            target = self._resolve(relative)
            if text is None:
                _unlink(target)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            self._write(relative, text.encode("utf-8"))

    @contextmanager
    def patched(self, files: dict[str, str]) -> Iterator[Path]:
        """Write ``files`` (relative path -> text) and restore the originals exactly on exit."""
        saved: dict[str, bytes | None] = {}
        try:
            for relative, text in files.items():
                target = self._resolve(relative)
                if relative not in saved:
                    saved[relative] = _read_regular(target)
                target.parent.mkdir(parents=True, exist_ok=True)
                self._write(relative, text.encode("utf-8"))
            yield self.path
        finally:
            for relative, original in saved.items():
                try:
                    target = self._resolve(relative)
                except InputError:  # a test swapped a folder for a link out of the tree
                    raise SandboxError(
                        f"a test replaced the folder of {relative} with a link out of the working copy"
                    ) from None
                if original is None:
                    _unlink(target)
                else:
                    self._write(relative, original)

    def _write(self, relative: str, data: bytes) -> None:
        """Write the file, then stamp it so that no cached bytecode is taken for it.

        Python (and pytest's rewritten tests) trust a cached ``.pyc`` whose recorded
        source size and whole-second modification time match the file's. The cache
        holds the checkout's files (see :meth:`LocalSandbox._bytecode`), and a
        copy keeps their times: a same-size change (``<`` for ``>``) written within
        the second the checkout's file was stamped would run the original's bytecode.
        The checkout's own content gets the checkout's time back, and its bytecode."""
        target = self._resolve(relative)
        _write_no_follow(target, data)
        origin = self.checkout.path / relative
        try:
            before = os.stat(origin, follow_symlinks=False)
        except OSError:
            return
        if not stat.S_ISREG(before.st_mode):
            return
        after = os.stat(target, follow_symlinks=False)
        if after.st_size == before.st_size and _read_regular(origin) == data:
            when = before.st_mtime_ns
        elif int(after.st_mtime) == int(before.st_mtime):
            when = before.st_mtime_ns + 1_000_000_000
        else:
            return
        os.utime(target, ns=(after.st_atime_ns, when), follow_symlinks=False)


def _read_regular(path: Path) -> bytes | None:
    """The file's bytes; None when nothing, or no regular file, is there."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a folder, a FIFO, a device
        os.close(fd)
        return None
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def _unlink(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        remove_tree(path)
    else:
        path.unlink(missing_ok=True)


def _write_no_follow(path: Path, data: bytes) -> None:
    """Write a regular file at ``path`` in place (its mode kept); whatever else is
    there (a link, a FIFO, a folder) is replaced, never followed or opened."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        fd = None
    if fd is not None and not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        fd = None
    if fd is None:
        _unlink(path)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.truncate()
        handle.write(data)
