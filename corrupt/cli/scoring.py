"""Rich rendering of ``corrupt score``: a progress bar and the closing table."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from corrupt.cli.progress import counting_bar
from corrupt.scoring.models import Score
from corrupt.scoring.score import ScoreProgress
from corrupt.scoring.summary import ScoreGroup


class RichScoreProgress(ScoreProgress):
    """A bar over the predictions; off a terminal, one line per scored prediction."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.lines = not console.is_terminal
        self.bar = counting_bar(console)
        self.task = self.bar.add_task("scoring", total=None, detail="")
        self.resolved = 0

    def __enter__(self) -> RichScoreProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def start(self, total: int, done: int) -> None:
        """Inputs are checked: the bar appears now, so a refused run shows none."""
        self.bar.start()
        self.bar.update(self.task, total=total, completed=done)
        if done:
            self.note(f"{done} of {total} predictions already scored in the output file")

    def scored(self, score: Score) -> None:
        self.resolved += score.resolved
        self.bar.update(self.task, advance=1, detail=f"{self.resolved} resolved")
        if self.lines:
            verdict = "resolved" if score.resolved else (score.error or "not resolved")
            self.console.print(
                f"{escape(score.task_id)} ({escape(score.model)}): {escape(verdict)}",
                highlight=False,
            )

    def note(self, message: str) -> None:
        self.console.print(f"note: {escape(message)}", highlight=False)


def score_table(groups: list[ScoreGroup]) -> Table:
    """The closing table; DSDBench's cause/effect/error columns where predictions localized."""
    localized = any(g.cause_pct is not None for g in groups)
    table = Table(title="scores", box=box.SIMPLE_HEAD, pad_edge=False)
    columns = ["model", "mode", "kind", "slice", "fns", "tasks", "resolved", "right fn", "prec",
               "recall", "tamp", *(("cause", "effect", "error") if localized else ())]  # fmt: skip
    for column in columns:
        left = column in ("model", "mode", "kind", "slice")
        table.add_column(column, justify="left" if left else "right", no_wrap=True)
    for g in groups:
        cells = [
            escape(g.model),
            g.mode,
            g.kind,
            g.slice,
            str(g.n_functions),
            str(g.tasks),
            f"{g.resolved_pct:.0f}%",
            _pct(g.right_function_pct),
            "-" if g.precision is None else f"{g.precision:.2f}",
            f"{g.recall:.2f}",
            str(g.tampered),
        ]
        if localized:
            cells += [_pct(g.cause_pct), _pct(g.effect_pct), _pct(g.error_pct)]
        table.add_row(*cells, style="bold" if g.mode == "all" else None)
    return table


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}%"
