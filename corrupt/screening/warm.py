"""The host's side of warm screening: one pytest server per working copy.

:mod:`corrupt.sandboxes.guest.warm_server` runs in the sandbox, imports the project and
collects the suite once, and forks per candidate. :class:`WarmServer`
starts it through :meth:`Sandbox.serve`, sends it candidates and reads their
reports back in the runner's :class:`TestReport` form, so a warm run and a
fresh run are interchangeable to the caller.
"""

from __future__ import annotations

import enum
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from corrupt.errors import SandboxError
from corrupt.repos.models import IO_DIR, Command, Environment, Limits, TestReport, TraceTarget
from corrupt.repos.suiteargs import base_argv, suite_args, test_command
from corrupt.sandboxes.base import Sandbox, Service
from corrupt.sandboxes.guest import PYTEST_PLUGIN, WARM_SERVER
from corrupt.suites.runner import (
    plugin_module,
    read_report,
    run_options,
    subset_options,
    trace_spans,
)

REPLY_MARGIN = 30.0  # seconds past a run's deadline before the server counts as hung
CHILD_FAILED = 70  # warm_server's exit status for a child that failed in corrupt's own code
FROM_COVERAGE = "--collection-from-coverage"  # warm_server's first argument, when it applies


class WarmUnavailable(Exception):
    """The server could not start or stopped working; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Reimport(enum.Enum):
    """When a candidate runs in a child that imports the working tree again
    (:func:`corrupt.sandboxes.guest.warm_server.reimporting_child`) rather than swapping code."""

    NEVER = "never"  # a candidate the server cannot swap in is answered with why
    DECLINED = "declined"  # ...is run by a re-importing child instead
    ALWAYS = "always"  # every candidate is (the check that re-importing holds)


@dataclass(frozen=True)
class WarmRun:
    """A warm server's answer. ``report`` is None when the candidate needs a fresh
    process; ``declined`` says why its code could not be swapped in (with a
    report, a re-importing child ran it)."""

    report: TestReport | None
    declined: str | None = None


class WarmServer:
    """A warm pytest process serving one working tree; see the module docstring."""

    def __init__(
        self,
        sandbox: Sandbox,
        env: Environment,
        tree: Path,
        *,
        startup_timeout: float,
        collection_from_coverage: bool = False,
        subset: Sequence[str] = (),
    ) -> None:
        """``collection_from_coverage``: each request's ``quiet`` comes from a coverage
        map that records what ran outside tests, so the server need not record which
        functions ran while it collected (:mod:`corrupt.sandboxes.guest.warm_server`). ``subset``:
        the test files a suite over budget is cut to (:attr:`Baseline.subset`)."""
        self.tree = tree
        self.subset = subset
        self.module = module = plugin_module()
        server = f"_corrupt_warm_{secrets.token_hex(8)}"
        extra_env = test_command(tree)[1]
        extra_env["PYTHONPATH"] = f"{IO_DIR}:{extra_env['PYTHONPATH']}"
        chosen, paths, files = subset_options(subset)
        argv = [
            "python",
            f"{IO_DIR}/{server}.py",
            *([FROM_COVERAGE] if collection_from_coverage else []),
            *base_argv(module)[3:],
            f"--corrupt-report={IO_DIR}/collect.jsonl",
            *suite_args(tree, subset=paths),
            *chosen,
        ]
        files[f"{module}.py"] = PYTEST_PLUGIN.read_bytes()
        files[f"{server}.py"] = WARM_SERVER.read_bytes()
        command = Command(argv=argv, env=extra_env, limits=Limits(), files=files)
        try:
            service = sandbox.serve(env, tree, command)
        except SandboxError as exc:  # e.g. the engine refused the container: run fresh instead
            raise WarmUnavailable(f"the warm server could not start: {exc.message}") from None
        if service is None:
            raise WarmUnavailable(f"the {sandbox.name} sandbox cannot keep a server")
        self.service: Service = service
        self._requests = 0
        try:
            ready = service.receive(startup_timeout)
        except SandboxError as exc:
            self.close()
            raise WarmUnavailable(f"the warm server did not start: {exc.message}") from None
        if not ready.get("ready"):
            self.close()
            raise WarmUnavailable(str(ready.get("reason") or "the warm server refused"))
        self.collected = int(ready.get("collected") or 0)

    def run(
        self,
        files: dict[str, str],
        originals: dict[str, str],
        select: Sequence[str] | None,
        *,
        max_failures: int | None,
        timeout: float,
        per_test_timeout: float | None,
        call_timeouts: Mapping[str, float] | None = None,
        quiet: Sequence[str] = (),
        reimport: Reimport = Reimport.NEVER,
        trace: Sequence[TraceTarget] = (),
    ) -> WarmRun:
        """The run of ``select`` with ``files`` in place (they are already written into
        the tree: a re-importing child reads them there; a server with a tree of its
        own writes them into it). WarmUnavailable when the server itself stopped working.

        ``quiet``: files of ``files`` whose changed statements ran only inside
        tests (:func:`corrupt.corruptors.reach.ran_outside_tests`); ``trace``: failing
        tests' calls of those functions are traced, as :func:`run_tests` does."""
        self._requests += 1
        name = f"report-{self._requests}.jsonl"
        request: dict[str, object] = {
            "id": self._requests,
            "files": files,
            "originals": originals,
            "quiet": list(quiet),
            "select": list(select) if select is not None else None,
            "maxfail": max_failures,
            "per_test_timeout": per_test_timeout,
            "call_timeouts": dict(call_timeouts or {}),
            "deadline": timeout,
            "report": name,
        }
        if trace:
            request["trace"] = trace_spans(trace)
        if reimport is not Reimport.NEVER:
            options, inputs = run_options(
                self.tree,
                select=select,
                max_failures=max_failures,
                per_test_timeout=per_test_timeout,
                call_timeouts=call_timeouts,
                subset=self.subset,
                trace=trace,
            )
            request["reimport"] = {
                "argv": [
                    *base_argv(self.module)[3:],
                    f"--corrupt-report={IO_DIR}/{name}",
                    *options,
                ],
                "inputs": {n: data.decode("utf-8") for n, data in inputs.items()},
                "io": IO_DIR,
                "always": reimport is Reimport.ALWAYS,
            }
        own_tree = not self.service.shares_tree
        if own_tree:  # a container's copy: the server writes the files and sends the report
            request["own_tree"] = True
        try:
            self.service.send(request)
            reply = self.service.receive(timeout + REPLY_MARGIN)
            data = _carried(reply) if own_tree else self.service.outputs([name]).get(name)
        except SandboxError as exc:
            raise WarmUnavailable(exc.message) from None
        if reply.get("id") != request["id"]:
            raise WarmUnavailable("the warm server answered out of turn")
        declined = reply.get("fallback")
        declined = None if declined is None else str(declined)
        if declined is not None and not reply.get("reimported"):
            return WarmRun(None, declined)
        exit_code = reply.get("exit")
        exit_code = exit_code if isinstance(exit_code, int) else None
        if exit_code == CHILD_FAILED:
            return WarmRun(None, "the warm child failed before running the tests")
        report = read_report(
            data,
            select=select,
            duration=float(reply.get("seconds") or 0.0),
            exit_code=exit_code,
            timed_out=bool(reply.get("timed_out")),
            killed=f"signal {-exit_code}" if exit_code is not None and exit_code < 0 else None,
            output="",
        )
        return WarmRun(report, declined)

    def close(self) -> None:
        self.service.close()


def _carried(reply: dict[str, object]) -> bytes | None:
    """The report a server with a tree of its own sent in its reply."""
    text = reply.get("report_text")
    return text.encode("utf-8") if isinstance(text, str) else None
