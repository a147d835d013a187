"""The ``corrupt`` command: a thin typer layer over the pipeline stages.

Each command parses options, calls one stage function and renders its result
(``build.py`` holds the two that take a build's options). Every
:class:`~corrupt.errors.CorruptError` becomes a one-line message on stderr and
the error's exit code (``consoles.friendly``); no traceback reaches the user.
"""

from __future__ import annotations

import contextlib
import shlex
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import typer
import typer.core
from rich.console import Console
from rich.markup import escape

from corrupt.cli.build import build, build_many
from corrupt.cli.consoles import UNSAFE_WARNING, console, err_console, friendly
from corrupt.corruptors.models import CorruptionKind
from corrupt.outputs.formats import format_names
from corrupt.pipeline.options import MAX_HOPS_HELP, MIN_HOPS_HELP, REPO_HELP
from corrupt.sandboxes.registry import DEFAULT_SANDBOX, SandboxName
from corrupt.selection.models import SliceName
from corrupt.tasks.modes import TaskMode

if TYPE_CHECKING:
    from corrupt.outputs.formats import ExportFormat
    from corrupt.repos.models import Baseline, Checkout
    from corrupt.tasks.models import Task

if TYPE_CHECKING:
    FormatChoice = str
else:
    FormatChoice = Literal[tuple(format_names())]  # the formats' own modules name them


