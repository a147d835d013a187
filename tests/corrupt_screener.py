"""The real screener over a small fixture repository, for tests of the corrupt stage.

Adversarial search, the LLM corruptor and composition are handed a Screener by
the build; these tests hand them the same one (``TreeScreener``: a private
working copy, the local sandbox, the pytest runner) over
``tests/fixtures/corrupt_search/inventory``, so every candidate is judged by
real pytest runs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from corrupt.corruptors.models import CorruptionRequest, TargetSource
from corrupt.repos.checkout import checkout
from corrupt.repos.specs import parse_spec
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.screening.screen import RunBudget, TreeScreener
from corrupt.suites.runner import run_tests

FIXTURE = Path(__file__).parent / "fixtures" / "corrupt_search" / "inventory"
CORE = "inventory/core.py"


@pytest.fixture(scope="session")
def inventory(tmp_path_factory) -> tuple[TreeScreener, set[str]]:
    """A screener over the inventory fixture and its baseline passing tests."""
    root = tmp_path_factory.mktemp("corrupt_search")
    shutil.copytree(FIXTURE, root / "inventory")
    cache = root / "cache"
    repo = checkout(parse_spec(str(root / "inventory")), cache_dir=cache)
    sandbox = LocalSandbox(cache_dir=cache)
    env = sandbox.prepare(repo)
    with Workspace(repo) as workspace:
        report = run_tests(sandbox, env, workspace.path)
        assert report.passing() and not report.failing(), report.output_tail
        budget = RunBudget(timeout=60.0, per_test_timeout=10.0)
        yield TreeScreener(sandbox, env, workspace, budget), report.passing()


def core_source() -> str:
    with open(FIXTURE / CORE, encoding="utf-8", newline="") as fh:
        return fh.read()


def def_line(source: str, name: str) -> int:
    """1-based line of ``def name`` in ``source``."""
    for number, line in enumerate(source.splitlines(), 1):
        if line.lstrip().startswith(f"def {name}("):
            return number
    raise LookupError(name)


def replace_once(source: str, old: str, new: str) -> str:
    assert source.count(old) == 1, old
    return source.replace(old, new)


def request(
    source: str,
    file: str,
    qualname: str,
    line: int,
    covering: list[str],
    passing: set[str],
    *,
    min_failing: int = 5,
    seed: int = 0,
) -> CorruptionRequest:
    """The request the build would make for one target."""
    target = TargetSource(file, qualname, line, source, tuple(covering))
    return CorruptionRequest((target,), frozenset(passing), min_failing=min_failing, seed=seed)
