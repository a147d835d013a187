"""The sandbox contract as reusable tests.

A test module for one sandbox kind defines a session-scoped ``sandbox``
fixture and does ``from sandbox_contract import *``; every test below then
runs against that sandbox, through the real runner and a real pytest suite
(``tests/fixtures/repos_run/hostile``) whose tests attack on purpose, knowing
every host path (the contract tells them, in ``plan.json``).

Each attack is a ``probe_*`` function that returns what got through (empty
when the sandbox held), judged on the host's side: files, sockets,
processes, what the run reported. The contract asserts each is empty; the
local sandbox's tests run the same probes with isolation switched off and
assert each is not, so every protection is shown to be what stops its attack.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from repos_run_support import fixture_checkout, session_cache, tree_digest

from corrupt.errors import SandboxError
from corrupt.repos.models import IO_DIR, Command, Limits
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.local.limits import memory_cgroups
from corrupt.suites.runner import run_tests

HOSTILE = "tests/test_hostile.py::"
SECRET = "s3cret-token-value-7f1c"
PWNED = "pwned-by-test"

__all__ = [
    "hostile",
    "greeter",
    "test_contract_planted_secret_is_invisible",
    "test_contract_host_loopback_server_is_unreachable",
    "test_contract_sleeping_test_is_killed_and_reported_as_timeout",
    "test_contract_a_per_test_timeout_stops_the_run_there",
    "test_contract_unbounded_allocation_is_stopped",
    "test_contract_cached_clone_is_byte_identical_after_vandalism",
    "test_contract_other_processes_and_home_files_keep_their_secrets",
    "test_contract_no_write_reaches_the_host",
    "test_contract_committed_symlinks_lead_nowhere",
    "test_contract_host_unix_sockets_are_unreachable",
    "test_contract_root_cannot_setns_or_remount_its_way_out",
    "test_contract_no_daemon_outlives_its_run",
    "test_contract_fork_bomb_is_bounded",
    "test_contract_disk_filling_is_bounded",
    "test_contract_poisoned_report_cannot_hang_or_flood_the_host",
    "test_contract_sysctls_cannot_be_written",
    "test_contract_restoring_a_patched_file_never_follows_a_link",
    "test_contract_memory_outside_the_heap_is_bounded",
    "test_contract_a_served_command_gets_the_same_box_as_a_run",
]


@pytest.fixture(scope="module")
def hostile(sandbox, tmp_path_factory):
    checkout = fixture_checkout("hostile", tmp_path_factory)
    return checkout, sandbox.prepare(checkout)


def run_hostile(sandbox, env, checkout, name: str, plan: dict, **options):
    """Run one hostile test in a fresh working copy with ``plan.json``; returns its result."""
    nodeid = HOSTILE + name
    with Workspace(checkout) as ws, ws.patched({"plan.json": json.dumps(plan)}):
        report = run_tests(sandbox, env, ws.path, select=[nodeid], **options)
    return report.results[nodeid]


def test_contract_planted_secret_is_invisible(sandbox, hostile, monkeypatch):
    checkout, env = hostile
    monkeypatch.setenv("CORRUPT_PLANTED_SECRET", SECRET)
    monkeypatch.setenv("GITHUB_TOKEN", SECRET)
    with Workspace(checkout) as ws:
        report = run_tests(sandbox, env, ws.path, select=[HOSTILE + "test_reads_secret"])
        dump = sandbox.run(
            env, ws.path, Command(["python", "-c", "import os; print(dict(os.environ))"])
        )
    assert report.results[HOSTILE + "test_reads_secret"].outcome == "passed"
    assert dump.exit_code == 0 and "PATH" in dump.stdout
    assert SECRET not in dump.stdout


class _Listener:
    """A server on the host that counts who reached it (TCP on 127.0.0.1, or a Unix socket)."""

    def __init__(self, server: socket.socket) -> None:
        self.server = server
        self.server.settimeout(0.2)
        self.connections = 0
        self.stopping = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return self.server.getsockname()[1]

    def _serve(self) -> None:
        while not self.stopping:
            try:
                conn, _ = self.server.accept()
            except OSError:
                continue
            self.connections += 1
            with conn, contextlib.suppress(OSError):  # the client may be gone already
                conn.sendall(b"hello")

    def close(self) -> None:
        self.stopping = True
        self.thread.join()
        self.server.close()


def unix_listener(address: str) -> _Listener:
    """``address``: a path, or an abstract name (no leading ``/``)."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(address if address.startswith("/") else "\0" + address)
    server.listen()
    return _Listener(server)