class _Group(typer.core.TyperGroup):
    """Help that names what a user types: an argument by its name (``BUILD``, not
    ``{build}``), a flag by nothing (not ``<bool>``, which reads as taking a value)."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _named(super().get_params(ctx))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _named(command.get_params(ctx))
        return command


def _named(params: list[Any]) -> list[Any]:
    for param in params:
        if param.metavar is None and getattr(param, "is_flag", False):
            param.metavar = ""
        elif param.metavar is None and param.param_type_name == "argument" and param.name:
            param.metavar = param.name.rstrip("_").upper()
    return params


app = typer.Typer(
    cls=_Group,
    name="corrupt",
    help="Turn real, well-tested Python repositories into verified code-repair tasks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# What the README, the report and the task records call centrality is the graph's harmonic
CENTRALITY_NAMES = {"centrality": "harmonic", "reach": "harmonic"}


def _print_version(value: bool) -> None:
    if value:
        from corrupt import __version__

        console.print(f"corrupt {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _options(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="print the version and exit",
    ),
) -> None:
    """Turn real, well-tested Python repositories into verified code-repair tasks."""


BUILD_HELP = "build folder (the --out of corrupt build)"
BUILD_OR_TASKS_HELP = "build folder, or a task JSONL file (corrupt slice's)"
TASKS_HELP = "task JSONL (corrupt slice's): these of the build's tasks instead of all"
STAGE_LABELS = {
    "checkout": "checking out",
    "graph": "building the code graph",
    "environment": "preparing the environment",
    "baseline": "running the suite (twice, then under coverage)",
    "coverage": "mapping tests to functions",
}


app.command()(build)
app.command(name="build-many")(build_many)


@app.command()
@friendly
def baseline(
    repo: str = typer.Argument(..., help=REPO_HELP),
    time_limit: float = typer.Option(60.0, help="seconds the suite may take"),
    sandbox: SandboxName = typer.Option(DEFAULT_SANDBOX, help="where repository code runs"),
    base_image: str | None = typer.Option(None, help="base image for --sandbox docker"),
    no_isolation: bool = typer.Option(
        False, "--no-isolation", help="UNSAFE: run repository code without the local sandbox's box"
    ),
    explain: bool = typer.Option(
        False, help="print what was detected: test command, requirement sources, dropped ones"
    ),
    python: str | None = typer.Option(
        None,
        "--python",
        help="build the environment on this installed Python (3.13 or 3.13.0; local sandbox)",
    ),
    strict_baseline: bool = typer.Option(
        False,
        "--strict-baseline",
        help="refuse a suite with any test red in both runs (by default up to 5% of them, "
        "for a cause corrupt cannot name, are left out and named)",
    ),
) -> None:
    """Check that a repository's suite is green, fast and stable; map tests to functions."""
    from corrupt.cli.explain import explain_environment, explain_plan
    from corrupt.prepare import prepare
    from corrupt.repos.budget import suite_cut
    from corrupt.sandboxes.registry import get_sandbox

    box = get_sandbox(sandbox, base_image=base_image, isolation=not no_isolation)
    if no_isolation:
        err_console.print(UNSAFE_WARNING)
    with err_console.status("checking out") as status:

        @contextlib.contextmanager
        def shown(stage: str) -> Iterator[None]:
            status.update(STAGE_LABELS.get(stage, stage))
            yield

        ready = None
        try:
            pinned_at: list[Checkout] = []

            def checked_out(pinned: Checkout) -> None:
                pinned_at.append(pinned)
                if explain:
                    explain_plan(pinned, console)

            ready = prepare(
                repo,
                box,
                time_limit=time_limit,
                stage=shown,
                env_progress=status.update,
                note=lambda text: err_console.print(f"note: {escape(text)}", highlight=False),
                checked_out=checked_out,
                python=python,
                strict_baseline=strict_baseline,
            )
        finally:
            box.close()
            if explain and pinned_at:
                explain_environment(
                    ready.checkout if ready else pinned_at[0], console, asked=python is not None
                )
    pinned, result, covering = ready.checkout, ready.baseline, ready.coverage
    console.print(f"{pinned.name} @ {pinned.commit[:12]}", markup=False)
    console.print(
        f"tests: {len(result.tests)} passing, {len(result.skipped)} skipped, {len(result.flaky)} flaky"
    )
    console.print(f"time: {result.seconds:.2f} s per run")
    if result.flaky:
        console.print("flaky: " + ", ".join(result.flaky), highlight=False, markup=False)
    _print_left_out(result)
    if result.subset:
        console.print(f"cut: {suite_cut(result)}", highlight=False, markup=False)
        kept = f"  kept: {', '.join(result.subset)}"
        console.print(kept, highlight=False, soft_wrap=True, markup=False)
    well_covered = sum(1 for t in covering.values() if len(t) >= 5)
    console.print(
        f"functions: {len(covering)}; covered by >=1 test: {sum(1 for t in covering.values() if t)}; "
        f"by >=5 tests: {well_covered}"
    )
    most = max(map(len, covering.values()), default=0)
    if well_covered == 0 and most > 0:
        # e.g. a data-driven suite: one test looping over many cases
        err_console.print(
            "note: no function is covered by the 5 tests --min-covering and --min-failing "
            f"ask for by default; the best-covered is covered by {most}. Lower both: "
            f"corrupt build {escape(shlex.quote(repo))} --min-covering {most} --min-failing {most}",
            highlight=False,
        )


def _print_left_out(result: Baseline) -> None:
    """The tests a baseline left out besides the flaky ones, by cause."""
    for left_out, why in (
        (result.offline, "needing the network or a service on it, which the box never has"),
        (result.without_git, "needing the project's own git checkout (the tree has no .git)"),
        (
            result.lacking_a_module,
            "importing a module nothing installed provides (an optional dependency "
            "no requirement intake read names)",
        ),
        (
            [f"{n} ({e})" for n, e in result.red.items()],
            "red in both runs for a cause corrupt cannot name (--strict-baseline refuses them)",
        ),
    ):
        if left_out:
            # test ids hold what their parameters do, brackets too (falcon's "[/ws/yes]")
            line = f"left out, {why}: " + ", ".join(left_out)
            console.print(line, highlight=False, markup=False)


