"""``corrupt show``: one task's metadata and its diff, for a person reading a build's output."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from corrupt.tasks.models import Task


def metadata_table(task: Task) -> Table:
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column(overflow="fold")
    d = task.difficulty
    rows = [
        ("task", task.task_id),
        ("repo", f"{task.repo.name} @ {task.repo.commit[:12]}"),
        ("mode / kind", f"{task.mode} / {task.kind}"),
        ("corruptor", task.corruptor),
        (
            "difficulty",
            f"centrality {d.centrality_pct:.1f} pct, complexity {d.complexity_pct:.1f} pct, "
            f"{d.n_functions} function(s), slice {d.slice}",
        ),
        (
            "targets",
            "\n".join(f"{t.qualname}  {t.file}:{t.start_line}-{t.end_line}" for t in task.targets),
        ),
        (
            "bugs",
            "\n".join(
                f"{b.category}/{b.subcategory or '-'} via {b.operator} at {b.file}:"
                f"{','.join(map(str, b.lines))}"
                for b in task.bugs
            )
            or "-",
        ),
        (
            "tests",
            f"{len(task.tests.fail_to_pass)} fail-to-pass, {len(task.tests.pass_to_pass)} "
            f"pass-to-pass, baseline {task.tests.baseline_seconds:.1f}s",
        ),
        ("command", task.tests.command),
        ("seed / engine", f"{task.seed} / {task.engine_version}"),
        ("created", task.created_at),
    ]
    if task.image_name:
        rows.append(("image", task.image_name))
    for key, value in rows:
        table.add_row(key, Text(value))
    return table


def render_task(task: Task, *, fix: bool = False) -> RenderableType:
    """Metadata, the problem statement and the corruption (or, with ``fix``, the repair) diff."""
    diff = task.fix_patch if fix else task.corruption_patch
    title = "fix (corrupted -> original)" if fix else "corruption (original -> corrupted)"
    return Group(
        Panel(metadata_table(task), title=f"task {task.task_id[:12]}", title_align="left"),
        Panel(Text(task.problem_statement.rstrip()), title="problem statement", title_align="left"),
        Panel(
            Syntax(diff, "diff", theme="ansi_dark", word_wrap=True), title=title, title_align="left"
        ),
    )
