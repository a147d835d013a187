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

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from queue import Queue
from typing import TYPE_CHECKING, cast

from corrupt.corruptors.models import Bug, Corruption, FileChange
from corrupt.errors import InputError, LLMError, NoPythonError, SelectionError
from corrupt.graph.distance import distances_to
from corrupt.graph.models import CodeGraph, Symbol
from corrupt.repos.models import Baseline, Checkout, Environment
from corrupt.repos.sandbox import Sandbox
from corrupt.selection.models import Group, SliceSpec, Target
from corrupt.source.functions import TargetNotFound
from corrupt.tasks.assemble import build_task
from corrupt.tasks.engine import engine_identity
from corrupt.tasks.screen import RunBudget, TreeScreener
from corrupt.tasks.serialize import corruption_from_dict, corruption_to_dict
from corrupt.tasks.store import CandidateRow, Store
from corrupt.tasks.verify import make_repair, static_problems, verify_dynamic

if TYPE_CHECKING:
    from corrupt.corruptors.deletion import DeletionStyle

MODES = ("remove", "discovery", "multi")


@dataclass
class BuildOptions:
    repo: str
    out: Path
    mode: str = "all"
    n: int = 5  # tasks per mode
    slice: str | None = None
    centrality_pct: str | None = None
    complexity_pct: str | None = None
    complexity_metric: str = "code_lines"
    functions: int = 2
    max_distance: int = 4
    seed: int = 0
    jobs: int = 1
    corruptor: str = "procedural"
    sandbox: str = "local"
    base_image: str | None = None
    isolation: bool = True  # False: --no-isolation, repository code runs unconfined (unsafe)
    min_failing: int = 5
    min_lines: int = 5
    min_covering: int = 5
    time_limit: float = 60.0
    full_suite_screening: bool = False
    deletion_style: str = "raise"  # raise | pass (checked by Build)
    min_stars: int = 0
    api_url: str | None = None
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_attempts: int = 5

    def modes(self) -> list[str]:
        if self.mode == "all":
            return list(MODES)
        if self.mode not in MODES:
            raise InputError(f"unknown mode {self.mode!r}; choose remove, discovery, multi or all")
        return [self.mode]


@dataclass
class ModeSummary:
    requested: int
    tasks: int = 0
    tried: int = 0
    rejected: int = 0
    reasons: dict[str, int] = field(default_factory=dict)


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
    mode: str
    targets: list[Target]


