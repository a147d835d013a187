"""Scoring where a solver says the bug is (DSDBench): cause lines, effect line, error.

A prediction may carry ``localization``: one object, or a list (one per bug it
found), each ``{"cause": ["file:line", ...], "effect": "file:line", "error":
"Type: message"}``, lines numbered as in the task's corrupted tree. Per bug of
the task, as DSDBench scores each bug of a multi-bug program:

- ``cause_hit``: some cause names one of the bug's changed lines;
- ``effect_hit``: some effect is the file and line where the bug's first failing
  test's error surfaces (``EffectRecord``); None when the task does not know it;
- ``error_match``: some error names the exception type that test raised (the
  text before the first colon, its last dotted part); None when unknown. The
  message is not judged: DSDBench compares messages with a language model, and
  scoring here runs none.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, Field

from corrupt.tasks.models import BugRecord, Task


class Localization(BaseModel):
    cause: list[str] = Field(default_factory=list)
    effect: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class LocalizationHits:
    cause_hit: list[bool]
    effect_hit: list[bool | None]
    error_match: list[bool | None]


def _place(text: str) -> tuple[str, int] | None:
    """``"file:line"`` as a pair; None when it is not one."""
    file, _, line = text.strip().rpartition(":")
    if not file or not line.strip().isdigit():
        return None
    return file.strip().removeprefix("./"), int(line)


def _error_type(text: str) -> str:
    return text.split(":", 1)[0].strip().rsplit(".", 1)[-1]


def localization_hits(task: Task, given: list[Localization]) -> LocalizationHits:
    causes = {p for entry in given for c in entry.cause if (p := _place(c))}
    effects = {p for entry in given if entry.effect and (p := _place(entry.effect))}
    errors = {_error_type(entry.error) for entry in given if entry.error}

    def effect_hit(bug: BugRecord) -> bool | None:
        if bug.effect.file is None or bug.effect.line is None:
            return None
        return (bug.effect.file, bug.effect.line) in effects

    def error_match(bug: BugRecord) -> bool | None:
        if not bug.effect.exception:
            return None
        return _error_type(bug.effect.exception) in errors

    return LocalizationHits(
        cause_hit=[any((bug.file, line) in causes for line in bug.lines) for bug in task.bugs],
        effect_hit=[effect_hit(bug) for bug in task.bugs],
        error_match=[error_match(bug) for bug in task.bugs],
    )
