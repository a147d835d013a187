"""Screeners: the build's way of running tests on a patched working copy.

The corrupt stage never touches sandboxes or working copies itself; it is
handed a :class:`TreeScreener` (a :class:`~corrupt.corruptors.models.Screener`)
that writes the candidate's files into this worker's private working copy,
runs the chosen tests there (in a warm server or a fresh process), and
restores the files.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from corrupt.repos.models import Baseline, Environment, TestReport
from corrupt.repos.runner import run_tests
from corrupt.repos.sandbox import Sandbox
from corrupt.repos.warm import WarmServer, WarmUnavailable
from corrupt.repos.workspace import Workspace
from corrupt.tasks.modes import ScreeningMode


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


CALIBRATIONS = 3  # warm runs checked against a fresh run before warm results are trusted


@dataclass
class WarmPolicy:
    """Whether warm screening holds for this repository: one decision shared by a build's workers.

    The first :data:`CALIBRATIONS` warm runs are repeated in a fresh process;
    one disagreement (import-time state a test relies on, a module the swap
    cannot reach) turns warm screening off for the repository, as does a
    server that cannot start or stops answering. ``reason`` records why.
    """

    enabled: bool = True
    reason: str = ""
    calibrations: int = CALIBRATIONS
    warm_runs: int = 0
    fallbacks: int = 0  # candidates a warm server could not swap in, run fresh instead
    fallback_reasons: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def disable(self, reason: str) -> None:
        with self._lock:
            if self.enabled:
                self.enabled, self.reason = False, reason

    def take_calibration(self) -> bool:
        with self._lock:
            if self.calibrations <= 0:
                return False
            self.calibrations -= 1
            return True

    def count(self, *, fallback: str | None = None) -> None:
        with self._lock:
            if fallback is None:
                self.warm_runs += 1
                return
            self.fallbacks += 1
            self.fallback_reasons[fallback] = self.fallback_reasons.get(fallback, 0) + 1

    def as_dict(self) -> dict[str, object]:
        return {
            "warm": self.enabled,
            "reason": self.reason,
            "warm_runs": self.warm_runs,
            "fallbacks": self.fallbacks,
            "fallback_reasons": dict(self.fallback_reasons),
        }


def fastest_files_first(tests: Sequence[str], durations: dict[str, float]) -> list[str]:
    """``tests`` grouped by file, files by their tests' baseline time (quickest first).

    With a failure budget a run stops at its N-th failure, so quick files
    first reach it sooner; the plugin keeps collection order within a file.
    """
    by_file: dict[str, list[str]] = {}
    for nodeid in tests:
        by_file.setdefault(nodeid.split("::", 1)[0], []).append(nodeid)
    files = sorted(by_file, key=lambda f: sum(durations.get(n, 0.0) for n in by_file[f]))
    return [nodeid for file in files for nodeid in by_file[file]]


def disagreement(warm: TestReport, fresh: TestReport) -> str | None:
    """The first test whose outcome differs between a warm and a fresh run of one candidate."""
    for nodeid in sorted(set(warm.results) | set(fresh.results)):
        a, b = warm.results.get(nodeid), fresh.results.get(nodeid)
        if (a and a.outcome) != (b and b.outcome):
            return f"{nodeid}: {a.outcome if a else 'not run'} warm, {b.outcome if b else 'not run'} fresh"
    if warm.stopped_early != fresh.stopped_early:
        return "the failure budget stopped one run and not the other"
    return None


class TreeScreener:
    """Runs tests on one worker's working copy with some files replaced.

    Screening runs (``__call__``) go to a warm server when the mode and the
    repository allow, else to a fresh process; :meth:`run` (verification,
    the baseline's full suite) is always a fresh process.
    """

    def __init__(
        self,
        sandbox: Sandbox,
        env: Environment,
        workspace: Workspace,
        budget: RunBudget,
        *,
        screening: ScreeningMode = ScreeningMode.FRESH,
        durations: dict[str, float] | None = None,
        policy: WarmPolicy | None = None,
    ) -> None:
        self.sandbox = sandbox
        self.env = env
        self.workspace = workspace
        self.budget = budget
        self.screening = screening
        self.durations = durations or {}
        self.policy = policy or WarmPolicy()
        self.runs = 0
        self._server: WarmServer | None = None

    def __call__(
        self, files: dict[str, str], tests: Sequence[str] | None, max_failures: int | None
    ) -> TestReport:
        if self.screening == ScreeningMode.SUITE:
            return self.run(files)
        if tests is not None:
            tests = fastest_files_first(tests, self.durations)
        if self.screening == ScreeningMode.WARM and self.policy.enabled:
            report = self._warm(files, tests, max_failures)
            if report is not None:
                return report
        return self.run(files, tests=tests, max_failures=max_failures)

    def run(
        self,
        files: dict[str, str],
        *,
        tests: Sequence[str] | None = None,
        max_failures: int | None = None,
    ) -> TestReport:
        """Run tests (all when ``tests`` is None) with ``files`` written into the working copy."""
        with self.workspace.patched(files):
            return self._fresh(tests, max_failures)

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None

    def _fresh(self, tests: Sequence[str] | None, max_failures: int | None) -> TestReport:
        self.runs += 1
        return run_tests(
            self.sandbox,
            self.env,
            self.workspace.path,
            select=list(tests) if tests is not None else None,
            max_failures=max_failures,
            timeout=self.budget.timeout,
            per_test_timeout=self.budget.per_test_timeout,
        )

    def _warm(
        self, files: dict[str, str], tests: Sequence[str] | None, max_failures: int | None
    ) -> TestReport | None:
        """The warm run's report; None when this candidate (or the repository) needs fresh runs."""
        server = self._started()
        if server is None:
            return None
        originals = {path: self.workspace.read(path) for path in files}
        with self.workspace.patched(files):
            try:
                result = server.run(
                    files,
                    {path: text for path, text in originals.items() if text is not None},
                    tests,
                    max_failures=max_failures,
                    timeout=self.budget.timeout,
                    per_test_timeout=self.budget.per_test_timeout,
                )
            except WarmUnavailable as exc:
                self.policy.disable(f"the warm server stopped: {exc.reason}")
                self.close()
                return None
            if isinstance(result, str):
                self.policy.count(fallback=result)
                return None
            self.runs += 1
            if self.policy.take_calibration():
                fresh = self._fresh(tests, max_failures)
                differs = disagreement(result, fresh)
                if differs:
                    self.policy.disable(f"a warm run disagreed with a fresh one on {differs}")
                    self.close()
                    return fresh
            self.policy.count()
            return result

    def _started(self) -> WarmServer | None:
        if self._server is None and self.policy.enabled:
            try:
                self._server = WarmServer(
                    self.sandbox,
                    self.env,
                    self.workspace.path,
                    startup_timeout=self.budget.timeout,
                )
            except WarmUnavailable as exc:
                self.policy.disable(exc.reason)
        return self._server if self.policy.enabled else None