@app.command()
@friendly
def export(
    build: Path = typer.Argument(..., help=BUILD_OR_TASKS_HELP),
    format_: FormatChoice = typer.Option("jsonl", "--format", help="record format"),
    out: Path | None = typer.Option(
        None, help="file (harbor: folder) to write; - for stdout (default: in BUILD)"
    ),
    base_image: str | None = typer.Option(
        None, help="base image if the repository's image must be built (swebench, swesmith, harbor)"
    ),
) -> None:
    """Write a build's tasks for a harness: SWE-bench, SWE-smith, Harbor, PDB, JSONL or Parquet."""
    from corrupt.errors import InputError
    from corrupt.outputs.export import check_target, export_format, export_tasks
    from corrupt.outputs.formats import Unread
    from corrupt.repos.original import original_checkout
    from corrupt.tasks.store import Store
    from corrupt.tasks.taskfile import read_jsonl

    fmt = export_format(format_)
    report = err_console if str(out) == "-" else console
    if out is not None:
        check_target(fmt, out)
    if build.is_file():  # a task JSONL: records only, no file contents
        if fmt.needs_images or fmt.needs_files:
            raise InputError(f"the {fmt.name} format needs a build folder, not a task file")
        tasks = read_jsonl(build)
        target = out or build.parent / fmt.default_name
        written = export_tasks(tasks, fmt.name, target)
    else:
        if not build.is_dir():
            raise InputError(f"no such build folder or task file: {build}")
        store = Store.open(build)
        try:
            tasks = store.list_tasks()
            target = out or build / fmt.default_name
            files_for = lambda t: store.task_files(t.task_id)  # noqa: E731
            if fmt.needs_images:
                checkout = original_checkout(store.checkout_info())
                written = _export_with_images(
                    checkout, files_for, tasks, fmt, target, base_image, report
                )
            else:
                written = export_tasks(tasks, fmt.name, target, files_for=files_for)
        finally:
            store.close()
    report.print(
        f"{written} {fmt.name} records from {len(tasks)} tasks -> {target}", highlight=False
    )
    if fmt.side_files_are:
        for side_file in fmt.side_files(target):
            report.print(f"{fmt.side_files_are} -> {side_file}", highlight=False)
    if build.is_file() or str(target) == "-" or isinstance(fmt.view, Unread):
        reason = (
            fmt.view.why
            if isinstance(fmt.view, Unread)
            else (
                "written to stdout"
                if str(target) == "-"
                else "exported from a task file, not a build"
            )
        )
        report.print(f"not audited for leaks: {reason}", highlight=False)
        return
    written_files = [target, *fmt.side_files(target)]
    audit_line = _audited(build, written_files, fmt.name, fmt.needs_images)
    report.print(audit_line, highlight=False, soft_wrap=True)


def _audited(build: Path, written: list[Path], fmt: str, images: bool) -> str:
    """Audit what was just written for leaks (removing it on one); the summary line."""
    from corrupt.audit.exports import audit_written, summary
    from corrupt.audit.images import EngineImages

    engine = EngineImages() if images else None
    try:
        return summary(audit_written(build, written, fmt, images=engine))
    finally:
        if engine is not None:
            engine.close()


def _export_with_images(
    checkout: Checkout,
    files_for: Callable[[Task], dict[str, tuple[str, str]]],
    tasks: list[Task],
    fmt: ExportFormat,
    out: Path,
    base_image: str | None,
    report: Console,
) -> int:
    """Exports that name container images: build them (a bar over tasks), then write."""
    from corrupt.cli.progress import counting_bar
    from corrupt.outputs.export import export_tasks
    from corrupt.outputs.task_image import ExportImages

    # Connects first: no engine is one line of error, not a bar that never moves.
    images = ExportImages(checkout, files_for, base_image=base_image)
    try:
        with counting_bar(report) as bar:
            total = len(tasks) + fmt.extra_images
            row = bar.add_task("images", total=total, detail="")
            started: list[str] = []

            def on_image(what: str) -> None:  # called as each image starts: the one before is done
                bar.update(row, advance=1 if started else 0, detail=what)
                started.append(what)

            images.on_image = on_image
            written = export_tasks(tasks, fmt.name, out, images=images)
            bar.update(row, completed=total, detail="done")
    finally:
        images.close()
    return written


