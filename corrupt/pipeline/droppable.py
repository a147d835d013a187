"""A build's workers as one candidate borrows them: the walk can drop the candidate.

With several workers the walk runs candidates past the last it turns out to
need. When a mode has its tasks, each candidate still running ends at its next
test run instead of screening to its end (a hub function of pyramid's took a
minute), and what it found is not recorded.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from corrupt.repos.models import TestReport, TraceTarget
from corrupt.screening.screen import TreeScreener
from corrupt.screening.screen_ray import RemoteScreener

Worker = TreeScreener | RemoteScreener  # a build's screener, here or in a Ray actor


class Dropped(Exception):
    """The walk dropped the candidate: it has its tasks without it."""


class Droppable:
    """A worker lent to one candidate, which ends at its next test run once dropped."""

    def __init__(self, worker: Worker, dropped: threading.Event) -> None:
        self.worker, self.dropped = worker, dropped

    @property
    def runs(self) -> int:
        return self.worker.runs

    @runs.setter
    def runs(self, value: int) -> None:
        self.worker.runs = value

    def __call__(
        self, files: dict[str, str], tests: Sequence[str] | None, max_failures: int | None
    ) -> TestReport:
        self._go_on()
        return self.worker(files, tests, max_failures)

    def run(
        self,
        files: dict[str, str],
        *,
        tests: Sequence[str] | None = None,
        trace: Sequence[TraceTarget] = (),
    ) -> TestReport:
        self._go_on()
        return self.worker.run(files, tests=tests, trace=trace)

    def _go_on(self) -> None:
        if self.dropped.is_set():
            raise Dropped
