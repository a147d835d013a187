"""Linux isolation steps run in a child between fork and exec (``preexec_fn``).

Shared by the local sandbox (test runs) and environment builds (a project's
build backend is repository code too). Each step is probed once per process:
where the kernel refuses it (no privileges, a locked-down container) one
warning says what protection is lost and the work goes ahead without it.
"""

from __future__ import annotations

import ctypes
import fcntl
import logging
import os
import socket
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

CLONE_NEWNET, CLONE_NEWNS = 0x40000000, 0x00020000
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 0x1, 0x20, 0x1000, 0x4000, 0x40000
SIOCSIFFLAGS = 0x8914
IFF_UP, IFF_LOOPBACK, IFF_RUNNING = 0x1, 0x8, 0x40

_probed: dict[str, bool] = {}  # feature -> works here


def _libc_call(name: str, *args) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if getattr(libc, name)(*args) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{name} failed: {os.strerror(errno)}")


def enter_network_namespace() -> None:
    """New network namespace with only its loopback, brought up (suites serve on 127.0.0.1)."""
    _libc_call("unshare", CLONE_NEWNET)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags))


def read_only(folder: Path) -> Callable[[], None]:
    """A step: private mount namespace in which ``folder`` is read-only, even for root."""
    path = os.fsencode(folder)

    def apply() -> None:
        _libc_call("unshare", CLONE_NEWNS)
        _libc_call("mount", b"none", b"/", None, MS_REC | MS_PRIVATE, None)
        _libc_call("mount", path, path, None, MS_BIND | MS_REC, None)
        _libc_call("mount", None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY, None)

    return apply


def available(feature: str, step: Callable[[], None], consequence: str) -> bool:
    """Whether ``step`` works on this machine (probed once); warns with ``consequence`` if not."""
    if feature not in _probed:
        try:
            subprocess.run([sys.executable, "-c", "pass"], preexec_fn=step, check=True, timeout=30)
            _probed[feature] = True
        except (OSError, subprocess.SubprocessError) as exc:
            log.warning("no %s (%s): %s", feature, exc, consequence)
            _probed[feature] = False
    return _probed[feature]
