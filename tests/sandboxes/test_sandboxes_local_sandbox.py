"""The sandbox contract against LocalSandbox, and the controls that give it teeth.

Each control runs one contract probe with isolation switched off
(``--no-isolation``) and asserts the attack then gets through: the box, not
something else, is what stops it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from repos_run_support import session_cache
from sandbox_contract import *  # noqa: F403
from sandbox_contract import (
    HOSTILE,
    SECRET,
    probe_daemons,
    probe_disk,
    probe_secrets,
    probe_symlinks,
    probe_sysctls,
    probe_unix_sockets,
    probe_writes,
)

from corrupt.errors import InputError
from corrupt.repos.models import Limits
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.local.bubblewrap import (
    BOX_HOSTS,
    BOX_UID,
    Box,
    box_argv,
    interpreter_roots,
    require_bwrap,
)
from corrupt.sandboxes.local.limits import confined
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.sandboxes.registry import get_sandbox
from corrupt.suites.runner import run_tests


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory):
    return LocalSandbox(cache_dir=session_cache(tmp_path_factory))


@pytest.fixture(scope="module")
def open_box(tmp_path_factory):
    return LocalSandbox(cache_dir=session_cache(tmp_path_factory), isolation=False)


def test_control_without_the_box_the_host_loopback_is_reached(open_box, hostile, greeter):
    checkout, env = hostile
    nodeid = HOSTILE + "test_connects_to_host_server"
    with Workspace(checkout) as ws, ws.patched({"port.txt": str(greeter.port)}):
        report = run_tests(open_box, env, ws.path, select=[nodeid])
    assert report.results[nodeid].outcome == "passed"
    assert greeter.connections == 1


def test_control_without_the_box_secrets_leak(open_box, hostile, tmp_path):
    checkout, env = hostile
    leaks = " ".join(probe_secrets(open_box, env, checkout, tmp_path))
    assert "/proc/" in leaks and ".netrc" in leaks


def test_control_without_the_box_writes_reach_the_host(
    open_box, hostile, tmp_path, tmp_path_factory
):
    checkout, env = hostile
    changed = probe_writes(open_box, env, checkout, tmp_path, session_cache(tmp_path_factory))
    for place in ("home", "hooks", "store.sqlite", "uv", "site-packages"):
        assert any(place in c for c in changed), (place, changed)


def test_control_without_the_box_symlinks_lead_out(open_box, hostile, tmp_path):
    checkout, env = hostile
    got = probe_symlinks(open_box, env, checkout, tmp_path)
    assert any(g.endswith("pwned-by-test") for g in got) and f"read {SECRET}" in got, got


def test_control_without_the_box_host_sockets_are_reached(open_box, hostile, tmp_path):
    checkout, env = hostile
    assert (
        len(
            [
                r
                for r in probe_unix_sockets(open_box, env, checkout, tmp_path)
                if r.endswith(" reached")
            ]
        )
        == 2
    )


def test_control_without_the_box_a_daemon_survives(open_box, hostile):
    checkout, env = hostile
    assert any("outlived" in v for v in probe_daemons(open_box, env, checkout))


def test_control_without_the_box_tmp_is_not_size_limited(open_box, hostile):
    checkout, env = hostile
    assert any(v.startswith("tmp:") for v in probe_disk(open_box, env, checkout))


@pytest.mark.skipif(os.geteuid() != 0, reason="only root's uid opens sysctls for writing")
def test_control_without_the_box_root_opens_sysctls_for_writing(open_box, hostile):
    checkout, env = hostile
    assert any("core_pattern" in got for got in probe_sysctls(open_box, env, checkout))


def test_get_sandbox_by_name(tmp_path):
    assert isinstance(get_sandbox("local", cache_dir=tmp_path), LocalSandbox)
    with pytest.raises(InputError, match="unknown sandbox 'vm'"):
        get_sandbox("vm")


LOOPBACK_PROBE = """
import socket
print(open("/etc/hosts").read().strip())
server = socket.create_server(("localhost", 0), family=socket.AF_INET6)
with socket.create_connection(("localhost", server.getsockname()[1])) as client:
    print("connected from", client.getsockname()[0])
"""


def test_a_box_without_network_names_its_loopback_both_ways():
    # A host's /etc/hosts may lack ::1 localhost (this VM's does): suites that serve on
    # localhost over IPv6 (anyio's) then fail in the box with "Name or service not known".
    argv = [os.path.realpath(sys.executable), "-c", LOOPBACK_PROBE]
    box = Box(read_only=tuple(interpreter_roots()))
    proc = subprocess.run(
        box_argv(require_bwrap(), box, argv, Path("/")), capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    hosts, connected = proc.stdout.strip().rsplit("\n", 1)
    assert hosts == BOX_HOSTS.strip()  # the box's own: nothing of the host's
    assert connected == "connected from ::1"


def boxed_probe(code: str) -> list[str]:
    """The lines ``code`` prints in a plain box, with a new account's HOME and PATH."""
    argv = [os.path.realpath(sys.executable), "-c", code]
    box = Box(read_only=tuple(interpreter_roots()))
    env = {"HOME": "/tmp/home", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(
        box_argv(require_bwrap(), box, argv, Path("/")),
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


HOME_PROBE = """
import os
home = os.path.expanduser("~")
print(sorted(os.listdir(home)))
open(os.path.join(home, "notes.txt"), "w").close()
try:
    open(os.path.join(home, ".profile"), "a").close()
except OSError as exc:
    print("profile", type(exc).__name__)
"""


def test_a_box_home_is_a_new_accounts_home():
    # A test that lists ~ expects what any account has there (wcmatch's compares its
    # tilde globbing with os.listdir("~") and fails on an empty folder); the box's own
    # .profile is read-only, anything else may be written.
    assert boxed_probe(HOME_PROBE) == ["['.profile']", "profile OSError"]


ACCOUNT_PROBE = """
import getpass, os, pwd
print(os.getuid(), os.getgid(), getpass.getuser(), pwd.getpwuid(os.getuid()).pw_dir)
open("/tmp/locked", "w").close()
os.chmod("/tmp/locked", 0)
try:
    open("/tmp/locked").close()
except PermissionError:
    print("denied")
"""


def test_a_box_runs_as_an_ordinary_account_whoever_runs_corrupt():
    # As a CI runner's: flit's tests stop with "Installing packages as root is not
    # recommended" as root, and a test that a locked file cannot be read fails there.
    # (This machine runs corrupt as root; the probe sees the box's account either way.)
    assert boxed_probe(ACCOUNT_PROBE) == [f"{BOX_UID} {BOX_UID} corrupt /tmp/home", "denied"]


def test_a_box_gets_the_default_interrupt_when_corrupt_ignores_it():
    # corrupt started in the background of a non-interactive shell ignores SIGINT and
    # SIGQUIT, and exec keeps that: cmd2's test that interrupts its own child then
    # waited for it in vain. What runs in a box starts with the defaults.
    argv = ["grep", "SigIgn", "/proc/self/status"]
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with confined(Limits()) as preexec:
            proc = subprocess.run(
                box_argv(require_bwrap(), Box(), argv, Path("/")),
                capture_output=True,
                text=True,
                timeout=60,
                preexec_fn=preexec,
            )
    finally:
        signal.signal(signal.SIGINT, previous)
    assert proc.returncode == 0, proc.stderr
    ignored = int(proc.stdout.split()[1], 16)
    assert not ignored & (1 << (signal.SIGINT - 1) | 1 << (signal.SIGQUIT - 1))
