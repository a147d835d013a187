"""``corrupt build`` and ``corrupt build-many``: the two commands that take a build's options.

Both take them from :class:`~corrupt.pipeline.options.BuildOptions`, where
each is declared once (``fields.py`` makes the fields typer options):
``build`` all of them, ``build-many`` all but the repository, the build folder
and the executor, which it has of its own (it distributes repositories, not
candidates). ``app.py`` registers them with the other commands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from corrupt.cli.consoles import UNSAFE_WARNING, console, err_console, friendly
from corrupt.cli.fields import with_fields
from corrupt.errors import CorruptError
from corrupt.pipeline.options import BuildOptions, ExecutorChoice
from corrupt.sandboxes.registry import DEFAULT_SANDBOX

# build's options that build-many has of its own, or sets per repository
MANY_OWN = ("repo", "out", "executor", "ray_address")


@friendly
@with_fields(BuildOptions)
def build(**fields: Any) -> None:
    """Build verified, difficulty-tuned tasks from a repository."""
    from corrupt.cli.progress import RichProgress, screening_line, stage_table, summary_table
    from corrupt.pipeline.build import Build

    options = BuildOptions(**fields)
    if not options.isolation and options.sandbox == DEFAULT_SANDBOX:  # docker refuses it
        err_console.print(UNSAFE_WARNING)
    with RichProgress(console) as progress:
        summary = Build(options, progress).run()
    console.print(summary_table(summary))
    console.print(stage_table(summary))
    console.print(
        f"{summary.tasks} verified tasks in {summary.out} ({summary.jsonl}); "
        f"{summary.eligible} of {summary.functions} functions eligible, {summary.in_slice} in the slice; "
        f"{summary.test_runs} test runs ({summary.suite_runs} of the whole suite)"
    )
    console.print(screening_line(summary.screening), highlight=False)
    short = [m for m, s in summary.modes.items() if s.tasks < s.requested]
    if short:
        err_console.print(
            f"note: fewer tasks than requested for {', '.join(short)}: the slice has no more candidates "
            "that verify; widen the slice or lower --min-failing"
        )


@friendly
@with_fields(BuildOptions, leave_out=MANY_OWN)
def build_many(
    list_: str = typer.Argument(
        ...,
        metavar="LIST",
        help="file of repository specs (one a line) or of `corrupt search --json` lines; - for stdin",
    ),
    root: Path = typer.Option(
        Path("out"),
        help="folder holding a build per repository (BUILD = ROOT/<repo>) and the run's ledger",
    ),
    retry_failed: bool = typer.Option(
        False, help="build again the repositories that failed for a reason of their own"
    ),
    executor: ExecutorChoice = typer.Option(
        "local", help="run the builds here, one after another, or as Ray tasks"
    ),
    ray_address: str | None = typer.Option(
        None, help="Ray cluster to join (default: $RAY_ADDRESS, else a new local one)"
    ),
    as_json: bool = typer.Option(False, "--json", help="print the summary as JSON lines"),
    **fields: Any,
) -> None:
    """Build tasks from every repository of a list, a build folder each; rerun to resume."""
    import json
    import sys

    from corrupt.cli.many import ManyView, many_table, overall_line
    from corrupt.errors import InputError
    from corrupt.pipeline.many import make_executor, parse_list, run_many

    try:
        text = sys.stdin.read() if list_ == "-" else Path(list_).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the list {list_}: {exc.strerror}") from None
    specs = parse_list(text)
    if not fields["isolation"] and fields["sandbox"] == DEFAULT_SANDBOX:
        err_console.print(UNSAFE_WARNING)
    runner = make_executor(executor, ray_address, fields["jobs"])
    with ManyView(err_console if as_json else console) as view:
        result = run_many(specs, root, fields, runner, view, retry_failed=retry_failed)
    if as_json:
        for r in result.records:
            row = {k: v for k, v in r.as_json().items() if k != "options"}
            typer.echo(json.dumps({**row, "skipped": r.spec in result.skipped}))
    else:
        # Six columns: a log or a pipe gets them all rather than rich's default 80 characters.
        wide = (
            console if console.is_terminal else Console(width=max(console.width, 140), emoji=False)
        )
        wide.print(many_table(result))
        console.print(overall_line(result), highlight=False)
    if result.failed:
        raise CorruptError(
            f"{len(result.failed)} of {len(result.records)} repositories failed: "
            + ", ".join(f"{r.folder} ({r.cause})" for r in result.failed)
        )
