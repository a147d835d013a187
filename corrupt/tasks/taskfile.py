"""Task files: a JSONL of task records (``corrupt slice``'s), read back as tasks.

Any command that takes ``--tasks`` (score, solve, report) or a task file in
place of a build (export, slice) reads it here, below every stage that does.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from corrupt.errors import InputError
from corrupt.tasks.models import Task


def read_jsonl(path: Path) -> list[Task]:
    tasks = []
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                tasks.append(Task.model_validate_json(line))
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"])
                raise InputError(
                    f"{path}:{number} is not a task record ({where}: {first['msg']})"
                ) from None
    return tasks


def listed_tasks(path: Path | None, tasks: list[Task], folder: Path) -> list[Task]:
    """The build's tasks a task JSONL (``corrupt slice``'s, a commands' ``--tasks``) lists,
    in its order; all of them when no file is given."""
    if path is None:
        return tasks
    if not Path(path).is_file():
        raise InputError(f"--tasks {path} is not a task file (a JSONL of corrupt slice)")
    listed = read_jsonl(Path(path))
    held = {t.task_id: t for t in tasks}
    foreign = [t.task_id for t in listed if t.task_id not in held]
    if foreign:
        raise InputError(
            f"{path} lists {len(foreign)} tasks {folder} does not hold (first: {foreign[0]})"
        )
    if not listed:
        raise InputError(f"{path} lists no tasks")
    return [held[t.task_id] for t in listed]
