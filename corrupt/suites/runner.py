"""Run a repository's pytest suite in a sandbox and read back a typed report.

The runner knows nothing about how a sandbox works: it hands our standalone
pytest plugin to the sandbox as an input file of the run's private I/O folder,
builds a :class:`Command` (``python -m pytest -p _corrupt_pytest_plugin ...``)
whose ``collect`` names the result files, and parses the JSON lines the plugin
wrote. It never writes into or reads from the working tree itself, so nothing
the repository commits there (a symlink, a FIFO) can steer the host.

The tree's import root (``src`` in a src layout, else the tree itself) comes
first on ``PYTHONPATH`` so the tests import the working tree, corruptions
included, never the copy installed in the environment.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from corrupt.repos.coverage import LineCoverage, unpack_line_coverage
from corrupt.repos.models import (
    IO_DIR,
    Command,
    Environment,
    Frame,
    Limits,
    TestReport,
    TestResult,
    Trace,
    TraceTarget,
)
from corrupt.repos.suiteargs import base_argv, suite_args, test_command
from corrupt.repos.testfiles import collected_by_name, python_files
from corrupt.sandboxes.base import Sandbox
from corrupt.sandboxes.guest import PYTEST_PLUGIN

REPORT, COVERAGE, SELECT, CALLS = "report.jsonl", "coverage.json", "select.txt", "calls.json"
SUBSET = "subset.txt"
TRACE = "trace.json"
TAIL_LINES = 40


def plugin_module() -> str:
    """The plugin's module name for one run. ``python -m`` puts the working tree
    ahead of ``PYTHONPATH``, so a fixed name could be shadowed by a file the
    tree holds (a solver's patch can add one); a fresh name cannot be guessed."""
    return f"_corrupt_pytest_plugin_{secrets.token_hex(8)}"


def run_tests(
    sandbox: Sandbox,
    env: Environment,
    tree: Path,
    *,
    select: Sequence[str] | None = None,
    max_failures: int | None = None,
    timeout: float = 60.0,
    per_test_timeout: float | None = None,
    call_timeouts: Mapping[str, float] | None = None,
    coverage: bool = False,
    limits: Limits | None = None,
    stores_bytecode: bool = False,
    subset: Sequence[str] = (),
    trace: Sequence[TraceTarget] = (),
) -> TestReport:
    """Run pytest in ``tree`` (all tests, those of the ``subset`` files, or only the
    ``select`` nodeids).

    ``max_failures`` stops the run after that many failing tests whose ids
    harnesses can read (a failure budget for screening: a task counts no other); ``timeout`` bounds the whole run and
    ``per_test_timeout`` each test (``call_timeouts``, by nodeid, a test's call
    phase, the modules it imports not counted); ``limits`` sets the rest of the run's
    :class:`Limits`. With ``coverage`` the report's ``line_coverage``
    attribute maps file -> line -> nodeids. ``stores_bytecode`` fills the
    sandbox's bytecode cache (a run of the unchanged tree, see :meth:`Sandbox.stores_bytecode`).
    With ``trace`` each failing test's result gets a :class:`Trace` of those functions
    (every call the tests make is followed: for a few tests, not a suite).
    """
    tree = Path(tree)
    module = plugin_module()
    extra_env = test_command(tree)[1]
    extra_env["PYTHONPATH"] = f"{IO_DIR}:{extra_env['PYTHONPATH']}"
    options, files = run_options(
        tree,
        select=select,
        max_failures=max_failures,
        per_test_timeout=per_test_timeout,
        call_timeouts=call_timeouts,
        subset=subset,
        trace=trace,
    )
    argv = [*base_argv(module), f"--corrupt-report={IO_DIR}/{REPORT}", *options]
    files[f"{module}.py"] = PYTEST_PLUGIN.read_bytes()
    collect = [REPORT]
    if coverage:
        # pytest-cov, turned on by the suite (pytest-enabler adds ``--cov`` where it is
        # installed, as jaraco's skeleton has it), would start a coverage of its own and
        # leave the plugin's with no data: one tracer at a time.
        argv += [f"--corrupt-coverage={IO_DIR}/{COVERAGE}", "-p", "no:pytest_cov"]
        collect.append(COVERAGE)
    limits = replace(limits or Limits(), timeout=timeout)
    command = Command(
        argv=argv,
        env=extra_env,
        limits=limits,
        files=files,
        collect=collect,
        stores_bytecode=stores_bytecode,
    )
    result = sandbox.run(env, tree, command)
    report = read_report(
        result.files.get(REPORT),
        select=select,
        duration=result.duration,
        exit_code=result.exit_code,
        timed_out=result.timed_out,
        killed=result.killed,
        output=result.stdout + result.stderr,
    )
    if coverage:
        report.line_coverage = _read_coverage(result.files.get(COVERAGE))
    return report


def run_options(
    tree: Path,
    *,
    select: Sequence[str] | None,
    max_failures: int | None,
    per_test_timeout: float | None,
    call_timeouts: Mapping[str, float] | None,
    subset: Sequence[str] = (),
    trace: Sequence[TraceTarget] = (),
) -> tuple[list[str], dict[str, bytes]]:
    """The pytest arguments that choose a run's tests and limits, and the input files
    (by name in the I/O folder) they refer to; a warm server's re-importing child
    runs these too (:mod:`corrupt.screening.warm`)."""
    files: dict[str, bytes] = {}
    if select is None:
        chosen, paths, files = subset_options(subset)
        argv = [*suite_args(tree, subset=paths), *chosen]
    else:
        argv = suite_args(tree, paths=False)
        files[SELECT] = "".join(f"{n}\n" for n in select).encode("utf-8")
        argv += [f"--corrupt-select={IO_DIR}/{SELECT}", *_test_files(tree, select, argv)]
    if max_failures:
        argv.append(f"--corrupt-maxfail={max_failures}")
    if per_test_timeout:
        argv.append(f"--corrupt-test-timeout={per_test_timeout}")
    if call_timeouts:
        files[CALLS] = json.dumps(call_timeouts).encode("utf-8")
        argv.append(f"--corrupt-call-timeouts={IO_DIR}/{CALLS}")
    if trace:
        files[TRACE] = json.dumps(trace_spans(trace)).encode("utf-8")
        argv.append(f"--corrupt-trace={IO_DIR}/{TRACE}")
    return argv, files


def subset_options(subset: Sequence[str]) -> tuple[list[str], list[str], dict[str, bytes]]:
    """A suite cut to ``subset`` (test files, then single tests by node id) as pytest runs
    it here: the option naming the input file that lists it, the paths to collect (each
    file once), and that input file. Thousands of node ids on the command line exceed
    what bubblewrap takes (9,000 arguments: mashumaro's cut); the plugin reads them from
    the file instead (``--corrupt-subset``). A cut of whole files is given as it is."""
    if not any("::" in entry for entry in subset):
        return [], list(subset), {}
    paths = list(dict.fromkeys(entry.split("::", 1)[0] for entry in subset))
    listed = "".join(f"{entry}\n" for entry in subset).encode("utf-8")
    return [f"--corrupt-subset={IO_DIR}/{SUBSET}"], paths, {SUBSET: listed}


def trace_spans(trace: Sequence[TraceTarget]) -> list[list[Any]]:
    """The targets as the plugin reads them (``--corrupt-trace``, a warm request's ``trace``)."""
    return [
        [t.file, t.first, t.last, *([sorted(t.tests)] if t.tests is not None else [])]
        for t in trace
    ]


def read_report(
    data: bytes | None,
    *,
    select: Sequence[str] | None,
    duration: float,
    exit_code: int | None,
    timed_out: bool,
    killed: str | None,
    output: str,
) -> TestReport:
    """The report the plugin wrote (``data``), completed with what the run's end says:
    tests cut off by a kill fail, selected tests that never reported are errors."""
    report, started = _parse(data)
    lines = output.splitlines()
    report.duration = duration
    report.exit_code = exit_code
    report.timed_out = timed_out or report.timed_out
    report.output_tail = "\n".join(lines[-TAIL_LINES:])
    # Gone, or swapped by a test for a FIFO, a link or a huge file:
    unreadable = None if data is not None else "the run's report is missing or unreadable"
    if timed_out:
        _mark_unfinished(report, started, "Timeout", "killed by the whole-run timeout")
    elif killed:
        _mark_unfinished(report, started, "Killed", f"the sandbox stopped the run ({killed})")
    if select is not None and (unreadable or not (timed_out or killed or report.stopped_early)):
        _mark_missing(report, select, unreadable)
    return report


def _test_files(tree: Path, select: Sequence[str], options: list[str]) -> list[str]:
    """Limit collection to the files the selected tests live in (collection is the slow
    part). A ``.py`` file pytest would not collect by its name (a conftest collects it
    as data) is reached through its folder: named, it would be imported as a test module."""
    files = [f for f in dict.fromkeys(n.split("::", 1)[0] for n in select) if (tree / f).exists()]
    patterns = python_files(tree, options)
    folders = {
        Path(f).parent for f in files if f.endswith(".py") and not collected_by_name(f, patterns)
    }
    # A file inside such a folder is collected with it. Named as well, it left three of
    # the folder's tests unrun in a re-importing child of pygments' warm check.
    kept = [f for f in files if not any(Path(f).is_relative_to(d) for d in folders)]
    return [*(str(d) for d in sorted(folders)), *kept]


def _parse(data: bytes | None) -> tuple[TestReport, list[str]]:
    """The report, and the tests that started (the last may not have finished)."""
    report = TestReport(results={}, duration=0.0, exit_code=None)
    started: list[str] = []
    announced: set[str] = set()
    if data is None:
        return report, started
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:  # a line cut short by a kill
            continue
        if not isinstance(record, dict):  # the file is the test's to scribble on
            continue
        kind = record.get("kind")
        if kind == "start":
            started.append(record["nodeid"])
            announced.add(record["nodeid"])
        elif kind == "test":
            nodeid = str(record.get("nodeid"))
            earlier = report.results.get(nodeid)
            # under xdist the controller repeats a worker's result, with the same outcome
            if nodeid not in announced or (earlier and earlier.outcome != record.get("outcome")):
                report.forged = report.forged or f"a second or unannounced result for {nodeid}"
            try:
                report.results[record["nodeid"]] = TestResult(
                    nodeid=record["nodeid"],
                    outcome=record["outcome"],
                    duration=record["duration"],
                    exc_type=record.get("exc_type"),
                    message=record.get("message"),
                    frames=[Frame(**f) for f in record.get("frames", [])],
                    trace=_trace(record.get("trace")),
                    output=str(record.get("output") or ""),
                )
            except (KeyError, TypeError):  # not a record our plugin writes
                report.forged = report.forged or "a malformed test record"
        elif kind == "collected":
            report.collected = max(report.collected, record["count"])  # xdist: one line per worker
        elif kind == "collect_error":
            report.collect_errors[record["nodeid"]] = record["message"]
        elif kind == "session":
            report.stopped_early = report.stopped_early or bool(record.get("stopped"))
            # the plugin stopped a run whose tests kept hitting the per-test timeout
            report.timed_out = report.timed_out or bool(record.get("hung"))
    return report, started


def _trace(data: object) -> Trace | None:
    """A test record's trace; raises TypeError or KeyError on one our plugin does not write."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise TypeError("trace")
    effect = data["effect"]
    return Trace(
        effect=Frame(**effect) if effect is not None else None,
        hops=[h if isinstance(h, int) else None for h in data["hops"]],
        calls=[int(c) for c in data["calls"]],
        reason=str(data["reason"]) if data.get("reason") else None,
    )


def _mark_unfinished(report: TestReport, started: list[str], exc_type: str, message: str) -> None:
    for nodeid in started:
        if nodeid not in report.results:
            report.results[nodeid] = TestResult(
                nodeid, "failed", exc_type=exc_type, message=message
            )


def _mark_missing(report: TestReport, select: Sequence[str], reason: str | None = None) -> None:
    """A selected test that never reported (its module or conftest failed to
    import, or it no longer exists) counts as an error, not as silently absent."""
    fallback = (
        [reason]
        if reason
        else report.output_tail.strip().splitlines()[-1:] or ["the test did not run"]
    )
    for nodeid in select:
        if nodeid in report.results:
            continue
        module_error = report.collect_errors.get(nodeid.split("::", 1)[0])
        message = module_error.strip().splitlines()[-1:] if module_error else fallback
        report.results[nodeid] = TestResult(
            nodeid,
            "error",
            exc_type="CollectionError" if module_error else "NotRun",
            message=message[0] if message else None,
        )


def _read_coverage(data: bytes | None) -> LineCoverage:
    if data is None:
        return {}
    try:
        raw = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {}
    return unpack_line_coverage(raw)
