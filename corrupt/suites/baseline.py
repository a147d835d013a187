"""Trust a suite before corrupting against it.

A baseline runs the full suite twice (it must be green and fast enough; tests
whose outcome differs between the runs are flaky and excluded from every later
comparison), then once under coverage.py to learn which tests execute which
lines. The result is cached per repository + commit + sandbox kind as JSON,
written only after every check passed, so a red or slow suite is never cached
as good.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shlex
import time
from pathlib import Path

from corrupt.cache import cache_root
from corrupt.errors import NoTestsError, RedBaselineError, SuiteTooSlowError
from corrupt.repos.budget import MEASURE_FACTOR, SHARE, kept_files, quickest_cut
from corrupt.repos.coverage import pack_line_coverage, unpack_line_coverage
from corrupt.repos.mentions import HANDLES_BYTECODE, handles_bytecode
from corrupt.repos.missing import MISSING, missing_modules, top_level_names
from corrupt.repos.models import (
    FAILING_OUTCOMES,
    Baseline,
    Checkout,
    Environment,
    TestReport,
    TestResult,
)
from corrupt.repos.suiteargs import PYTEST_NO_TESTS, test_command
from corrupt.repos.testplan import TestPlan, plan_tests
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.base import Sandbox
from corrupt.suites.runner import run_tests

CACHE_VERSION = 4  # 2: runs in a bubblewrap box; 3: packed line coverage; 4: outside_tests
# coverage.py slows CPU-bound suites down 5x and more (more-itertools: 17 s -> 200 s)
COVERAGE_SLOWDOWN = 10.0


def compute_baseline(
    checkout: Checkout,
    sandbox: Sandbox,
    env: Environment,
    *,
    time_limit: float = 60.0,
    cache_dir: Path | None = None,
    strict: bool = False,
) -> Baseline:
    """Return the checkout's trusted-green baseline, from cache when possible.

    Raises NoTestsError, RedBaselineError or SuiteTooSlowError when the suite
    cannot serve as ground truth. Tests red in both runs for a cause corrupt cannot
    name are left out and named when they are few (:data:`RED_SHARE` of those that
    ran); ``strict`` refuses any.
    """
    cache = _cache_path(checkout, sandbox, cache_dir)
    cached = _load(cache, checkout)
    if (
        cached is not None
        and (cached.packages_as_of, cached.python) == (checkout.packages_as_of, checkout.python)
        and not cached.cut_below(time_limit)
        and not (strict and cached.red)
    ):
        return cached
    reports: list[TestReport] = []
    try:
        baseline = _computed(checkout, sandbox, env, time_limit, cache, reports, strict)
    except (RedBaselineError, NoTestsError):
        if not _retry_without_bytecode(checkout, sandbox, env, reports):
            raise
        baseline = _computed(checkout, sandbox, env, time_limit, cache, [], strict)
    else:  # a few red tests left out may be the bytecode cache's doing too
        if baseline.red and _retry_without_bytecode(checkout, sandbox, env, reports):
            baseline = _computed(checkout, sandbox, env, time_limit, cache, [], strict)
    _store(cache, baseline)
    return baseline


def _retry_without_bytecode(
    checkout: Checkout, sandbox: Sandbox, env: Environment, reports: list[TestReport]
) -> bool:
    """Whether red runs may be the bytecode cache's doing, and the cache is now off."""
    handles = _handles_bytecode(reports) or handles_bytecode(checkout.path)
    return handles and sandbox.forgo_bytecode(env)


def _handles_bytecode(reports: list[TestReport]) -> bool:
    """Whether the failing runs' errors speak of bytecode files (where they do not, as
    alembic's "Can't locate revision" does not, the project's code may)."""
    return any(
        HANDLES_BYTECODE.search(f"{result.message or ''} {report.output_tail}")
        for report in reports
        for result in report.results.values()
        if result.outcome in FAILING_OUTCOMES
    )