@app.command()
@friendly
def solve(
    build: Path = typer.Argument(..., help=BUILD_HELP),
    solver: Literal["apr"] = typer.Option("apr", help="apr: fault localisation + mutation repair"),
    budget: int = typer.Option(40, help="candidate patches validated per task"),
    jobs: int = typer.Option(1, help="tasks solved in parallel"),
    sandbox: SandboxName = typer.Option(DEFAULT_SANDBOX, help="where the tests run"),
    base_image: str | None = typer.Option(None, help="base image for --sandbox docker"),
    out: Path | None = typer.Option(
        None, help="predictions JSONL to write (default: BUILD/apr.predictions.jsonl)"
    ),
    task_set: Path | None = typer.Option(None, "--tasks", help=TASKS_HELP),
) -> None:
    """Run a reference solver on every task, from the materialized task alone; write SWE-bench predictions."""
    from corrupt.cli.solve import RichSolveProgress, solve_table
    from corrupt.solve.run import SolveOptions, solve_build

    options = SolveOptions(build, out, budget, jobs, sandbox, base_image, task_set).checked()
    with RichSolveProgress(err_console, solver) as progress:
        written, results = solve_build(options, progress)
    console.print(solve_table(build, results))
    attempted = [r for r in results.values() if r["status"] != "not attempted"]
    console.print(
        f"{sum(r['solved'] for r in attempted)} of {len(attempted)} attempted tasks solved "
        f"(plausible) -> {written}; `corrupt score {build} {written}` says which are correct",
        highlight=False,
        soft_wrap=True,
    )


@app.command()
@friendly
def audit(
    build: Path = typer.Argument(..., help=BUILD_HELP + "; the exports were written from it"),
    targets: list[Path] | None = typer.Argument(
        None,
        help="exports or materialized tasks to read (default: the exports in BUILD)",
    ),
    format_: str | None = typer.Option(
        None,
        "--format",
        help="what wrote the target: an export format or 'materialized' (default: detected)",
    ),
    images: bool = typer.Option(
        True, help="also read every image the targets name (needs a container engine)"
    ),
    verbose: bool = typer.Option(False, help="list what could not be checked"),
    as_json: bool = typer.Option(False, "--json", help="print the results as JSON"),
) -> None:
    """Look for the original code everywhere an agent could: files, git objects, byte-code, archives, images."""
    import json

    from corrupt.audit.exports import Auditor, default_targets
    from corrupt.audit.images import EngineImages
    from corrupt.cli.audit import audit_table
    from corrupt.errors import InputError, LeakError

    chosen = list(targets or default_targets(build))
    if not chosen:
        raise InputError(f"no exports in {build}; name the export or materialized task to audit")
    engine = EngineImages() if images else None
    try:
        auditor = Auditor(build, images=engine)
        results = [auditor.audit(path, format_) for path in chosen]
    finally:
        if engine is not None:
            engine.close()
    if as_json:
        console.print_json(json.dumps([r.as_dict() for r in results]))
    else:
        console.print(audit_table(results))
    for result in results if not as_json else []:
        for leak in result.leaks:
            console.print(f"leak: {leak.line()}", highlight=False, soft_wrap=True)
        for note in result.unchecked if verbose else []:
            console.print(f"not checked: {note}", highlight=False, soft_wrap=True)
    leaks = sum(len(r.leaks) for r in results)
    if leaks:
        raise LeakError(
            f"{leaks} leaks of original code in {sum(not r.passed for r in results)} targets"
        )


