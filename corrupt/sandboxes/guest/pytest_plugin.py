"""The pytest plugin ``corrupt`` loads into repository test runs.

This file is deliberately standalone (stdlib + pytest, and coverage.py only
when asked): the repository's own environment does not have ``corrupt``
installed, so the runner hands this file to the sandbox as
``_corrupt_pytest_plugin_<random>.py`` in the run's I/O folder (outside the working
tree, first on ``PYTHONPATH``) and loads it with ``-p``. It therefore works the
same in a local venv and inside a container.

It writes JSON lines to ``--corrupt-report``:

- ``{"kind": "start", "nodeid": ...}`` before each test, so a run killed for
  its wall-clock timeout still tells which test was running;
- ``{"kind": "test", ...}`` once per test (setup, call and teardown folded
  into one outcome), with exception type, message and traceback frames;
- ``{"kind": "collect_error", ...}`` per module that failed to import;
- ``{"kind": "collected", "count": N}`` and a final ``{"kind": "session"}``.

With ``--corrupt-trace`` (a JSON list of target functions, ``[file, first
line, last line]``, optionally with a fourth item: the node ids of the only
tests to trace) each traced test's calls into the repository's files are kept as
a tree while it runs, and a failing test's record gets ``"trace"``: where its
error surfaces (the innermost traceback frame in the repository) and, per
target, the fewest call steps between a call of the target and that frame.

With ``--corrupt-coverage`` it runs coverage.py with the pytest nodeid as the
dynamic context of each test and writes ``{"tests": [nodeids], "lines": {file:
{line: [indices into tests]}}}``, the nodeid ``""`` standing for code that ran
outside any test (imports, collection). Under pytest-xdist every worker
measures its own tests and the controller merges.
"""

from __future__ import annotations

import collections
import contextlib
import dis
import glob
import json
import os
import re
import signal
import sys
import threading
import time
import traceback

import pytest

_ROOT = os.getcwd()
_SKIP_FRAMES = (os.sep + "_pytest" + os.sep, os.sep + "pluggy" + os.sep, os.path.basename(__file__))
_MAX_MESSAGE = 2000
# The tail of a failed test's captured output kept with it: what a subprocess it ran said
# (pip's or git's "Failed to resolve 'pypi.org'"), where its exception does not.
_MAX_OUTPUT = 1000
_MAX_FRAMES = 60


class Timeout(Exception):
    """Raised inside a test that ran longer than ``--corrupt-test-timeout``."""


TYPE_CHECK_MARK = "mypy_testing"


def pytest_addoption(parser):
    group = parser.getgroup("corrupt")
    group.addoption("--corrupt-report", default=None, help="JSON-lines report path")
    group.addoption("--corrupt-select", default=None, help="file listing the nodeids to run")
    group.addoption(
        "--corrupt-subset", default=None,
        help="file listing the test files and nodeids a cut suite keeps",
    )  # fmt: skip
    group.addoption("--corrupt-test-timeout", type=float, default=None, help="seconds per test")
    group.addoption(
        "--corrupt-call-timeouts", default=None,
        help="JSON file {nodeid: seconds} limiting tests' calls, the modules they import not counted",
    )  # fmt: skip
    group.addoption("--corrupt-coverage", default=None, help="write per-test line coverage here")
    group.addoption("--corrupt-trace", default=None, help="JSON file of target functions to trace")
    group.addoption(
        "--corrupt-maxfail", type=int, default=0,
        help="stop after this many failing tests whose ids harnesses can read",
    )  # fmt: skip


def _relative(path):
    path = os.path.abspath(path)
    if path == _ROOT or path.startswith(_ROOT + os.sep):
        return os.path.relpath(path, _ROOT).replace(os.sep, "/")
    return path


def _readable(nodeid):
    """As ``corrupt.repos.models.harness_readable``: no whitespace and no ``[<digits>m``,
    which the harnesses' log parsers cut or take for a colour code."""
    return not any(ch.isspace() for ch in nodeid) and not re.search(r"\[\d+m", nodeid)


