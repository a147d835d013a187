"""Rich rendering of ``corrupt build-many``: a live view of the run and the closing table."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.progress import TaskID
from rich.table import Table

from corrupt.cli.progress import counting_bar
from corrupt.pipeline.many import Event, ManyProgress, ManyResult, RepoRecord, RepoStatus


class ManyView(ManyProgress):
    """Repositories done of total, and a row per running build with its stage.

    As for one build, a log (not a terminal) gets each event as a line, since
    a live display only redraws on a terminal.
    """

    def __init__(self, console: Console) -> None:
        self.console = console
        self.lines = not console.is_terminal
        self.bar = counting_bar(console)
        self.overall: TaskID | None = None
        self.rows: dict[str, TaskID] = {}

    def __enter__(self) -> ManyView:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def planned(self, total: int, settled: list[RepoRecord]) -> None:
        earlier = f"{len(settled)} settled by an earlier run" if settled else ""
        self.overall = self.bar.add_task(
            "repositories", total=total, completed=len(settled), detail=earlier
        )
        self._line(f"{total} repositories" + (f", {earlier}" if earlier else ""))

    def event(self, event: Event) -> None:
        if event.kind == "note":
            self.console.print(
                f"[yellow]note:[/] {escape(event.repo)}: {escape(event.text)}", highlight=False
            )
        elif event.kind == "start":
            self.rows[event.repo] = self.bar.add_task(event.repo, total=None, detail="starting")
            self._line(f"{event.repo}: started ({event.text})")
        elif event.repo in self.rows:
            self.bar.update(self.rows[event.repo], detail=event.text)
            self._line(f"{event.repo}: {event.text}")

    def finished(self, record: RepoRecord) -> None:
        row = self.rows.pop(record.folder, None)
        if row is not None:
            self.bar.remove_task(row)
        if self.overall is not None:
            self.bar.advance(self.overall)
        if record.status == RepoStatus.DONE:
            tasks = sum(record.tasks.values())
            self.console.print(
                f"done {record.folder}: {tasks} tasks in {record.seconds:.0f} s",
                markup=False,
                highlight=False,
            )
        else:
            self.console.print(
                f"[bold red]failed[/] {escape(record.folder)}: {escape(_cause(record))}",
                highlight=False,
            )

    def _line(self, text: str) -> None:
        if self.lines:
            self.console.print(text, markup=False, highlight=False, soft_wrap=True)


def many_table(result: ManyResult) -> Table:
    table = Table(title="build-many")
    for name in ("repo", "commit", "status", "tasks", "seconds", "cause"):
        table.add_column(name, justify="right" if name == "seconds" else "left")
    for r in result.records:
        earlier = " (earlier)" if r.spec in result.skipped else ""
        tasks = ", ".join(f"{mode} {n}/{r.requested}" for mode, n in r.tasks.items())
        table.add_row(
            r.folder,
            (r.commit or "")[:12],
            f"{r.status}{earlier}",
            tasks,
            f"{r.seconds:.0f}",
            escape(_cause(r)),
            style="red" if r.status == RepoStatus.FAILED else None,
        )
    return table


def overall_line(result: ManyResult) -> str:
    done = sum(r.status == RepoStatus.DONE for r in result.records)
    tasks = sum(sum(r.tasks.values()) for r in result.records)
    return (
        f"{done} of {len(result.records)} repositories done, {len(result.failed)} failed "
        f"({len(result.skipped)} settled by an earlier run); {tasks} tasks; {result.seconds:.0f} s"
    )


def _cause(record: RepoRecord) -> str:
    return f"[{record.cause}] {record.message}" if record.cause else ""
