"""Filter tasks that already exist by difficulty, mode and kind.

Build-time slicing (``corrupt build --slice``) decides what gets corrupted;
this is the after-the-fact view for sets built with wide slices: the same
percentile bands, applied to each task's recorded ``difficulty``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from corrupt.corruptors.models import CorruptionKind
from corrupt.errors import InputError
from corrupt.selection.models import SliceSpec
from corrupt.tasks.effects import HopBand
from corrupt.tasks.models import Task
from corrupt.tasks.modes import TaskMode


def slice_tasks(
    tasks: Iterable[Task],
    spec: SliceSpec,
    *,
    modes: Iterable[TaskMode] | None = None,
    kinds: Iterable[CorruptionKind] | None = None,
    hops: HopBand = HopBand(),
) -> list[Task]:
    """The tasks inside ``spec`` and ``hops`` whose mode and kind are among those asked
    for (all if none)."""
    wanted_modes = set(modes or ()) or None
    wanted_kinds = set(kinds or ()) or None
    return [
        t
        for t in tasks
        if spec.contains(t.difficulty.centrality_pct, t.difficulty.complexity_pct)
        and (wanted_modes is None or t.mode in wanted_modes)
        and (wanted_kinds is None or t.kind in wanted_kinds)
        and hops.contains(t.difficulty.hops)
    ]


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


def load_tasks(source: Path) -> list[Task]:
    """Tasks of a build folder (its store) or of a task JSONL file."""
    source = Path(source)
    if source.is_file():
        return read_jsonl(source)
    if not source.is_dir():
        raise InputError(f"no such build folder or task file: {source}")
    from corrupt.tasks.store import Store

    store = Store.open(source)
    try:
        return store.list_tasks()
    finally:
        store.close()
