"""corrupt's warm screening server: import and collect once, fork per candidate.

Standalone like the pytest plugin (stdlib + pytest): the runner hands it to
the sandbox as an input file and starts ``python <this file> <pytest args>``.
A fresh interpreter per candidate spends most of its time starting, importing
and collecting; this process does that once, then serves JSON-line requests
on its stdin, one per candidate:

``{"id", "files": {path: source}, "originals": {path: source}, "quiet":
[paths], "select": [nodeids], "maxfail", "per_test_timeout", "call_timeouts",
"deadline", "report", "trace", "reimport", "own_tree"}``; ``quiet`` names the
files whose changed statements, by the baseline's coverage, ran only inside
tests (not while the suite was collected). ``trace`` (``[[file, first, last],
...]``, as the plugin's ``--corrupt-trace`` file holds) has each failing
test's calls of those functions traced, as a fresh run with that option would
(verification's rerun). ``own_tree``: this server's tree and I/O folder are its
own copies, out of the host's reach (a container): the server writes the
candidate's files into the tree before the child runs and puts the originals
back after, and the reply carries the report (``report_text``).

Which functions ran while the suite was collected is recorded here (a
profiler, while importing and collecting) unless the first argument is
``--collection-from-coverage``: the host then has the baseline's coverage
of what ran outside tests, and ``quiet`` is all a plan needs. Recording
cost marshmallow's server a second, more than its collection.

For each it plans which live functions get which new code (:class:`Swaps`)
and forks. The child swaps the code in, runs the selected tests (in the order
the plugin gives them) through pytest's own run protocol, writes the plugin's
report to ``report`` and exits; the parent kills it at ``deadline`` and
answers ``{"id", "exit", "timed_out", "fallback", "reimported", "seconds"}``.
``fallback`` says why a candidate could not be swapped in (a change to code
that runs at import, a changed function that ran while the suite was
collected). Without ``reimport`` no child is made then, and the host runs
that candidate in a fresh process. With ``reimport`` (``{"argv": pytest
arguments, "inputs": {name: text}, "io": what stands for the I/O folder in
argv, "always"}``) the child instead forgets every module of the working
tree and runs ``pytest.main(argv)`` as that fresh process would: the
interpreter, pytest, its plugins and the third-party imports stay warm; the
project, its conftests and the selected test files are imported and
collected anew from the patched files (``reimported``). ``always`` takes
that way for every candidate (the host's check of it).

Why a code swap and not a re-import: assigning ``function.__code__`` changes
the behaviour of every reference to the function (aliases made by ``from m
import f``, decorators' wrappers, registries, bound methods) while class and
exception identities stay those of the import, as in a fresh process.

The control channel is moved off fds 0 and 1 before pytest starts, so test
output cannot corrupt it, and the child closes it before any test runs.
"""

from __future__ import annotations

import _lsprof
import ast
import contextlib
import gc
import importlib.machinery
import json
import os
import re
import select
import signal
import stat
import sys
import time
import types
import weakref

CO_OPTIMIZED, CO_NEWLOCALS = 0x1, 0x2
CHILD_FAILED = 70  # the child failed in this file's code, not in a test
FROM_COVERAGE = "--collection-from-coverage"
IO = os.path.dirname(os.path.abspath(__file__))  # the run's I/O folder: reports go here
POLL_SECONDS = (0.0005, 0.002, 0.01)  # child polling without a pidfd: short first
MAX_REPORT_BYTES = 256 * 1024 * 1024  # as the host's cap on a collected file


class NotSwappable(Exception):
    """The candidate cannot be applied to the imported code: why, and where."""

    def __init__(self, why, where):
        super().__init__(f"{where}: {why}")
        self.why = why


def main():
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)  # whatever tests or plugins print goes to the log, never to the channel
    sys.path[0] = os.getcwd()  # as ``python -m pytest`` has it: the working tree first
    args = sys.argv[1:]
    from_coverage = args[:1] == [FROM_COVERAGE]
    import pytest

    server = Server(requests, replies, None if from_coverage else Calls())
    status = pytest.main(args[1:] if from_coverage else args, plugins=[server])
    if not server.served:
        server.send({"ready": False, "reason": f"pytest ended before serving (exit {int(status)})"})
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


