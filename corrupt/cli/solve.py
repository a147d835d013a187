"""Rendering a solver's results: per build mode and kind, what it solved and what it cost."""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from corrupt.cli.progress import counting_bar
from corrupt.solve.run import SolveProgress
from corrupt.tasks.store import Store


class RichSolveProgress(SolveProgress):
    """A bar over the tasks; the task being solved and each result as its detail."""

    def __init__(self, console: Console, solver: str) -> None:
        self.bar = counting_bar(console)
        self.row = self.bar.add_task(f"{solver} solving", total=None, detail="")

    def __enter__(self) -> RichSolveProgress:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def start(self, total: int, done: int) -> None:
        self.bar.update(self.row, total=total, completed=done, detail=f"{done} from an earlier run")

    def started(self, task_id: str) -> None:
        self.bar.update(self.row, detail=task_id)

    def finished(self, task_id: str, result: dict[str, Any]) -> None:
        self.bar.update(self.row, advance=1, detail=f"{task_id}: {result['status']}")


def solve_table(build: Path, results: dict[str, dict[str, Any]]) -> Table:
    store = Store.open(build)
    try:
        kinds = {t.task_id: f"{t.mode}/{t.kind}" for t in store.list_tasks()}
    finally:
        store.close()
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for task_id, result in results.items():
        groups[kinds.get(task_id, "?")].append(result)
    table = Table(title="APR baseline (medians over attempted tasks)", title_justify="left")
    table.add_column("mode/kind", justify="left", no_wrap=True)
    for column in ("tasks", "attempted", "solved", "patches", "bug rank", "seconds"):
        table.add_column(column, justify="right")
    for name, rows in sorted(groups.items()):
        attempted = [r for r in rows if r["status"] != "not attempted"]
        ranks = [r["bug_rank"] for r in attempted if r["bug_rank"] is not None]
        table.add_row(
            name,
            str(len(rows)),
            str(len(attempted)),
            str(sum(r["solved"] for r in attempted)),
            _median([r["patches_tried"] for r in attempted]),
            _median(ranks),
            _median([r["seconds"] for r in attempted]),
        )
    return table


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):g}" if values else "-"