@app.command()
@friendly
def score(
    build: Path = typer.Argument(..., help=BUILD_HELP),
    predictions: Path = typer.Argument(
        ...,
        help="SWE-bench predictions: JSONL or JSON (instance_id, model_name_or_path, model_patch)",
    ),
    out: Path | None = typer.Option(
        None, help="scores JSONL to write (default: BUILD/scores/<predictions>.jsonl)"
    ),
    jobs: int = typer.Option(
        1, help="predictions scored in parallel, each in its own working copy"
    ),
    sandbox: SandboxName = typer.Option(DEFAULT_SANDBOX, help="where the patched code runs"),
    base_image: str | None = typer.Option(None, help="base image for --sandbox docker"),
    epsilon: int = typer.Option(2, help="extra edited lines per bug that precision tolerates"),
    task_set: Path | None = typer.Option(None, "--tasks", help=TASKS_HELP),
    as_json: bool = typer.Option(False, "--json", help="print the aggregate as JSON"),
) -> None:
    """Grade predicted patches: resolved, right function, PDB precision and recall."""
    import json

    from corrupt.cli.scoring import RichScoreProgress, score_table
    from corrupt.scoring.score import ScoreOptions, score_predictions
    from corrupt.scoring.summary import summarize

    options = ScoreOptions(
        build=build,
        predictions=predictions,
        out=out,
        jobs=jobs,
        sandbox=sandbox,
        base_image=base_image,
        epsilon=epsilon,
        tasks=task_set,
    )
    shown = err_console if as_json else console
    with RichScoreProgress(shown) as progress:
        run = score_predictions(options, progress)
    groups = summarize(run.scores)
    if as_json:
        console.print_json(json.dumps([g.as_dict() for g in groups]))
        return
    # Eleven columns: a log or a pipe gets them all rather than rich's default 80 characters.
    wide = console if console.is_terminal else Console(width=max(console.width, 110), emoji=False)
    wide.print(score_table(groups))
    resolved = sum(s.resolved for s in run.scores)
    missing = sum(run.missing.values())
    absent = f" ({missing} tasks without a prediction count as unresolved)" if missing else ""
    console.print(f"{resolved} of {len(run.scores)} resolved{absent} -> {run.out}", highlight=False)


@app.command()
@friendly
def report(
    build: Path = typer.Argument(..., help=BUILD_HELP),
    scores: list[Path] | None = typer.Option(
        None, "--scores", help="scores JSONL of corrupt score (repeatable: one per model or run)"
    ),
    out: Path | None = typer.Option(
        None, help="HTML file to write (default: BUILD/report.html, beside the exports and scores)"
    ),
    task_set: Path | None = typer.Option(None, "--tasks", help=TASKS_HELP),
) -> None:
    """Write one self-contained HTML page: the build, its tasks' difficulty, and scores."""
    from corrupt.outputs.report import load_report_data, write_report

    data = load_report_data(build, list(scores or []), task_set)
    written = write_report(data, out or Path(build) / "report.html")
    console.print(
        f"report of {len(data.tasks)} tasks and {len(data.scores)} scores -> {written}",
        highlight=False,
    )


@app.command(name="slice")
@friendly
def slice_command(
    build: Path = typer.Argument(..., help=BUILD_OR_TASKS_HELP),
    out: Path = typer.Option(..., help="JSONL file to write the matching tasks to"),
    slice_: SliceName | None = typer.Option(None, "--slice", help="difficulty band"),
    centrality_pct: str | None = typer.Option(None, help="percentile band LO[:HI] of centrality"),
    complexity_pct: str | None = typer.Option(None, help="percentile band LO[:HI] of complexity"),
    mode: list[TaskMode] | None = typer.Option(None, help="task mode (repeatable; default all)"),
    kind: list[CorruptionKind] | None = typer.Option(
        None, help="corruption kind (repeatable; default all)"
    ),
    exclude_apr_solved: bool = typer.Option(
        False, help="leave out tasks the APR baseline solved (corrupt solve, or build --apr-budget)"
    ),
    min_hops: int | None = typer.Option(None, help=MIN_HOPS_HELP),
    max_hops: int | None = typer.Option(None, help=MAX_HOPS_HELP),
) -> None:
    """Filter existing tasks by difficulty, mode and kind into a new JSONL file."""
    from corrupt.errors import SelectionError
    from corrupt.outputs.export import export_tasks
    from corrupt.outputs.slicing import load_tasks, slice_tasks
    from corrupt.selection.slices import slice_spec
    from corrupt.solve.run import without_apr_solved
    from corrupt.tasks.effects import HopBand

    spec = slice_spec(slice_, centrality_pct, complexity_pct)
    hops = HopBand(min_hops, max_hops).checked()
    tasks = load_tasks(build)
    chosen = slice_tasks(tasks, spec, modes=mode, kinds=kind, hops=hops)
    if exclude_apr_solved:
        chosen = without_apr_solved(build, chosen)
    where = spec.describe() + (f", {hops.describe()} hops" if hops.limited else "")
    if not chosen:
        raise SelectionError(f"none of the {len(tasks)} tasks in {build} is in slice {where}")
    export_tasks(chosen, "jsonl", out)
    console.print(f"{len(chosen)} of {len(tasks)} tasks in slice {where} -> {out}", highlight=False)


