"""The local sandbox's bytecode cache on a real suite (tests/fixtures/repos_run/calc).

One run of the unchanged tree compiles into the cache; every other run reads it
through a read-only mount and compiles a changed file afresh. Each test gets a
cache folder of its own (the venv is the session's).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import time
from pathlib import Path

import pytest
from repos_run_support import fixture_checkout, session_cache

from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.suites.baseline import prime_bytecode
from corrupt.suites.runner import run_tests

FACTORIAL = "tests/test_ops.py::test_factorial[5-120]"
OPS = "src/calc/ops.py"
# the same size as the original line: only the modification time tells them apart
SAME_SIZE_CHANGE = ("    result = 1\n", "    result = 0\n")


@pytest.fixture(scope="module")
def calc(tmp_path_factory):
    checkout = fixture_checkout("calc", tmp_path_factory)
    return checkout, LocalSandbox(cache_dir=session_cache(tmp_path_factory)).prepare(checkout)


@pytest.fixture
def sandbox(tmp_path):
    return LocalSandbox(cache_dir=tmp_path / "cache")


def cached_files(sandbox: LocalSandbox, env) -> dict[str, int]:
    root = sandbox.cache_dir / "bytecode" / env.key
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.rglob("*.pyc")}


def run_probe(calc, sandbox: LocalSandbox, body: str, *, stores_bytecode: bool = False):
    """Run one test patched into a copy of the tree: ``body`` with ``prefix`` (the bytecode
    cache's folder, as the box sees it) in scope."""
    checkout, env = calc
    source = (
        "import os, pathlib\n"
        "def test_probe():\n"
        "    prefix = pathlib.Path(os.environ['PYTHONPYCACHEPREFIX'])\n" + body
    )
    nodeid = "tests/test_probe.py::test_probe"
    with Workspace(checkout) as ws, ws.patched({"tests/test_probe.py": source}):
        report = run_tests(sandbox, env, ws.path, select=[nodeid], stores_bytecode=stores_bytecode)
    return report.results[nodeid]


def changed(ws: Workspace) -> dict[str, str]:
    return {OPS: ws.read(OPS).replace(*SAME_SIZE_CHANGE)}


def test_one_run_of_the_unchanged_tree_fills_the_cache(calc, sandbox):
    checkout, env = calc
    assert sandbox.stores_bytecode(env)
    prime_bytecode(checkout, sandbox, env, 60)
    cached = cached_files(sandbox, env)
    compiled = {Path(name).name.split(".")[0] for name in cached}
    # the project, pytest's rewritten test module, pytest itself and the standard library
    assert {"ops", "test_ops", "fixtures", "inspect"} <= compiled
    assert any("-pytest-" in name for name in cached)
    assert not sandbox.stores_bytecode(env)  # so prime_bytecode runs nothing again


def test_a_changed_file_runs_its_own_code_and_leaves_the_cache_alone(calc, sandbox):
    checkout, env = calc
    prime_bytecode(checkout, sandbox, env, 60)
    cached = cached_files(sandbox, env)
    with Workspace(checkout) as ws:
        with ws.patched(changed(ws)):
            assert run_tests(sandbox, env, ws.path, select=[FACTORIAL]).failing() == {FACTORIAL}
        assert run_tests(sandbox, env, ws.path, select=[FACTORIAL]).failing() == set()
    assert cached_files(sandbox, env) == cached


def test_a_box_cannot_write_the_cache(calc, sandbox):
    checkout, env = calc
    prime_bytecode(checkout, sandbox, env, 60)
    result = run_probe(
        calc,
        sandbox,
        "    assert any(prefix.rglob('*.pyc'))\n"
        "    try:\n"
        "        (prefix / 'planted.pyc').write_bytes(b'')\n"
        "    except OSError:\n"
        "        return\n"
        "    raise AssertionError('wrote into the bytecode cache')\n",
    )
    assert result.outcome == "passed", result.message
    assert "planted.pyc" not in cached_files(sandbox, env)


def test_a_same_size_change_in_the_checkout_files_second_is_not_taken_for_it(
    calc, sandbox, tmp_path
):
    """Python trusts a .pyc whose recorded size and whole-second time match the source.
    The checkout's file is stamped a few seconds ahead, the cache filled, and the
    change written within that very second: without the workspace's own stamp the
    run would import the original's bytecode and pass."""
    checkout, env = calc
    tree = tmp_path / "tree"
    shutil.copytree(checkout.path, tree, symlinks=True)
    second = int(time.time()) + 4
    os.utime(tree / OPS, (second, second))
    stamped = dataclasses.replace(checkout, path=tree)
    prime_bytecode(stamped, sandbox, env, 60)
    with Workspace(stamped) as ws:
        assert time.time() < second, "filling the cache took longer than the margin"
        time.sleep(second + 0.05 - time.time())
        with ws.patched(changed(ws)):
            assert int((ws.path / OPS).stat().st_mtime) != second
            assert run_tests(sandbox, env, ws.path, select=[FACTORIAL]).failing() == {FACTORIAL}
        # restored: the checkout's time again, and with it the cached bytecode
        assert (ws.path / OPS).stat().st_mtime_ns == (tree / OPS).stat().st_mtime_ns


def test_a_filling_run_leaves_no_fifo_or_link_in_the_cache(calc, sandbox):
    """The run that fills the cache is the repository's code too: what it leaves in the
    folder besides files and folders is not copied (a FIFO would block the copy, a
    link would point out of the cache)."""
    env = calc[1]
    result = run_probe(
        calc,
        sandbox,
        "    os.mkfifo(prefix / 'fifo.pyc')\n    (prefix / 'link.pyc').symlink_to('/etc/passwd')\n",
        stores_bytecode=True,
    )
    assert result.outcome == "passed", result.message
    root = sandbox.cache_dir / "bytecode" / env.key
    assert any(root.rglob("*.pyc"))
    assert not os.path.lexists(root / "fifo.pyc")
    assert not os.path.lexists(root / "link.pyc")