class _Reporter:
    def __init__(self, config):
        self.path = config.getoption("corrupt_report")
        # A screening run's failure budget counts only failures a task could name: with
        # pytest's --maxfail, sqlparse's many ids holding spaces (its parameters are SQL)
        # raised the budget by every such test selected, so no run of them stopped early.
        self.maxfail = config.getoption("corrupt_maxfail")
        self.failures = 0
        self.timeout = config.getoption("corrupt_test_timeout")
        self.call_timeouts = {}
        calls = config.getoption("corrupt_call_timeouts")
        if calls:
            with open(calls, encoding="utf-8") as fh:
                self.call_timeouts = json.load(fh)
        self.clock = None
        select = config.getoption("corrupt_select")
        self.select = None
        if select:
            with open(select, encoding="utf-8") as fh:
                self.select = [line.rstrip("\n") for line in fh if line.strip()]
        subset = config.getoption("corrupt_subset")
        self.subset = None
        if subset:
            with open(subset, encoding="utf-8") as fh:
                self.subset = {line.rstrip("\n") for line in fh if line.strip()}
        self.phases = {}
        self.coverage = None
        trace = config.getoption("corrupt_trace")
        if trace:
            with open(trace, encoding="utf-8") as fh:
                trace = json.load(fh)
        self.follow(trace)
        self.tree = None
        self.hung = False
        self._out = None  # (path, descriptor) of the report, opened at the first record

    def follow(self, spans):
        """Trace calls of ``spans`` (``[file, first, last]``, or with the node ids of the
        only tests to trace as a fourth item: a test none of them names runs untraced, as
        following every call slows a test down two- to threefold); None: trace nothing."""
        self.targets = [tuple(span[:3]) for span in spans] if spans else None
        named = [span[3] for span in spans or () if len(span) > 3]
        whole = not spans or len(named) < len(spans)
        self.traced = None if whole else {nodeid for tests in named for nodeid in tests}

    def write(self, record):
        if not self.path:
            return
        # One write per line to an append-mode descriptor keeps lines whole even
        # when xdist workers share the file. The descriptor stays open: opening
        # the file for each record cost a screening run 50 microseconds a test.
        # Nothing is buffered, so a run killed mid-test has reported all but it.
        if self._out is None or self._out[0] != self.path:
            if self._out is not None:
                os.close(self._out[1])
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
            self._out = (self.path, os.open(self.path, flags, 0o644))
        data = (json.dumps(record) + "\n").encode("utf-8")
        while data:
            data = data[os.write(self._out[1], data) :]

    # -- collection -------------------------------------------------------
    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        # Type-check cases of pytest-mypy-testing (its plugin is off in every run, as
        # the other linters' are): as plain functions they fail on reveal_type.
        typing = [item for item in items if item.get_closest_marker(TYPE_CHECK_MARK)]
        if typing:
            config.hook.pytest_deselected(items=typing)
            items[:] = [item for item in items if not item.get_closest_marker(TYPE_CHECK_MARK)]
        if self.subset is not None:  # a whole file of the cut, or one of its single tests
            kept, dropped = [], []
            for item in items:
                cut = item.nodeid in self.subset or item.nodeid.split("::", 1)[0] in self.subset
                (kept if cut else dropped).append(item)
            if dropped:
                config.hook.pytest_deselected(items=dropped)
                items[:] = kept
        if self.select is None:
            return
        chosen = set(self.select)
        dropped = [item for item in items if item.nodeid not in chosen]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = in_select_order([i for i in items if i.nodeid in chosen], self.select)

    def pytest_collectreport(self, report):
        if report.failed:
            self.write(
                {
                    "kind": "collect_error",
                    "nodeid": report.nodeid,
                    "message": str(report.longrepr)[-_MAX_MESSAGE:],
                }
            )

    def pytest_collection_finish(self, session):
        self.write({"kind": "collected", "count": len(session.items)})
        # corrupt reads failures from its own records (below), never from pytest's
        # reports, whose long tracebacks cost ~15 ms a failure: a screening run
        # that breaks 30 tests spent most of its time formatting them. One line
        # each is still printed. Collection errors (above) keep their full report.
        session.config.option.tbstyle = "line"

    # -- running ----------------------------------------------------------
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.write({"kind": "start", "nodeid": item.nodeid})
        if self.coverage is not None:
            self.coverage.switch_context(item.nodeid)
        call = self.call_timeouts.get(item.nodeid)
        if (self.timeout or call) and hasattr(signal, "SIGALRM"):
            self.clock = Clock(self.timeout, call)
        if self.targets is not None and (self.traced is None or item.nodeid in self.traced):
            self.tree = _CallTree(self.targets)
        try:
            with self.clock or contextlib.nullcontext(), self.tree or contextlib.nullcontext():
                yield
        finally:
            self.clock = None
            self.tree = None
            if self.coverage is not None:
                self.coverage.switch_context("")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        clock = self.clock
        if clock is None:
            yield
            return
        clock.enter_call()
        try:
            yield
        finally:
            clock.leave_call()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        if call.excinfo is not None:
            # pytest formats a failure's traceback (filtered, with source) even
            # for ``--tb=line``: a third of a screening child's time in toolz.
            # Nothing here reads it; the log gets the line ``--tb=line`` prints.
            item.repr_failure = item._repr_failure_py = _OneLine.of
        try:
            outcome = yield
        finally:
            vars(item).pop("repr_failure", None)
            vars(item).pop("_repr_failure_py", None)
        report = outcome.get_result()
        info = self.phases.setdefault(item.nodeid, {"duration": 0.0})
        info["duration"] += report.duration
        if report.failed and "failed" not in info:
            info["failed"] = report.when
            self.failures += _readable(item.nodeid)
            if self.maxfail and self.failures >= self.maxfail:
                item.session.shouldstop = f"{self.failures} failures harnesses can read"
            info["output"] = (report.capstdout + report.capstderr)[-_MAX_OUTPUT:]
            if call.excinfo is not None and call.excinfo.errisinstance(Timeout):
                # The per-test timeout is set far above the test's baseline time: the
                # run is hung on the corruption, which cannot be a task. Waiting for
                # more hangs cost markdown 30 of its 48 screening seconds.
                self.hung = True
                item.session.shouldstop = "a test hit the per-test timeout"
            if call.excinfo is not None:
                info.update(_describe(call.excinfo))
                if self.tree is not None:
                    info["trace"] = self.tree.effect(call.excinfo)
            else:  # e.g. strict xpass: no exception, just a failed report
                info.update(exc_type=None, message=str(report.longrepr)[-_MAX_MESSAGE:], frames=[])
        elif report.skipped and "skipped" not in info:
            info["skipped"] = report.when
            info["xfail"] = hasattr(report, "wasxfail")
            if call.excinfo is not None and not info["xfail"]:
                info["message"] = str(call.excinfo.value)[:_MAX_MESSAGE]
        elif report.passed and report.when == "call" and hasattr(report, "wasxfail"):
            info["xpassed"] = True

    def pytest_runtest_logfinish(self, nodeid, location):
        info = self.phases.pop(nodeid, {"duration": 0.0})
        if "failed" in info:
            outcome = "failed" if info["failed"] == "call" else "error"
        elif "skipped" in info:
            outcome = "xfailed" if info["xfail"] else "skipped"
        elif info.get("xpassed"):
            outcome = "xpassed"
        else:
            outcome = "passed"
        self.write(
            {
                "kind": "test",
                "nodeid": nodeid,
                "outcome": outcome,
                "duration": round(info["duration"], 6),
                "exc_type": info.get("exc_type"),
                "message": info.get("message"),
                "frames": info.get("frames", []),
                **({"trace": info["trace"]} if "trace" in info else {}),
                **({"output": info["output"]} if info.get("output") else {}),
            }
        )

    def pytest_sessionfinish(self, session, exitstatus):
        self.finish(session)

    def finish(self, session):
        self.write(
            {
                "kind": "session",
                "stopped": bool(session.shouldfail or session.shouldstop),
                "hung": self.hung,
                "worker": os.environ.get("PYTEST_XDIST_WORKER"),
            }
        )

    def pytest_unconfigure(self, config):
        if self._out is not None:  # a pytest run inside a longer-lived process keeps no file open
            os.close(self._out[1])
            self._out = None