class Server:
    """The pytest plugin that replaces the run loop with the request loop."""

    def __init__(self, requests, replies, calls):
        self.requests, self.replies = requests, replies
        self.calls = calls  # None: what ran at collection is not recorded
        self.tree = os.getcwd()  # with ``own_tree``, where a candidate's files are written
        self.served = False
        self.positions = {}

    def send(self, message):
        self.replies.write((json.dumps(message) + "\n").encode("utf-8"))

    def pytest_runtestloop(self, session):
        self.served = True
        swaps = Swaps(self.calls.stop() if self.calls else None)
        config = session.config
        reporter = config.pluginmanager.get_plugin("corrupt-reporter")
        if (
            getattr(config.option, "numprocesses", None)
            or getattr(config.option, "dist", "no") != "no"
        ):
            self.send({"ready": False, "reason": "the suite runs under pytest-xdist"})
            return True
        reporter.path = None  # each child reports to its own file
        # A child picks its tests by position: scanning every item would touch
        # (and so copy) the pages of all of them.
        self.positions = {item.nodeid: n for n, item in enumerate(session.items)}
        locate(session.items)
        # What import and collection made is kept out of every later garbage
        # collection: a child's full collection would walk the whole inherited
        # heap, writing to (and so copying) every page of it.
        gc.freeze()
        self.send({"ready": True, "collected": len(session.items), "pid": os.getpid()})
        while True:
            line = self.requests.readline()
            if not line:
                return True
            self.send(self.serve(session, reporter, swaps, json.loads(line.decode("utf-8"))))

    def serve(self, session, reporter, swaps, request):
        """Plan the swap here (the child would pay it again, in copied pages), fork, wait."""
        began = time.monotonic()
        answer = {
            "id": request["id"], "exit": None, "timed_out": False, "fallback": None,
            "reimported": False,
        }  # fmt: skip
        reimport = request.get("reimport")
        plan = None
        try:
            if not (reimport and reimport.get("always")):
                plan = swaps.plan(request["files"], request["originals"], request.get("quiet", ()))
        except NotSwappable as exc:
            answer["fallback"] = exc.why
        if plan is None:
            if not reimport or swaps.not_reimportable:
                why = answer["fallback"] or swaps.not_reimportable
                return {**answer, "fallback": why, "seconds": round(time.monotonic() - began, 4)}
            answer["reimported"] = True
        if not request.get("own_tree"):
            return {**answer, **self.forked(session, reporter, swaps, request, plan, began)}
        try:
            put_files(self.tree, request["files"])
            answer.update(self.forked(session, reporter, swaps, request, plan, began))
        finally:
            restore_files(self.tree, request["files"], request["originals"])
        return {
            **answer,
            "report_text": taken(os.path.join(IO, os.path.basename(request["report"]))),
        }

    def forked(self, session, reporter, swaps, request, plan, began):
        """Run the candidate in a child; its exit code, whether it timed out, and the time."""
        reimport = request.get("reimport")
        pid = os.fork()
        if pid == 0:
            status = CHILD_FAILED
            try:
                self.requests.close()
                self.replies.close()
                if plan is None:
                    status = reimporting_child(swaps.tree_modules, reimport)
                else:
                    status = child(session, reporter, request, plan, self.positions)
            except BaseException as exc:  # noqa: BLE001 - the child must always exit here
                os.write(2, f"warm child failed: {exc!r}\n".encode())
            finally:
                os._exit(status)
        exit_code, timed_out = wait(pid, began + float(request["deadline"]))
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)  # whatever the tests started and left behind
        return {
            "exit": exit_code,
            "timed_out": timed_out,
            "seconds": round(time.monotonic() - began, 4),
        }


def put_files(tree, files):
    """Write a candidate's files into this server's own copy of the tree (``own_tree``)."""
    for relative, text in files.items():
        path = os.path.join(tree, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)


def restore_files(tree, files, originals):
    """Put the tree back as it was before :func:`put_files`: originals rewritten,
    files the candidate added removed."""
    for relative in files:
        path = os.path.join(tree, relative)
        if relative in originals:
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(originals[relative])
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


