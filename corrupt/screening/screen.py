"""Screeners: the build's way of running tests on a patched working copy.

The corrupt stage never touches sandboxes or working copies itself; it is
handed a :class:`TreeScreener` (a :class:`~corrupt.corruptors.models.Screener`)
that writes the candidate's files into this worker's private working copy,
runs the chosen tests there (in a warm server or a fresh process), and
restores the files.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from corrupt.corruptors.reach import ran_outside_tests
from corrupt.repos.models import Baseline, Environment, TestReport, TraceTarget
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.base import Sandbox
from corrupt.screening.warm import Reimport, WarmRun, WarmServer, WarmUnavailable
from corrupt.screening.warm_checks import (
    first_not_passed,
    held_before,
    remember_held,
    verdict_path,
)
from corrupt.suites.runner import run_tests
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
            timeout=max(60.0, 3 * baseline.seconds + 30), per_test_timeout=max(5.0, 10 * slowest)
        )


SCREENING_TIMEOUT_FLOOR = 2.0  # seconds: a screening run's per-test timeout is never shorter
CALL_TIMEOUT_FLOOR = 0.5  # seconds: nor its call timeout (a test's own work, imports not counted)
CHECK_SECONDS = 60.0  # baseline time the warm server's check of the unchanged code may cover


@dataclass(frozen=True)
class Timeouts:
    """A screening run's limits per test: the whole test, and (by nodeid) its call
    without the modules it imports; a test not in ``calls`` has the first alone."""

    per_test: float
    calls: Mapping[str, float] = field(default_factory=dict)


@dataclass
class WarmPolicy:
    """Whether warm screening holds for this repository: one decision shared by a build's workers.

    Before the first candidate, the warm server runs the unchanged code's
    passing tests (:func:`check_selection`); one that does not pass there (a
    test that relies on its process, on threads or state from import time)
    turns warm screening off for the repository, as does a server that cannot
    start or stops answering; ``reason`` records why. A check that held is
    remembered for the environment (:mod:`corrupt.screening.warm_checks`), so
    later builds skip it. Candidates whose change a fork cannot show as a
    fresh process would are declined one by one by the server; they run in a
    child that imports the working tree again (``reimports``), or, when the
    repository defeats that too, in a fresh process (``fallbacks``). Whether
    re-importing holds is checked the same way, on the first declined
    candidate: the unchanged code's passing tests must pass in a re-importing
    child (a module that registers a logging handler or a codec at import does
    it twice there); ``reimport_failure`` says why it did not.
    """

    enabled: bool = True
    reason: str = ""
    checked: int | None = None  # tests the unchanged code passed in the warm server
    check_reused: bool = False  # that check held in an earlier build and was not run again
    warm_runs: int = 0
    reimport: bool | None = None  # re-importing children hold (None: not checked yet)
    reimport_failure: str = ""
    reimports: int = 0  # declined candidates a re-importing child ran
    reimport_reasons: dict[str, int] = field(default_factory=dict)
    fallbacks: int = 0  # candidates a warm server could not swap in, run fresh instead
    fallback_reasons: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _checking: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def disable(self, reason: str) -> None:
        with self._lock:
            if self.enabled:
                self.enabled, self.reason = False, reason

    def check_once(self, check: Callable[[], tuple[int, str | None, bool]]) -> None:
        """Run ``check`` (tests checked, why warm fails, whether an earlier build's
        verdict was reused) for the first worker; the others wait for its verdict."""
        with self._checking:
            if self.checked is not None or not self.enabled:
                return
            checked, failure, reused = check()
            self.checked, self.check_reused = checked, reused
            if failure:
                self.disable(failure)

    def check_reimport_once(self, check: Callable[[], str | None]) -> None:
        """Run ``check`` (why re-importing fails, None if it held) for the first worker."""
        with self._checking:
            if self.reimport is None:
                failure = check()
                self.reimport, self.reimport_failure = failure is None, failure or ""

    def count(self, run: WarmRun) -> None:
        """Count a warm server's answer: swapped, re-imported, or left to a fresh process."""
        with self._lock:
            if run.declined is None:
                self.warm_runs += 1
                return
            if run.report is not None:
                self.reimports += 1
                reasons = self.reimport_reasons
            else:
                self.fallbacks += 1
                reasons = self.fallback_reasons
            reasons[run.declined] = reasons.get(run.declined, 0) + 1

    def snapshot(self) -> WarmRecord:
        with self._lock:
            return WarmRecord(
                self.enabled, self.reason, self.checked, self.check_reused, self.warm_runs,
                self.reimport, self.reimport_failure, self.reimports,
                dict(self.reimport_reasons), self.fallbacks, dict(self.fallback_reasons),
            )  # fmt: skip

    def as_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self.snapshot())