class Build:
    """One run of ``corrupt build``; ``run()`` returns the summary."""

    def __init__(self, options: BuildOptions, progress: Progress | None = None) -> None:
        self.o = options
        self.progress = progress or Progress()
        self.stage_seconds: dict[str, float] = {}
        self.modes = options.modes()
        if options.n < 1:
            raise InputError("--n must be at least 1")
        if options.jobs < 1:
            raise InputError("--jobs must be at least 1")
        if options.functions < 2:
            raise InputError("--functions must be at least 2 for multi-function tasks")
        if options.corruptor not in ("procedural", "llm"):
            raise InputError(f"unknown corruptor {options.corruptor!r}; choose procedural or llm")
        if options.deletion_style not in ("raise", "pass"):
            raise InputError(f"unknown deletion style {options.deletion_style!r}; choose raise or pass")

    @contextmanager
    def _stage(self, name: str) -> Iterator[None]:
        self.progress.stage(name)
        started = time.monotonic()
        try:
            yield
        finally:
            self.stage_seconds[name] = self.stage_seconds.get(name, 0.0) + time.monotonic() - started

    def run(self) -> BuildSummary:
        from corrupt.graph import build_code_graph
        from corrupt.repos.baseline import compute_baseline
        from corrupt.repos.checkout import checkout as do_checkout
        from corrupt.repos.coverage import coverage_map
        from corrupt.repos.sandboxes import get_sandbox
        from corrupt.repos.specs import parse_spec
        from corrupt.selection.eligibility import eligible_targets
        from corrupt.selection.slices import slice_spec

        o = self.o
        spec_ = slice_spec(o.slice, o.centrality_pct, o.complexity_pct)
        llm = self._llm_corruptor() if o.corruptor == "llm" else None
        # Before any work: a machine where no sandbox can be built is refused here.
        sandbox = get_sandbox(o.sandbox, base_image=o.base_image, isolation=o.isolation)
        with self._stage("checkout"):
            checkout = do_checkout(parse_spec(o.repo), min_stars=o.min_stars, api_url=o.api_url)
        store = Store.open(o.out, create=True)
        try:
            store.bind_repo(
                {"name": checkout.name, "url": checkout.url, "commit": checkout.commit, "spec": o.repo,
                 "stars": checkout.stars, "sandbox": o.sandbox}
            )
            engine = engine_identity()
            before = store.swap_engine(engine)
            if before:
                self.progress.note(
                    f"{o.out} was built by corrupt {before.get('version')} (code {before.get('code')}), this is "
                    f"{engine['version']} (code {engine['code']}): candidates and tasks recorded before are kept as they are"
                )
            with self._stage("graph"):
                try:
                    graph = build_code_graph(checkout.path)
                except NoPythonError:
                    raise NoPythonError(f"{o.repo} has no Python files to analyse (tests excluded)") from None
            for skipped in graph.skipped:
                self.progress.note(f"skipped {skipped.file}: {skipped.reason}")
            with ExitStack() as stack:
                stack.callback(sandbox.close)
                with self._stage("environment"):
                    env = sandbox.prepare(checkout)
                with self._stage("baseline"):
                    baseline = compute_baseline(checkout, sandbox, env, time_limit=o.time_limit)
                with self._stage("selection"):
                    spans = [
                        (s.qualname, s.file, s.body_start or s.start_line, s.end_line)
                        for s in graph.functions()
                    ]
                    coverage = coverage_map(baseline, spans)
                    targets = eligible_targets(
                        graph, coverage, min_lines=o.min_lines, min_covering=o.min_covering,
                        complexity_metric=o.complexity_metric, root=checkout.path,
                    )
                    _save_functions(store, graph, coverage, targets)
                    if not targets:
                        raise SelectionError(
                            f"no function of {checkout.name} is eligible (≥{o.min_lines} code lines and "
                            f"≥{o.min_covering} covering tests); lower --min-lines or --min-covering"
                        )
                    ordered = self._order(targets, spec_)
                run = _Run(self, checkout, graph, sandbox, env, baseline, store, spec_, llm)
                modes = run.all_modes(ordered, stack)
            jsonl = store.write_jsonl()
        finally:
            store.close()
        return BuildSummary(
            repo=checkout.name, commit=checkout.commit, out=o.out, functions=len(graph.functions()),
            eligible=len(targets), in_slice=len(ordered), slice=spec_.name, modes=modes,
            stage_seconds=self.stage_seconds, test_runs=run.test_runs(), jsonl=jsonl,
        )

    def _order(self, targets: list[Target], spec_: SliceSpec) -> list[Target]:
        """Every target in the slice, in the seeded stratified order the build walks."""
        from corrupt.selection.slices import select_targets

        return select_targets(targets, spec_, len(targets), seed=self.o.seed)

    def _llm_corruptor(self):
        import os

        from corrupt.corruptors.llm import LLMCorruptor

        o = self.o
        key = os.environ.get("CORRUPT_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY")
        if not (o.llm_base_url and o.llm_model):
            raise LLMError("--corruptor llm needs --llm-base-url and --llm-model (any OpenAI-compatible endpoint)")
        if not key:
            raise LLMError("--corruptor llm needs an API key in CORRUPT_LLM_API_KEY or OPENAI_API_KEY")
        return LLMCorruptor(o.llm_base_url, o.llm_model, key, attempts=o.llm_attempts)