def taken(path, cap=MAX_REPORT_BYTES):
    """The report a child wrote, read (never through a link, within ``cap``) and removed:
    with ``own_tree`` the host cannot reach this I/O folder, so the reply carries it.
    None when there is none, or it is not a plain file within the cap."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        plain = stat.S_ISREG(os.fstat(handle.fileno()).st_mode)
        data = handle.read(cap + 1) if plain else b""
    with contextlib.suppress(OSError):
        os.unlink(path)
    if not plain or len(data) > cap:
        return None
    return data.decode("utf-8", errors="replace")


def locate(items):
    """Work out each test's location (pytest keeps it on the item once asked) here,
    once: every child reports it for each test it runs, and worked it out anew,
    about 40 microseconds a test. One that cannot be located fails in the child,
    as it would in a fresh run."""
    for item in items:
        with contextlib.suppress(Exception):
            item.location  # noqa: B018 - a cached property: reading it keeps it


def wait(pid, deadline):
    """The child's exit code and whether the deadline killed it.

    A pidfd (Linux 5.3+) wakes the server the moment the child exits; elsewhere
    it polls, briefly at first, so a runaway run costs little.
    """
    try:
        exited = os.pidfd_open(pid)
    except (AttributeError, OSError):
        exited = None
    try:
        pauses = iter(POLL_SECONDS)
        pause = next(pauses)
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return decode_status(status), False
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if exited is not None:
                select.select([exited], [], [], left)
            else:
                time.sleep(min(pause, left))
                pause = next(pauses, pause)
    finally:
        if exited is not None:
            os.close(exited)
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None, True


def decode_status(status):
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def child(session, reporter, request, plan, positions):
    """Swap the candidate in, run its tests, report; the exit status says how it went.

    ``positions``: each collected test's index in ``session.items``."""
    os.setpgid(0, 0)  # one group to kill, whatever the tests start
    for function, code in plan:
        function.__code__ = code
    import linecache

    linecache.checkcache()  # tracebacks read the patched files, not lines cached at collection
    plugin = sys.modules[type(reporter).__module__]
    wanted = request["select"]
    items = session.items
    if wanted is not None:
        chosen = sorted({positions[n] for n in wanted if n in positions})
        items = plugin.in_select_order([items[n] for n in chosen], wanted)
    reporter.path = os.path.join(IO, os.path.basename(request["report"]))
    reporter.follow(request.get("trace"))
    reporter.timeout = request.get("per_test_timeout")
    reporter.call_timeouts = request.get("call_timeouts") or {}
    reporter.maxfail, reporter.failures = request.get("maxfail") or 0, 0
    session.testsfailed = 0
    session.shouldfail = session.shouldstop = False
    without_progress(session.config)
    reporter.write({"kind": "collected", "count": len(items)})
    for index, item in enumerate(items):
        nextitem = items[index + 1] if index + 1 < len(items) else None
        item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        if session.shouldfail or session.shouldstop:
            break
    reporter.finish(session)
    return 0


PROGRESS_HOOKS = ("pytest_runtest_logstart", "pytest_runtest_logreport", "pytest_runtest_logfinish")


def without_progress(config):
    """Take the terminal reporter's per-test hooks out of this child's hook calls.

    They print a child's progress (a mark per test, into the server's log)
    and cost about 0.07 ms a test, 15% of a child's loop over marshmallow's
    suite; nothing reads them, and no summary is printed here. The reporter
    stays registered (plugins ask it for the terminal writer). pluggy keeps
    a hook's implementations in ``_hookimpls`` since 1.0; elsewhere nothing
    changes.
    """
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    for name in PROGRESS_HOOKS:
        impls = getattr(getattr(config.hook, name, None), "_hookimpls", None)
        if terminal is not None and isinstance(impls, list):
            impls[:] = [impl for impl in impls if impl.plugin is not terminal]


def reimporting_child(tree_modules, reimport):
    """Run pytest as a fresh process would, but in this warm one: the working tree's
    modules (the project, conftests, test modules) are forgotten, so they are
    imported from the patched files; what the tree does not hold stays imported."""
    os.setpgid(0, 0)
    for name, text in reimport["inputs"].items():
        with open(os.path.join(IO, os.path.basename(name)), "w", encoding="utf-8") as fh:
            fh.write(text)
    for name in tree_modules:
        sys.modules.pop(name, None)
    # This process's own assertion rewriter would rewrite test modules by its
    # configuration's rules; the new run installs its own.
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "AssertionRewritingHook"]
    import pytest

    class EndsWithTheReport:
        """Ends the child once the report's last record is written: what pytest does
        after (its summary, two full garbage collections at unconfigure, 10 ms a
        child) changes nothing a report says, in a process about to exit."""

        @pytest.hookimpl(trylast=True)
        def pytest_sessionfinish(self, session, exitstatus):
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(int(exitstatus))

    argv = [arg.replace(reimport["io"], IO) for arg in reimport["argv"]]
    return int(pytest.main(argv, plugins=[EndsWithTheReport()]))


