"""Temporary folders that a killed build cannot leave behind.

Every corrupt process keeps its temporary folders (working copies, run
folders, install copies) under one folder of its own,
``$TMPDIR/corrupt-<pid>-<random>``, which holds a lock file the process keeps
locked for its lifetime, and removes at exit. A build killed with SIGKILL
cannot clean up after itself, so each new process first sweeps the folders
whose owner is gone (its lock can be taken and its pid no longer runs).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

PREFIX = "corrupt-"
LOCK = ".lock"

_root: Path | None = None
_lock_fd: int | None = None


def scratch_dir(prefix: str) -> Path:
    """A new empty folder under this process's own temporary root."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=_own_root()))


def remove_tree(path: Path) -> None:
    """``rm -rf`` that a test cannot defeat: shutil.rmtree recurses in Python and
    raises RecursionError on a folder nested a few thousand levels deep."""
    try:
        shutil.rmtree(path, ignore_errors=True)
    except RecursionError:
        subprocess.run(["rm", "-rf", "--one-file-system", "--", str(path)], check=False)


def _own_root() -> Path:
    global _root, _lock_fd
    if _root is None or _lock_fd is None or not _root.is_dir():
        sweep()
        root = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
        fd = os.open(root / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        _root, _lock_fd = root, fd
        atexit.register(remove_tree, root)  # a normal exit cleans up itself; a killed one is swept
    return _root


def sweep(parent: Path | None = None) -> list[Path]:
    """Remove the temporary roots of corrupt processes that died; returns what was removed."""
    parent = Path(parent or tempfile.gettempdir())
    removed = []
    with contextlib.suppress(OSError), os.scandir(parent) as entries:
        for entry in entries:
            if entry.name.startswith(PREFIX) and _abandoned(entry):
                remove_tree(Path(entry.path))
                removed.append(Path(entry.path))
    return removed


def _abandoned(entry: os.DirEntry[str]) -> bool:
    pid = entry.name[len(PREFIX) :].split("-", 1)[0]
    if not pid.isdigit() or not entry.is_dir(follow_symlinks=False):
        return False
    if entry.stat(follow_symlinks=False).st_uid != os.getuid() or _running(int(pid)):
        return False
    try:
        fd = os.open(os.path.join(entry.path, LOCK), os.O_RDWR | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:  # still locked: a live process (or its forked worker) owns it
        return False
    finally:
        os.close(fd)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