class _Run:
    """The candidate walk of one build, once checkout, graph and baseline are known."""

    def __init__(self, build: Build, checkout: Checkout, graph: CodeGraph, sandbox: Sandbox,
                 env: Environment, baseline: Baseline, store: Store, spec_: SliceSpec, llm) -> None:
        self.b, self.o = build, build.o
        self.checkout, self.graph, self.sandbox, self.env = checkout, graph, sandbox, env
        self.baseline, self.store, self.spec, self.llm = baseline, store, spec_, llm
        self.symbols: dict[str, Symbol] = graph.symbols
        self.digraph = graph.digraph()
        self.trusted = set(baseline.tests)
        self.budget = RunBudget.from_baseline(baseline)
        self.workers: Queue[TreeScreener] = Queue()  # one per job, each on its own working copy
        self._screeners: list[TreeScreener] = []

    def test_runs(self) -> int:
        return sum(s.runs for s in self._screeners)

    def all_modes(self, ordered: list[Target], stack: ExitStack) -> dict[str, ModeSummary]:
        from corrupt.repos.workspace import Workspace

        for _ in range(self.o.jobs):
            workspace = stack.enter_context(Workspace(self.checkout))
            screener = TreeScreener(self.sandbox, self.env, workspace, self.budget,
                                    full_suite=self.o.full_suite_screening)
            self._screeners.append(screener)
            self.workers.put(screener)
        pool = stack.enter_context(ThreadPoolExecutor(max_workers=self.o.jobs, thread_name_prefix="corrupt"))
        summaries = {}
        for mode in self.b.modes:
            candidates = self._candidates(mode, ordered)
            with self.b._stage(mode):
                summaries[mode] = self._walk(mode, candidates, pool)
        return summaries

    def _candidates(self, mode: str, ordered: list[Target]) -> list[Candidate]:
        tag = self.o.corruptor
        if mode == "remove":
            return [Candidate(f"remove:{self.o.deletion_style}:{t.qualname}", mode, [t]) for t in ordered]
        if mode == "discovery":
            return [Candidate(f"discovery:{tag}:{t.qualname}", mode, [t]) for t in ordered]
        from corrupt.selection.groups import make_groups

        groups: list[Group] = make_groups(
            ordered, self.graph, k=self.o.functions, max_distance=self.o.max_distance,
            n=max(4 * self.o.n, 10), seed=self.o.seed,
        )
        if not groups:
            self.b.progress.note(
                f"multi: no {self.o.functions} eligible functions lie within {self.o.max_distance} call-graph steps"
            )
        return [
            Candidate(f"multi:{tag}:" + "+".join(t.qualname for t in g.targets), mode, list(g.targets))
            for g in groups
        ]

    def _walk(self, mode: str, candidates: list[Candidate], pool: ThreadPoolExecutor) -> ModeSummary:
        """Accept verified candidates strictly in order until ``n`` tasks exist for this mode."""
        summary = ModeSummary(requested=self.o.n)
        self.b.progress.mode(mode, len(candidates), self.o.n)
        window = max(1, self.o.jobs)
        for start in range(0, len(candidates), window):
            if summary.tasks >= self.o.n:
                break
            chunk = candidates[start:start + window]
            fresh = {c.key: pool.submit(self._process, c) for c in chunk if self.store.candidate(c.key) is None}
            for cand in chunk:
                if summary.tasks >= self.o.n:
                    break  # later results in this window stay unrecorded: identical to a serial walk
                row = self.store.candidate(cand.key)
                if row is None:
                    row, task, files = fresh[cand.key].result()
                    if task is not None and self._duplicate(cand, row):
                        task = None
                    accept = task is not None
                    self.store.record_candidate(row, task, files)
                elif row.status == "verified" and not self._duplicate(cand, row):
                    accept = True
                    self.store.accept(cand.key)
                else:
                    accept = False
                summary.tried += 1
                if accept:
                    summary.tasks += 1
                    self.store.write_jsonl()
                else:
                    summary.rejected += 1
                    summary.reasons[_reason_kind(row.reason)] = summary.reasons.get(_reason_kind(row.reason), 0) + 1
                self.b.progress.candidate(mode, row, accept, self.test_runs())
            for future in fresh.values():
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
        row.status, row.reason = "rejected", f"duplicate of task {row.task_id}"
        row.payload = None
        return True

    # -- one candidate ---------------------------------------------------------------

    def _process(self, cand: Candidate):
        screener = self.workers.get()
        try:
            started, runs = time.monotonic(), screener.runs
            try:
                status, reason, corruption, task, files = self._evaluate(cand, screener)
            except TargetNotFound as exc:  # one target the corruptors cannot handle never aborts a build
                status, reason, corruption, task, files = "rejected", exc.message, None, None, None
        finally:
            self.workers.put(screener)
        row = CandidateRow(
            key=cand.key, mode=cand.mode, targets=[t.qualname for t in cand.targets], status=status,
            reason=reason, corruptor=corruption.corruptor if corruption else None,
            screened=screener.runs - runs, seconds=round(time.monotonic() - started, 3),
            task_id=task.task_id if task else None,
            payload={"task": task.model_dump(mode="json"), "files": files} if task else None,
        )
        return row, task, files

    def _evaluate(self, cand: Candidate, screener: TreeScreener):
        corruption: Corruption | None
        if cand.mode == "remove":
            corruption, reason = self._deletion(cand.targets[0]), ""
        elif cand.mode == "discovery":
            corruption, reason = self._member(cand.targets[0], screener)
        else:
            corruption, reason = self._multi(cand.targets, screener)
        if corruption is None:
            return "rejected", reason, None, None, None
        repair = make_repair(corruption)
        problem = static_problems(corruption, self.symbols, repair)
        if problem:
            return "rejected", problem, corruption, None, None
        verification = verify_dynamic(
            corruption, self.baseline, lambda files: screener.run(files), min_failing=self.o.min_failing
        )
        if not verification.ok:
            return "rejected", verification.reason, corruption, None, None
        task = build_task(
            checkout=self.checkout, baseline=self.baseline, corruption=corruption, repair=repair,
            verification=verification, targets=cand.targets,
            mode="remove" if cand.mode == "remove" else "discovery",
            slice_name=self.spec.name, seed=self.o.seed, symbols=self.symbols, graph=self.digraph,
            image_name=self.env.location if self.env.kind == "image" else None,
        )
        files = {path: [ch.original, ch.corrupted] for path, ch in corruption.files.items()}
        return "verified", "", corruption, task, files

    def _source(self, target: Target) -> str:
        with open(self.checkout.path / target.file, encoding="utf-8", newline="") as fh:
            return fh.read()

    def _deletion(self, target: Target) -> Corruption:
        from corrupt.corruptors.deletion import delete_function

        source = self._source(target)
        mutant = delete_function(source, target.file, target.qualname, target.start_line, style=cast("DeletionStyle", self.o.deletion_style))
        return Corruption(
            kind="deletion", corruptor="deletion", targets=[target.qualname],
            files={target.file: FileChange(source, mutant.corrupted)},
            bugs=[Bug(target=target.qualname, file=target.file, lines=mutant.lines, category=mutant.odc_category,
                      subcategory=mutant.odc_subcategory, operator=mutant.operator,
                      hef_category=mutant.hef_category)],
        )

    def _member(self, target: Target, screener: TreeScreener) -> tuple[Corruption | None, str]:
        """The single-function adversarial corruption of a target, searched once per build folder."""
        key = f"member:{self.o.corruptor}:{target.qualname}"
        row = self.store.candidate(key)
        if row is None:
            started, runs = time.monotonic(), screener.runs
            outcome = self._search(target, screener)
            row = CandidateRow(
                key=key, mode="member", targets=[target.qualname],
                status="found" if outcome.corruption else "none", reason=outcome.reason,
                corruptor=outcome.corruption.corruptor if outcome.corruption else None,
                screened=screener.runs - runs, seconds=round(time.monotonic() - started, 3), task_id=None,
                payload={"corruption": corruption_to_dict(outcome.corruption), "tried": outcome.tried}
                if outcome.corruption else {"tried": outcome.tried},
            )
            self.store.record_candidate(row)
        if row.status != "found" or not row.payload:
            return None, row.reason or "no corruption found"
        return corruption_from_dict(row.payload["corruption"]), ""

    def _search(self, target: Target, screener: TreeScreener):
        source = self._source(target)
        passing = self.trusted
        if self.llm is not None:
            return self.llm.corrupt(
                source, target.file, target.qualname, target.start_line, target.covering_tests, screener, passing,
                min_failing=self.o.min_failing,
            )
        from corrupt.corruptors.adversarial import adversarial_search

        return adversarial_search(
            source, target.file, target.qualname, target.start_line, target.covering_tests, screener, passing,
            min_failing=self.o.min_failing, seed=self.o.seed,
            distance_to=distances_to(self.digraph, target.qualname),
        )

    def _multi(self, targets: list[Target], screener: TreeScreener) -> tuple[Corruption | None, str]:
        from corrupt.corruptors.multi import compose

        members = []
        for target in targets:
            member, reason = self._member(target, screener)
            if member is None:
                return None, f"member {target.qualname}: {reason}"
            members.append(member)
        result = compose(members, screener, self.trusted, min_failing=self.o.min_failing)
        if isinstance(result, str):
            return None, result
        return result, ""


def _save_functions(store: Store, graph: CodeGraph, coverage: dict[str, list[str]], targets: list[Target]) -> None:
    eligible = {t.qualname for t in targets}
    store.save_functions([
        (s.qualname, s.file, s.start_line, s.end_line, len(coverage.get(s.qualname, [])), s.qualname in eligible,
         graph.metrics[s.qualname].as_dict() if s.qualname in graph.metrics else {})
        for s in graph.functions()
    ])


def _reason_kind(reason: str) -> str:
    """Group rejection reasons for the summary ("only 3 previously passing..." -> "only N ...")."""
    import re

    return re.sub(r"\d+", "N", reason.split(":")[0])[:60] or "unknown"
