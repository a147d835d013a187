"""Ctrl-C in the middle of screening: the build ends its test runs instead of waiting for them."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from repos_run_support import FIXTURES, fixture_checkout, session_cache, session_xdg

from corrupt.errors import SandboxError
from corrupt.repos.models import Command, Limits
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.local.sandbox import LocalSandbox

WARM_MARKER = b"_corrupt_warm_"


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (parent pid first)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _build_processes_with(root: int, marker: bytes) -> dict[int, str]:
    """``{pid: start time}`` of ``root``'s descendants whose command line holds ``marker``:
    the build's own warm server, its box and its children, not another test's."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                parents[int(entry.name)] = int(_stat(int(entry.name))[1])
    found, pending = {}, [root]
    while pending:
        parent = pending.pop()
        for pid in [pid for pid, ppid in parents.items() if ppid == parent]:
            pending.append(pid)
            with contextlib.suppress(OSError, IndexError):
                if marker in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found[pid] = _stat(pid)[19]
    return found


def _still_running(processes: dict[int, str]) -> list[int]:
    """Which of ``processes`` still run (a zombie waiting to be reaped does not)."""
    alive = []
    for pid, started in processes.items():
        with contextlib.suppress(OSError, IndexError):
            fields = _stat(pid)
            if fields[19] == started and fields[0] not in "ZX":  # not a reused pid, not dead
                alive.append(pid)
    return alive


def _interrupted_build(tmp_path, tmp_path_factory, interrupt) -> None:
    """A build of the sleepy fixture, interrupted by ``interrupt(child)`` mid-screening:
    it must exit 130 within seconds, its runs ended, not awaited."""
    source = shutil.copytree(FIXTURES / "sleepy", tmp_path / "sleepy")
    session_cache(tmp_path_factory)
    uv_cache = os.environ.get("UV_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "uv"
    )
    env = dict(os.environ, XDG_CACHE_HOME=str(session_xdg(tmp_path_factory)), UV_CACHE_DIR=uv_cache)
    argv = [sys.executable, "-m", "corrupt", "build", str(source), "--mode", "discovery", "--n", "1",
            "--out", str(tmp_path / "out"), "--min-lines", "3", "--min-covering", "3"]  # fmt: skip
    child = subprocess.Popen(
        argv,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        # Ctrl-C as in a terminal: a suite run in the background would pass SIGINT on ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 240
        while not _build_processes_with(child.pid, WARM_MARKER):  # screening has begun
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "screening never started"
            time.sleep(0.2)
        time.sleep(2)  # every corruption of settle() sleeps a minute: a run is in flight now
        serving = _build_processes_with(child.pid, WARM_MARKER)
        assert serving
        began = time.monotonic()
        interrupt(child)
        _, err = child.communicate(timeout=60)
        took = time.monotonic() - began
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 130, err
    assert b"interrupted; rerun the same command to resume" in err
    # The per-test timeout is 10 s (ten times the fixture's 1-s test): an exit before it
    # means the run was ended, not awaited.
    assert took < 8, took
    assert not _still_running(serving)


def test_sigint_mid_screening_ends_the_runs_and_exits_130(tmp_path, tmp_path_factory):
    _interrupted_build(tmp_path, tmp_path_factory, lambda child: child.send_signal(signal.SIGINT))


def test_more_sigints_while_the_first_unwinds_do_not_hang_the_build(tmp_path, tmp_path_factory):
    """Ctrl-C twice, or once under ``timeout`` (which passes its own SIGINT on): a second
    KeyboardInterrupt raised inside the first one's clean-up could leave a lock of the
    thread pool held, and the build waiting on it forever."""

    def burst(child: subprocess.Popen[bytes]) -> None:
        for _ in range(40):
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signal.SIGINT)
            time.sleep(0.005)

    _interrupted_build(tmp_path, tmp_path_factory, burst)


def test_a_cancelled_sandbox_ends_the_run_in_flight_and_refuses_new_ones(tmp_path_factory):
    checkout = fixture_checkout("sleepy", tmp_path_factory)
    sandbox = LocalSandbox(cache_dir=session_cache(tmp_path_factory))
    env = sandbox.prepare(checkout)
    results = []
    with Workspace(checkout) as ws:
        sleep = Command(
            ["python", "-c", "import time; time.sleep(300)"], limits=Limits(timeout=600)
        )
        runner = threading.Thread(target=lambda: results.append(sandbox.run(env, ws.path, sleep)))
        runner.start()
        time.sleep(1.5)
        sandbox.cancel()
        runner.join(timeout=20)
        assert not runner.is_alive()
        assert results and results[0].exit_code != 0 and not results[0].timed_out
        with pytest.raises(SandboxError, match="interrupted"):
            sandbox.run(env, ws.path, sleep)
