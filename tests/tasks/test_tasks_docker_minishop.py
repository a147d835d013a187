"""The bundled example's suite gives the same per-test outcomes in a container as locally.

Run on a corrupted tree, so agreement covers failures (with their exception
types) and not only a wall of passes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from docker_engine import find_engine

from corrupt.repos.checkout import checkout
from corrupt.repos.specs import parse_spec
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.docker.sandbox import DockerSandbox
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.suites.runner import run_tests

pytestmark = pytest.mark.docker

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "minishop"
TARGET = "src/minishop/utils.py"
ORIGINAL_LINE = "        return Decimal(repr(value))"
CORRUPTED_LINE = "        return Decimal(str(round(value)))"
KEPT_TESTS = {"test_utils.py", "test_money.py", "test_pricing.py"}


def outcomes(report) -> dict[str, tuple[str, str | None]]:
    return {nodeid: (r.outcome, r.exc_type) for nodeid, r in report.results.items()}


@pytest.fixture(scope="module")
def sandboxes():
    host, base = find_engine()
    if not EXAMPLE.is_dir():
        pytest.fail("examples/minishop is missing")
    pinned = checkout(parse_spec(str(EXAMPLE)))
    local, docker = LocalSandbox(), DockerSandbox(base_image=base, docker_host=host)
    yield pinned, [(local, local.prepare(pinned)), (docker, docker.prepare(pinned))]
    docker.close()


def test_minishop_outcomes_agree_between_local_and_docker(sandboxes):
    pinned, pairs = sandboxes
    source = (pinned.path / TARGET).read_text(encoding="utf-8")
    assert ORIGINAL_LINE in source, "the example changed; pick another corruption"
    corrupted = source.replace(ORIGINAL_LINE, CORRUPTED_LINE, 1)
    runs = []
    for sandbox, env in pairs:
        with Workspace(pinned) as ws, ws.patched({TARGET: corrupted}):
            for test_file in (ws.path / "tests").glob("test_*.py"):  # keep CI time small
                if test_file.name not in KEPT_TESTS:
                    test_file.unlink()
            runs.append(outcomes(run_tests(sandbox, env, ws.path, timeout=120)))
    local, docker = runs
    assert sum(o == "failed" for o, _ in local.values()) >= 3
    assert sum(o == "passed" for o, _ in local.values()) >= 50
    assert docker == local
    assert pairs[1][1].location.startswith("corrupt/local__minishop:")
