"""Resource limits for a sandboxed process: rlimits, and cgroups where they are needed.

rlimits cover most of it (address space, file size, CPU time, processes), but
two holes need cgroups: the kernel never applies RLIMIT_NPROC to root's
processes, user namespace or not, so a fork bomb started while corrupt runs
as root is bounded only by a ``pids.max``; and memory that is not address
space (a tmpfs file, a ``memfd``) escapes RLIMIT_AS, so only a memory
cgroup bounds a run's RAM. Where corrupt may create cgroups (as root with a
cgroup v1 hierarchy for the controller, or cgroup v2 with it delegated) each
run gets its own groups; elsewhere the rlimits are what holds. Groups a
killed build left behind are removed later (``rmdir`` only succeeds on an
empty group, so a live one is never touched).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import itertools
import os
import resource
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from corrupt.repos.models import Limits

PREFIX = "corrupt-run-"
PR_SET_PDEATHSIG = 1
_counter = itertools.count()
_libc = ctypes.CDLL(None, use_errno=True)


@contextlib.contextmanager
def confined(limits: Limits) -> Iterator[Callable[[], None]]:
    """Fresh groups for one run; yields the function to call between fork and exec."""
    ram = (limits.memory_mb + limits.disk_mb) * 1024 * 1024  # a tmpfs's pages are RAM too
    settings = {
        "pids": {"pids.max": str(limits.max_processes)},
        "memory": {
            "memory.limit_in_bytes": str(ram),
            "memory.max": str(ram),
            "memory.swap.max": "0",
        },
    }
    by_parent: dict[Path, dict[str, str]] = {}  # cgroup v2: one group holds both controllers
    for controller, parent in _parents().items():
        by_parent.setdefault(parent, {}).update(settings[controller])
    groups: list[Path] = []
    try:
        for parent, values in by_parent.items():
            group = _create(parent, values)
            if group is not None:
                groups.append(group)
        yield lambda: _enter(groups, limits)
    finally:
        for group in groups:
            _remove(group)


def memory_cgroups() -> bool:
    """Whether runs here get a memory cgroup (else only RLIMIT_AS and tmpfs sizes bound RAM)."""
    return "memory" in _parents()


def die_with_parent() -> None:
    """Between fork and exec: the process gets SIGKILL when corrupt dies. bwrap's own
    --die-with-parent starts only once its set-up is done; a kill before orphans it."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _enter(groups: list[Path], limits: Limits) -> None:
    die_with_parent()
    # A process started in the background of a non-interactive shell ignores SIGINT and
    # SIGQUIT, and the ignoring is inherited through exec: a test that interrupts its
    # own child (cmd2's) would then wait for it in vain. Tests get the defaults.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    for group in groups:
        with open(group / "cgroup.procs", "w") as handle:
            handle.write("0\n")
    memory = limits.memory_mb * 1024 * 1024
    largest_file = limits.disk_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_processes, limits.max_processes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (largest_file, largest_file))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if limits.cpu_seconds:
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))


def _create(parent: Path, settings: dict[str, str]) -> Path | None:
    group = parent / f"{PREFIX}{os.getpid()}-{next(_counter)}"
    try:
        group.mkdir()
    except OSError:
        return None
    written = 0
    for name, value in settings.items():
        if (group / name).exists():
            try:
                (group / name).write_text(value)
                written += 1
            except OSError:
                pass
    if not written:
        _remove(group)
        return None
    return group


@functools.cache
def _parents() -> dict[str, Path]:
    """controller -> the cgroup folder under which this process may create groups."""
    if os.geteuid() != 0:
        return {}
    found: dict[str, Path] = {}
    for mount_root, mount_point, controllers in _mounts():
        for controller in ("pids", "memory"):
            if controller in found or (controllers and controller not in controllers):
                continue
            own = _own_cgroup(controller if controllers else None)
            if own is None or not Path(own).is_relative_to(mount_root):
                continue
            parent = Path(mount_point) / Path(own).relative_to(mount_root)
            if not controllers and not _delegate(parent, controller):
                continue
            if (parent / "cgroup.procs").exists() and os.access(parent, os.W_OK):
                _sweep(parent)
                found[controller] = parent
    return found


def _mounts() -> Iterator[tuple[str, str, list[str]]]:
    """(root, mount point, controllers) per cgroup mount; v2 has no controller list."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return
    for line in lines:
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        if tail[0] == "cgroup":
            yield fields[3], fields[4], [o for o in tail[2].split(",") if o in ("pids", "memory")]
        elif tail[0] == "cgroup2":
            yield fields[3], fields[4], []


def _own_cgroup(controller: str | None) -> str | None:
    """This process's cgroup in the v1 hierarchy of ``controller`` (None: the v2 one)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if (controller in controllers.split(",")) if controller else controllers == "":
            return path
    return None


def _delegate(parent: Path, controller: str) -> bool:
    try:
        if controller not in (parent / "cgroup.controllers").read_text().split():
            return False
        if controller not in (parent / "cgroup.subtree_control").read_text().split():
            (parent / "cgroup.subtree_control").write_text(f"+{controller}")
        return True
    except OSError:
        return False


def _remove(group: Path) -> None:
    """Remove the group once the kernel has finished reaping its processes (within a
    millisecond or two of the run's end; a group still busy after a second is left
    for a later sweep)."""
    for _ in range(1000):
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.001)


def _sweep(parent: Path) -> None:
    """Remove the groups of corrupt processes that are gone."""
    with contextlib.suppress(OSError):
        for child in parent.glob(f"{PREFIX}*"):
            owner = child.name[len(PREFIX) :].split("-", 1)[0]
            if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                with contextlib.suppress(OSError):
                    child.rmdir()
