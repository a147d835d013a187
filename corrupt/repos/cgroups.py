"""A pids cgroup per run, for where RLIMIT_NPROC does not hold.

The kernel never applies RLIMIT_NPROC to root's processes, user namespace or
not, so a fork bomb started by a test while corrupt runs as root is bounded
only by a cgroup's ``pids.max``. Where corrupt may create cgroups (a cgroup v1
``pids`` hierarchy, or cgroup v2 with the pids controller delegated to it)
each run gets its own; elsewhere corrupt runs unprivileged and RLIMIT_NPROC
holds. Groups that a killed build left behind are removed by the next run
(``rmdir`` only succeeds on an empty group, so a live one is never touched).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import time
from collections.abc import Iterator
from pathlib import Path

PREFIX = "corrupt-run-"
_counter = itertools.count()


@functools.cache
def pids_parent() -> Path | None:
    """The cgroup folder under which this process may create pids-limited groups, if any."""
    if os.geteuid() != 0:
        return None
    for mount_root, mount_point, version in _pids_mounts():
        own = _own_cgroup(version)
        if own is None:
            continue
        relative = Path(own).relative_to(mount_root) if Path(own).is_relative_to(mount_root) else None
        if relative is None:
            continue
        parent = Path(mount_point) / relative
        if version == 2 and not _delegate_pids(parent):
            continue
        if (parent / "cgroup.procs").exists() and os.access(parent, os.W_OK):
            _sweep(parent)
            return parent
    return None


@contextlib.contextmanager
def pids_limited(limit: int) -> Iterator[Path | None]:
    """A fresh group allowing ``limit`` processes: yields its ``cgroup.procs`` (or None where unavailable)."""
    parent = pids_parent()
    group = None
    if parent is not None:
        group = parent / f"{PREFIX}{os.getpid()}-{next(_counter)}"
        try:
            group.mkdir()
            (group / "pids.max").write_text(str(limit))
        except OSError:
            _remove(group)
            group = None
    try:
        yield group / "cgroup.procs" if group else None
    finally:
        if group is not None:
            _remove(group)


def join(procs: Path) -> None:
    """Move the calling process into the group (run between fork and exec)."""
    with open(procs, "w") as handle:
        handle.write("0\n")


def _pids_mounts() -> Iterator[tuple[str, str, int]]:
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return
    for line in lines:
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        fstype, options = tail[0], tail[2].split(",")
        if fstype == "cgroup" and "pids" in options:
            yield fields[3], fields[4], 1
        elif fstype == "cgroup2":
            yield fields[3], fields[4], 2


def _own_cgroup(version: int) -> str | None:
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if (version == 1 and "pids" in controllers.split(",")) or (version == 2 and controllers == ""):
            return path
    return None


def _delegate_pids(parent: Path) -> bool:
    try:
        if "pids" not in (parent / "cgroup.controllers").read_text().split():
            return False
        if "pids" not in (parent / "cgroup.subtree_control").read_text().split():
            (parent / "cgroup.subtree_control").write_text("+pids")
        return True
    except OSError:
        return False


def _remove(group: Path) -> None:
    """Remove the group once the kernel has finished reaping its processes."""
    for _ in range(50):
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.02)


def _sweep(parent: Path) -> None:
    """Remove the groups of corrupt processes that are gone."""
    with contextlib.suppress(OSError):
        for child in parent.glob(f"{PREFIX}*"):
            owner = child.name[len(PREFIX):].split("-", 1)[0]
            if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                with contextlib.suppress(OSError):
                    child.rmdir()