@app.command()
@friendly
def materialize(
    task_id: str = typer.Argument(..., help="task id, or a unique prefix of one"),
    out: Path = typer.Option(..., help="new folder for the corrupted repository"),
    build: Path | None = typer.Option(
        None, metavar="BUILD", help="build folder (default: . or the one in out/ holding the task)"
    ),
    image: bool = typer.Option(
        False, help="also build a per-task image with the corrupted tree at /testbed"
    ),
    base_image: str | None = typer.Option(
        None, help="base image if the repository's image must be built"
    ),
    env: bool = typer.Option(
        True,
        "--env/--no-env",
        help="copy the environment the task was verified in (less the project) to OUT/.venv",
    ),
) -> None:
    """Write a task's corrupted repository with a fresh one-commit history, problem and test command."""
    from corrupt.outputs.materialize import (
        RUNNER_FILE,
        materialize_from_store,
        materialize_image_from_store,
    )
    from corrupt.tasks.store import resolve_store

    folder = resolve_store(task_id, build)
    if image:
        task, path, tag = materialize_image_from_store(folder, task_id, out, base_image=base_image)
        console.print(
            f"image {tag}: the task at /testbed, tests run with `{task.tests.command}`",
            highlight=False,
        )
    else:
        task, path = materialize_from_store(folder, task_id, out, environment=env)
    audit_line = _audited(folder, [path], "materialized", image)
    console.print(f"task {task.task_id} ({task.mode}/{task.kind}) -> {path}", highlight=False)
    venv = " (in the environment it was verified in, .venv)" if env and not image else ""
    console.print(
        f"read {path / 'PROBLEM.md'}; run the tests with {path / RUNNER_FILE}{venv}; "
        "the answer is the change, as `git diff` in that folder shows it",
        highlight=False,
    )
    console.print(audit_line, highlight=False, soft_wrap=True)


@app.command()
@friendly
def show(
    task_id: str = typer.Argument(..., help="task id, or a unique prefix of one"),
    build: Path | None = typer.Option(
        None, metavar="BUILD", help="build folder (default: . or the one in out/ holding the task)"
    ),
    fix: bool = typer.Option(False, help="show the repair diff instead of the corruption"),
) -> None:
    """Show a task's metadata, problem statement and syntax-highlighted diff."""
    from corrupt.cli.show import render_task
    from corrupt.tasks.store import Store, resolve_store

    opened = Store.open(resolve_store(task_id, build))
    try:
        task = opened.get_task(task_id)
    finally:
        opened.close()
    console.print(render_task(task, fix=fix))