def in_select_order(items, select):
    """``items`` with their test files in the order ``select`` names them first.

    The caller orders the selection (corrupt puts the fastest files first, so
    a failure budget is spent soon); tests keep their collection order within
    a file, so module fixtures and tests that rely on file order behave as in
    a full run.
    """
    rank = {}
    for nodeid in select:
        rank.setdefault(nodeid.split("::", 1)[0], len(rank))
    return sorted(items, key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


class Clock:
    """A running test's two timeouts, served by one ``ITIMER_REAL``.

    ``whole`` bounds the test: setup, call and teardown, whatever they do.
    ``call`` bounds its call phase without the modules imported meanwhile: a
    screening run of a few tests pays imports (numpy, a lazily loaded plugin)
    that the baseline's run paid once, in some other test, so only the test's
    own work can be held to a short limit, and a hung candidate, the costliest
    to screen, is stopped soon. Fixtures stay under ``whole``: a session
    fixture is set up by whichever selected test needs it first.
    """

    def __init__(self, whole, call):
        self.whole, self.call = whole, call
        self.imports = ImportClock.installed() if call else None
        self.began = self.call_began = None
        self.imported_before = 0.0
        self.previous = None

    def __enter__(self):
        self.began = time.monotonic()
        self.previous = signal.signal(signal.SIGALRM, self._alarm)
        self._arm()
        return self

    def __exit__(self, *exc):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.previous)

    def enter_call(self):
        if self.imports is not None:
            self.call_began, self.imported_before = time.monotonic(), self.imports.spent()
            self._arm()

    def leave_call(self):
        if self.call_began is not None:
            self.call_began = None
            self._arm()

    def _left(self):
        """Seconds until the nearest limit and what to say when it is reached; None: no limit."""
        now = time.monotonic()
        limits = []
        if self.whole:
            why = f"test exceeded the per-test timeout of {self.whole:g} s"
            limits.append((self.began + self.whole - now, why))
        if self.call_began is not None:
            own = now - self.call_began - (self.imports.spent() - self.imported_before)
            why = f"test exceeded the call timeout of {self.call:g} s (imports not counted)"
            limits.append((self.call - own, why))
        return min(limits) if limits else None

    def _arm(self):
        nearest = self._left()
        signal.setitimer(signal.ITIMER_REAL, max(nearest[0], 0.001) if nearest else 0)

    def _alarm(self, signum, frame):
        nearest = self._left()
        if nearest is not None and nearest[0] <= 0:
            raise Timeout(nearest[1])
        self._arm()


