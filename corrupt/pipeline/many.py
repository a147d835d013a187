"""`corrupt build-many`: one build per repository of a list, each in its own folder under a root.

A corpus run takes hours and meets every kind of repository, so one that
cannot be built (red suite, failed install, nothing eligible) is recorded
with its cause and the run goes on. The root's ledger (``build-many.json``)
holds each repository's folder and latest outcome; a rerun skips what is
settled and resumes the rest, each build from its own store. Builds run
through an executor (here, or as Ray tasks: ``many_ray.py``) and report back
as plain records and events, never through shared state.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from corrupt.errors import (
    CloneError,
    CorruptError,
    GitHubError,
    InputError,
    SandboxError,
    StoreError,
)
from corrupt.pipeline.build import Build, Progress
from corrupt.pipeline.options import BuildOptions
from corrupt.repos.specs import parse_spec
from corrupt.tasks.modes import TaskMode
from corrupt.tasks.store import CandidateRow

LEDGER_NAME = "build-many.json"
LOCK_NAME = ".build-many.lock"
# Failures a later run may not meet again (network, rate limits, the machine's sandbox);
# the rest are the repository's own and are retried only with --retry-failed.
TRANSIENT = (CloneError, GitHubError, SandboxError)
# Options that change how fast a build runs, not which tasks it writes.
UNTRACKED_OPTIONS = frozenset({"jobs"})


class RepoStatus(StrEnum):
    PENDING = "pending"  # planned, or interrupted: the next run builds it (its store resumes)
    DONE = "done"
    FAILED = "failed"


@dataclass
class RepoRecord:
    """One repository's row in the ledger and the summary."""

    spec: str  # as listed; the ledger's key
    folder: str  # its build folder under the root
    status: RepoStatus = RepoStatus.PENDING
    repo: str | None = None  # the checkout's name
    commit: str | None = None
    tasks: dict[str, int] = field(default_factory=dict)  # mode -> verified tasks
    requested: int = 0  # tasks asked for per mode
    seconds: float = 0.0  # the last attempt's wall time
    cause: str | None = None  # failure class: a CorruptError's cause or class name, "internal"
    message: str | None = None  # the failure in one line
    permanent: bool = False  # a failure a rerun would meet again
    options: dict[str, Any] = field(default_factory=dict)  # what it was built with (tracked ones)

    def settled(self, options: dict[str, Any], retry_failed: bool) -> bool:
        """Whether a rerun with these options leaves this repository as it is."""
        if self.options != options:
            return False
        if self.status == RepoStatus.DONE:
            return True
        return self.status == RepoStatus.FAILED and self.permanent and not retry_failed

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Event:
    """Something a running build says about its repository (sent across processes as is)."""

    repo: str  # the build folder's name
    kind: str  # "start", "stage" or "note"
    text: str


Send = Callable[[Event], None]


@dataclass(frozen=True)
class Job:
    """One build, everything a worker needs: no state of the process that planned it."""

    spec: str  # as listed
    target: str  # the spec to build (local paths made absolute)
    out: Path  # absolute
    options: dict[str, Any]  # BuildOptions fields but repo and out
    tracked: dict[str, Any]  # the options that decide its tasks, as the ledger keeps them


class Executor(Protocol):
    def run(self, jobs: list[Job], send: Send, done: Callable[[RepoRecord], None]) -> None:
        """Run every job, calling ``done`` with its record as each ends (in the caller's process)."""


class LocalExecutor:
    """Builds in this process, one after another (each screens with its own ``--jobs``)."""

    def run(self, jobs: list[Job], send: Send, done: Callable[[RepoRecord], None]) -> None:
        for job in jobs:
            done(run_job(job, send))


class ManyProgress:
    """What a build-many run tells its observer (the CLI renders it; tests ignore it)."""

    def planned(self, total: int, settled: list[RepoRecord]) -> None: ...

    def event(self, event: Event) -> None: ...

    def finished(self, record: RepoRecord) -> None: ...


@dataclass
class ManyResult:
    records: list[RepoRecord]  # one per listed repository, in list order
    skipped: set[str]  # specs settled by an earlier run
    seconds: float

    @property
    def failed(self) -> list[RepoRecord]:
        return [r for r in self.records if r.status == RepoStatus.FAILED]


