"""Records the repos stage hands to later stages.

Everything here is plain data: later stages (graph, corrupt, tasks) read these
records and never reach into how a clone, an environment or a sandbox was made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

SpecKind = Literal["github", "git", "local"]
Outcome = Literal["passed", "failed", "error", "skipped", "xfailed", "xpassed"]
FAILING_OUTCOMES: frozenset[str] = frozenset({"failed", "error"})


@dataclass(frozen=True)
class RepoSpec:
    """Where code comes from: ``github:owner/name[@rev]``, a git URL[@rev] or a local path."""

    kind: SpecKind
    location: str  # "owner/name", a URL, or an absolute path
    rev: str | None = None

    def __str__(self) -> str:
        head = f"github:{self.location}" if self.kind == "github" else self.location
        return f"{head}@{self.rev}" if self.rev else head


@dataclass
class RepoMeta:
    """GitHub metadata recorded with a checkout (``github:`` specs only)."""

    full_name: str
    url: str
    stars: int
    created_at: str | None = None
    pushed_at: str | None = None
    default_branch: str | None = None
    license: str | None = None
    clone_url: str | None = None


@dataclass
class Checkout:
    """A repository pinned at one commit in the cache. ``path`` is never modified."""

    spec: RepoSpec
    name: str  # "owner/name" for GitHub, else the folder / URL stem
    url: str  # clone URL, file URL or absolute local path
    commit: str  # resolved git sha, or "tree:<sha256>" for a plain folder
    path: Path  # the cached, read-only copy
    stars: int | None = None
    meta: RepoMeta | None = None
    # What the project's VCS version plugin would say at ``commit`` (from git describe).
    version: str | None = None
    # When ``commit`` was committed (UTC, ``2024-10-17T17:04:16Z``); None for a plain folder.
    committed: str | None = None
    # Set when the suite is green only with the packages of that moment: installs then
    # leave out every release uploaded after it, as the project's CI saw the index.
    packages_as_of: str | None = None
    # Set when the suite is green only on another Python than corrupt's own: its version
    # (``3.13.0``), which the environment is built on (see corrupt.sandboxes.local.interpreters).
    python: str | None = None
    # What the package index holds of the project (corrupt.repos.published.Published).
    published: str | None = None


@dataclass
class Environment:
    """What a sandbox needs to run a checkout's tests: a venv (local) or an image (docker)."""

    key: str  # cache key: repo + commit (+ sandbox kind)
    kind: Literal["venv", "image"]
    python: str  # interpreter to run, as seen *inside* the sandbox
    location: str  # venv dir or image tag
    log: Path | None = None  # install log on the host
    # Host folders of the interpreter a venv was created from, which a box must show
    # read-only (local sandbox); empty: corrupt's own.
    interpreter_roots: tuple[Path, ...] = ()
    # A host folder of locales compiled for the suite (local sandbox), which its runs
    # see read-only and search first (``LOCPATH``); None: the host's locales.
    locales: str | None = None


@dataclass(frozen=True)
class Limits:
    """Resource limits for one command in a sandbox."""

    timeout: float = 60.0  # wall-clock seconds for the whole command
    memory_mb: int = 4096
    max_processes: int = 1024
    cpu_seconds: int | None = None
    network: bool = False
    # Private /tmp size and the largest file a run may write anywhere, so a
    # test cannot fill the host's memory (tmpfs) or disk.
    disk_mb: int = 2048


# Stands, in a command's argv and env values, for the run's private I/O folder:
# the sandbox puts ``Command.files`` there and reads ``Command.collect`` back from
# it. It lives outside the working tree, so nothing the repository commits (a
# symlink, a FIFO) can redirect what the host writes or reads.
IO_DIR = "@CORRUPT_IO@"
# Where a run sees the working tree: in the docker sandbox and in the local box
# alike, as SWE-bench's harness does. A test id built from an absolute path
# (``test_parse[/testbed/tests/data/a.txt]``) is then the same in every run.
WORKDIR = "/testbed"


