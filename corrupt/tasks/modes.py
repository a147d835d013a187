"""The task modes, apart from the task record so that the CLI names them without pydantic."""

from __future__ import annotations

from enum import StrEnum


class TaskMode(StrEnum):
    """What the solver is told: which function to re-implement, or only that tests fail."""

    REMOVE = "remove"
    DISCOVERY = "discovery"


class BuildMode(StrEnum):
    """``corrupt build --mode``: multi-function tasks are discovery tasks built their own way."""

    REMOVE = "remove"
    DISCOVERY = "discovery"
    MULTI = "multi"

    @property
    def task_mode(self) -> TaskMode:
        return TaskMode.REMOVE if self is BuildMode.REMOVE else TaskMode.DISCOVERY


class ScreeningMode(StrEnum):
    """``corrupt build --screening``: how candidates are run on their covering tests.

    ``warm`` forks a server that imported and collected the suite once,
    ``fresh`` starts a new interpreter per candidate, ``suite`` runs the whole
    suite per candidate with no failure budget (the slow reference).
    """

    WARM = "warm"
    FRESH = "fresh"
    SUITE = "suite"
