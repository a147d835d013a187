"""A build's options, each declared once: its type, default, command-line spelling and help.

``corrupt build`` and ``corrupt build-many`` take their options from these
fields (``cli/fields.py`` makes them typer parameters) and programmatic callers
(``bench/``, tests) construct :class:`BuildOptions` directly, with enums or their
string values. Construction checks every value and turns each choice into its
enum, so a ``BuildOptions`` is valid wherever it goes. The CLI reads this module
at start-up: it imports nothing heavier than typer and the choices' enums.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, TypeVar

import typer

from corrupt.corruptors.models import CorruptorName, DeletionStyle
from corrupt.errors import InputError
from corrupt.sandboxes.registry import DEFAULT_SANDBOX, SandboxName, checked_sandbox_name
from corrupt.selection.models import ComplexityMetric, SliceName
from corrupt.tasks.modes import ScreeningMode, TaskMode, VerifyMode

if TYPE_CHECKING:
    from corrupt.tasks.effects import HopBand

ModeChoice = Literal["all", "remove", "discovery", "multi"]  # TaskMode, or all of them
ALL_MODES: ModeChoice = "all"
ExecutorChoice = Literal["local", "ray"]  # where a build screens its candidates
# In a bool field's metadata: its flag turns it off (--no-isolation gives isolation=False).
TURNED_OFF_BY_FLAG = "turned_off_by_flag"

REPO_HELP = "github:owner/name[@rev], a git URL[@rev] or a local path"
MIN_HOPS_HELP = (
    "discovery and multi tasks whose failures surface at least this many calls from their cause"
)
MAX_HOPS_HELP = (
    "discovery and multi tasks whose failures surface at most this many calls from their "
    "cause (0: in the corrupted function itself)"
)

Choice = TypeVar("Choice", bound=StrEnum)
# A candidate's whole-suite run in one worker overlaps the next one's screening in
# another; past a few workers each adds a working copy and a warm server's memory.
MAX_DEFAULT_JOBS = 4


def default_jobs() -> int:
    """``--jobs`` when not given: the cores this process may use, at most MAX_DEFAULT_JOBS."""
    usable = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    return max(1, min(MAX_DEFAULT_JOBS, len(usable) if usable else os.cpu_count() or 1))


def _choice(value: str, enum: type[Choice], option: str) -> Choice:
    """``value`` as a member of ``enum``, or a one-line error naming the choices."""
    try:
        return enum(value)
    except ValueError:
        choices = ", ".join(member.value for member in enum)
        raise InputError(f"unknown {option} {value!r}; choose one of: {choices}") from None


@dataclass
class BuildOptions:
    """Everything ``corrupt build`` takes; a field without typer metadata has no command-line option."""

    repo: Annotated[str, typer.Argument(help=REPO_HELP)]
    mode: Annotated[ModeChoice, typer.Option(help="which tasks to build")] = ALL_MODES
    n: Annotated[int, typer.Option("--n", help="tasks to build per mode")] = 5
    # checked by slice_spec, with the percentile bands
    slice: Annotated[SliceName | None, typer.Option("--slice", help="difficulty band")] = None
    centrality_pct: Annotated[
        str | None, typer.Option(help="percentile band LO[:HI] of harmonic centrality")
    ] = None
    complexity_pct: Annotated[
        str | None, typer.Option(help="percentile band LO[:HI] of complexity")
    ] = None
    complexity_metric: Annotated[ComplexityMetric, typer.Option(help="complexity axis")] = (
        ComplexityMetric.CODE_LINES
    )
    functions: Annotated[int, typer.Option(help="functions per multi-function task")] = 2
    max_distance: Annotated[
        int, typer.Option(help="max call-graph distance between a multi task's functions")
    ] = 4
    seed: Annotated[int, typer.Option(help="seed for selection and mutant order")] = 0
    out: Annotated[
        Path | None,
        typer.Option(metavar="BUILD", help="build folder to write (default out/<repo>)"),
    ] = None
    jobs: Annotated[
        int,
        typer.Option(
            help="candidates screened and verified in parallel, each in its own working copy"
            f" (default: this machine's cores, at most {MAX_DEFAULT_JOBS})"
        ),
    ] = default_jobs()
    corruptor: Annotated[CorruptorName, typer.Option(help="who writes discovery bugs")] = (
        CorruptorName.PROCEDURAL
    )
    sandbox: Annotated[SandboxName, typer.Option(help="where repository code runs")] = (
        DEFAULT_SANDBOX
    )
    base_image: Annotated[str | None, typer.Option(help="base image for --sandbox docker")] = None
    isolation: Annotated[
        bool,
        typer.Option(
            "--no-isolation", help="UNSAFE: run repository code without the local sandbox's box"
        ),
    ] = field(default=True, metadata={TURNED_OFF_BY_FLAG: True})
    min_failing: Annotated[int, typer.Option(help="previously passing tests that must fail")] = 5
    min_lines: Annotated[int, typer.Option(help="minimum code lines of a target function")] = 5
    min_covering: Annotated[int, typer.Option(help="minimum tests covering a target function")] = 5
    time_limit: Annotated[float, typer.Option(help="seconds the baseline suite may take")] = 60.0
    strict_baseline: Annotated[
        bool,
        typer.Option(
            "--strict-baseline",
            help="refuse a suite with any test red in both baseline runs (by default up to 5% "
            "of them, for a cause corrupt cannot name, are left out and named)",
        ),
    ] = False
    python: Annotated[
        str | None,
        typer.Option(
            "--python",
            help="build the environment on this installed Python (3.13 or 3.13.0; local sandbox)",
        ),
    ] = None
    screening: Annotated[
        ScreeningMode,
        typer.Option(
            help="warm: fork a server that imported the suite once; fresh: a new interpreter per "
            "candidate; suite: the whole suite per candidate (slow)"
        ),
    ] = ScreeningMode.WARM
    verify: Annotated[
        VerifyMode,
        typer.Option(
            help="fast: the corrupted suite once, then the tests the corruption reaches again; "
            "full: the corrupted suite twice and the repaired suite once (slow)"
        ),
    ] = VerifyMode.FAST
    deletion_style: Annotated[
        DeletionStyle, typer.Option(help="raise (NotImplementedError) or pass")
    ] = DeletionStyle.RAISE
    min_stars: Annotated[int, typer.Option(help="refuse github: repos with fewer stars")] = 0
    api_url: Annotated[
        str | None, typer.Option(help="GitHub API URL (GitHub Enterprise, tests)")
    ] = None
    llm_base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint for --corruptor llm")
    ] = None
    llm_model: Annotated[str | None, typer.Option(help="model name for --corruptor llm")] = None
    llm_attempts: int = 5
    executor: Annotated[
        ExecutorChoice,
        typer.Option(help="screen candidates here or in Ray actors, --jobs of them"),
    ] = "local"
    ray_address: Annotated[
        str | None,
        typer.Option(help="Ray cluster to join (default: $RAY_ADDRESS, else a new local one)"),
    ] = None
    apr_budget: Annotated[
        int,
        typer.Option(
            help="also run the APR baseline on the tasks, this many patches each (0: off)"
        ),
    ] = 0
    min_hops: Annotated[int | None, typer.Option(help=MIN_HOPS_HELP)] = None
    max_hops: Annotated[int | None, typer.Option(help=MAX_HOPS_HELP)] = None

    def __post_init__(self) -> None:
        """Every value checked, every choice its enum; a one-line error for a bad one."""
        if self.n < 1:
            raise InputError("--n must be at least 1")
        if self.jobs < 1:
            raise InputError("--jobs must be at least 1")
        if self.apr_budget < 0:
            raise InputError("--apr-budget must be 0 (off) or more")
        if self.mode != ALL_MODES:
            _choice(self.mode, TaskMode, "mode")
        self.hop_band.checked()
        if self.hop_band.limited and self.modes() == [TaskMode.REMOVE]:
            raise InputError(
                "--min-hops/--max-hops need discovery or multi tasks: remove tasks are not traced"
            )
        if self.functions < 2:
            raise InputError("--functions must be at least 2 for multi-function tasks")
        self.complexity_metric = _choice(
            self.complexity_metric, ComplexityMetric, "complexity metric"
        )
        self.corruptor = _choice(self.corruptor, CorruptorName, "corruptor")
        self.sandbox = checked_sandbox_name(self.sandbox)
        self.deletion_style = _choice(self.deletion_style, DeletionStyle, "deletion style")
        self.screening = _choice(self.screening, ScreeningMode, "screening")
        self.verify = _choice(self.verify, VerifyMode, "verify")
        if self.executor not in ("local", "ray"):
            raise InputError(f"unknown executor {self.executor!r}: choose local or ray")
        if self.ray_address and self.executor != "ray":
            raise InputError("--ray-address needs --executor ray")

    @property
    def folder(self) -> Path:
        """The build folder: ``out``, else ``out/<the repository's name>``."""
        return self.out or Path("out") / Path(self.repo.split("@")[0].rstrip("/")).name

    @property
    def hop_band(self) -> HopBand:
        from corrupt.tasks.effects import HopBand  # pydantic's models: not at the CLI's start-up

        return HopBand(self.min_hops, self.max_hops)

    def modes(self) -> list[TaskMode]:
        return list(TaskMode) if self.mode == ALL_MODES else [TaskMode(self.mode)]
