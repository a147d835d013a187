"""The APR baseline: fault localisation plus mutation repair, on a materialised task alone.

It reads only what an agent is given: the folder ``corrupt materialize``
writes (the corrupted tree, ``PROBLEM.md``, ``TASK.json`` with the test
command and the tests a harness grades on). It never sees the fix, the edit
script, the bugs, the targets or the build's store.

1. One run of the graded tests under coverage: which fail, which pass, and
   which lines each ran (the same plugin as the baseline's coverage run).
2. Ochiai ranks the product lines the failing tests ran (:mod:`localize`).
3. Candidates in rank order (:mod:`candidates`); each runs the failing tests
   first (stopping at the first failure), and only if all pass, every graded
   test. The first candidate under which every graded test passes is a
   *plausible* patch; whether it is the real fix is for the scorer to say.

Remove-mode tasks (a deleted body) are not attempted: no catalogue edit
writes a body. The runs are fresh processes: the warm server needs a
baseline's check of the unchanged code, and the solver has no baseline.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from corrupt.repos.models import Checkout, Environment, RepoSpec
from corrupt.repos.testsupport import is_test_support
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.base import Sandbox
from corrupt.screening.screen import RunBudget, TreeScreener
from corrupt.solve.candidates import candidates
from corrupt.solve.localize import RankedLine, ochiai
from corrupt.source.edits import unified_diff
from corrupt.suites.runner import run_tests

TASK_FILE = "TASK.json"
DEFAULT_BUDGET = 40  # candidates validated per task (measured in bench/apr_bench.py)


class AprStatus(StrEnum):
    SOLVED = "solved"  # a plausible patch: every graded test passes
    UNSOLVED = "unsolved"  # the budget or the candidates ran out
    NOT_ATTEMPTED = "not attempted"  # a deleted body: no catalogue edit writes one
    BROKEN = "broken"  # no graded test fails on the corrupted tree here (nothing to localise)


@dataclass
class AprResult:
    """What the solver did on one task: its patch, and how much it took."""

    status: AprStatus
    patch: str = ""
    patches_tried: int = 0
    seconds: float = 0.0
    test_runs: int = 0
    operator: str | None = None  # of the plausible patch
    ranked: list[RankedLine] = field(default_factory=list)  # the localisation, best first
    reason: str = ""

    @property
    def solved(self) -> bool:
        return self.status == AprStatus.SOLVED


@dataclass(frozen=True)
class GradedTests:
    """The task's tests as ``TASK.json`` lists them, and what a run may take."""

    fail_to_pass: list[str]
    pass_to_pass: list[str]
    mode: str

    @classmethod
    def read(cls, folder: Path) -> GradedTests:
        manifest = json.loads((folder / TASK_FILE).read_text(encoding="utf-8"))
        return cls(manifest["fail_to_pass"], manifest["pass_to_pass"], manifest["mode"])

    @property
    def all(self) -> list[str]:
        return self.fail_to_pass + self.pass_to_pass


def solve_folder(
    folder: Path,
    sandbox: Sandbox,
    env: Environment,
    *,
    budget: int = DEFAULT_BUDGET,
    run_budget: RunBudget | None = None,
) -> AprResult:
    """Try to repair the materialised task in ``folder`` (which is never changed)."""
    started = time.monotonic()
    tests = GradedTests.read(folder)
    if tests.mode == "remove":
        return AprResult(
            AprStatus.NOT_ATTEMPTED, reason="a deleted body: no catalogue edit writes one"
        )
    limits = run_budget or RunBudget(timeout=600.0, per_test_timeout=30.0)
    copy = Checkout(RepoSpec("local", str(folder)), folder.name, str(folder), "solve", folder)
    with Workspace(copy) as workspace:
        screener = TreeScreener(sandbox, env, workspace, limits)
        first = run_tests(
            sandbox,
            env,
            workspace.path,
            select=tests.all,
            timeout=limits.timeout,
            per_test_timeout=limits.per_test_timeout,
            coverage=True,
        )
        failing, passing = first.failing() & set(tests.all), first.passing() & set(tests.all)
        result = AprResult(AprStatus.UNSOLVED, test_runs=1)
        if not failing:
            result.status, result.reason = (
                AprStatus.BROKEN,
                "no graded test fails on the corrupted tree",
            )
            return _timed(result, started)
        graded = set(tests.all)
        # By name only: a module the graded ids name may hold doctests and still be product code.
        result.ranked = ochiai(
            first.line_coverage,
            failing,
            passing,
            is_product=lambda path: not is_test_support(path, set()),
        )
        for candidate in candidates(result.ranked, workspace.read):
            if result.patches_tried >= budget:
                result.reason = f"budget of {budget} candidates spent"
                break
            result.patches_tried += 1
            change = {candidate.file: candidate.text}
            quick = screener(change, sorted(failing), max_failures=1)
            if not failing <= quick.passing():
                continue
            whole = screener(change, tests.all, max_failures=1)
            if graded <= whole.passing():
                result.status, result.operator = AprStatus.SOLVED, candidate.operator
                result.patch = unified_diff(
                    candidate.file, workspace.read(candidate.file) or "", candidate.text
                )
                break
        else:
            result.reason = result.reason or "no candidate left at the ranked lines"
        result.test_runs += screener.runs
    return _timed(result, started)


def _timed(result: AprResult, started: float) -> AprResult:
    result.seconds = round(time.monotonic() - started, 2)
    return result