@pytest.fixture
def greeter():
    server = _Listener(socket.create_server(("127.0.0.1", 0)))
    yield server
    server.close()


def test_contract_host_loopback_server_is_unreachable(sandbox, hostile, greeter):
    checkout, env = hostile
    nodeid = HOSTILE + "test_connects_to_host_server"
    with Workspace(checkout) as ws, ws.patched({"port.txt": str(greeter.port)}):
        report = run_tests(sandbox, env, ws.path, select=[nodeid], timeout=60)
    result = report.results[nodeid]
    assert result.outcome == "failed"
    assert result.exc_type in (
        "ConnectionRefusedError",
        "OSError",
        "TimeoutError",
        "ConnectionResetError",
    )
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


def test_contract_a_per_test_timeout_stops_the_run_there(sandbox, hostile):
    checkout, env = hostile
    fine, sleeper = HOSTILE + "test_reads_secret", HOSTILE + "test_sleeps_forever"
    after = HOSTILE + "test_allocates_without_bound"  # collected after the sleeper
    with Workspace(checkout) as ws:
        started = time.monotonic()
        report = run_tests(
            sandbox, env, ws.path, select=[fine, sleeper, after], timeout=60, per_test_timeout=1
        )
        elapsed = time.monotonic() - started
    assert elapsed < 30 and report.timed_out  # hung on its test, not on the whole-run timeout
    assert report.results[fine].outcome == "passed"
    assert report.results[sleeper].exc_type == "Timeout"
    assert report.results[sleeper].message == "test exceeded the per-test timeout of 1 s"
    assert after not in report.results


def test_contract_unbounded_allocation_is_stopped(sandbox, hostile):
    checkout, env = hostile
    nodeid = HOSTILE + "test_allocates_without_bound"
    with Workspace(checkout) as ws:
        started = time.monotonic()
        report = run_tests(
            sandbox, env, ws.path, select=[nodeid], timeout=120, limits=Limits(memory_mb=512)
        )
        elapsed = time.monotonic() - started
        direct = sandbox.run(
            env,
            ws.path,
            Command(
                ["python", "-c", "b = bytearray(2 * 1024**3); b[::4096] = b'x' * len(b[::4096])"],
                limits=Limits(timeout=60, memory_mb=512),
            ),
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
        # The Sandbox interface returns only ``collect`` files, so whether the
        # vandalised files reach the working copy is the sandbox's business;
        # the test passing is what shows its writes really happened.
        attempt = ws.path / "clone-attempt.txt"
        assert not attempt.exists() or attempt.read_text() != "written"
    assert report.results[nodeid].outcome == "passed"
    assert tree_digest(checkout.path) == before


# -- secrets in other processes and in the user's files ------------------------


def planted_home(root: Path) -> Path:
    """A stand-in for the user's home, with credentials where tools keep them."""
    home = root / "home"
    for rel in (".netrc", ".ssh/id_ed25519", ".config/gh/hosts.yml", ".bashrc"):
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(f"token {SECRET}\n")
    return home


def probe_secrets(sandbox, env, checkout, root: Path) -> list[str]:
    """A host process started with a token (as corrupt may be), and credential files."""
    home = planted_home(root)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)", SECRET],
        env={"PATH": os.environ.get("PATH", ""), "GITHUB_TOKEN": SECRET},
    )
    try:
        plan = {"secret": SECRET, "read": [str(p) for p in home.rglob("*") if p.is_file()]}
        result = run_hostile(sandbox, env, checkout, "test_steals_secrets", plan)
    finally:
        holder.kill()
        holder.wait()
    return [] if result.outcome == "passed" else [result.message or result.outcome]


