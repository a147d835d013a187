"""Filter tasks that already exist by difficulty, mode and kind.

Build-time slicing (``corrupt build --slice``) decides what gets corrupted;
this is the after-the-fact view for sets built with wide slices: the same
percentile bands, applied to each task's recorded ``difficulty``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from corrupt.corruptors.models import CorruptionKind
from corrupt.errors import InputError
from corrupt.selection.models import SliceSpec
from corrupt.tasks.effects import HopBand
from corrupt.tasks.models import Task
from corrupt.tasks.modes import TaskMode
from corrupt.tasks.taskfile import read_jsonl


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
