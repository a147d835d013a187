"""`corrupt build`: from a repository to verified, difficulty-tuned tasks on disk.

The build is a deterministic walk over an ordered list of candidates per mode
(the seeded, stratified target order of the selection stage). Every candidate's
outcome is committed to the store before the next decision, and tasks are
accepted strictly in candidate order, so a build killed at any point and run
again reaches exactly the task set of an uninterrupted build: finished
candidates are read back, never screened twice, never written twice.
Candidates are processed in windows of ``jobs`` at a time, each worker on its
own working copy.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from queue import Queue
from typing import Any

from corrupt.corruptors.models import (
    Corruption,
    CorruptionOutcome,
    CorruptionRequest,
    Corruptor,
    CorruptorName,
    DeletionStyle,
    Rejection,
    RejectionKind,
    Screener,
    TargetSource,
)
from corrupt.errors import LLMError, SelectionError
from corrupt.graph.distance import distances_to
from corrupt.graph.models import CodeGraph, Symbol
from corrupt.pipeline.droppable import Droppable, Dropped, Worker
from corrupt.pipeline.engine import engine_identity
from corrupt.pipeline.options import BuildOptions
from corrupt.prepare import Prepared, prepare
from corrupt.repos.coverage import LineTests
from corrupt.repos.models import Checkout, TraceTarget
from corrupt.repos.specs import parse_spec
from corrupt.sandboxes.base import Sandbox
from corrupt.sandboxes.registry import SandboxName
from corrupt.screening.screen import RunBudget, TreeScreener, WarmPolicy, WarmRecord
from corrupt.screening.screen_ray import RemoteScreener, WorkerSpec, start_remote_screeners
from corrupt.screening.warm_checks import kept_checks
from corrupt.selection.models import Group, Target
from corrupt.source.edits import EditScriptError
from corrupt.source.functions import TargetNotFound
from corrupt.tasks.assemble import build_task
from corrupt.tasks.effects import HopBand, target_span, trace_effects
from corrupt.tasks.models import Task
from corrupt.tasks.modes import ScreeningMode, TaskMode, VerifyMode
from corrupt.tasks.ray_cluster import ray_cluster
from corrupt.tasks.serialize import corruption_from_dict, corruption_to_dict
from corrupt.tasks.store import STORE_NAME, CandidateRow, CandidateStatus, Store
from corrupt.tasks.verify import make_repair, static_problems, verify_dynamic


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Keep the objects alive now out of the cyclic collector's passes until the block ends.

    What preparing a repository made (the coverage map, the call graph, the
    baseline) lives as long as the build, and every full collection while
    screening walked it again: a fifth of the host's CPU in a search (0.8 of 4
    CPU-seconds over ``bench/screening_bench.py``'s five repositories). Freezing
    changes when garbage is found, never what is kept; unfreezing hands it back.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@dataclass
class ModeSummary:
    requested: int
    tasks: int = 0
    tried: int = 0
    rejected: int = 0
    reasons: dict[str, int] = field(default_factory=dict)  # rejection kind -> candidates


@dataclass
class BuildSummary:
    repo: str
    commit: str
    out: Path
    functions: int
    eligible: int
    in_slice: int
    slice: str
    modes: dict[str, ModeSummary]
    stage_seconds: dict[str, float]
    test_runs: int
    suite_runs: int  # of the test runs, those of the whole suite (verification's)
    screening: dict[str, object] = field(default_factory=dict)  # the mode and, for warm, its record
    jsonl: Path | None = None

    @property
    def tasks(self) -> int:
        return sum(m.tasks for m in self.modes.values())


class Progress:
    """What a build tells its observer (the CLI renders it; tests ignore it)."""

    def stage(self, name: str) -> None: ...

    def mode(self, mode: str, candidates: int, wanted: int) -> None: ...

    def candidate(self, mode: str, row: CandidateRow, accepted: bool, test_runs: int) -> None: ...

    def note(self, message: str) -> None: ...


@dataclass
class Candidate:
    key: str
    mode: TaskMode
    targets: list[Target]


Evaluated = tuple[CandidateRow, Task | None, dict[str, list[str]] | None]


@dataclass(frozen=True)
class WalkOptions:
    """What decides the candidates each mode walks and how many tasks it takes from them."""

    modes: tuple[TaskMode, ...]
    n: int  # tasks per mode
    seed: int  # the order of groups, and of each search's mutants
    corruptor: CorruptorName  # discovery's and multi's (it names their candidates)
    deletion_style: DeletionStyle  # remove mode's (it names its candidates)
    functions: int  # functions per multi-function group
    max_distance: int  # call-graph steps between a group's functions


@dataclass(frozen=True)
class ScreenOptions:
    """How candidates are screened, and what makes a screened corruption a task."""

    jobs: int  # screeners, each on its own working copy
    screening: ScreeningMode
    verify: VerifyMode
    min_failing: int  # previously passing tests a corruption must fail
    hops: HopBand  # how far from its cause a discovery or multi task's failures surface
    box: dict[str, Any]  # get_sandbox's arguments, for screeners in Ray actors


class Build:
    """One run of ``corrupt build``; ``run()`` returns the summary."""

    def __init__(self, options: BuildOptions, progress: Progress | None = None) -> None:
        self.options = options
        self.out = options.folder
        self.progress = progress or Progress()
        self.stage_seconds: dict[str, float] = {}
        self._new_out = False  # whether this run created the build folder's store
        self._made_folders: set[Path] = set()  # folders this run created for it

    @contextmanager
    def _stage(self, name: str) -> Iterator[None]:
        self.progress.stage(name)
        started = time.monotonic()
        try:
            yield
        finally:
            self.stage_seconds[name] = (
                self.stage_seconds.get(name, 0.0) + time.monotonic() - started
            )

    def run(self) -> BuildSummary:
        from corrupt.sandboxes.registry import get_sandbox
        from corrupt.selection.eligibility import eligible_targets
        from corrupt.selection.slices import select_targets, slice_spec

        o = self.options
        spec_ = slice_spec(o.slice, o.centrality_pct, o.complexity_pct)
        single = _single_corruptor(o.corruptor, o.llm_base_url, o.llm_model, o.llm_attempts)
        # Before any work: a machine where no sandbox can be built is refused here.
        sandbox = get_sandbox(o.sandbox, base_image=o.base_image, isolation=o.isolation)
        stores: list[Store] = []
        try:
            with ExitStack() as stack:
                stack.callback(sandbox.close)
                # Before any work too: a Ray cluster that cannot be reached is refused here.
                ray = (
                    stack.enter_context(ray_cluster(o.ray_address, o.jobs))
                    if o.executor == "ray"
                    else None
                )
                ready = prepare(
                    o.repo,
                    sandbox,
                    time_limit=o.time_limit,
                    min_stars=o.min_stars,
                    api_url=o.api_url,
                    stage=self._stage,
                    checked_out=lambda c: stores.append(self._open_store(c)),
                    note=self.progress.note,
                    python=o.python,
                    strict_baseline=o.strict_baseline,
                )
                store = stores[0]
                # green only with the packages of that date, or on that Python
                if ready.checkout.packages_as_of or ready.checkout.python:
                    store.bind_repo(self._repo_info(ready.checkout))
                with self._stage("selection"):
                    targets = eligible_targets(
                        ready.graph,
                        ready.coverage,
                        min_lines=o.min_lines,
                        min_covering=o.min_covering,
                        complexity_metric=o.complexity_metric,
                        root=ready.checkout.path,
                    )
                    _save_functions(store, ready.graph, ready.coverage, targets)
                    if not targets:
                        raise SelectionError(
                            f"no function of {ready.checkout.name} is eligible (≥{o.min_lines} code lines and "
                            f"≥{o.min_covering} covering tests); lower --min-lines or --min-covering"
                        )
                    # every target in the slice, in the seeded stratified order the walk takes
                    ordered = select_targets(targets, spec_, len(targets), seed=o.seed)
                stack.enter_context(frozen_heap())
                if store.task_count():  # resumed: the file as the store holds it, whole
                    store.write_jsonl()
                run = _Run(
                    ready, sandbox, store, single, ray,
                    walk=self._walk_options(), screen=self._screen_options(),
                    progress=self.progress, stage=self._stage,
                )  # fmt: skip
                modes = run.all_modes(ordered, stack)
                store.set_meta("screening", run.screening())
            jsonl = store.write_jsonl()
        except BaseException:
            for opened in stores:
                self._abandon(opened)
            raise
        else:
            store.close()
        if o.apr_budget:
            with self._stage("apr"):
                self.progress.note(_apr(self.out, o.apr_budget, o.jobs, o.sandbox, o.base_image))
        return BuildSummary(
            repo=ready.checkout.name,
            commit=ready.checkout.commit,
            out=self.out,
            functions=len(ready.graph.functions()),
            eligible=len(targets),
            in_slice=len(ordered),
            slice=spec_.name,
            modes=modes,
            stage_seconds=self.stage_seconds,
            test_runs=run.test_runs(),
            suite_runs=run.suite_runs(),
            screening=run.screening(),
            jsonl=jsonl,
        )

    def _walk_options(self) -> WalkOptions:
        o = self.options
        return WalkOptions(
            tuple(o.modes()),
            o.n,
            o.seed,
            o.corruptor,
            o.deletion_style,
            o.functions,
            o.max_distance,
        )

    def _screen_options(self) -> ScreenOptions:
        o = self.options
        box = {"name": o.sandbox, "base_image": o.base_image, "isolation": o.isolation}
        return ScreenOptions(o.jobs, o.screening, o.verify, o.min_failing, o.hop_band, box)

    def _repo_info(self, checkout: Checkout) -> dict[str, object]:
        """What the store records of the checkout: enough to check it out and install it again."""
        return {
            "name": checkout.name,
            "url": checkout.url,
            "commit": checkout.commit,
            # A local folder is stored absolute, so materialize and score work from anywhere.
            "spec": str(parse_spec(self.options.repo)),
            "stars": checkout.stars,
            "sandbox": self.options.sandbox,
            "packages_as_of": checkout.packages_as_of,
            "python": checkout.python,
        }

    def _abandon(self, store: Store) -> None:
        """Close the store of a failed build; one this run created and never wrote a candidate to
        goes, with the output folder when that is left empty, so a refused repository leaves nothing."""
        if not self._new_out or store.candidates():
            store.close()
            return
        store.discard()
        for folder in (self.out, *self.out.parents):
            if folder in self._made_folders and not any(folder.iterdir()):
                folder.rmdir()

    def _open_store(self, checkout: Checkout) -> Store:
        """The build folder's store, bound to this checkout (a folder of another repository is refused)."""
        out = self.out
        self._new_out = not (out / STORE_NAME).exists()
        self._made_folders = {p for p in (out, *out.parents) if not p.exists()}
        store = Store.open(out, create=True)
        try:
            store.bind_repo(self._repo_info(checkout))
        except BaseException:
            store.close()
            raise
        engine = engine_identity()
        before = store.swap_engine(engine)
        if before:
            self.progress.note(
                f"{out} was built by corrupt {before.get('version')} (code {before.get('code')}), this is "
                f"{engine['version']} (code {engine['code']}): candidates and tasks recorded before are kept as they are"
            )
        return store