class ImportClock:
    """Time the main thread has spent loading modules, the load under way included.

    Every import that loads a module (``import x``, ``importlib.import_module``)
    goes through ``importlib._bootstrap._find_and_load``, which the interpreter
    looks up on that module at each load; a wrapper there sees them all.
    """

    _installed = None

    @classmethod
    def installed(cls):
        if cls._installed is None:
            cls._installed = cls()
        return cls._installed

    def __init__(self):
        self.total, self.depth, self.since = 0.0, 0, 0.0
        self.main = threading.get_ident()
        bootstrap = sys.modules["importlib._bootstrap"]
        load = bootstrap._find_and_load

        def timed_load(*args, **kwargs):
            if threading.get_ident() != self.main:
                return load(*args, **kwargs)
            self.depth += 1
            if self.depth == 1:
                self.since = time.monotonic()
            try:
                return load(*args, **kwargs)
            finally:
                self.depth -= 1
                if self.depth == 0:
                    self.total += time.monotonic() - self.since

        bootstrap._find_and_load = timed_load

    def spent(self):
        return self.total + (time.monotonic() - self.since if self.depth else 0.0)


class _OneLine:
    """A failure's report for pytest's own output: where it was raised, and what.

    It stands in for pytest's formatted traceback, and answers the questions
    ``--tb=line`` and the short summary ask of one (``reprcrash``, ``message``).
    """

    def __init__(self, path, lineno, message):
        self.path, self.lineno, self.message = path, lineno, message
        self.reprcrash = self

    @classmethod
    def of(cls, excinfo, style=None):
        tb = excinfo.tb
        while tb.tb_next is not None:
            tb = tb.tb_next
        return cls(tb.tb_frame.f_code.co_filename, tb.tb_lineno, excinfo.exconly(tryshort=True))

    def toterminal(self, tw):
        tw.line(str(self))

    def __str__(self):
        return f"{self.path}:{self.lineno}: {self.message}"


