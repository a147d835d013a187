"""Candidate screens on a Ray cluster: ``corrupt build --executor ray``.

Each of a build's ``--jobs`` workers becomes an actor that owns a working copy
(and, screening warm, a warm server) wherever Ray places it. The driver keeps
everything else (mutants, ranking, verification's verdicts, the store): only
test runs travel, as plain records (files and test ids out, a
:class:`~corrupt.repos.models.TestReport` back). Candidates are accepted in
the build's order whichever actor screened them, so the task ids are those of
a local build with the same seed.

An actor reads the checkout and the environment at the driver's paths: one
machine, or nodes sharing the cache folder (``XDG_CACHE_HOME``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from corrupt.repos.models import Baseline, Checkout, Environment, TestReport, TraceTarget
from corrupt.screening.screen import RunBudget, TreeScreener, WarmRecord
from corrupt.screening.warm_checks import kept_checks
from corrupt.tasks.modes import ScreeningMode

CANCEL_SECONDS = 10.0  # how long Ctrl-C waits for an actor to end its run


@dataclass(frozen=True)
class WorkerSpec:
    """What an actor needs to screen on its own: plain records, sent once."""

    sandbox: dict[str, Any]  # get_sandbox's arguments
    checkout: Checkout
    env: Environment
    baseline: Baseline
    budget: RunBudget
    screening: ScreeningMode


class ScreenerActor:
    """A :class:`TreeScreener` on its own working copy, in a Ray worker."""

    def __init__(self, spec: WorkerSpec) -> None:
        from corrupt.repos.workspace import Workspace
        from corrupt.sandboxes.registry import get_sandbox

        self._stack = ExitStack()
        self.box = get_sandbox(**spec.sandbox)
        self._stack.callback(self.box.close)
        workspace = self._stack.enter_context(Workspace(spec.checkout))
        self.screener = TreeScreener(
            self.box, spec.env, workspace, spec.budget,
            screening=spec.screening, baseline=spec.baseline, verdicts=kept_checks(),
        )  # fmt: skip
        self._stack.callback(self.screener.close)  # before its working copy goes

    def screen(
        self, files: dict[str, str], tests: list[str] | None, max_failures: int | None
    ) -> tuple[TestReport, tuple[int, int], WarmRecord]:
        report = self.screener(files, tests, max_failures)
        return report, self._counts(), self.screener.policy.snapshot()

    def run(
        self, files: dict[str, str], tests: list[str] | None, trace: list[TraceTarget]
    ) -> tuple[TestReport, tuple[int, int], WarmRecord]:
        report = self.screener.run(files, tests=tests, trace=trace)
        return report, self._counts(), self.screener.policy.snapshot()

    def _counts(self) -> tuple[int, int]:
        return self.screener.runs, self.screener.suite_runs

    def cancel(self) -> None:
        """End the run in flight (called alongside it: the actor has a second thread)."""
        self.box.cancel()

    def close(self) -> None:
        self._stack.close()


class RemoteScreener:
    """The driver's handle on one :class:`ScreenerActor`, called like a TreeScreener."""

    def __init__(self, ray: Any, actor: Any) -> None:
        self.ray, self.actor = ray, actor
        self.runs = self.suite_runs = 0
        self.policy: WarmRecord | None = None  # the actor's WarmPolicy, as of its last run

    def __call__(
        self, files: dict[str, str], tests: Sequence[str] | None, max_failures: int | None
    ) -> TestReport:
        listed = list(tests) if tests is not None else None
        return self._answer(self.actor.screen.remote(files, listed, max_failures))

    def run(
        self,
        files: dict[str, str],
        *,
        tests: Sequence[str] | None = None,
        trace: Sequence[TraceTarget] = (),
    ) -> TestReport:
        listed = list(tests) if tests is not None else None
        return self._answer(self.actor.run.remote(files, listed, list(trace)))

    def cancel(self) -> None:
        """Ctrl-C: the actor ends its run in flight, as a local sandbox's cancel does
        (an actor already gone or stuck runs nothing more that needs ending)."""
        with contextlib.suppress(self.ray.exceptions.RayError):
            self.ray.get(self.actor.cancel.remote(), timeout=CANCEL_SECONDS)

    def close(self) -> None:
        try:
            self.ray.get(self.actor.close.remote())
        finally:
            self.ray.kill(self.actor)

    def _answer(self, ref: Any) -> TestReport:
        report, (self.runs, self.suite_runs), self.policy = self.ray.get(ref)
        return report  # type: ignore[no-any-return]  # ray.get is untyped


def start_remote_screeners(ray: Any, count: int, spec: WorkerSpec) -> list[RemoteScreener]:
    """``count`` actors of one CPU each, their working copies made before the first candidate."""
    # a second thread, so cancel() can reach an actor busy with a run
    actor = ray.remote(num_cpus=1, max_restarts=0, max_concurrency=2)(ScreenerActor)
    handles = [actor.remote(spec) for _ in range(count)]
    ray.get([h.__ray_ready__.remote() for h in handles])
    return [RemoteScreener(ray, handle) for handle in handles]