def _single_corruptor(
    name: CorruptorName, llm_base_url: str | None, llm_model: str | None, llm_attempts: int
) -> Corruptor:
    """The single-function corruptor of discovery mode (and of multi-function members)."""
    if name == CorruptorName.PROCEDURAL:
        from corrupt.corruptors.adversarial import AdversarialCorruptor

        return AdversarialCorruptor()
    from corrupt.corruptors.llm import LLMCorruptor

    key = os.environ.get("CORRUPT_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY")
    if not (llm_base_url and llm_model):
        raise LLMError(
            "--corruptor llm needs --llm-base-url and --llm-model (any OpenAI-compatible endpoint)"
        )
    if not key:
        raise LLMError("--corruptor llm needs an API key in CORRUPT_LLM_API_KEY or OPENAI_API_KEY")
    return LLMCorruptor(llm_base_url, llm_model, key, attempts=llm_attempts)


def _apr(out: Path, budget: int, jobs: int, sandbox: SandboxName, base_image: str | None) -> str:
    """The APR baseline on every written task, recorded in the store (``corrupt solve``)."""
    from corrupt.solve.run import SolveOptions, solve_build

    options = SolveOptions(out, budget=budget, jobs=jobs, sandbox=sandbox, base_image=base_image)
    written, results = solve_build(options)
    attempted = [r for r in results.values() if r["status"] != "not attempted"]
    solved = sum(r["solved"] for r in attempted)
    return f"APR baseline: {solved} of {len(attempted)} attempted tasks solved -> {written}"


