"""The local sandbox's box, built by bubblewrap (``bwrap``).

Why bubblewrap: it assembles a root file system from nothing, in fresh
namespaces, without privileges (through user namespaces) and without a
daemon; Flatpak runs untrusted applications the same way. A box sees:

- the system (``/usr`` and its ``/bin``, ``/lib`` links), a short list of
  ``/etc`` files and the Python a venv runs on, all read-only (a box without
  network gets an ``/etc/hosts`` of its own, naming its loopback both ways,
  as container engines write one: suites bind ``localhost`` on IPv6 too);
- the host folders a caller names, read-only or writable, at their own paths,
  and a working directory at a path of the caller's choosing (test runs see
  their working tree at ``/testbed``, whichever host folder holds it);
- a private, size-limited ``/tmp`` (HOME is ``/tmp/home``, holding a read-only
  ``.profile`` as a new account's does) and ``/dev/shm``, a
  read-only minimal ``/dev``, its own ``/proc`` with ``/proc/sys`` read-only
  (as root, the box's user is the host's root outside it: sysctls check that
  uid, not capabilities, and ``kernel.core_pattern`` runs a program as host root);
- an ordinary account of its own (uid 1000, in a ``passwd`` and ``group`` of
  the box's), whoever runs corrupt, as a CI runner's: run as root (a container,
  a CI machine), tools refuse to work ("Installing packages as root is not
  recommended", flit's tests) and tests of permission errors pass no check;

and nothing else: not the user's home, corrupt's caches, other processes'
``/proc`` entries, host Unix sockets. It has its own user, mount, pid, ipc,
uts, cgroup and (unless asked otherwise) network namespaces, with only a
loopback. Every capability is dropped, even when corrupt runs as root; no
nested user namespace can win them back; the box dies with its parent, and
when its command exits the pid namespace ends every process left in it.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from corrupt.errors import SandboxError
from corrupt.sandboxes.local.interpreters import Interpreter, own_interpreter
from corrupt.scratch import scratch_dir

SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC = (
    "hosts",
    "nsswitch.conf",
    "localtime",
    "timezone",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "mime.types",
    "protocols",
    "services",
    "host.conf",
    "gai.conf",
    "os-release",
)
# What a box with network needs to check certificates (and, on the host's
# network, to resolve names).
ETC_NETWORK = ("ssl", "ca-certificates", "ca-certificates.conf", "pki", "crypto-policies")
HOME = "/tmp/home"
BOX_HOSTS = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tsandbox\n"
BOX_UID = 1000
BOX_ACCOUNTS = {
    "passwd": f"root:x:0:0:root:/root:/bin/sh\ncorrupt:x:{BOX_UID}:{BOX_UID}:corrupt:{HOME}:/bin/sh\n"
    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
    "group": f"root:x:0:\ncorrupt:x:{BOX_UID}:\nnogroup:x:65534:\n",
}
# HOME holds what a new account's does (``useradd -m`` copies /etc/skel), read-only:
# tests that list ``~`` expect something there, as on any developer's or CI machine.
BOX_PROFILE = "# ~/.profile of corrupt's sandbox account\n"
UNSAFE_HINT = "or pass --no-isolation to run repository code unconfined (unsafe)"


@dataclass(frozen=True)
class Box:
    """What one box sees besides the system: host folders at their own paths.

    ``network``: ``"none"`` (a loopback of its own), ``"user"`` (a namespace of
    its own that :mod:`corrupt.sandboxes.local.launch` connects to the outside, not to
    the host's loopback; it names the resolver in ``resolv_conf``) or ``"host"``
    (the host's network namespace, where slirp4netns is missing)."""

    read_only: tuple[Path, ...] = ()
    writable: tuple[Path, ...] = ()
    # a host folder seen writable at another path, which is the working directory
    workdir: tuple[Path, str] | None = None
    network: str = "none"
    tmp_mb: int = 2048
    resolv_conf: Path | None = None


def box_argv(
    bwrap: str, box: Box, argv: list[str], cwd: Path, *, info_fd: int | None = None
) -> list[str]:
    """The bwrap command line that runs ``argv`` in ``box`` with ``cwd`` as working directory
    (and writes the box's pid, as JSON, to ``info_fd``)."""
    args = [
        bwrap,
        "--unshare-all",
        "--unshare-user",
        "--uid",
        str(BOX_UID),
        "--gid",
        str(BOX_UID),
        "--disable-userns",
        "--cap-drop",
        "ALL",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "sandbox",
    ]
    if box.network == "host":
        args.append("--share-net")
    for path in SYSTEM:
        target = Path(path)
        if target.is_symlink():
            args += ["--symlink", str(target.readlink()), path]
        elif target.is_dir():
            args += ["--ro-bind", path, path]
    for name in (
        ETC
        + (ETC_NETWORK if box.network != "none" else ())
        + (("resolv.conf",) if box.network == "host" else ())
    ):
        if name == "hosts" and box.network == "none":
            args += ["--ro-bind", str(_box_etc("hosts", BOX_HOSTS)), "/etc/hosts"]
        elif (Path("/etc") / name).exists():
            args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    for name, text in BOX_ACCOUNTS.items():
        args += ["--ro-bind", str(_box_etc(name, text)), f"/etc/{name}"]
    if box.resolv_conf is not None:
        args += ["--ro-bind", str(box.resolv_conf), "/etc/resolv.conf"]
    size = str(box.tmp_mb * 1024 * 1024)
    args += [
        "--proc",
        "/proc",
        "--ro-bind",
        "/proc/sys",
        "/proc/sys",
        "--dev",
        "/dev",
        "--size",
        size,
        "--tmpfs",
        "/dev/shm",
        "--remount-ro",
        "/dev",
        "--size",
        size,
        "--tmpfs",
        "/tmp",
        "--dir",
        HOME,
        "--ro-bind",
        str(_box_profile()),
        f"{HOME}/.profile",
    ]
    for folder in box.read_only:
        args += ["--ro-bind", str(folder), str(folder)]
    for folder in box.writable:
        args += ["--bind", str(folder), str(folder)]
    if box.workdir is not None:
        args += ["--bind", str(box.workdir[0]), box.workdir[1]]
    if info_fd is not None:
        args += ["--info-fd", str(info_fd)]
    # The root bwrap assembles is an unbounded tmpfs: nothing may write there.
    chdir = box.workdir[1] if box.workdir is not None else str(cwd)
    args += ["--remount-ro", "/", "--chdir", chdir, "--", *argv]
    return args


@functools.cache
def _box_etc(name: str, text: str) -> Path:
    """A file of the box's own ``/etc``, written once per process: its accounts, and the
    hosts file of boxes without network (a host's own may lack ``::1 localhost``, and may
    name machines a box cannot reach anyway)."""
    path = scratch_dir("etc-") / name
    path.write_text(text, encoding="utf-8")
    return path


@functools.cache
def _box_profile() -> Path:
    """The ``.profile`` every box's HOME holds, written once per process."""
    path = scratch_dir("home-") / ".profile"
    path.write_text(BOX_PROFILE, encoding="utf-8")
    return path


def interpreter_roots(interpreter: Interpreter | None = None) -> list[Path]:
    """Folders the venvs corrupt makes need besides themselves: the prefix of the base
    Python they are created from (corrupt's own unless ``interpreter`` names another
    one). Taken from what the interpreter itself answered on the host (see
    :func:`corrupt.sandboxes.local.interpreters.probe`), never from a venv's files, which an
    install step (repository code) could have rewritten."""
    interpreter = interpreter or own_interpreter()
    roots: list[Path] = []
    prefix = interpreter.prefix
    for path in (prefix, prefix.resolve(), interpreter.executable.parent.parent):
        if path.is_dir() and not _under_system(path) and path not in roots:
            roots.append(path)
    return roots


def _under_system(path: Path) -> bool:
    return any(path == Path(root) or path.is_relative_to(root) for root in SYSTEM)


@functools.cache
def require_bwrap() -> str:
    """The path of a bwrap that can build a box here, or a one-line error saying what is missing."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxError(
            "the local sandbox needs bubblewrap, which is not installed: apt-get install bubblewrap "
            "(scripts/bootstrap.sh does it when run as root), or use --sandbox docker, "
            + UNSAFE_HINT
        )
    try:
        proc = subprocess.run(
            box_argv(bwrap, Box(), ["true"], Path("/")), capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError) as exc:
        proc = subprocess.CompletedProcess([], 1, "", str(exc))
    if proc.returncode != 0:
        reason = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        raise SandboxError(
            f"bubblewrap cannot build a sandbox on this machine ({reason}): it needs unprivileged user "
            "namespaces (sysctl user.max_user_namespaces > 0 and kernel.unprivileged_userns_clone=1, or an "
            "AppArmor profile that allows bwrap), or use --sandbox docker, " + UNSAFE_HINT
        )
    return bwrap