@dataclass
class Command:
    """A command to run in a working tree. ``argv[0] == "python"`` means the environment's interpreter."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)  # added on top of the sandbox's scrubbed base
    limits: Limits = field(default_factory=Limits)
    files: dict[str, bytes] = field(default_factory=dict)  # name -> content, placed in IO_DIR first
    collect: list[str] = field(default_factory=list)  # names in IO_DIR the caller reads back
    # Whether the run fills the environment's bytecode cache (a run of the unchanged
    # tree); every other run only reads it, so no candidate's bytecode outlives its run.
    stores_bytecode: bool = False


@dataclass
class CommandResult:
    exit_code: int | None
    stdout: str
    stderr: str
    duration: float
    timed_out: bool = False
    killed: str | None = None  # "timeout", "memory", ... when the sandbox stopped it
    # The ``collect`` names that came back as regular files within the size cap.
    files: dict[str, bytes] = field(default_factory=dict)


@dataclass
class Frame:
    file: str  # relative to the working tree when inside it
    line: int
    function: str


@dataclass(frozen=True)
class TraceTarget:
    """A function whose calls a traced run counts: its file and its lines, decorators
    included; ``tests``, when given, the only tests to follow its calls in (tracing
    slows a test down, and only failing tests' traces are read)."""

    file: str
    first: int
    last: int
    tests: frozenset[str] | None = None


@dataclass
class Trace:
    """Cause and effect in one failing test, from its real calls (``run_tests(trace=...)``).

    ``effect`` is where the error surfaces: the innermost frame of the traceback in
    the repository (a test's assertion, or a raise in the library). ``hops[i]`` is
    the fewest call steps between a call of the i-th target and that frame, up the
    call tree to the nearest common caller and down again (0: the error surfaces in
    the target); None when the test never called it (``calls[i]`` is 0) or
    ``reason`` says why it could not be told.
    """

    effect: Frame | None
    hops: list[int | None]
    calls: list[int]
    reason: str | None = None


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class
    nodeid: str
    outcome: Outcome
    duration: float = 0.0
    exc_type: str | None = None
    message: str | None = None
    frames: list[Frame] = field(default_factory=list)
    trace: Trace | None = None
    output: str = ""  # a failed test's captured output, its tail


@dataclass
class TestReport:
    """One pytest run: a result per test (not per setup/call/teardown phase)."""

    __test__ = False  # not a pytest test class

    results: dict[str, TestResult]
    duration: float
    exit_code: int | None
    timed_out: bool = False
    collected: int = 0
    stopped_early: bool = False  # hit the failure budget
    output_tail: str = ""  # last lines of pytest's own output, for error messages
    collect_errors: dict[str, str] = field(default_factory=dict)  # module nodeid -> error text
    # The plugin writes one result per test after announcing it; anything else was
    # written by code under test (the report file is writable from inside the run).
    forged: str | None = None
    # coverage runs only
    line_coverage: dict[str, dict[int, list[str]]] = field(default_factory=dict)

    def failing(self) -> set[str]:
        return {n for n, r in self.results.items() if r.outcome in FAILING_OUTCOMES}

    def passing(self) -> set[str]:
        return {n for n, r in self.results.items() if r.outcome == "passed"}


@dataclass
class Baseline:
    """A trusted-green suite at one commit, with its coverage at line level."""

    commit: str
    tests: list[str]  # every test that passed in both runs and is not flaky
    flaky: list[str]
    skipped: list[str]
    seconds: float  # wall time of one full run
    durations: dict[str, float]
    line_coverage: dict[str, dict[int, list[str]]]  # file -> line -> nodeids that ran it
    command: list[str] = field(default_factory=list)  # the test command users can rerun
    timings: dict[str, float] = field(default_factory=dict)  # seconds per phase: runs, coverage
    packages_as_of: str | None = None  # the suite is green with the packages of this moment only
    python: str | None = None  # the suite is green on this Python only (None: corrupt's own)
    # file -> lines that ran outside any test (imports, collection): what they do
    # reaches tests that never ran them
    outside_tests: dict[str, list[int]] = field(default_factory=dict)
    # tests red in both runs for want of a network the box never has (a name that does
    # not resolve, a connection refused): left out like flaky ones, never F2P or P2P
    offline: list[str] = field(default_factory=list)
    # tests red in both runs because the tree is not a git repository (they run git on
    # the project's own checkout; working copies carry no .git): left out the same way
    without_git: list[str] = field(default_factory=list)
    # tests red in both runs on a module nothing installed provides and the project does
    # not hold (an optional dependency's): left out the same way
    lacking_a_module: list[str] = field(default_factory=list)
    # tests red in both runs for a cause corrupt cannot name, each with its error: left
    # out the same way when few (``suites.baseline.RED_SHARE``; ``--strict-baseline``: none)
    red: dict[str, str] = field(default_factory=dict)
    # a suite over the time budget is cut to these test files, the quickest that fit (out
    # of ``suite_files``), then single tests of the others by node id; every later run
    # runs these only; empty: the whole suite
    subset: list[str] = field(default_factory=list)
    suite_files: int = 0
    cut_at: float = 0.0  # the time limit (s) the subset was cut to: a larger one cuts again

    def cut_below(self, time_limit: float) -> bool:
        """Whether the suite was cut for a smaller budget than ``time_limit`` (so a run with
        that budget must compute the baseline again, maybe whole)."""
        return bool(self.subset) and time_limit > self.cut_at


# parse_log_pytest_v2 strips what looks like a colour code ("[5m"), so test_x[5m] is lost.
_ANSI_LIKE = re.compile(r"\[\d+m")


def harness_readable(test_id: str) -> bool:
    """Whether the harnesses' pytest log parsers can name this test.

    SWE-smith's parser takes the first whitespace-free run of a ``pytest -v``
    line as the id, so a parametrized id holding a space (``test_x[a b]``) is
    read as ``test_x[a`` and never found (so is it by SWE-bench's first
    parser); SWE-bench's ``parse_log_pytest_v2`` removes ``[<digits>m`` as a
    colour code. Such tests stay in the task record
    (``corrupt score`` reads its own reports) but are left out of harness
    exports, and a task needs ``min_failing`` readable failing tests.
    """
    return not any(ch.isspace() for ch in test_id) and not _ANSI_LIKE.search(test_id)