class _StoredMembers:
    """The single-function corruptor, each target searched once per build folder.

    Discovery tasks and multi-function members share these searches: a
    member found for one is reused by the other, and a resumed build reads
    them back from the store instead of screening again.
    """

    def __init__(self, inner: Corruptor, store: Store, base: CorruptionRequest, tag: str) -> None:
        self.inner, self.store, self.base, self.tag = inner, store, base, tag  # tag: --corruptor
        self.name = inner.name
        self._searching: dict[str, threading.Lock] = {}  # one search per member, however many jobs
        self._guard = threading.Lock()

    def corrupt(self, request: CorruptionRequest, screener: Screener) -> CorruptionOutcome:
        return self.member(request.target, screener)

    def member(self, target: TargetSource, screener: Screener) -> CorruptionOutcome:
        """The member's stored search, else a new one; a worker asking for a member another
        is searching waits for that search (two multi groups often share a function)."""
        key = f"member:{self.tag}:{target.qualname}"
        with self._guard:
            searching = self._searching.setdefault(key, threading.Lock())
        with searching:
            row = self._stored_or_searched(key, target, screener)
        if row.status != CandidateStatus.FOUND or not row.payload:
            rejection = row.rejection or Rejection(
                RejectionKind.NO_VALID_MUTANT, "no corruption found"
            )
            return CorruptionOutcome(target.qualname, rejection=rejection)
        return CorruptionOutcome(
            target.qualname, corruption=corruption_from_dict(row.payload["corruption"])
        )

    def _stored_or_searched(
        self, key: str, target: TargetSource, screener: Screener
    ) -> CandidateRow:
        row = self.store.candidate(key)
        if row is None:
            started, runs = time.monotonic(), screener.runs
            request = CorruptionRequest(
                (target,), self.base.baseline_passing, self.base.min_failing, self.base.seed
            )
            outcome = self.inner.corrupt(request, screener)
            found = outcome.corruption
            row = CandidateRow(
                key=key,
                mode="member",
                targets=[target.qualname],
                status=CandidateStatus.FOUND if found else CandidateStatus.NONE,
                corruptor=found.corruptor if found else None,
                screened=screener.runs - runs,
                seconds=round(time.monotonic() - started, 3),
                task_id=None,
                payload={"corruption": corruption_to_dict(found), "tried": outcome.tried}
                if found
                else {"tried": outcome.tried},
                rejection=outcome.rejection,
            )
            self.store.record_candidate(row)
        return row