@app.command()
@friendly
def search(
    min_stars: int = typer.Option(1000, help="only repositories with at least this many stars"),
    language: str = typer.Option("Python", help="GitHub's primary-language filter"),
    created_after: str | None = typer.Option(
        None, help="YYYY-MM-DD: created after this day (contamination-safe)"
    ),
    pushed_after: str | None = typer.Option(None, help="YYYY-MM-DD: pushed to after this day"),
    max_size: int | None = typer.Option(None, help="largest repository size in KB"),
    limit: int = typer.Option(30, help="how many repositories to list, most-starred first"),
    api_url: str | None = typer.Option(
        None, help="GitHub API URL (default $CORRUPT_GITHUB_API_URL or api.github.com)"
    ),
    max_wait: float = typer.Option(
        60.0, help="seconds to wait for a rate-limit reset before giving up"
    ),
    json_lines: bool = typer.Option(
        False, "--json", help="one JSON object per line instead of a table"
    ),
) -> None:
    """Find candidate repositories on GitHub (token from $GITHUB_TOKEN, optional)."""
    import dataclasses
    import json

    from rich.table import Table

    from corrupt.repos.github import search_repositories

    found = search_repositories(
        min_stars=min_stars,
        language=language,
        created_after=created_after,
        pushed_after=pushed_after,
        max_size_kb=max_size,
        limit=limit,
        api_url=api_url,
        max_wait=max_wait,
    )
    if json_lines:
        for meta in found:
            typer.echo(json.dumps(dataclasses.asdict(meta)))
        return
    if not found:
        err_console.print("no repositories match these filters")
        return
    table = Table("repository", "stars", "created", "pushed", "license")
    for meta in found:
        table.add_row(
            meta.full_name,
            str(meta.stars),
            (meta.created_at or "")[:10],
            (meta.pushed_at or "")[:10],
            meta.license or "",
        )
    console.print(table)


@app.command()
@friendly
def graph(
    path: Path = typer.Argument(..., help="repository or package folder to analyse"),
    json_out: Path | None = typer.Option(
        None,
        "--json",
        help="write the adjacency map (caller -> list of callees) to a file ('-': stdout)",
    ),
    csv_out: Path | None = typer.Option(
        None, "--csv", help="write one row per function with every metric"
    ),
    top: int = typer.Option(20, "--top", min=1, help="functions shown in the table"),
    sort: str = typer.Option(
        "harmonic",
        "--sort",
        help="metric to rank by (any --csv column; centrality, reach: harmonic)",
    ),
    exclude: list[str] | None = typer.Option(
        None, "--exclude", help="extra glob to leave out (repeatable; 'dir/' for folders)"
    ),
    no_default_excludes: bool = typer.Option(
        False, "--no-default-excludes", help="analyse tests, docs, examples... too"
    ),
    no_cache: bool = typer.Option(
        False, "--no-cache", help="ignore and do not write the parse cache"
    ),
) -> None:
    """Index a repository, build its call graph and show the top functions by a metric."""
    from corrupt.cli.tables import metrics_table
    from corrupt.errors import InputError
    from corrupt.graph import DEFAULT_EXCLUDES, build_code_graph
    from corrupt.graph.report import METRICS, adjacency_json, write_csv, write_json

    sort = CENTRALITY_NAMES.get(sort, sort)
    if sort not in METRICS:
        raise InputError(f"unknown --sort {sort!r}; choose one of: {', '.join(METRICS)}")
    to_stdout = json_out == Path("-")
    shown = err_console if to_stdout else console  # stdout is the JSON's alone
    if not path.is_dir():
        raise InputError(f"{path} is not a directory")
    rules = (() if no_default_excludes else DEFAULT_EXCLUDES) + tuple(exclude or ())
    code_graph = build_code_graph(path, exclude=rules, use_cache=not no_cache)
    for skipped in code_graph.skipped:
        err_console.print(
            f"skipped {escape(skipped.file)}: {escape(skipped.reason)}", highlight=False
        )
    shown.print(metrics_table(code_graph, sort, top))
    if to_stdout:
        sys.stdout.write(adjacency_json(code_graph))
    elif json_out is not None:
        write_json(code_graph, json_out)
        shown.print(f"adjacency map written to {escape(str(json_out))}", highlight=False)
    if csv_out is not None:
        write_csv(code_graph, csv_out)
        shown.print(f"metrics written to {escape(str(csv_out))}", highlight=False)


def main() -> None:  # pragma: no cover - console entry point
    app(prog_name="corrupt")


if __name__ == "__main__":  # pragma: no cover
    main()