# -- the list ---------------------------------------------------------------------


def parse_list(text: str) -> list[str]:
    """The repository specs of a list, in order, each once.

    A line is a spec as ``corrupt build`` takes it, or a JSON object of
    ``corrupt search --json`` (its ``full_name`` becomes ``github:owner/name``);
    blank lines and ``#`` comments are skipped.
    """
    specs: dict[str, None] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        specs.setdefault(_search_spec(line, number) if line.startswith("{") else line)
    if not specs:
        raise InputError("the list names no repository")
    return list(specs)


def _search_spec(line: str, number: int) -> str:
    try:
        meta = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"line {number} of the list is not valid JSON: {exc.msg}") from None
    name = meta.get("full_name") if isinstance(meta, dict) else None
    if not isinstance(name, str) or "/" not in name:
        raise InputError(
            f"line {number} of the list is JSON without a full_name (a corrupt search --json line)"
        )
    return f"github:{name}"


def folder_name(spec: str) -> str:
    """A readable folder name for a spec: ``owner__name`` for GitHub and URLs, else the folder's."""
    try:
        parsed = parse_spec(spec)
    except InputError:  # built anyway, to be recorded with its error
        parsed = None
    if parsed is None:
        parts = re.split(r"[/:]", spec.rstrip("/"))[-1:]
    elif parsed.kind == "local":
        parts = [Path(parsed.location).name]
    else:
        parts = re.split(r"[/:]", parsed.location.rstrip("/"))[-2:]
    name = "__".join(p.removesuffix(".git") for p in parts if p)
    return re.sub(r"[^A-Za-z0-9._+-]", "_", name).strip(".") or "repo"


def _buildable(spec: str) -> str:
    """The spec a worker builds: local paths absolute, so another working folder finds them."""
    try:
        return str(parse_spec(spec))
    except InputError:
        return spec


# -- the ledger -------------------------------------------------------------------


class Ledger:
    """The root's ``build-many.json``: each repository's folder and latest outcome.

    Rewritten whole (write, then rename) after every change, so a killed run
    leaves either the old or the new file, never half of one.
    """

    def __init__(self, root: Path) -> None:
        self.path = root / LEDGER_NAME
        self.records: dict[str, RepoRecord] = {}
        if self.path.exists():
            try:
                rows = json.loads(self.path.read_text(encoding="utf-8"))["repos"]
                self.records = {row["spec"]: RepoRecord(**row) for row in rows}
            except (ValueError, KeyError, TypeError) as exc:
                raise StoreError(f"unreadable ledger {self.path}: {exc}") from None
            for record in self.records.values():
                record.status = RepoStatus(record.status)

    def folder_for(self, spec: str) -> str:
        """The spec's folder: the one it has, else its name, made unique by a hash of the spec."""
        if spec in self.records:
            return self.records[spec].folder
        name = folder_name(spec)
        taken = {r.folder for r in self.records.values()}
        if name in taken:
            name = f"{name}-{hashlib.sha256(spec.encode()).hexdigest()[:8]}"
        return name

    def put(self, record: RepoRecord) -> None:
        self.records[record.spec] = record
        rows = [r.as_json() for r in self.records.values()]
        part = self.path.with_suffix(".part")
        part.write_text(json.dumps({"version": 1, "repos": rows}, indent=1), encoding="utf-8")
        os.replace(part, self.path)


@contextmanager
def _locked(root: Path) -> Iterator[None]:
    """Hold the root for this run; a second run on it is refused, not interleaved."""
    with (root / LOCK_NAME).open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreError(f"another build-many is running on {root}") from None
        yield


# -- running ----------------------------------------------------------------------


def tracked_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options that decide a build's tasks, as JSON gives them back."""
    kept = {k: v for k, v in options.items() if k not in UNTRACKED_OPTIONS}
    loaded: dict[str, Any] = json.loads(json.dumps(kept))
    return loaded


