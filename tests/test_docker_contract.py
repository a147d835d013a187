"""The shared sandbox contract (tests/sandbox_contract.py) against DockerSandbox on a real engine."""

from __future__ import annotations

import pytest
from docker_engine import find_engine
from repos_run_support import tree_digest
from sandbox_contract import *  # noqa: F403
from sandbox_contract import HOSTILE

from corrupt.repos.docker_sandbox import DockerSandbox
from corrupt.repos.runner import run_tests
from corrupt.repos.workspace import Workspace

pytestmark = pytest.mark.docker


@pytest.fixture(scope="session")
def sandbox():
    host, base = find_engine()
    box = DockerSandbox(base_image=base, docker_host=host)
    yield box
    box.close()


def test_contract_cached_clone_is_byte_identical_after_vandalism(sandbox, hostile):  # noqa: F811
    """The shared test, except its control: a container's writes stay in the container.

    The Sandbox interface returns only ``command.collect`` paths to the host,
    so the vandalised files never reach even the working copy; the test
    passing inside the container is what shows the writes happened.
    """
    checkout, env = hostile
    before = tree_digest(checkout.path)
    nodeid = HOSTILE + "test_vandalises_tree"
    with Workspace(checkout) as ws:
        tree_before = tree_digest(ws.path)
        report = run_tests(sandbox, env, ws.path, select=[nodeid])
        after = {k: v for k, v in tree_digest(ws.path).items() if not k.startswith(".corrupt")}
    assert report.results[nodeid].outcome == "passed"
    assert after == tree_before
    assert tree_digest(checkout.path) == before