@dataclass(frozen=True)
class WarmRecord:
    """What a :class:`WarmPolicy` decided and counted (the store's ``meta.screening``)."""

    warm: bool
    reason: str
    checked: int | None
    check_reused: bool
    warm_runs: int
    reimport: bool | None
    reimport_failure: str
    reimports: int
    reimport_reasons: dict[str, int]
    fallbacks: int
    fallback_reasons: dict[str, int]

    @classmethod
    def merged(cls, records: Sequence[WarmRecord]) -> WarmRecord:
        """One record for a build whose workers each kept a policy (Ray actors)."""
        checks = [r for r in records if r.checked is not None]  # workers that started a server
        reimport_checks = [r.reimport for r in records if r.reimport is not None]
        return cls(
            warm=all(r.warm for r in records),
            reason=next((r.reason for r in records if r.reason), ""),
            checked=max((r.checked for r in checks if r.checked is not None), default=None),
            check_reused=bool(checks) and all(r.check_reused for r in checks),
            warm_runs=sum(r.warm_runs for r in records),
            reimport=all(reimport_checks) if reimport_checks else None,
            reimport_failure=next((r.reimport_failure for r in records if r.reimport_failure), ""),
            reimports=sum(r.reimports for r in records),
            reimport_reasons=_summed(r.reimport_reasons for r in records),
            fallbacks=sum(r.fallbacks for r in records),
            fallback_reasons=_summed(r.fallback_reasons for r in records),
        )


