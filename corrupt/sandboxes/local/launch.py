"""Starting a command: in a box, its network connected first, or (unsafe) unboxed.

A box that needs the package index must not get the host's loopback: in the
host's network namespace it would reach every service listening on the
host's 127.0.0.1 and every abstract Unix socket (a D-Bus session bus, an X
server), far more than an install step needs. slirp4netns, the user-mode
network of rootless Podman, gives the box a network namespace of its own with
a NAT to the outside and, with ``--disable-host-loopback``, no way back to
the host's loopback. bwrap reports the box's pid (``--info-fd``); a shell
shim in the box says when bwrap's own set-up (its loopback) is done and
waits, before it execs the command, until slirp4netns has configured the
namespace (configuring it earlier races bwrap's set-up).

Where slirp4netns is missing, or the user's installer configuration points
at a proxy or index on the host's loopback (which only the host's namespace
can reach), the box shares the host's network namespace instead.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import logging
import os
import re
import select
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from corrupt.sandboxes.local.bubblewrap import Box, box_argv
from corrupt.sandboxes.local.limits import die_with_parent
from corrupt.scratch import scratch_dir

log = logging.getLogger(__name__)
RESOLVER = "10.0.2.3"  # slirp4netns's DNS forwarder
SETUP_SECONDS = 30
NS_GET_PARENT = 0xB702  # ioctl: the parent of a user namespace
_LOOPBACK = re.compile(r"://(?:[^/@]*@)?(?:localhost|127\.[\d.]+|\[::1\])(?:[:/]|$)", re.IGNORECASE)


def network_mode(env: dict[str, str]) -> str:
    """``"user"`` (own namespace through slirp4netns) where it can work, else ``"host"``."""
    if any(_LOOPBACK.search(value) for value in env.values()):
        return "host"
    return "host" if _user_network_missing() else "user"


@functools.cache
def _user_network_missing() -> str | None:
    """Why slirp4netns cannot connect a box here (warned once), or None."""
    if shutil.which("slirp4netns") is None:
        why = "slirp4netns is not installed (apt-get install slirp4netns)"
    elif not os.access("/dev/net/tun", os.R_OK | os.W_OK):
        why = "slirp4netns cannot open /dev/net/tun (it should be mode 0666)"
    else:
        return None
    log.warning(
        "install steps share the host's network namespace (its loopback services and abstract "
        "sockets): %s",
        why,
    )
    return why


@functools.cache
def _resolv_conf() -> Path:
    path = scratch_dir("net-") / "resolv.conf"
    path.write_text(f"nameserver {RESOLVER}\n")
    return path


@contextlib.contextmanager
def started(
    bwrap: str, box: Box, argv: list[str], cwd: Path, **popen: Any
) -> Iterator[subprocess.Popen[bytes]]:
    """``argv`` running in ``box`` (its network connected first); the network stops on exit."""
    if box.network != "user":
        yield subprocess.Popen(box_argv(bwrap, box, argv, cwd), cwd=cwd, **popen)
        return
    info_r, info_w = os.pipe()
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    box = replace(box, resolv_conf=_resolv_conf())
    shim = [
        "/bin/bash",
        "-c",
        f'echo >&{ready_w}; read go <&{go_r}; exec {ready_w}>&- {go_r}<&-; exec "$@"',
        "sh",
    ]
    slirp = None
    try:
        proc = subprocess.Popen(
            box_argv(bwrap, box, [*shim, *argv], cwd, info_fd=info_w),
            cwd=cwd,
            pass_fds=(info_w, ready_w, go_r),
            **popen,
        )
        for fd in (info_w, ready_w, go_r):
            os.close(fd)
        pid = _box_pid(info_r)
        if pid is not None and select.select([ready_r], [], [], SETUP_SECONDS)[0]:
            slirp = _connect(pid)
        os.write(go_w, b"go\n")  # connected, or (bwrap failed) let it report why
        yield proc
    finally:
        for fd in (info_r, ready_r, go_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        if slirp is not None:
            slirp.kill()
            slirp.wait()


def _box_pid(info: int) -> int | None:
    data = b""
    while select.select([info], [], [], SETUP_SECONDS)[0]:
        chunk = os.read(info, 4096)
        if not chunk:
            break
        data += chunk
        with contextlib.suppress(ValueError):
            return int(json.loads(data)["child-pid"])
    return None


def _owning_userns(pid: int) -> int:
    """An fd of the user namespace that owns the box's network namespace.

    bwrap's --disable-userns moves the box's processes into a user namespace
    nested in the one that created the network namespace; only the outer one
    grants the rights slirp4netns needs there (for root too)."""
    inner = os.open(f"/proc/{pid}/ns/user", os.O_RDONLY)
    try:
        return fcntl.ioctl(inner, NS_GET_PARENT)
    finally:
        os.close(inner)


def _connect(pid: int) -> subprocess.Popen[bytes] | None:
    ready_r, ready_w = os.pipe()
    try:
        userns = _owning_userns(pid)
    except OSError:
        userns = None
    try:
        slirp = subprocess.Popen(
            [
                "slirp4netns",
                "--configure",
                "--mtu=65520",
                "--disable-host-loopback",
                *([f"--userns-path=/proc/self/fd/{userns}"] if userns is not None else []),
                f"--ready-fd={ready_w}",
                str(pid),
                "tap0",
            ],
            pass_fds=(ready_w, *([userns] if userns is not None else [])),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=die_with_parent,
        )
    except OSError:
        return None
    finally:
        os.close(ready_w)
        if userns is not None:
            os.close(userns)
    try:
        if not select.select([ready_r], [], [], SETUP_SECONDS)[0] or os.read(ready_r, 1) != b"1":
            log.warning("slirp4netns did not connect the install box; it runs without network")
    finally:
        os.close(ready_r)
    return slirp


@contextlib.contextmanager
def unboxed(argv: list[str], cwd: Path, **popen: Any) -> Iterator[subprocess.Popen[bytes]]:
    """``argv`` as a plain child process (``--no-isolation``)."""
    yield subprocess.Popen(argv, cwd=cwd, **popen)
