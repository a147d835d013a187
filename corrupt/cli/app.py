"""The ``corrupt`` command: a thin typer layer over the pipeline stages.

Each command parses options, calls one stage function and renders its result.
Every :class:`~corrupt.errors.CorruptError` becomes a one-line message on
stderr and the error's exit code; no traceback reaches the user.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import shlex
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, TypeVar

import typer
import typer.core
from rich.console import Console
from rich.markup import escape

from corrupt.corruptors.models import CorruptionKind, CorruptorName, DeletionStyle
from corrupt.errors import CorruptError
from corrupt.outputs.formats import format_names
from corrupt.sandboxes.registry import SandboxName
from corrupt.selection.models import ComplexityMetric, SliceName
from corrupt.tasks.modes import ScreeningMode, TaskMode, VerifyMode

if TYPE_CHECKING:
    from corrupt.outputs.formats import ExportFormat
    from corrupt.repos.models import Checkout
    from corrupt.tasks.models import Task

_P = ParamSpec("_P")
_R = TypeVar("_R")

ModeChoice = Literal["all", "remove", "discovery", "multi"]  # TaskMode, or all of them
if TYPE_CHECKING:
    FormatChoice = str
else:
    FormatChoice = Literal[tuple(format_names())]  # the formats' own modules name them
ExecutorChoice = Literal["local", "ray"]  # corrupt.pipeline.many.ExecutorName


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
# No emoji codes: the output never uses them, so ``:name:`` in a path or a name stays as
# written, and rich's table of emoji (a large module) is never loaded.
console = Console(emoji=False)
err_console = Console(stderr=True, emoji=False)
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
MIN_HOPS_HELP = (
    "discovery and multi tasks whose failures surface at least this many calls from their cause"
)
MAX_HOPS_HELP = (
    "discovery and multi tasks whose failures surface at most this many calls from their "
    "cause (0: in the corrupted function itself)"
)
UNSAFE_WARNING = (
    "[bold yellow]warning:[/] --no-isolation: the repository's code runs unconfined, "
    "with your access to files, network and processes"
)


def friendly(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Turn CorruptError (and Ctrl-C) into a one-line message and an exit code."""

    @functools.wraps(fn)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return fn(*args, **kwargs)
        except CorruptError as exc:
            cause = f"[{exc.cause}] " if exc.cause else ""
            err_console.print(
                f"[bold red]error:[/] {escape(cause + exc.message)}",
                highlight=False,
                soft_wrap=True,
            )
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            err_console.print("interrupted; rerun the same command to resume")
            raise typer.Exit(130) from None
        except Exception as exc:
            if os.environ.get("CORRUPT_DEBUG"):
                raise
            err_console.print(
                f"[bold red]internal error:[/] {escape(type(exc).__name__)}: {escape(str(exc))} "
                "(set CORRUPT_DEBUG=1 for the traceback)",
                highlight=False,
                soft_wrap=True,
            )
            raise typer.Exit(70) from None

    return wrapper


@app.command()
@friendly
def build(
    repo: str = typer.Argument(
        ..., help="github:owner/name[@rev], a git URL[@rev] or a local path"
    ),
    mode: ModeChoice = typer.Option("all", help="which tasks to build"),
    n: int = typer.Option(5, "--n", help="tasks to build per mode"),
    slice_: SliceName | None = typer.Option(None, "--slice", help="difficulty band"),
    centrality_pct: str | None = typer.Option(
        None, help="percentile band LO[:HI] of harmonic centrality"
    ),
    complexity_pct: str | None = typer.Option(None, help="percentile band LO[:HI] of complexity"),
    complexity_metric: ComplexityMetric = typer.Option(
        ComplexityMetric.CODE_LINES, help="complexity axis"
    ),
    functions: int = typer.Option(2, help="functions per multi-function task"),
    max_distance: int = typer.Option(
        4, help="max call-graph distance between a multi task's functions"
    ),
    seed: int = typer.Option(0, help="seed for selection and mutant order"),
    out: Path | None = typer.Option(
        None, metavar="BUILD", help="build folder to write (default out/<repo>)"
    ),
    jobs: int = typer.Option(
        1, help="candidates screened in parallel, each in its own working copy"
    ),
    corruptor: CorruptorName = typer.Option(
        CorruptorName.PROCEDURAL, help="who writes discovery bugs"
    ),
    sandbox: SandboxName = typer.Option(SandboxName.LOCAL, help="where repository code runs"),
    base_image: str | None = typer.Option(None, help="base image for --sandbox docker"),
    no_isolation: bool = typer.Option(
        False, "--no-isolation", help="UNSAFE: run repository code without the local sandbox's box"
    ),
    min_failing: int = typer.Option(5, help="previously passing tests that must fail"),
    min_lines: int = typer.Option(5, help="minimum code lines of a target function"),
    min_covering: int = typer.Option(5, help="minimum tests covering a target function"),
    time_limit: float = typer.Option(60.0, help="seconds the baseline suite may take"),
    python: str | None = typer.Option(
        None,
        "--python",
        help="build the environment on this installed Python (3.13 or 3.13.0; local sandbox)",
    ),
    screening: ScreeningMode = typer.Option(
        ScreeningMode.WARM,
        help="warm: fork a server that imported the suite once; fresh: a new interpreter per "
        "candidate; suite: the whole suite per candidate (slow)",
    ),
    verify: VerifyMode = typer.Option(
        VerifyMode.FAST,
        help="fast: the corrupted suite once, then the tests the corruption reaches again; "
        "full: the corrupted suite twice and the repaired suite once (slow)",
    ),
    deletion_style: DeletionStyle = typer.Option(
        DeletionStyle.RAISE, help="raise (NotImplementedError) or pass"
    ),
    min_stars: int = typer.Option(0, help="refuse github: repos with fewer stars"),
    api_url: str | None = typer.Option(None, help="GitHub API URL (GitHub Enterprise, tests)"),
    llm_base_url: str | None = typer.Option(
        None, help="OpenAI-compatible endpoint for --corruptor llm"
    ),
    llm_model: str | None = typer.Option(None, help="model name for --corruptor llm"),
    executor: ExecutorChoice = typer.Option(
        "local", help="screen candidates here or in Ray actors, --jobs of them"
    ),
    ray_address: str | None = typer.Option(
        None, help="Ray cluster to join (default: $RAY_ADDRESS, else a new local one)"
    ),
    apr_budget: int = typer.Option(
        0, help="also run the APR baseline on the tasks, this many patches each (0: off)"
    ),
    min_hops: int | None = typer.Option(None, help=MIN_HOPS_HELP),
    max_hops: int | None = typer.Option(None, help=MAX_HOPS_HELP),
) -> None:
    """Build verified, difficulty-tuned tasks from a repository."""
    from corrupt.cli.progress import RichProgress, screening_line, stage_table, summary_table
    from corrupt.pipeline.build import Build, BuildOptions

    if no_isolation and sandbox == SandboxName.LOCAL:  # with docker it is refused, not warned about
        err_console.print(UNSAFE_WARNING)
    if out is None:
        out = Path("out") / Path(repo.split("@")[0].rstrip("/")).name
    options = BuildOptions(
        repo=repo,
        out=out,
        mode=mode,
        n=n,
        slice=slice_,
        centrality_pct=centrality_pct,
        complexity_pct=complexity_pct,
        complexity_metric=complexity_metric,
        functions=functions,
        max_distance=max_distance,
        seed=seed,
        jobs=jobs,
        corruptor=corruptor,
        sandbox=sandbox,
        base_image=base_image,
        isolation=not no_isolation,
        min_failing=min_failing,
        min_lines=min_lines,
        min_covering=min_covering,
        time_limit=time_limit,
        python=python,
        screening=screening,
        verify=verify,
        deletion_style=deletion_style,
        min_stars=min_stars,
        api_url=api_url,
        llm_base_url=llm_base_url,
        llm_model=llm_model,
        executor=executor,
        ray_address=ray_address,
        apr_budget=apr_budget,
        min_hops=min_hops,
        max_hops=max_hops,
    )
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


