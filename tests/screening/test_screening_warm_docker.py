"""Warm screening through the docker sandbox, on a real engine: the server runs in a
container with its own copy of the tree, so it writes each candidate's files there
and sends the report back in its reply. Every answer is checked against a fresh
container running the same candidate, as the local server's are against a fresh
process (tests/screening/test_screening_warm.py)."""

from __future__ import annotations

import dataclasses

import pytest
from docker_engine import engine_client, find_engine
from repos_run_support import fixture_checkout

from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.docker.sandbox import DockerSandbox
from corrupt.screening.warm import Reimport, WarmServer, WarmUnavailable
from corrupt.suites.runner import run_tests

pytestmark = pytest.mark.docker

LIB = "src/shapes/geometry.py"
G = "tests/test_geometry.py::"
TESTS = [G + name for name in ("test_add", "test_copied_add", "test_double", "test_clamp")]
TESTS += [G + "test_ranked", G + "test_twice"]


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    host, base = find_engine()
    sandbox = DockerSandbox(base_image=base, docker_host=host)
    checkout = fixture_checkout("warm", tmp_path_factory)
    yield checkout, sandbox, sandbox.prepare(checkout)
    sandbox.close()


@pytest.fixture(scope="module")
def ws(shapes):
    with Workspace(shapes[0]) as workspace:
        yield workspace


@pytest.fixture(scope="module")
def server(shapes, ws):
    _, sandbox, env = shapes
    warm = WarmServer(sandbox, env, ws.path, startup_timeout=300)
    yield warm
    warm.close()


def answer(server, ws, new, *, reimport=Reimport.NEVER):
    before = (ws.path / LIB).read_text()
    with ws.patched({LIB: new}):
        return server.run(
            {LIB: new}, {LIB: before}, TESTS, max_failures=None, timeout=120,
            per_test_timeout=30, reimport=reimport,
        )  # fmt: skip


def fresh(shapes, ws, new):
    _, sandbox, env = shapes
    with ws.patched({LIB: new}):
        return run_tests(sandbox, env, ws.path, select=TESTS, per_test_timeout=30)


def outcomes(report):
    return {nodeid: result.outcome for nodeid, result in report.results.items()}


def frames(report, nodeid):
    return [(f.file, f.line) for f in report.results[nodeid].frames]


def test_the_server_keeps_a_container_of_its_own(server):
    assert server.service.shares_tree is False
    assert server.collected > len(TESTS)


@pytest.mark.parametrize(
    "old, new, reimport",
    [
        ("    return a + b\n", "    total = a + b\n    total += 1\n    return total\n", None),
        ("x * 2)", "x * 3)", None),
        ("LIMIT = 10\n", "LIMIT = 0\n", Reimport.DECLINED),  # runs at import: re-imported
    ],
    ids=["swapped, lines moved", "swapped lambda", "re-imported"],
)
def test_a_candidate_fails_the_same_tests_warm_in_the_container_and_fresh(
    shapes, ws, server, old, new, reimport
):
    source = (ws.path / LIB).read_text()
    corrupted = source.replace(old, new, 1)
    assert corrupted != source
    run = answer(server, ws, corrupted, reimport=reimport or Reimport.NEVER)
    assert run.report is not None, run.declined
    assert (run.declined is not None) is (reimport is not None)
    slow = fresh(shapes, ws, corrupted)
    assert slow.failing()
    assert outcomes(run.report) == outcomes(slow)
    for nodeid in slow.failing():  # tracebacks read the candidate's lines, in the container
        assert frames(run.report, nodeid) == frames(slow, nodeid)
    # the server put its copy back: the unchanged code passes there again
    again = answer(server, ws, source, reimport=Reimport.ALWAYS)
    assert again.report is not None
    assert set(outcomes(again.report).values()) == {"passed"}


def test_closing_the_server_removes_its_container(shapes, ws):
    _, sandbox, env = shapes
    warm = WarmServer(sandbox, env, ws.path, startup_timeout=300)
    container = warm.service.container
    container.reload()
    assert container.status == "running"
    warm.close()
    with engine_client(find_engine()[0]) as client:
        assert not client.containers.list(all=True, filters={"id": container.id})


def test_a_server_the_engine_cannot_start_means_fresh_runs_not_a_failed_build(shapes, ws):
    _, sandbox, env = shapes
    gone = dataclasses.replace(env, location="corrupt/no-such-image:0")
    with pytest.raises(WarmUnavailable, match="could not start: image corrupt/no-such-image"):
        WarmServer(sandbox, gone, ws.path, startup_timeout=60)