class Calls:
    """The functions that run before serving starts: imports and collection.

    Recorded once per code object: ``sys.monitoring`` (3.12+) disables a
    location after its first event; before that cProfile's C profiler
    (without C calls) keeps a table of the code objects called. A Python
    trace function doubled toolz's collection time; the profiler adds about
    half of that. It sees the main thread only, where pytest collects.
    """

    def __init__(self):
        self.codes = {}
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None:
            try:
                monitoring.use_tool_id(monitoring.PROFILER_ID, "corrupt-warm")
            except ValueError:  # another profiler holds the slot
                monitoring = None
        self.monitoring = monitoring
        if monitoring is not None:
            events = monitoring.events
            monitoring.register_callback(monitoring.PROFILER_ID, events.PY_START, self._started)
            monitoring.set_events(monitoring.PROFILER_ID, events.PY_START)
        else:
            self.profiler = _lsprof.Profiler(builtins=False)
            self.profiler.enable()

    def _started(self, code, offset):
        self.codes[id(code)] = code
        return self.monitoring.DISABLE

    def stop(self):
        """``{(real path, name, first line)}`` of every function that ran."""
        monitoring = self.monitoring
        if monitoring is not None:
            monitoring.set_events(monitoring.PROFILER_ID, 0)
            monitoring.register_callback(monitoring.PROFILER_ID, monitoring.events.PY_START, None)
            monitoring.free_tool_id(monitoring.PROFILER_ID)
        else:
            self.profiler.disable()
            for entry in self.profiler.getstats():
                if isinstance(entry.code, types.CodeType):
                    self.codes[id(entry.code)] = entry.code
            self.profiler.clear()
        paths = {}
        ran = set()
        for code in self.codes.values():
            file = code.co_filename
            if file not in paths:
                paths[file] = os.path.realpath(file)
            ran.add((paths[file], code.co_name, code.co_firstlineno))
        self.codes = {}
        return ran


# -- swapping code ---------------------------------------------------------------