class _Run:
    """The candidate walk of one build, once checkout, graph and baseline are known."""

    def __init__(
        self,
        ready: Prepared,
        sandbox: Sandbox,
        store: Store,
        single: Corruptor,
        ray: Any,  # the connected ray module with --executor ray, else None
        walk: WalkOptions,
        screen: ScreenOptions,
        progress: Progress,
        stage: Callable[[str], AbstractContextManager[None]],  # times each mode
    ) -> None:
        from corrupt.corruptors.deletion import DeletionCorruptor
        from corrupt.corruptors.multi import MultiCorruptor

        self.ready, self.sandbox, self.store, self.ray = ready, sandbox, store, ray
        self.walk, self.screen, self.progress, self.stage = walk, screen, progress, stage
        self.symbols: dict[str, Symbol] = ready.graph.symbols
        self.digraph = ready.graph.digraph()
        self.base = CorruptionRequest(
            (), frozenset(ready.baseline.tests), min_failing=screen.min_failing, seed=walk.seed
        )
        members = _StoredMembers(single, store, self.base, str(walk.corruptor))
        self.corruptors: dict[TaskMode, Corruptor] = {
            TaskMode.REMOVE: DeletionCorruptor(walk.deletion_style),
            TaskMode.DISCOVERY: members,
            TaskMode.MULTI: MultiCorruptor(members.member),
        }
        self.budget = RunBudget.from_baseline(ready.baseline)
        self.workers: Queue[Worker] = Queue()  # one per job, each on its own working copy
        self._screeners: list[Worker] = []
        self.policy = WarmPolicy()

    def test_runs(self) -> int:
        return sum(s.runs for s in self._screeners)

    def suite_runs(self) -> int:
        return sum(s.suite_runs for s in self._screeners)

    def screening(self) -> dict[str, object]:
        """How candidates were screened; for warm, whether it held and what fell back."""
        mode = self.screen.screening
        if mode != ScreeningMode.WARM:
            return {"mode": str(mode)}
        remote = [s.policy for s in self._screeners if isinstance(s, RemoteScreener) and s.policy]
        record = WarmRecord.merged(remote) if remote else self.policy.snapshot()
        return {"mode": str(mode), **dataclasses.asdict(record)}

    def all_modes(self, ordered: list[Target], stack: ExitStack) -> dict[str, ModeSummary]:
        for screener in self._start_workers(stack):
            self._screeners.append(screener)
            self.workers.put(screener)
        pool = ThreadPoolExecutor(max_workers=self.screen.jobs, thread_name_prefix="corrupt")
        # Unwound first on Ctrl-C: end the runs in flight, drop queued candidates, then wait
        # for the workers (which now fail fast), so the build stops within a second or two.
        stack.callback(pool.shutdown, wait=True, cancel_futures=True)
        stack.callback(self._cancel)
        summaries = {}
        for mode in self.walk.modes:
            candidates = self._candidates(mode, ordered)
            with self.stage(mode):
                summaries[str(mode)] = self._walk_mode(mode, candidates, pool)
        return summaries

    def _cancel(self) -> None:
        """End the runs in flight (here and in Ray actors) and refuse new ones."""
        self.sandbox.cancel()
        for screener in self._screeners:
            if isinstance(screener, RemoteScreener):
                screener.cancel()

    def _start_workers(self, stack: ExitStack) -> list[Worker]:
        """``--jobs`` screeners, each on its own working copy: here, or Ray actors."""
        from corrupt.repos.workspace import Workspace

        ready, screening, jobs = self.ready, self.screen.screening, self.screen.jobs
        if self.ray is not None:
            spec = WorkerSpec(
                self.screen.box, ready.checkout, ready.env, ready.baseline, self.budget, screening
            )
            remote = start_remote_screeners(self.ray, jobs, spec)
            for handle in remote:
                stack.callback(handle.close)
            return list(remote)
        local: list[Worker] = []
        for _ in range(jobs):
            workspace = stack.enter_context(Workspace(ready.checkout))
            screener = TreeScreener(
                self.sandbox, ready.env, workspace, self.budget,
                screening=screening, baseline=ready.baseline, policy=self.policy,
                verdicts=kept_checks(),
            )  # fmt: skip
            stack.callback(screener.close)  # before its working copy goes
            local.append(screener)
        return local

    def _candidates(self, mode: TaskMode, ordered: list[Target]) -> list[Candidate]:
        walk, tag = self.walk, self.walk.corruptor
        if mode == TaskMode.REMOVE:
            return [
                Candidate(f"remove:{walk.deletion_style}:{t.qualname}", mode, [t]) for t in ordered
            ]
        if mode == TaskMode.DISCOVERY:
            return [Candidate(f"discovery:{tag}:{t.qualname}", mode, [t]) for t in ordered]
        from corrupt.selection.groups import make_groups

        groups: list[Group] = make_groups(
            ordered,
            self.ready.graph,
            k=walk.functions,
            max_distance=walk.max_distance,
            n=max(4 * walk.n, 10),
            seed=walk.seed,
        )
        if not groups:
            self.progress.note(
                f"multi: no {walk.functions} eligible functions lie within {walk.max_distance} call-graph steps"
            )
        return [
            Candidate(
                f"multi:{tag}:" + "+".join(t.qualname for t in g.targets), mode, list(g.targets)
            )
            for g in groups
        ]

    def _walk_mode(
        self, mode: TaskMode, candidates: list[Candidate], pool: ThreadPoolExecutor
    ) -> ModeSummary:
        """Accept verified candidates strictly in order until ``n`` tasks exist for this mode.

        Twice ``--jobs`` candidates are in flight at once (running or queued for a
        worker), and one more is queued as soon as the oldest is recorded: a slow
        candidate holds up the recording, not the other workers. When the mode has
        its tasks, the candidates queued are dropped, and those running end at their
        next test run (pyramid's hub functions screen for a minute), unrecorded; a
        member search they began is not recorded either."""
        n = self.walk.n
        summary = ModeSummary(requested=n)
        self.progress.mode(mode, len(candidates), n)
        ahead, order = iter(candidates), deque[Candidate]()
        fresh: dict[str, Future[Evaluated | None]] = {}
        drops: dict[str, threading.Event] = {}  # set: the walk no longer wants it

        def start_more() -> None:
            while len(fresh) < 2 * self.screen.jobs:
                cand = next(ahead, None)
                if cand is None:
                    return
                order.append(cand)
                if self.store.candidate(cand.key) is None:
                    drops[cand.key] = threading.Event()
                    fresh[cand.key] = pool.submit(self._process, cand, drops[cand.key])

        start_more()
        while order and summary.tasks < n:
            cand = order.popleft()
            row, task = self.store.candidate(cand.key), None
            if row is None:
                evaluated = fresh.pop(cand.key).result()
                assert evaluated is not None  # only candidates past the last needed are dropped
                row, task, files = evaluated
                if task is not None and self._duplicate(cand, row):
                    task = None
                self.store.record_candidate(row, task, files)
            elif row.status == CandidateStatus.VERIFIED and not self._duplicate(cand, row):
                task = self.store.accept(cand.key)
            accept = task is not None
            summary.tried += 1
            if task is not None:
                summary.tasks += 1
                self.store.append_jsonl(task)
            else:
                summary.rejected += 1
                kind = str(row.rejection.kind) if row.rejection else str(RejectionKind.OTHER)
                summary.reasons[kind] = summary.reasons.get(kind, 0) + 1
            self.progress.candidate(mode, row, accept, self.test_runs())
            if summary.tasks < n:
                start_more()
        for key, future in fresh.items():  # not recorded: identical to a serial walk
            if not future.cancel():
                drops[key].set()  # running: it ends at its next test run
        for future in fresh.values():
            if not future.cancelled():
                future.result()  # surface worker crashes even for unrecorded candidates
        return summary

    def _duplicate(self, cand: Candidate, row: CandidateRow) -> bool:
        """A verified candidate whose task another candidate already wrote.

        Happens when an outer function's mutant lands in a nested function
        that is a target of its own; the second copy is rejected, not written.
        """
        owner = self.store.task_candidate(row.task_id) if row.task_id else None
        if owner is None or owner == cand.key:
            return False
        row.status = CandidateStatus.REJECTED
        row.rejection = Rejection(RejectionKind.DUPLICATE, f"duplicate of task {row.task_id}")
        row.payload = None
        return True

    # -- one candidate ---------------------------------------------------------------

    def _process(self, cand: Candidate, dropped: threading.Event) -> Evaluated | None:
        """The candidate's outcome; None when the walk dropped it (set ``dropped``)
        before it ended."""
        worker = self.workers.get()
        screener = Droppable(worker, dropped)
        try:
            started, runs = time.monotonic(), screener.runs
            try:
                corruption, task, files, rejection = self._evaluate(cand, screener)
            except (TargetNotFound, EditScriptError) as exc:  # one bad target never aborts a build
                corruption, task, files = None, None, None
                rejection = Rejection(RejectionKind.NOT_FOUND, exc.message)
            except Dropped:
                return None
        finally:
            self.workers.put(worker)
        row = CandidateRow(
            key=cand.key,
            mode=cand.mode,
            targets=[t.qualname for t in cand.targets],
            status=CandidateStatus.VERIFIED if task else CandidateStatus.REJECTED,
            corruptor=corruption.corruptor if corruption else None,
            screened=screener.runs - runs,
            seconds=round(time.monotonic() - started, 3),
            task_id=task.task_id if task else None,
            payload={"task": task.model_dump(mode="json"), "files": files} if task else None,
            rejection=rejection,
        )
        return row, task, files

    def _request(self, mode: TaskMode, targets: list[Target]) -> CorruptionRequest:
        # only screened corruptions rank failures by call-graph distance
        located = mode != TaskMode.REMOVE
        sources = tuple(
            TargetSource(
                file=t.file,
                qualname=t.qualname,
                def_line=t.start_line,
                source=self._source(t),
                covering_tests=tuple(t.covering_tests),
                distance_to=distances_to(self.digraph, t.qualname) if located else None,
                line_tests=LineTests.of(self.ready.baseline, t.file, t.start_line, t.end_line),
            )
            for t in targets
        )
        return CorruptionRequest(
            sources, self.base.baseline_passing, self.base.min_failing, self.base.seed
        )

    def _evaluate(
        self, cand: Candidate, screener: Droppable
    ) -> tuple[Corruption | None, Task | None, dict[str, list[str]] | None, Rejection | None]:
        outcome = self.corruptors[cand.mode].corrupt(
            self._request(cand.mode, cand.targets), screener
        )
        corruption = outcome.corruption
        if corruption is None:
            return None, None, None, outcome.rejection
        repair = make_repair(corruption)
        unfair = static_problems(corruption, self.symbols, repair)
        if unfair:
            return corruption, None, None, unfair
        verification = verify_dynamic(
            corruption,
            self.ready.baseline,
            lambda files: screener.run(files),
            min_failing=self.screen.min_failing,
            mode=self.screen.verify,
            run_some=lambda files, tests, trace: screener.run(files, tests=tests, trace=trace),
            covering={test for t in cand.targets for test in t.covering_tests},
            trace=self._traced_in_verification(cand.mode, corruption),
        )
        if not verification.ok:
            return corruption, None, None, verification.rejection
        task = build_task(
            checkout=self.ready.checkout,
            baseline=self.ready.baseline,
            corruption=corruption,
            repair=repair,
            verification=verification,
            targets=cand.targets,
            mode=cand.mode,
            seed=self.walk.seed,
            symbols=self.symbols,
            graph=self.digraph,
            image_name=self.ready.env.location if self.ready.env.kind == "image" else None,
        )
        if task.mode != TaskMode.REMOVE:
            trace_effects(
                task,
                {path: ch.corrupted for path, ch in corruption.files.items()},
                lambda files, tests, targets: screener.run(files, tests=tests, trace=targets),
                {t.qualname: t.covering_tests for t in cand.targets},
                verification.rerun,
            )
            band = self.screen.hops
            if not band.contains(task.difficulty.hops):
                detail = f"{task.difficulty.hops} hops, {band.describe()} wanted"
                return corruption, None, None, Rejection(RejectionKind.HOPS, detail)
        files = {path: [ch.original, ch.corrupted] for path, ch in corruption.files.items()}
        return corruption, task, files, None

    def _traced_in_verification(self, mode: TaskMode, corruption: Corruption) -> list[TraceTarget]:
        """A discovery bug's function, traced in verification's rerun of its failing tests:
        that rerun is then its effect run too (a multi task's bugs are traced one at a
        time, each alone in the tree)."""
        if mode != TaskMode.DISCOVERY or len(corruption.bugs) != 1:
            return []
        bug = corruption.bugs[0]
        span = target_span(bug, corruption.files[bug.file].corrupted)
        return [span] if span is not None else []

    def _source(self, target: Target) -> str:
        with open(self.ready.checkout.path / target.file, encoding="utf-8", newline="") as fh:
            return fh.read()


def _save_functions(
    store: Store, graph: CodeGraph, coverage: dict[str, list[str]], targets: list[Target]
) -> None:
    eligible = {t.qualname for t in targets}
    store.save_functions(
        [
            (
                s.qualname,
                s.file,
                s.start_line,
                s.end_line,
                len(coverage.get(s.qualname, [])),
                s.qualname in eligible,
                graph.metrics[s.qualname].as_dict() if s.qualname in graph.metrics else {},
            )
            for s in graph.functions()
        ]
    )