def _computed(
    checkout: Checkout,
    sandbox: Sandbox,
    env: Environment,
    time_limit: float,
    cache: Path,
    reports: list[TestReport],
    strict: bool = False,
) -> Baseline:
    """Two runs and a coverage run in a fresh working copy; ``reports`` gets the two runs'."""
    with Workspace(checkout) as ws:
        # a run with the packages of the commit's date, or on another Python, keeps its own
        # log next to today's
        dated = f"-{checkout.packages_as_of[:10]}" if checkout.packages_as_of else ""
        dated += f"-py{checkout.python}" if checkout.python else ""
        log = _Log(
            cache.with_name(f"{cache.stem}{dated}.log"),
            shlex.join(test_command(ws.path)[0]),
            reports,
        )
        cut = _Cut(cache.with_suffix(".cut.json"), time_limit)
        first, subset, reached = _first_run(sandbox, env, ws.path, time_limit, log, cut)
        try:
            second = _suite_run(sandbox, env, ws.path, time_limit, "second", log, subset=subset)
        except SuiteTooSlowError:
            if subset:
                raise
            # The first run only just fitted: every later run (screening, verification)
            # would sit at the edge of the budget, so the suite is cut as if it had not.
            subset, reached = _cut_to_budget(sandbox, env, ws.path, time_limit)
            if not subset:
                raise
            cut.keep(subset, reached)
            first = _suite_run(sandbox, env, ws.path, time_limit, "first", log, subset=subset)
            second = _suite_run(sandbox, env, ws.path, time_limit, "second", log, subset=subset)
        flaky = sorted(
            n
            for n in first.results.keys() | second.results.keys()
            if _outcome(first, n) != _outcome(second, n)
        )
        offline = _red_with(first, second, NETWORK_ERROR)
        without_git = _red_with(first, second, NO_REPOSITORY)
        lacking = _lacking_a_module(first, second, ws.path)
        red = _red_beyond(first, second, [*flaky, *offline, *without_git, *lacking], log, strict)
        tests = sorted(first.passing() & second.passing() - set(flaky))
        if not tests:
            raise NoTestsError(
                f"{checkout.name}: no test passed in both baseline runs"
                + _offline_note(first, offline)
                + (log.keep(first) if offline else ""),
                cause="flaky" if flaky else None,
            )
        started = time.monotonic()
        covered = run_tests(
            sandbox,
            env,
            ws.path,
            timeout=time_limit * COVERAGE_SLOWDOWN,
            coverage=True,
            subset=subset,
        )
        coverage_seconds = time.monotonic() - started
        if covered.timed_out:
            raise SuiteTooSlowError(
                f"the coverage run did not finish within {time_limit * COVERAGE_SLOWDOWN:g} s"
            )
        if not covered.line_coverage:
            raise RedBaselineError(f"the coverage run produced no data: {_last_line(covered)}")
        baseline = Baseline(
            commit=checkout.commit,
            tests=tests,
            flaky=flaky,
            skipped=sorted(
                n
                for n, r in first.results.items()
                if r.outcome in ("skipped", "xfailed") and n not in flaky
            ),
            seconds=round(max(first.duration, second.duration), 3),
            durations={n: first.results[n].duration for n in tests},
            line_coverage=_restrict(covered.line_coverage, set(tests)),
            command=test_command(ws.path, subset)[0],
            timings={
                "runs": round(first.duration + second.duration, 3),
                "coverage": round(coverage_seconds, 3),
            },
            packages_as_of=checkout.packages_as_of,
            python=checkout.python,
            outside_tests=_outside_tests(covered.line_coverage),
            offline=offline,
            without_git=without_git,
            lacking_a_module=lacking,
            red=red,
            subset=subset,
            suite_files=reached,
            cut_at=time_limit if subset else 0.0,
        )
    return baseline


class _Log:
    """Where a failed baseline run's output goes, so the one-line error can point at it."""

    def __init__(self, path: Path, command: str, reports: list[TestReport]) -> None:
        self.path = path
        self.command = command
        self.reports = reports  # every run that finished, for a retry to read

    def keep(self, report: TestReport) -> str:
        """Write the run's command, outcome and output; returns ``"; log: PATH"``."""
        failing = [
            f"{r.nodeid}: {r.outcome}: {r.exc_type or ''} {r.message or ''}".rstrip()
            for r in report.results.values()
            if r.outcome in FAILING_OUTCOMES
        ]
        errors = [f"{m}:\n{e}" for m, e in report.collect_errors.items()]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(
            f"command: {self.command}\nexit: {report.exit_code}, {len(report.results)} results, "
            f"{report.duration:.1f} s\n\ncollection errors:\n{chr(10).join(errors) or 'none'}\n"
            f"\nfailing tests:\n{chr(10).join(failing) or 'none'}\n"
            f"\nlast lines of output:\n{report.output_tail}\n",
            encoding="utf-8",
        )
        return f"; log: {self.path}"