class Swaps:
    """Plans each candidate's swap: which live function gets which new code.

    Only function bodies may differ (code that ran at import cannot be run
    again), and no changed function may have run while the suite was
    collected (a test module that builds objects at import would see the
    change in a fresh run, even fail to import). Every function object made
    from a changed definition is found among the live objects, whatever holds
    it (aliases, wrappers, registries, another module's globals); a definition
    with none was never made (an untaken ``if`` branch) or is gone, and
    nothing can call it.

    The server's state is frozen once collection ends, so what a plan needs
    (imported files, live functions by definition, the originals' code) is
    gathered once here, in the parent; a child that scanned the heap itself
    would copy most of its pages.
    """

    def __init__(self, ran_at_collection):
        self.ran_at_collection = ran_at_collection  # None: any function may have run
        files = {name: module_file(m) for name, m in list(sys.modules.items())}
        self.imported = set(files.values()) - {None}
        self.live = live_functions()  # before gc.freeze(), which hides objects from gc
        root = os.path.realpath(os.getcwd()) + os.sep
        self.tree_modules = [
            name
            for name, file in files.items()
            if file and file.startswith(root) and "site-packages" not in file.split(os.sep)
        ]
        self.not_reimportable = next(
            (
                f"{os.path.relpath(files[name], root)} is a C extension, imported once per process"
                for name in self.tree_modules
                if files[name].endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
            ),
            None,
        )
        self._originals = {}  # (path, source) -> code
        self._trees = {}  # (path, original) -> its ast (None: it does not parse)

    def plan(self, files, originals, quiet=()):
        """``[(function, new code)]``; NotSwappable when a fork cannot show the change.

        A changed function that ran at collection (without a record of that:
        any changed function) is declined unless its file is ``quiet``: the
        changed statements themselves did not run then, so what collection made
        is what a fresh process would make.
        """
        ran = self.ran_at_collection
        root = os.getcwd()
        plan = []
        for relative, source in files.items():
            path = os.path.realpath(os.path.join(root, relative))
            if path not in self.imported:
                continue  # not imported yet: a test imports it from the patched file
            original = originals.get(relative)
            if original is None:
                raise NotSwappable("imported, but no original to compare with", relative)
            changes, altered = changed_functions(
                *self._codes(original, source, path, relative), relative
            )
            for name, line in sorted(altered):
                if relative not in quiet and (ran is None or (path, name, line) in ran):
                    where = f"{relative}:{line} {name}"
                    raise NotSwappable("ran while the suite was collected", where)
            for (name, line), code in changes.items():
                for ref in self.live.get((path, name, line), ()):
                    function = ref()
                    if function is None:
                        continue
                    if code is None:
                        raise NotSwappable("two definitions on one line", f"{relative} {name}")
                    if len(code.co_freevars) != len(function.__closure__ or ()):
                        raise NotSwappable("free variables changed", f"{relative} {name}")
                    plan.append((function, code))
        return plan

    def _codes(self, original, source, path, relative):
        """Both versions compiled: the changed function's outline (:func:`outlines`)
        where the change lies in one function, else the whole files. Compiling a
        whole file was most of a plan (6 ms for marshmallow's fields.py)."""
        key = (path, original)
        if key not in self._trees:
            try:
                self._trees[key] = ast.parse(original)
            except (SyntaxError, ValueError):
                self._trees[key] = None
        cut = outlines(original, source, self._trees[key]) if self._trees[key] else None
        if cut is not None:
            try:
                return self._original_code(cut[0], path, relative), compiled(cut[1], path, relative)
            except NotSwappable:
                pass  # the whole files say why
        return self._original_code(original, path, relative), compiled(source, path, relative)

    def _original_code(self, source, path, relative):
        """``source`` compiled once: every candidate of a function compares with it."""
        key = (path, source)
        if key not in self._originals:
            self._originals[key] = compiled(source, path, relative)
        return self._originals[key]


def live_functions():
    """``{(real path, name, first line): [weak references]}`` of every function object."""
    live, paths = {}, {}
    for function in gc.get_objects():
        if type(function) is not types.FunctionType:
            continue
        code = function.__code__
        file = code.co_filename
        if file not in paths:
            paths[file] = os.path.realpath(file)
        live.setdefault((paths[file], code.co_name, code.co_firstlineno), []).append(
            weakref.ref(function)
        )
    return live


def module_file(module):
    try:
        file = vars(module).get("__file__")
    except TypeError:
        return None
    return os.path.realpath(file) if isinstance(file, str) else None


def compiled(source, path, relative):
    try:
        return compile(source, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise NotSwappable(f"does not compile ({exc})", relative) from None


LINES = re.compile(r"[^\r\n]*(?:\r\n|\n|\r)|[^\r\n]+$")  # as Python numbers lines


def outlines(original, source, tree):
    """``original`` and ``source`` cut down to what the changed function's code
    depends on, on the same lines: the function itself, the headers of the
    classes around it and the ``__future__`` imports; every other line above
    it is blank, and below it one line imports what the module imports. The
    function's code compiles as in the whole file (names, qualified name, the
    class's ``__class__`` cell, line numbers). None unless the change lies
    inside one function of the module or of the classes in it, on as many
    lines (``tree``: ``original`` parsed): a change that adds or removes lines
    moves the functions below it too."""
    old, new = LINES.findall(original), LINES.findall(source)
    if len(old) != len(new):
        return None  # the functions below move, and are swapped for their new lines
    head = 0
    while head < len(old) and old[head] == new[head]:
        head += 1
    if head == len(old):
        return None  # nothing changed
    tail = 0
    while old[-1 - tail] == new[-1 - tail]:
        tail += 1
    low, high = head + 1, len(old) - tail  # the changed lines
    keep = set()
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
            keep.update(range(statement.lineno, statement.end_lineno + 1))
    body = tree.body
    while True:
        around = [s for s in body if first_line(s) <= low and high <= s.end_lineno]
        if len(around) != 1:
            return None
        node = around[0]
        if isinstance(node, ast.ClassDef):
            inside = first_line(node.body[0])
            if inside <= node.lineno:
                return None  # ``class C: ...`` on one line
            keep.update(range(first_line(node), inside))
            body = node.body
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            break
        else:
            return None
    start, end = first_line(node), node.end_lineno
    above = "".join(line if n in keep else "\n" for n, line in enumerate(old[: start - 1], 1))
    imported = imported_names(tree)
    below = f"\nimport {', '.join(imported)}\n" if imported else ""
    return (
        above + "".join(old[start - 1 : end]) + below,
        above + "".join(new[start - 1 : end]) + below,
    )


def imported_names(tree):
    """The names the module's own scope binds by import (in ``try``, ``if`` and the
    like too): the compiler reads ``module.attr(...)`` as a method call unless
    ``module`` is one of them."""
    names, pending = [], list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if getattr(node, "module", None) != "__future__":
                names += [a.asname or a.name.split(".")[0] for a in node.names if a.name != "*"]
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.expr)):
            pending += ast.iter_child_nodes(node)
    return sorted(set(names))


