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