def _describe(excinfo):
    # The frames' names and lines, without their source text: looking each
    # line up (as traceback.extract_tb does) cost a failure a millisecond.
    kept = collections.deque(maxlen=_MAX_FRAMES)  # a RecursionError has a thousand
    for frame, line in traceback.walk_tb(excinfo.tb):
        code = frame.f_code
        if not any(part in code.co_filename for part in _SKIP_FRAMES):
            kept.append((code.co_filename, line, code.co_name))
    frames = [{"file": _relative(f), "line": n, "function": fn} for f, n, fn in kept]
    exc_type = excinfo.type
    name = (
        exc_type.__name__
        if exc_type.__module__ in ("builtins", __name__)
        else exc_type.__qualname__
    )
    try:
        message = str(excinfo.value)
    except Exception:  # a broken __str__ in repository code must not break the report
        message = "<unprintable exception>"
    return {"exc_type": name, "message": message[:_MAX_MESSAGE], "frames": frames}


# -- call trace -------------------------------------------------------------


class _CallTree:
    """A test's calls of functions in the repository's files, as a tree.

    A profile hook sees every call and return; calls outside the repository (the
    standard library, site-packages, pytest) are not nodes, so a node's parent
    is the nearest repository function up the stack. A generator gets a node
    each time it is resumed, under whoever resumed it. The newest node of each
    frame is kept by the frame's id, which stays unique while the frame lives:
    so the frames a traceback holds (alive with it) map to their own nodes.
    """

    LIMIT = 1_000_000  # calls kept; a test past it is reported as cut

    def __init__(self, targets):
        self.targets = targets
        self.parent = []
        self.stack = [-1]
        self.node_of = {}
        self.hits = [collections.deque(maxlen=5000) for _ in targets]
        self.calls = [0] * len(targets)
        self.kinds = {}  # code -> (in the repository, index of the target it belongs to)
        self.cut = False
        self._previous = None

    def __enter__(self):
        self._previous = sys.getprofile()
        sys.setprofile(self._event)
        return self

    def __exit__(self, *exc):
        sys.setprofile(self._previous)

    def _kind(self, code):
        kind = self.kinds.get(code)
        if kind is None:
            path = code.co_filename
            ours = path.startswith(_ROOT + os.sep) and "site-packages" not in path
            ours = ours and not any(part in path for part in _SKIP_FRAMES)
            target = None
            if ours:
                file = _relative(path)
                lines = [n for _, n in dis.findlinestarts(code) if n]
                for index, (name, first, last) in enumerate(self.targets):
                    if name == file and lines and first <= min(lines) and max(lines) <= last:
                        target = index
            kind = self.kinds[code] = (ours, target)
        return kind

    def _event(self, frame, event, arg):
        if event == "call":
            ours, target = self._kind(frame.f_code)
            if not ours:
                return
            node = len(self.parent)
            if node >= self.LIMIT:
                self.cut = True
                sys.setprofile(self._previous)
                return
            up = self.stack[-1]
            self.parent.append(up)
            self.stack.append(node)
            self.node_of[id(frame)] = node
            if target is not None:
                self.hits[target].append(node)
                self.calls[target] += 1
        elif event == "return" and self.node_of.get(id(frame)) == self.stack[-1] != -1:
            self.stack.pop()

    def effect(self, excinfo):
        """Where the failure surfaces and each target's distance to it, in call steps.

        A doctest's examples are compiled as ``<doctest ...>``, outside the tree: when
        nothing of the repository raised, the failing example's line in its docstring
        is where the error surfaces, and the example itself is the root caller."""
        sys.setprofile(self._previous)  # the hook must not see the reporting below
        failure = _doctest_failure(excinfo.value)
        inner = getattr(failure, "exc_info", None)  # an example that raised
        last = None
        for frame, line in traceback.walk_tb(inner[2] if inner else excinfo.tb):
            if self._kind(frame.f_code)[0]:
                last = (frame, line)
        reason = f"the trace was cut at {self.LIMIT} calls" if self.cut else None
        if last is not None:
            frame, line = last
            effect = {"file": _relative(frame.f_code.co_filename), "line": line,
                      "function": frame.f_code.co_name}  # fmt: skip
            node = self.node_of.get(id(frame))
        elif failure is not None and failure.test.lineno is not None:
            test = failure.test
            line = test.lineno + failure.example.lineno + 1  # both count from 0
            effect = {"file": _relative(test.filename), "line": line,
                      "function": test.name}  # fmt: skip
            node = -1
        else:
            return {"effect": None, "hops": [None] * len(self.targets), "calls": self.calls,
                    "reason": "no frame of the repository in the traceback"}  # fmt: skip
        if node is None:
            reason = reason or "the failing frame was not traced"
            hops = [None] * len(self.targets)
        else:
            hops = [self._nearest(node, hits) for hits in self.hits]
        return {"effect": effect, "hops": hops, "calls": self.calls, "reason": reason}

    def _nearest(self, node, hits):
        """The fewest tree steps from ``node`` to any of ``hits`` (None: no hit). The
        calls pytest makes itself (setup, the test, teardown) meet at a root, -1."""
        above = {}
        step, at = 0, node
        while True:
            above[at] = step
            if at < 0:
                break
            at, step = self.parent[at], step + 1
        best = None
        for hit in hits:
            up, at = 0, hit
            while at not in above:
                at, up = self.parent[at], up + 1
            if best is None or up + above[at] < best:
                best = up + above[at]
        return best


