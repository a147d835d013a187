"""The sandbox contract as reusable tests.

A test module for one sandbox kind defines a session-scoped ``sandbox``
fixture and does ``from sandbox_contract import *``; every test below then
runs against that sandbox, through the real runner and a real pytest suite
(``tests/fixtures/repos_run/hostile``) whose tests misbehave on purpose.
"""

from __future__ import annotations

import socket
import threading
import time

import pytest
from repos_run_support import fixture_checkout, tree_digest

from corrupt.repos.models import Command, Limits
from corrupt.repos.runner import run_tests
from corrupt.repos.workspace import Workspace

HOSTILE = "tests/test_hostile.py::"
SECRET = "s3cret-token-value-7f1c"

__all__ = [
    "hostile",
    "greeter",
    "test_contract_planted_secret_is_invisible",
    "test_contract_host_loopback_server_is_unreachable",
    "test_contract_sleeping_test_is_killed_and_reported_as_timeout",
    "test_contract_per_test_timeout_stops_one_test",
    "test_contract_unbounded_allocation_is_stopped",
    "test_contract_cached_clone_is_byte_identical_after_vandalism",
]


@pytest.fixture(scope="module")
def hostile(sandbox, tmp_path_factory):
    checkout = fixture_checkout("hostile", tmp_path_factory)
    return checkout, sandbox.prepare(checkout)


def test_contract_planted_secret_is_invisible(sandbox, hostile, monkeypatch):
    checkout, env = hostile
    monkeypatch.setenv("CORRUPT_PLANTED_SECRET", SECRET)
    monkeypatch.setenv("GITHUB_TOKEN", SECRET)
    with Workspace(checkout) as ws:
        report = run_tests(sandbox, env, ws.path, select=[HOSTILE + "test_reads_secret"])
        dump = sandbox.run(env, ws.path, Command(["python", "-c", "import os; print(dict(os.environ))"]))
    assert report.results[HOSTILE + "test_reads_secret"].outcome == "passed"
    assert dump.exit_code == 0 and "PATH" in dump.stdout
    assert SECRET not in dump.stdout


class _Greeter:
    """A TCP server on the host's 127.0.0.1 that counts who reached it."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.connections = 0
        self.stopping = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopping:
            try:
                conn, _ = self.server.accept()
            except OSError:
                continue
            self.connections += 1
            with conn:
                conn.sendall(b"hello")

    def close(self) -> None:
        self.stopping = True
        self.thread.join()
        self.server.close()


@pytest.fixture
def greeter():
    server = _Greeter()
    yield server
    server.close()


def test_contract_host_loopback_server_is_unreachable(sandbox, hostile, greeter):
    checkout, env = hostile
    nodeid = HOSTILE + "test_connects_to_host_server"
    with Workspace(checkout) as ws, ws.patched({"port.txt": str(greeter.port)}):
        report = run_tests(sandbox, env, ws.path, select=[nodeid], timeout=60)
    result = report.results[nodeid]
    assert result.outcome == "failed"
    assert result.exc_type in ("ConnectionRefusedError", "OSError", "TimeoutError", "ConnectionResetError")
    assert greeter.connections == 0


def test_contract_sleeping_test_is_killed_and_reported_as_timeout(sandbox, hostile):
    checkout, env = hostile
    nodeid = HOSTILE + "test_sleeps_forever"
    with Workspace(checkout) as ws:
        started = time.monotonic()
        report = run_tests(sandbox, env, ws.path, select=[nodeid], timeout=4)
        elapsed = time.monotonic() - started
    assert elapsed < 4 + 5
    assert report.timed_out
    assert report.results[nodeid].outcome == "failed"
    assert report.results[nodeid].exc_type == "Timeout"


def test_contract_per_test_timeout_stops_one_test(sandbox, hostile):
    checkout, env = hostile
    sleeper, fine = HOSTILE + "test_sleeps_forever", HOSTILE + "test_reads_secret"
    with Workspace(checkout) as ws:
        started = time.monotonic()
        report = run_tests(sandbox, env, ws.path, select=[sleeper, fine], timeout=60, per_test_timeout=1)
        elapsed = time.monotonic() - started
    assert elapsed < 30 and not report.timed_out
    assert report.results[sleeper].exc_type == "Timeout"
    assert report.results[fine].outcome == "passed"


def test_contract_unbounded_allocation_is_stopped(sandbox, hostile):
    checkout, env = hostile
    nodeid = HOSTILE + "test_allocates_without_bound"
    with Workspace(checkout) as ws:
        started = time.monotonic()
        report = run_tests(sandbox, env, ws.path, select=[nodeid], timeout=120, memory_mb=512)
        elapsed = time.monotonic() - started
        direct = sandbox.run(
            env,
            ws.path,
            Command(["python", "-c", "b = bytearray(2 * 1024**3); b[::4096] = b'x' * len(b[::4096])"],
                    limits=Limits(timeout=60, memory_mb=512)),
        )
    assert elapsed < 60 and not report.timed_out
    result = report.results[nodeid]
    assert result.outcome in ("failed", "error")
    assert result.exc_type in ("MemoryError", "Killed")
    assert direct.exit_code != 0 and direct.killed == "memory"


def test_contract_cached_clone_is_byte_identical_after_vandalism(sandbox, hostile):
    checkout, env = hostile
    before = tree_digest(checkout.path)
    nodeid = HOSTILE + "test_vandalises_tree"
    with Workspace(checkout) as ws, ws.patched({"clone.txt": str(checkout.path)}):
        report = run_tests(sandbox, env, ws.path, select=[nodeid])
        # The Sandbox interface returns only ``collect`` paths, so whether the
        # vandalised files reach the working copy is the sandbox's business;
        # the test passing is what shows its writes really happened.
        attempt = ws.path / "clone-attempt.txt"
        assert not attempt.exists() or attempt.read_text() != "written"
    assert report.results[nodeid].outcome == "passed"
    assert tree_digest(checkout.path) == before