def prime_bytecode(
    checkout: Checkout,
    sandbox: Sandbox,
    env: Environment,
    time_limit: float,
    subset: list[str] | None = None,
) -> None:
    """Fill the sandbox's bytecode cache for ``env`` with one run of the unchanged suite,
    where the baseline that was computed did not: every later run, each candidate's
    among them, then imports what this run compiled instead of compiling it again
    (pytest's assertion rewriting of the test modules most of all)."""
    if sandbox.stores_bytecode(env):
        with Workspace(checkout) as ws:
            run_tests(
                sandbox,
                env,
                ws.path,
                timeout=time_limit,
                stores_bytecode=True,
                subset=subset or (),
            )


def _first_run(
    sandbox: Sandbox, env: Environment, tree: Path, time_limit: float, log: _Log, cut: _Cut
) -> tuple[TestReport, list[str], int]:
    """The first baseline run, the subset it ran and how many test files the measuring run
    reached: the whole suite, else the cut ``time_limit`` needs. A cut measured for this
    budget before (by an attempt with other packages or another Python, or a run that went
    red) is tried first, and measured again only when it no longer fits."""

    def run(subset: list[str]) -> TestReport:
        log.command = shlex.join(test_command(tree, subset)[0])
        stores = sandbox.stores_bytecode(env)
        return _suite_run(sandbox, env, tree, time_limit, "first", log, stores, subset=subset)

    known, reached = cut.known()
    try:
        return run(known), known, reached
    except SuiteTooSlowError:
        pass  # the whole suite, or a cut measured on other packages or another Python
    subset, reached = _cut_to_budget(sandbox, env, tree, time_limit)
    if known and subset == known:
        raise SuiteTooSlowError(
            f"the test suite did not finish within {time_limit:g} s, even cut to the "
            f"{len(subset)} quickest test files and tests that fit in it when measured"
        )
    cut.keep(subset, reached)
    return run(subset), subset, reached