def _doctest_failure(error):
    """The first failed example of a doctest's failure (stdlib's, or pytest's several), or None."""
    failures = getattr(error, "failures", None)  # pytest's MultipleDoctestFailures
    if failures:
        error = failures[0]
    if hasattr(error, "test") and hasattr(error, "example"):
        return error
    return None


# -- coverage ---------------------------------------------------------------
# Started from pytest_load_initial_conftests so that modules imported by the
# repository's conftest.py files are measured too.


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    target = getattr(early_config.known_args_namespace, "corrupt_coverage", None)
    if not target:
        return
    import coverage

    # Python files only: code a test compiles under a made-up name that resolves into the
    # tree (tblib's ``File "file1", line 2147483647``) would be measured too, and
    # coverage.py stores a file's lines as a bitmap as long as its largest line number.
    # ``*.py`` crosses folders in coverage.py before 6, ``**/*.py`` since.
    cov = coverage.Coverage(
        data_file=None,
        include=[os.path.join(_ROOT, "*.py"), os.path.join(_ROOT, "**", "*.py")],
        config_file=False,
    )
    cov.start()
    early_config._corrupt_coverage = (cov, target)


def pytest_configure(config):
    reporter = _Reporter(config)
    started = getattr(config, "_corrupt_coverage", None)
    if started:
        reporter.coverage = started[0]
    config.pluginmanager.register(reporter, "corrupt-reporter")


def pytest_unconfigure(config):
    started = getattr(config, "_corrupt_coverage", None)
    if not started:
        return
    cov, target = started
    cov.stop()
    data = cov.get_data()
    # Each test's nodeid once, lines holding indices into that list: a suite of
    # 60,000 tests repeats long nodeids millions of times otherwise (500 MB).
    tests, lines = [], {}
    index = {}
    for measured in data.measured_files():
        for line, contexts in data.contexts_by_lineno(measured).items():
            ids = [_index_of(index, tests, c) for c in contexts]  # "": outside any test
            if ids:
                lines.setdefault(_relative(measured), {}).setdefault(str(line), []).extend(ids)
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:  # the controller merges what its workers measured, after they finished
        target = f"{target}.{worker}"
    else:
        for part in glob.glob(glob.escape(target) + ".*"):
            with open(part, encoding="utf-8") as fh:
                their = json.load(fh)
            for file, by_line in their["lines"].items():
                for line, ids in by_line.items():
                    ours = [_index_of(index, tests, their["tests"][i]) for i in ids]
                    lines.setdefault(file, {}).setdefault(line, []).extend(ours)
            os.remove(part)
    with open(target, "w", encoding="utf-8") as fh:
        json.dump({"tests": tests, "lines": lines}, fh)


def _index_of(index, tests, nodeid):
    found = index.get(nodeid)
    if found is None:
        found = index[nodeid] = len(tests)
        tests.append(nodeid)
    return found