def first_line(statement):
    """A statement's first line, its decorators' included."""
    return min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])


def changed_functions(old, new, relative):
    """``({(name, old first line): new code}, {keys whose own code changed})``.

    Code run at import (the module's and class bodies, comprehensions in
    them) must be the same but for line numbers. A function whose code or
    lines changed is swapped (a function that only moved keeps tracebacks
    right), lambdas made at import included. Two changed definitions
    on one line (``lambda: run(lambda: f())``) map to None: a live function
    made from either cannot be told apart.
    """
    changes, altered = {}, set()

    def walk(old_code, new_code, at_import):
        olds, news = children(old_code), children(new_code)
        if at_import and shape(old_code) != shape(new_code):
            raise NotSwappable("the change reaches code that runs at import", relative)
        if len(olds) != len(news):
            raise NotSwappable("nested definitions changed", f"{relative} {old_code.co_name}")
        for o, n in zip(olds, news):
            function = bool(o.co_flags & CO_OPTIMIZED and o.co_flags & CO_NEWLOCALS)
            if function and not same(o, n):
                if at_import and ran_when_made(o) and not same(o, n, lines=False):
                    raise NotSwappable("the change reaches code that runs at import", relative)
                key = (o.co_name, o.co_firstlineno)
                changes[key] = None if key in changes else n  # None: which one is ambiguous
                if shape(o) != shape(n):
                    altered.add(key)
            walk(o, n, at_import and not function)

    walk(old, new, True)
    return changes, altered


def children(code):
    return [c for c in code.co_consts if isinstance(c, types.CodeType)]


def shape(code):
    """What a code object does, without its line numbers and nested code."""
    return (
        code.co_code,
        tuple(map(constant, code.co_consts)),
        code.co_names,
        code.co_varnames,
        code.co_freevars,
        code.co_cellvars,
        code.co_flags,
        code.co_argcount,
        code.co_kwonlyargcount,
        getattr(code, "co_posonlyargcount", 0),
    )


def constant(value):
    """A constant as it compares: a set in any order (two compiles of one ``{'a', 'b'}``
    can order its ``frozenset`` apart), nested code by its name."""
    if isinstance(value, types.CodeType):
        return ("<code>", value.co_name)
    if isinstance(value, frozenset):
        return ("frozenset", tuple(sorted(map(constant, value), key=repr)))
    if isinstance(value, tuple):
        return ("tuple", tuple(map(constant, value)))
    return (type(value).__name__, repr(value))


def line_table(code):
    if hasattr(code, "co_lines"):
        return (code.co_firstlineno, tuple(code.co_lines()))
    return (code.co_firstlineno, code.co_lnotab)


def same(old, new, *, lines=True):
    """Identical behaviour (and line numbers, unless ``lines`` is false), nested code included."""
    if shape(old) != shape(new) or (lines and line_table(old) != line_table(new)):
        return False
    return all(same(o, n, lines=lines) for o, n in zip(children(old), children(new)))


def ran_when_made(code):
    """A comprehension or generator expression runs where it is written; a lambda,
    like a def, only makes a function (a default ``key=lambda item: item``)."""
    return code.co_name.startswith("<") and code.co_name != "<lambda>"


if __name__ == "__main__":
    main()
