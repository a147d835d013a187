"""Rich rendering of a build: a live progress display and the closing summary."""

from __future__ import annotations

import time

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from corrupt.pipeline import build
from corrupt.tasks.modes import TaskMode
from corrupt.tasks.store import CandidateRow, CandidateStatus


def counting_bar(console: Console) -> Progress:
    """A bar that counts done of total, with a detail column and an ETA."""
    return Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[detail]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    )


class RichProgress(build.Progress):
    """Stage, candidates tried, tasks verified, test runs and an ETA per mode.

    A live display only redraws on a terminal; written to a file or a CI log it
    would show nothing until the build ends, so there each event is also a line.
    """

    def __init__(self, console: Console) -> None:
        self.console = console
        self.lines = not console.is_terminal
        self.bar = counting_bar(console)
        self.stage_task: TaskID | None = None
        self.mode_tasks: dict[str, TaskID] = {}
        self.counts: dict[str, list[int]] = {}
        self.started = time.monotonic()

    def __enter__(self) -> RichProgress:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def stage(self, name: str) -> None:
        if name in set(TaskMode):
            return  # each mode has its own bar
        if self.stage_task is None:
            self.stage_task = self.bar.add_task("stage", total=None, detail="")
        self.bar.update(self.stage_task, description=f"stage: {name}")
        self._line(f"stage: {name}")

    def mode(self, mode: str, candidates: int, wanted: int) -> None:
        if self.stage_task is not None:
            self.bar.update(
                self.stage_task, description="stage: corrupt + verify", total=1, completed=1
            )
        self.counts[mode] = [0, 0]
        self.mode_tasks[mode] = self.bar.add_task(
            mode, total=wanted, detail=f"0 tried of {candidates} candidates"
        )
        self._line(f"{mode}: {wanted} wanted from {candidates} candidates")

    def candidate(self, mode: str, row: CandidateRow, accepted: bool, test_runs: int) -> None:
        tried, verified = self.counts[mode]
        self.counts[mode] = [tried + 1, verified + int(accepted)]
        self.bar.update(
            self.mode_tasks[mode],
            advance=int(accepted),
            detail=f"{tried + 1} tried, {verified + int(accepted)} verified, {test_runs} test runs",
        )
        # verified, but another candidate wrote the task
        duplicate = row.status == CandidateStatus.VERIFIED
        outcome = "verified" if accepted else "duplicate" if duplicate else str(row.status)
        why = f" ({row.reason})" if row.reason and not accepted else ""
        self._line(
            f"{mode}: {outcome} {', '.join(row.targets)} in {row.seconds:.1f}s{why}; "
            f"{verified + int(accepted)} verified of {tried + 1} tried, {test_runs} test runs"
        )

    def _line(self, text: str) -> None:
        if self.lines:
            self.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def note(self, message: str) -> None:
        self.console.print(f"[yellow]note:[/] {escape(message)}")


def summary_table(summary: build.BuildSummary) -> Table:
    table = Table(title=f"{summary.repo} @ {summary.commit[:12]} — slice {summary.slice}")
    table.add_column("mode")
    table.add_column("tasks", justify="right")
    table.add_column("requested", justify="right")
    table.add_column("tried", justify="right")
    table.add_column("yield", justify="right")
    table.add_column("top rejection")
    for mode, m in summary.modes.items():
        top = max(m.reasons.items(), key=lambda kv: kv[1], default=("", 0))
        table.add_row(
            mode,
            str(m.tasks),
            str(m.requested),
            str(m.tried),
            f"{m.tasks / m.tried:.0%}" if m.tried else "-",
            f"{top[0]} ({top[1]})" if top[1] else "",
        )
    return table


def stage_table(summary: build.BuildSummary) -> Table:
    table = Table(title="time per stage")
    table.add_column("stage")
    table.add_column("seconds", justify="right")
    for name, seconds in summary.stage_seconds.items():
        table.add_row(name, f"{seconds:.1f}")
    return table


def screening_line(record: dict[str, object]) -> str:
    """One line on how candidates were screened, and for warm screening whether it held."""
    mode = record.get("mode")
    if mode != "warm":
        return f"screening: {mode} (a new interpreter per candidate)"
    runs, fallbacks = record.get("warm_runs", 0), record.get("fallbacks", 0)
    checked = record.get("checked")
    when = ", by an earlier build" if record.get("check_reused") else ""
    how = f"warm (checked on {checked} unchanged tests{when})" if checked else "warm"
    line = f"screening: {how}, {runs} runs in the warm server"
    reimports = record.get("reimports", 0)
    if reimports:
        line += f", {reimports} re-imported there" + _reasons(record.get("reimport_reasons"))
    line += f", {fallbacks} run fresh" + _reasons(record.get("fallback_reasons"))
    if record.get("reimport") is False:
        line += f"; re-importing turned off: {record.get('reimport_failure')}"
    if not record.get("warm"):
        line += f"; warm screening turned off for this repository: {record.get('reason')}"
    return line


def _reasons(counts: object) -> str:
    if not isinstance(counts, dict) or not counts:
        return ""
    return " (" + "; ".join(f"{n}× {why}" for why, n in counts.items()) + ")"