def test_contract_other_processes_and_home_files_keep_their_secrets(sandbox, hostile, tmp_path):
    leaks = probe_secrets(sandbox, *reversed(hostile), tmp_path)
    assert leaks == [], leaks


# -- writes outside the working copy ---------------------------------------------


def write_targets(root: Path, checkout, env, cache: Path) -> tuple[list[Path], list[Path]]:
    """Folders and files an attacker wants to change: home, the user's repository
    (its git hooks run at the next commit), the output folder (the store), corrupt's
    caches (clones, venvs, its uv cache, the graph cache)."""
    home = planted_home(root)
    repo, out = root / "user-repo", root / "out"
    (repo / ".git" / "hooks").mkdir(parents=True)
    (repo / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\n")
    out.mkdir()
    (out / "store.sqlite").write_bytes(b"SQLite format 3\0")
    folders = [home, repo, repo / ".git" / "hooks", out, checkout.path]
    for name in ("uv", "graph", "envs"):
        (cache / name).mkdir(parents=True, exist_ok=True)
        folders.append(cache / name)
    if env.kind == "venv":
        folders += [Path(env.location), *Path(env.location).glob("lib/python*/site-packages")]
    files = [home / ".bashrc", repo / ".git" / "hooks" / "pre-commit", out / "store.sqlite"]
    return folders, files


def probe_writes(sandbox, env, checkout, root: Path, cache: Path) -> list[str]:
    folders, files = write_targets(root, checkout, env, cache)
    before = {f: f.read_bytes() for f in files}
    plan = {"folders": [str(f) for f in folders], "files": [str(f) for f in files]}
    result = run_hostile(sandbox, env, checkout, "test_writes_outside", plan)
    assert result.outcome in ("passed", "failed"), result.message  # the attack ran
    # Judged on the host only: a write into the box's own private /tmp "succeeds"
    # inside (the test reports it) without reaching the host folder of that name.
    changed = [str(f) for f in folders if (f / PWNED).exists()]
    changed += [str(f) for f in files if f.read_bytes() != before[f]]
    for folder in folders:  # leave shared caches as they were, whatever happened
        (folder / PWNED).unlink(missing_ok=True)
    return changed


def test_contract_no_write_reaches_the_host(sandbox, hostile, tmp_path, tmp_path_factory):
    checkout, env = hostile
    got = probe_writes(sandbox, env, checkout, tmp_path, session_cache(tmp_path_factory))
    assert got == [], got


def probe_symlinks(sandbox, env, checkout, root: Path) -> list[str]:
    """Committed symlinks out of the tree: to a secret, to a folder, and as the
    folder the runner once used for its own files (``.corrupt``)."""
    secret, outside, runner_dir = root / "secret.txt", root / "outside", root / "runner-dir"
    secret.write_text(SECRET)
    outside.mkdir()
    runner_dir.mkdir()
    nodeid = HOSTILE + "test_follows_committed_symlinks"
    with Workspace(checkout) as ws:
        for name, target in (
            ("leak", secret),
            ("escape", outside),
            (".corrupt", runner_dir),
            ("inside", Path("data/keep.txt")),
        ):
            (ws.path / name).symlink_to(target)
        report = run_tests(sandbox, env, ws.path, select=[nodeid])
    got = [str(p) for folder in (outside, runner_dir) for p in folder.iterdir()]
    result = report.results[nodeid]
    assert result.outcome in ("passed", "failed"), result.message  # the attack ran
    return got + ([f"read {SECRET}"] if SECRET in (result.message or "") else [])


def test_contract_committed_symlinks_lead_nowhere(sandbox, hostile, tmp_path):
    got = probe_symlinks(sandbox, *reversed(hostile), tmp_path)
    assert got == [], got


# -- the host's sockets, namespaces and process table -----------------------------


def probe_unix_sockets(sandbox, env, checkout, root: Path) -> list[str]:
    path, abstract = str(root / "host.sock"), f"corrupt-contract-{uuid.uuid4().hex[:8]}"
    listeners = {path: unix_listener(path), abstract: unix_listener(abstract)}
    try:
        result = run_hostile(
            sandbox, env, checkout, "test_connects_to_host_sockets", {"unix": [path, abstract]}
        )
    finally:
        for listener in listeners.values():
            listener.close()
    reached = [
        f"{address} reached" for address, listener in listeners.items() if listener.connections
    ]
    return reached + ([] if result.outcome == "passed" else [result.message or result.outcome])


def test_contract_host_unix_sockets_are_unreachable(sandbox, hostile, tmp_path):
    got = probe_unix_sockets(sandbox, *reversed(hostile), tmp_path)
    assert got == [], got


def test_contract_root_cannot_setns_or_remount_its_way_out(sandbox, hostile, greeter, tmp_path):
    checkout, env = hostile
    folders = [
        checkout.path,
        *(Path(env.location).glob("lib/python*/site-packages") if env.kind == "venv" else []),
    ]
    plan = {"port": greeter.port, "folders": [str(f) for f in folders]}
    result = run_hostile(sandbox, env, checkout, "test_escapes_namespaces", plan)
    written = [f for f in folders if (f / PWNED).exists()]
    for folder in written:
        (folder / PWNED).unlink()
    assert result.outcome == "passed", result.message
    assert greeter.connections == 0 and written == []


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
    return found


def probe_daemons(sandbox, env, checkout) -> list[str]:
    marker = f"corrupt-daemon-{uuid.uuid4().hex[:8]}"
    result = run_hostile(sandbox, env, checkout, "test_leaves_a_daemon", {"marker": marker})
    deadline = time.monotonic() + 2  # the kernel reaps a dead namespace asynchronously
    while (alive := _processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in alive:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return [f"daemon {pid} outlived the run" for pid in alive] + (
        [] if result.outcome == "passed" else [result.message or result.outcome]
    )


def test_contract_no_daemon_outlives_its_run(sandbox, hostile):
    got = probe_daemons(sandbox, *reversed(hostile))
    assert got == [], got


# -- exhaustion ---------------------------------------------------------------------


def test_contract_fork_bomb_is_bounded(sandbox, hostile):
    checkout, env = hostile
    result = run_hostile(
        sandbox,
        env,
        checkout,
        "test_forks_without_bound",
        {},
        timeout=60,
        limits=Limits(max_processes=64),
    )
    assert result.message and result.message.startswith("forked"), result.message
    assert int(result.message.split()[1]) < 64


def probe_disk(sandbox, env, checkout, limit_mb: int = 128) -> list[str]:
    """Returns what went past ``limit_mb`` (plus one 16 MB chunk of slack)."""
    result = run_hostile(
        sandbox,
        env,
        checkout,
        "test_fills_the_disk",
        {},
        timeout=120,
        limits=Limits(disk_mb=limit_mb),
    )
    assert result.message and result.message.startswith("wrote"), result.message
    written = json.loads(result.message.split(" ", 1)[1].splitlines()[0])
    return [
        f"{where}: {size >> 20} MB"
        for where, size in written.items()
        if size > (limit_mb + 16) << 20
    ]


def test_contract_disk_filling_is_bounded(sandbox, hostile):
    got = probe_disk(sandbox, *reversed(hostile))
    assert got == [], got


@pytest.mark.parametrize("poison", ["fifo", "zero", "huge"])
def test_contract_poisoned_report_cannot_hang_or_flood_the_host(sandbox, hostile, poison):
    checkout, env = hostile
    started = time.monotonic()
    result = run_hostile(
        sandbox, env, checkout, "test_poisons_its_report", {"report": poison}, timeout=10
    )
    assert time.monotonic() - started < 40
    assert result.outcome != "passed"  # the report was unreadable: the test counts as not run


# -- what the red team found --------------------------------------------------------


def probe_sysctls(sandbox, env, checkout) -> list[str]:
    result = run_hostile(sandbox, env, checkout, "test_opens_sysctl_for_writing", {})
    return [] if result.outcome == "passed" else [result.message or result.outcome]


def test_contract_sysctls_cannot_be_written(sandbox, hostile):
    got = probe_sysctls(sandbox, *reversed(hostile))
    assert got == [], got


@pytest.mark.parametrize("folder", [False, True], ids=["file", "folder"])
def test_contract_restoring_a_patched_file_never_follows_a_link(sandbox, hostile, tmp_path, folder):
    """A test swaps a patched file (or its folder) for a link to a host folder; the
    host's restore after the run must not write there."""
    checkout, env = hostile
    victim = tmp_path / "victim"
    victim.mkdir()
    plan = json.dumps({"victim": str(victim), "folder": folder})
    with Workspace(checkout) as ws:
        try:
            with ws.patched(
                {"plan.json": plan, "data/keep.txt": "patched\n", "tests/conftest.py": ""}
            ):
                run_tests(sandbox, env, ws.path, select=[HOSTILE + "test_swaps_files_for_links"])
        except SandboxError as exc:  # a swapped folder is refused, not written through
            assert folder and "link out of the working copy" in str(exc)
    assert list(victim.iterdir()) == []


def test_contract_memory_outside_the_heap_is_bounded(sandbox, hostile):
    checkout, env = hostile
    if getattr(sandbox, "name", "") == "local" and not memory_cgroups():
        pytest.skip(
            "no memory cgroup for corrupt here: tmpfs and memfd pages are bounded only by the tmpfs sizes"
        )
    result = run_hostile(
        sandbox,
        env,
        checkout,
        "test_hoards_memory_outside_the_heap",
        {},
        timeout=60,
        limits=Limits(memory_mb=256, disk_mb=128),
    )
    held = result.message or ""
    assert result.exc_type == "Killed" or (
        held.startswith("held") and int(held.split()[1]) <= 256 + 128
    ), held


SERVER = """
import json, os, socket, sys
for line in sys.stdin:
    try:
        socket.create_connection(("1.1.1.1", 53), timeout=2).close()
        network = True
    except OSError:
        network = False
    open(os.path.join(sys.argv[1], "out.txt"), "w").write("written")
    print(json.dumps({
        "env": sorted(os.environ), "network": network, "cwd": os.getcwd(),
        "late": os.path.exists("late.txt"),
    }), flush=True)
"""


def test_contract_a_served_command_gets_the_same_box_as_a_run(sandbox, hostile, monkeypatch):
    """A long-lived server (the warm screening transport): no tokens, no network, the
    tree at /testbed, its outputs taken; a file the host writes into the tree after the
    start reaches it exactly when the service says it shares the tree; once closed it
    is gone."""
    checkout, env = hostile
    monkeypatch.setenv("GITHUB_TOKEN", SECRET)
    with Workspace(checkout) as ws:
        service = sandbox.serve(env, ws.path, Command(["python", "-c", SERVER, IO_DIR]))
        if service is None:
            pytest.skip("this sandbox keeps no server (serve is optional; screening is fresh)")
        try:
            (ws.path / "late.txt").write_text("after the start")
            service.send({})
            answer = service.receive(60)
            assert "GITHUB_TOKEN" not in answer["env"]
            assert answer["network"] is False
            assert answer["cwd"] == "/testbed"
            assert answer["late"] is service.shares_tree
            assert service.outputs(["out.txt"]) == {"out.txt": b"written"}
            assert service.outputs(["out.txt"]) == {}  # taken, not left behind
        finally:
            service.close()
        with pytest.raises(SandboxError):
            service.send({})
            service.receive(5)