class _Cut:
    """The cut of a suite over one time budget, kept beside its baseline's cache entry."""

    def __init__(self, path: Path, time_limit: float) -> None:
        self.path = path
        self.time_limit = time_limit

    def known(self) -> tuple[list[str], int]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            if raw["time_limit"] == self.time_limit:
                return [str(f) for f in raw["subset"]], int(raw["reached"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
        return [], 0

    def keep(self, subset: list[str], reached: int) -> None:
        data = {"time_limit": self.time_limit, "subset": subset, "reached": reached}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, self.path)


def _cut_to_budget(
    sandbox: Sandbox, env: Environment, tree: Path, time_limit: float
) -> tuple[list[str], int]:
    """The test files and tests a suite over ``time_limit`` is cut to, and how many files the
    measuring run reached (:mod:`corrupt.repos.budget`); SuiteTooSlowError when none fits.
    No files (the whole suite) when the measuring run finished and every file fits: the
    run that went over was slow once (a first run compiling every module, a busy
    machine), and a "cut" to all the files would only name them."""
    measured = run_tests(sandbox, env, tree, timeout=time_limit * MEASURE_FACTOR)
    subset = quickest_cut(measured, tree, time_limit * SHARE)
    if not subset:
        raise SuiteTooSlowError(
            f"the test suite did not finish within {time_limit:g} s, and no test fits "
            f"in it (measured over {time_limit * MEASURE_FACTOR:g} s)"
        )
    reached = len({n.split("::", 1)[0] for n in measured.results})
    if not measured.timed_out and len(kept_files(subset)) == reached:
        return [], reached  # every file fits: the run over budget was slow, not the suite
    return subset, reached


def _suite_run(
    sandbox: Sandbox,
    env: Environment,
    tree: Path,
    time_limit: float,
    which: str,
    log: _Log,
    stores_bytecode: bool = False,
    *,
    subset: list[str] | None = None,
) -> TestReport:
    report = run_tests(
        sandbox,
        env,
        tree,
        timeout=time_limit,
        stores_bytecode=stores_bytecode,
        subset=subset or (),
    )
    log.reports.append(report)
    if report.timed_out:
        cut = f", cut to {len(subset)} test files and tests" if subset else ""
        raise SuiteTooSlowError(
            f"the test suite did not finish within {time_limit:g} s ({which} baseline run{cut})"
            + log.keep(report)
        )
    if report.collect_errors:
        module, error = next(iter(report.collect_errors.items()))
        last = error.strip().splitlines()[-1:] or ["import failed"]
        raise RedBaselineError(
            f"baseline is red: cannot collect {module}: {last[0]}{log.keep(report)}",
            cause="collection",
        )
    if not report.results:
        plan = plan_tests(tree)
        if (
            report.exit_code == PYTEST_NO_TESTS
            or report.collected == 0
            and report.exit_code in (0, None)
        ):
            raise NoTestsError(
                "pytest collected no tests" + _no_tests_hint(plan) + log.keep(report)
            )
        harness = _no_tests_hint(plan) if plan.harness else ""
        raise RedBaselineError(
            f"pytest did not run (exit {report.exit_code}): {_last_line(report)}{harness}"
            + log.keep(report),
            cause="collection",
        )
    return report


def _no_tests_hint(plan: TestPlan) -> str:
    """Why pytest may have found nothing: the project's own runner, or no command found."""
    if plan.harness:
        return (
            f"; the project runs its tests with a program of its own ({plan.harness}),"
            " which is neither a pytest nor a unittest suite: corrupt cannot run it"
        )
    if plan.command_source:
        return f"; with the project's own command ({plan.command_source})"
    return "; no test command was found in CI, tox, nox, hatch or a Makefile"


def _outcome(report: TestReport, nodeid: str) -> str | None:
    result = report.results.get(nodeid)
    return result.outcome if result else None


# What a test's error says when it needed the network or a service on it: the box never
# has a network (DESIGN, running untrusted code) and runs no server beside the suite
# (pytest-html's Selenium on 127.0.0.1:4444, a database), while the project's CI did.
# A cloud service's SDK says so before it connects, when it finds no credentials: the box
# never has the user's (s3transfer's integration tests, with botocore's NoCredentialsError;
# Google's and Azure's clients say it their way).
NETWORK_ERROR = re.compile(
    r"Temporary failure in name resolution|Name or service not known|No address associated"
    r"|Network is unreachable|nodename nor servname|getaddrinfo failed|\[Errno -[235]\]"
    r"|Could not resolve host|Connection refused|\[Errno 111\]|EAI_AGAIN|ENOTFOUND"
    r"|NoCredentialsError|Unable to locate credentials|DefaultCredentialsError"
    r"|Could not automatically determine credentials|CredentialUnavailableError"
)


# What a test's error says when it runs git on the project's own checkout: corrupt's
# working copies carry no ``.git`` (no test, and no solver, sees the project's history).
NO_REPOSITORY = re.compile(r"not a git repository|InvalidGitRepositoryError")


def _red_with(first: TestReport, second: TestReport, error: re.Pattern[str]) -> list[str]:
    """The tests red in both runs with an error ``error`` finds, in their exception or in
    what they printed (a subprocess's own error: pip's, git's)."""
    return sorted(
        n
        for n in first.failing() & second.failing()
        if all(error.search(_error_text(r)) for r in (first.results[n], second.results[n]))
    )


def _lacking_a_module(first: TestReport, second: TestReport, tree: Path) -> list[str]:
    """The tests red in both runs on importing a module that nothing installed provides
    and the project does not hold itself: an optional dependency that no requirement
    intake reads installs (pydantic-settings' documentation examples import ``azure``
    from an extra). A module of the project's own that does not import is intake's
    fault, not the test's, and stays red."""
    red = _red_with(first, second, MISSING)
    if not red:
        return []
    own = top_level_names(tree)
    return [
        n
        for n in red
        if not own.intersection(missing_modules(_error_text(first.results[n])))
        and not own.intersection(missing_modules(_error_text(second.results[n])))
    ]


def _error_text(result: TestResult) -> str:
    """What a red test said: its exception and what it printed (a subprocess's error)."""
    return f"{result.exc_type or ''}: {result.message or ''}\n{result.output}"


def _offline_note(report: TestReport, offline: list[str]) -> str:
    if not offline:
        return ""
    result = report.results[offline[0]]
    return (
        f"; {len(offline)} need the network or a service on it, which the box never has "
        f"({offline[0]}: {result.exc_type}: {(result.message or '').strip()[:120]})"
    )


# The share of the tests that ran which may be red in both runs for a cause corrupt cannot
# name (a classifier list downloaded, the current year's holidays, a program the CI
# installs) and be left out, as SWE-bench leaves out of PASS_TO_PASS what fails before
# the fix; more is an environment that is not the project's, and refused.
RED_SHARE = 0.05


def _red_beyond(
    first: TestReport, second: TestReport, left_out: list[str], log: _Log, strict: bool
) -> dict[str, str]:
    """The tests red in both runs besides those ``left_out`` for a known cause, each with
    its error; a RedBaselineError when they are more than :data:`RED_SHARE` (any, when
    ``strict``)."""
    red = sorted((first.failing() & second.failing()) - set(left_out))
    if not red:
        return {}
    errors = {n: _one_line(first.results[n]) for n in red}
    ran = sum(1 for r in first.results.values() if r.outcome != "skipped")
    if not strict and len(red) <= RED_SHARE * ran:
        log.keep(first)
        return errors
    more = f" (and {len(red) - 1} more)" if len(red) > 1 else ""
    share = "" if strict else f"; {len(red)} of {ran} tests, more than the {RED_SHARE:.0%} left out"
    raise RedBaselineError(
        f"baseline is red: {red[0]} fails: {errors[red[0]]}{more}{share}{log.keep(first)}"
    )


def _one_line(result: TestResult) -> str:
    detail = f"{result.exc_type}: {result.message}" if result.exc_type else (result.message or "")
    return detail.strip().splitlines()[0][:200] if detail.strip() else "failed"


def _outside_tests(lines: dict[str, dict[int, list[str]]]) -> dict[str, list[int]]:
    """The lines the coverage run saw outside any test (the plugin's ``""`` context)."""
    out = {
        file: sorted(n for n, ids in by_line.items() if "" in ids)
        for file, by_line in lines.items()
    }
    return {file: found for file, found in out.items() if found}


def _restrict(
    lines: dict[str, dict[int, list[str]]], keep: set[str]
) -> dict[str, dict[int, list[str]]]:
    """Drop flaky and failing tests from the coverage so later stages never rely on them."""
    out: dict[str, dict[int, list[str]]] = {}
    for file, by_line in lines.items():
        kept = {line: [n for n in ids if n in keep] for line, ids in by_line.items()}
        kept = {line: ids for line, ids in kept.items() if ids}
        if kept:
            out[file] = kept
    return out


# A line that names an exception: ``ValueError: …``, ``INTERNALERROR> …Error: …``,
# Node's ``Error: getaddrinfo EAI_AGAIN …``.
EXCEPTION_LINE = re.compile(r"\b\w*(?:Error|Exception)\b:")


def _last_line(report: TestReport) -> str:
    """The line of a run's output that says why it stopped: the last exception that
    names the network's error, else the last line that does, else the last exception,
    else the last line. django-polymorphic's conftest installs a browser at session
    start, and its output ends in the ``}`` of an error object its installer printed
    after the ``Error: getaddrinfo EAI_AGAIN`` that says why."""
    lines = [line.strip() for line in report.output_tail.strip().splitlines() if line.strip()]
    tests = (
        lambda line: NETWORK_ERROR.search(line) and EXCEPTION_LINE.search(line),
        NETWORK_ERROR.search,
        EXCEPTION_LINE.search,
    )
    for test in tests:
        found = [line for line in lines if test(line)]
        if found:
            return found[-1]
    return lines[-1] if lines else ""


def cached_baseline(
    checkout: Checkout, sandbox: Sandbox, cache_dir: Path | None = None
) -> Baseline | None:
    """The green baseline cached for the checkout's commit, whatever packages and Python it was
    green with."""
    return _load(_cache_path(checkout, sandbox, cache_dir), checkout)


def _cache_path(checkout: Checkout, sandbox: Sandbox, cache_dir: Path | None) -> Path:
    digest = hashlib.sha256(
        f"{checkout.url}\0{checkout.commit}\0{sandbox.name}".encode()
    ).hexdigest()[:24]
    return Path(cache_dir or cache_root()) / "baselines" / f"{digest}.json"


def _load(path: Path, checkout: Checkout) -> Baseline | None:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if raw.get("version") != CACHE_VERSION or raw["baseline"].get("commit") != checkout.commit:
        return None
    data = raw["baseline"]
    data["line_coverage"] = unpack_line_coverage(data["line_coverage"])
    return Baseline(**data)


def _store(path: Path, baseline: Baseline) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    data = dataclasses.asdict(baseline)
    data["line_coverage"] = pack_line_coverage(baseline.line_coverage)
    tmp.write_text(json.dumps({"version": CACHE_VERSION, "baseline": data}), encoding="utf-8")
    os.replace(tmp, path)
