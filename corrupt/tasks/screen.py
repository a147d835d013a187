"""Screeners: the build's way of running tests on a patched working copy.

The corrupt stage never touches sandboxes or working copies itself; it is
handed a :class:`TreeScreener` (a :class:`~corrupt.corruptors.models.Screener`)
that writes the candidate's files into this worker's private working copy,
runs the chosen tests there, and restores the files.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from corrupt.repos.models import Baseline, Environment, TestReport
from corrupt.repos.runner import run_tests
from corrupt.repos.sandbox import Sandbox
from corrupt.repos.workspace import Workspace


@dataclass
class RunBudget:
    """Time limits for runs on corrupted code, derived from the baseline.

    A corruption can turn a loop infinite, so every run gets a per-test timeout
    well above the slowest baseline test and a whole-run timeout well above the
    baseline suite's time.
    """

    timeout: float
    per_test_timeout: float

    @classmethod
    def from_baseline(cls, baseline: Baseline) -> RunBudget:
        slowest = max(baseline.durations.values(), default=1.0)
        return cls(
            timeout=max(60.0, 3 * baseline.seconds + 30), per_test_timeout=max(10.0, 10 * slowest)
        )


class TreeScreener:
    """Runs tests on one worker's working copy with some files replaced."""

    def __init__(
        self,
        sandbox: Sandbox,
        env: Environment,
        workspace: Workspace,
        budget: RunBudget,
        *,
        full_suite: bool = False,
    ) -> None:
        self.sandbox = sandbox
        self.env = env
        self.workspace = workspace
        self.budget = budget
        self.full_suite = (
            full_suite  # screen on the whole suite, no failure budget (the slow baseline approach)
        )
        self.runs = 0

    def __call__(
        self, files: dict[str, str], tests: Sequence[str] | None, max_failures: int | None
    ) -> TestReport:
        if self.full_suite:
            tests, max_failures = None, None
        return self.run(files, tests=tests, max_failures=max_failures)

    def run(
        self,
        files: dict[str, str],
        *,
        tests: Sequence[str] | None = None,
        max_failures: int | None = None,
    ) -> TestReport:
        """Run tests (all when ``tests`` is None) with ``files`` written into the working copy."""
        self.runs += 1
        with self.workspace.patched(files):
            return run_tests(
                self.sandbox,
                self.env,
                self.workspace.path,
                select=list(tests) if tests is not None else None,
                max_failures=max_failures,
                timeout=self.budget.timeout,
                per_test_timeout=self.budget.per_test_timeout,
            )