def run_many(
    specs: list[str],
    root: Path,
    options: dict[str, Any],
    executor: Executor,
    progress: ManyProgress | None = None,
    *,
    retry_failed: bool = False,
) -> ManyResult:
    """Build every listed repository not settled by an earlier run; the outcome of each.

    ``options`` are BuildOptions fields but ``repo`` and ``out``. Ctrl-C ends
    the run with the ledger as it stood: the next run resumes.
    """
    shown = progress or ManyProgress()
    started = time.monotonic()
    root = root.resolve()
    root.mkdir(parents=True, exist_ok=True)
    tracked = tracked_options(options)
    with _locked(root):
        ledger = Ledger(root)
        settled = [
            ledger.records[s]
            for s in specs
            if s in ledger.records and ledger.records[s].settled(tracked, retry_failed)
        ]
        skipped = {r.spec for r in settled}
        jobs: list[Job] = []
        for spec in specs:
            if spec in skipped:
                continue
            folder = ledger.folder_for(spec)
            ledger.put(RepoRecord(spec, folder, options=tracked))  # the folder is the spec's now
            jobs.append(Job(spec, _buildable(spec), root / folder, options, tracked))
        shown.planned(len(specs), settled)

        def done(record: RepoRecord) -> None:
            ledger.put(record)
            shown.finished(record)

        executor.run(jobs, shown.event, done)
        return ManyResult([ledger.records[s] for s in specs], skipped, time.monotonic() - started)


def run_job(job: Job, send: Send) -> RepoRecord:
    """One repository's build, its failure caught and recorded; runs in any process."""
    folder = job.out.name
    send(Event(folder, "start", job.spec))
    started = time.monotonic()
    record = RepoRecord(job.spec, folder, options=job.tracked, requested=job.options.get("n", 0))
    try:
        options = BuildOptions(repo=job.target, out=job.out, **job.options)
        summary = Build(options, _Relay(folder, send)).run()
    except CorruptError as exc:
        record.status, record.cause = RepoStatus.FAILED, exc.cause or type(exc).__name__
        record.message, record.permanent = _one_line(exc.message), not isinstance(exc, TRANSIENT)
    except Exception as exc:  # a bug or the machine: recorded, and tried again on the next run
        record.status, record.cause = RepoStatus.FAILED, "internal"
        record.message = _one_line(f"{type(exc).__name__}: {exc}")
    else:
        record.status, record.repo, record.commit = RepoStatus.DONE, summary.repo, summary.commit
        record.tasks = {mode: m.tasks for mode, m in summary.modes.items()}
    record.seconds = round(time.monotonic() - started, 1)
    return record


def failed_record(job: Job, cause: str, message: str) -> RepoRecord:
    """The record of a build that ended without reporting (its worker died), tried again next run."""
    return RepoRecord(
        job.spec,
        job.out.name,
        RepoStatus.FAILED,
        cause=cause,
        message=_one_line(message),
        options=job.tracked,
        requested=job.options.get("n", 0),
    )


def _one_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


class _Relay(Progress):
    """A build's progress as events about its repository: stages, tasks verified per mode, notes."""

    def __init__(self, repo: str, send: Send) -> None:
        self.repo, self.send = repo, send
        self.counts: dict[str, tuple[int, int, int]] = {}  # mode -> tried, verified, wanted

    def stage(self, name: str) -> None:
        if name not in set(TaskMode):  # a mode's own line comes from mode()
            self.send(Event(self.repo, "stage", name))

    def mode(self, mode: str, candidates: int, wanted: int) -> None:
        self.counts[mode] = (0, 0, wanted)
        self.send(Event(self.repo, "stage", f"{mode}: 0 of {wanted} verified"))

    def candidate(self, mode: str, row: CandidateRow, accepted: bool, test_runs: int) -> None:
        tried, verified, wanted = self.counts[mode]
        self.counts[mode] = (tried + 1, verified + accepted, wanted)
        self.send(
            Event(
                self.repo,
                "stage",
                f"{mode}: {verified + accepted} of {wanted} verified, {tried + 1} tried",
            )
        )

    def note(self, message: str) -> None:
        self.send(Event(self.repo, "note", message))


class ExecutorName(StrEnum):
    LOCAL = "local"
    RAY = "ray"


def make_executor(name: str, address: str | None, jobs: int) -> Executor:
    """The executor ``--executor`` names; Ray's is imported only when asked for."""
    if name == ExecutorName.RAY:
        from corrupt.pipeline.many_ray import RayExecutor

        return RayExecutor(address, jobs)
    if address:
        raise InputError("--ray-address needs --executor ray")
    return LocalExecutor()