def _summed(counts: Iterable[Mapping[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for count in counts:
        for key, n in count.items():
            total[key] = total.get(key, 0) + n
    return total


def check_selection(baseline: Baseline, seconds: float = CHECK_SECONDS) -> list[str]:
    """The baseline's passing tests the warm server must pass on the unchanged code:
    all of them, or the quickest files that fit in ``seconds`` of baseline time
    (a long suite would otherwise cost a whole run before the first candidate)."""
    chosen: list[str] = []
    spent = 0.0
    ordered = fastest_files_first(baseline.tests, baseline.durations)
    for _, group in itertools.groupby(ordered, key=lambda n: n.split("::", 1)[0]):
        tests = list(group)
        spent += sum(baseline.durations.get(n, 0.0) for n in tests)
        if chosen and spent > seconds:
            break
        chosen += tests
    return chosen


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


class TreeScreener:
    """Runs tests on one worker's working copy with some files replaced.

    Screening runs (``__call__``) go to a warm server when the mode and the
    repository allow, else to a fresh process; :meth:`run` (verification)
    runs the whole suite in a fresh process, and named tests as screening does.
    """

    def __init__(
        self,
        sandbox: Sandbox,
        env: Environment,
        workspace: Workspace,
        budget: RunBudget,
        *,
        screening: ScreeningMode = ScreeningMode.FRESH,
        baseline: Baseline | None = None,
        policy: WarmPolicy | None = None,
        verdicts: Path | None = None,
        subset: Sequence[str] = (),
    ) -> None:
        """``verdicts``: the folder where warm checks that held are kept (None: keep none);
        ``subset``: the test files a suite over budget is cut to, the baseline's unless
        given (scoring has a task, not a baseline)."""
        self.sandbox = sandbox
        self.env = env
        self.workspace = workspace
        self.budget = budget
        self.screening = screening
        self.baseline = baseline
        self.durations = baseline.durations if baseline else {}
        self.subset = subset or (baseline.subset if baseline else [])
        self.policy = policy or WarmPolicy()
        self.verdicts = verdicts
        self.runs = 0
        self.suite_runs = 0  # of those, runs of the whole suite (what a verified task costs most)
        self._server: WarmServer | None = None

    def __call__(
        self, files: dict[str, str], tests: Sequence[str] | None, max_failures: int | None
    ) -> TestReport:
        if self.screening == ScreeningMode.SUITE:
            return self.run(files)
        if tests is not None and not tests:  # no test runs the change: nothing can fail
            return TestReport(results={}, duration=0.0, exit_code=0)
        timeouts = Timeouts(self.budget.per_test_timeout)
        if tests is not None:
            tests = fastest_files_first(tests, self.durations)
            timeouts = self._timeouts(tests)
        if self.screening == ScreeningMode.WARM and self.policy.enabled:
            report = self._warm(files, tests, max_failures, timeouts)
            if report is not None:
                return report
        with self.workspace.patched(files):
            return self._fresh(tests, max_failures, timeouts)

    def run(
        self,
        files: dict[str, str],
        *,
        tests: Sequence[str] | None = None,
        trace: Sequence[TraceTarget] = (),
    ) -> TestReport:
        """Run tests (all when ``tests`` is None) with ``files`` written into the working
        copy; failing tests traced for calls of ``trace`` (see :func:`run_tests`).

        The whole suite always runs in a fresh process (verification's run 1 is what a
        task's tests are read from). Named tests (verification's rerun, the runs that
        trace a bug's effect) go to the warm server when screening is warm, with the
        same limits as a fresh run: what they ask (does a failure repeat, which calls
        lead to it) depends on the code that runs, which the server shows as a fresh
        process would or declines."""
        timeouts = Timeouts(self.budget.per_test_timeout)
        if tests is not None and self.screening == ScreeningMode.WARM and self.policy.enabled:
            report = self._warm(files, tests, None, timeouts, trace)
            if report is not None:
                return report
        with self.workspace.patched(files):
            return self._fresh(tests, None, timeouts, trace)

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None

    def _timeouts(self, tests: Sequence[str]) -> Timeouts:
        """Ten times the baseline time, at most the build's per-test timeout: a
        hanging candidate is the costliest to screen, and most covering tests take
        milliseconds. The whole test gets ten times the slowest selected test's
        time, at least :data:`SCREENING_TIMEOUT_FLOOR` (a fixture or import it pays
        first in a short run); each test's call, imports not counted, ten times its
        own, at least :data:`CALL_TIMEOUT_FLOOR` (so a quick test that hangs beside
        a slow one is stopped in half a second too)."""
        times = {nodeid: self.durations.get(nodeid) for nodeid in tests}
        known = {nodeid: t for nodeid, t in times.items() if t is not None}
        if not times or len(known) < len(times):
            return Timeouts(self.budget.per_test_timeout)
        ten = 10 * max(known.values())
        whole = min(self.budget.per_test_timeout, max(SCREENING_TIMEOUT_FLOOR, ten))
        calls = {nodeid: max(CALL_TIMEOUT_FLOOR, 10 * t) for nodeid, t in known.items()}
        return Timeouts(whole, {nodeid: call for nodeid, call in calls.items() if call < whole})

    def _fresh(
        self,
        tests: Sequence[str] | None,
        max_failures: int | None,
        timeouts: Timeouts,
        trace: Sequence[TraceTarget] = (),
    ) -> TestReport:
        self.runs += 1
        self.suite_runs += tests is None
        return run_tests(
            self.sandbox,
            self.env,
            self.workspace.path,
            select=list(tests) if tests is not None else None,
            max_failures=max_failures,
            timeout=self.budget.timeout,
            per_test_timeout=timeouts.per_test,
            call_timeouts=timeouts.calls,
            subset=self.subset,
            trace=trace,
        )

    def _warm(
        self,
        files: dict[str, str],
        tests: Sequence[str] | None,
        max_failures: int | None,
        timeouts: Timeouts,
        trace: Sequence[TraceTarget] = (),
    ) -> TestReport | None:
        """The warm run's report; None when this candidate (or the repository) needs fresh runs.

        The first candidate the server declines to swap in has re-importing checked
        (on the unchanged tree, so before this candidate's files are written) and, if
        that held, is sent again to be re-imported."""
        server = self._started()
        if server is None:
            return None
        try:
            result = self._served(server, files, tests, max_failures, timeouts, trace)
            if result.declined is not None and self.policy.reimport is None:
                self.policy.check_reimport_once(self._check_reimport)
                if self.policy.reimport:
                    result = self._served(server, files, tests, max_failures, timeouts, trace)
        except WarmUnavailable as exc:
            self.policy.disable(f"the warm server stopped: {exc.reason}")
            self.close()
            return None
        self.policy.count(result)
        if result.report is not None:
            self.runs += 1
        return result.report

    def _served(
        self,
        server: WarmServer,
        files: dict[str, str],
        tests: Sequence[str] | None,
        max_failures: int | None,
        timeouts: Timeouts,
        trace: Sequence[TraceTarget],
    ) -> WarmRun:
        originals = {path: self.workspace.read(path) for path in files}
        known = {path: text for path, text in originals.items() if text is not None}
        with self.workspace.patched(files):
            return server.run(
                files,
                known,
                tests,
                max_failures=max_failures,
                timeout=self.budget.timeout,
                per_test_timeout=timeouts.per_test,
                call_timeouts=timeouts.calls,
                quiet=self._quiet(files, known),
                reimport=Reimport.DECLINED if self.policy.reimport else Reimport.NEVER,
                trace=trace,
            )

    def _quiet(self, files: dict[str, str], originals: dict[str, str]) -> list[str]:
        """The files whose changed statements the baseline's coverage saw run only in
        tests: the server may swap them in even if their function ran at collection."""
        outside = self.baseline.outside_tests if self.baseline else {}
        if not outside:  # no record of what ran outside tests: assume anything did
            return []
        return [
            path
            for path, text in files.items()
            if path in originals
            and not ran_outside_tests(originals[path], text, outside.get(path, ()))
        ]

    def _started(self) -> WarmServer | None:
        """This worker's server, started (and the repository checked) on first use."""
        baseline = self.baseline
        if self._server is None and self.policy.enabled:
            if baseline is None:
                self.policy.disable("no baseline to check the warm server against")
                return None
            try:
                self._server = WarmServer(
                    self.sandbox,
                    self.env,
                    self.workspace.path,
                    startup_timeout=self.budget.timeout,
                    collection_from_coverage=bool(baseline.outside_tests),
                    subset=self.subset,
                )
            except WarmUnavailable as exc:
                self.policy.disable(exc.reason)
            else:
                self.policy.check_once(lambda: self._check(baseline))
        if not self.policy.enabled:
            self.close()
            return None
        return self._server

    def _check(self, baseline: Baseline) -> tuple[int, str | None, bool]:
        """Run the baseline's passing tests on the unchanged code in the server: how many,
        the first that did not pass there (warm screening cannot be trusted then), and
        whether an earlier build's check of the same tests held and was reused instead."""
        tests = check_selection(baseline)
        failure, reused = self._checked(tests, Reimport.NEVER)
        return len(tests), failure, reused

    def _check_reimport(self) -> str | None:
        """Why re-importing children cannot be trusted here (None: they can): the same
        check, each run in a child that imports the working tree again."""
        assert self.baseline is not None
        return self._checked(check_selection(self.baseline), Reimport.ALWAYS)[0]

    def _checked(self, tests: list[str], reimport: Reimport) -> tuple[str | None, bool]:
        """Why the unchanged code's ``tests`` do not all pass in the server (None: they
        do), and whether an earlier build's verdict was kept and reused instead."""
        kept = self.verdicts and verdict_path(
            self.verdicts, self.env, self.sandbox.name, tests, reimport.value
        )
        if kept and held_before(kept):
            return None, True
        failure = self._run_check(tests, reimport)
        if kept and failure is None:
            remember_held(kept, len(tests))
        return failure, False

    def _run_check(self, tests: list[str], reimport: Reimport) -> str | None:
        assert self._server is not None
        try:
            run = self._server.run(
                {}, {}, tests, max_failures=1, timeout=self.budget.timeout,
                per_test_timeout=self.budget.per_test_timeout, reimport=reimport,
            )  # fmt: skip
        except WarmUnavailable as exc:
            return f"the warm server stopped: {exc.reason}"
        if run.report is None:  # a tree the server cannot import twice
            return run.declined or "the warm server declined the unchanged code"
        where = "a re-importing child" if reimport is Reimport.ALWAYS else "the warm server"
        if (found := first_not_passed(run.report, tests)) is None:
            return None
        return f"{found[0]} {found[1]} in {where} on the unchanged code"