OWN_OPTIONS = ("repo", "out", "executor", "ray_address")  # build's that build-many defines itself


def _with_build_options(command: Callable[..., None]) -> Callable[..., None]:
    """Give ``command`` every option of ``build`` but REPO, --out and the executor (the
    command's own distributes repositories), as build defines them.

    The command takes them as ``**build_options``; each is declared once, so
    an option added to build reaches build-many with no second edit.
    """
    own = inspect.signature(command, eval_str=True).parameters.values()
    shared = inspect.signature(build, eval_str=True).parameters
    command.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [p for p in own if p.kind != p.VAR_KEYWORD]
        + [p for name, p in shared.items() if name not in OWN_OPTIONS]
    )
    return command


def build_fields(build_options: dict[str, Any]) -> dict[str, Any]:
    """build's option values as BuildOptions fields (two of them are named otherwise there)."""
    fields = dict(build_options)
    fields["slice"] = fields.pop("slice_")
    fields["isolation"] = not fields.pop("no_isolation")
    return fields


@app.command(name="build-many")
@friendly
@_with_build_options
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
    **build_options: Any,
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
    options = build_fields(build_options)
    if not options["isolation"] and options["sandbox"] == SandboxName.LOCAL:
        err_console.print(UNSAFE_WARNING)
    runner = make_executor(executor, ray_address, options["jobs"])
    with ManyView(err_console if as_json else console) as view:
        result = run_many(specs, root, options, runner, view, retry_failed=retry_failed)
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


@app.command()
@friendly
def baseline(
    repo: str = typer.Argument(
        ..., help="github:owner/name[@rev], a git URL[@rev] or a local path"
    ),
    time_limit: float = typer.Option(60.0, help="seconds the suite may take"),
    sandbox: SandboxName = typer.Option(SandboxName.LOCAL, help="where repository code runs"),
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
            )
        finally:
            box.close()
            if explain and pinned_at:
                explain_environment(
                    ready.checkout if ready else pinned_at[0], console, asked=python is not None
                )
    pinned, result, covering = ready.checkout, ready.baseline, ready.coverage
    console.print(f"{pinned.name} @ {pinned.commit[:12]}")
    console.print(
        f"tests: {len(result.tests)} passing, {len(result.skipped)} skipped, {len(result.flaky)} flaky"
    )
    console.print(f"time: {result.seconds:.2f} s per run")
    if result.flaky:
        console.print("flaky: " + ", ".join(result.flaky), highlight=False)
    if result.offline:
        console.print(
            f"left out, needing the network the box never has: {', '.join(result.offline)}",
            highlight=False,
        )
    if result.subset:
        console.print(f"cut: {suite_cut(result)}", highlight=False)
        console.print(f"  kept: {', '.join(result.subset)}", highlight=False, soft_wrap=True)
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
    sandbox: SandboxName = typer.Option(SandboxName.LOCAL, help="where the tests run"),
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
    sandbox: SandboxName = typer.Option(SandboxName.LOCAL, help="where the patched code runs"),
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
