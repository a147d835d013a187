"""The task modes, apart from the task record so that the CLI names them without pydantic."""

from __future__ import annotations

from enum import StrEnum


class TaskMode(StrEnum):
    """How a task is built and what its solver is told: ``corrupt build --mode``, the
    record's ``mode`` and ``slice --mode`` are this one value.

    A remove task names the function to re-implement; discovery (one function) and
    multi (several) tasks say only that tests fail.
    """

    REMOVE = "remove"
    DISCOVERY = "discovery"
    MULTI = "multi"

    @property
    def told(self) -> str:
        """What the solver is told, the part of the mode a task id hashes: records from
        before multi had its own mode said discovery for it, and keep their ids."""
        return "remove" if self is TaskMode.REMOVE else "discovery"


class ScreeningMode(StrEnum):
    """``corrupt build --screening``: how candidates are run on their covering tests.

    ``warm`` forks a server that imported and collected the suite once,
    ``fresh`` starts a new interpreter per candidate, ``suite`` runs the whole
    suite per candidate with no failure budget (the slow reference).
    """

    WARM = "warm"
    FRESH = "fresh"
    SUITE = "suite"


class VerifyMode(StrEnum):
    """``corrupt build --verify``: how many suite runs make a candidate a task.

    ``fast`` runs the whole suite once on the corrupted tree and then only the tests
    whose outcome the corruption can change; ``full`` runs the whole suite twice on
    the corrupted tree and once on the repaired one (see :mod:`corrupt.tasks.verify`).
    """

    FAST = "fast"
    FULL = "full"
