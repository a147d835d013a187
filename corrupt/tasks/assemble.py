"""Turn a verified corruption into the task record users read.

Also writes the problem statement for each mode: remove mode names the
function to re-implement; discovery mode gives only the failing tests and
their error lines (and, for multi-function tasks, how many functions are
broken), never the location.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime

import networkx as nx

from corrupt import __version__
from corrupt.corruptors.models import Corruption, Effect
from corrupt.graph.distance import distances_to
from corrupt.graph.models import Symbol
from corrupt.repos.models import Baseline, Checkout, TestReport
from corrupt.repos.suiteargs import test_command
from corrupt.selection.models import Target
from corrupt.tasks.models import (
    BugRecord,
    Difficulty,
    EffectRecord,
    RepoRef,
    TargetRef,
    Task,
    TestsRecord,
)
from corrupt.tasks.modes import TaskMode
from corrupt.tasks.verify import Repair, Verification

MAX_LISTED_FAILURES = 10


def task_id_for(repo_name: str, commit: str, mode: str, repair: Repair) -> str:
    """A stable content hash: the same corruption of the same commit gets the same id."""
    digest = hashlib.sha256(
        json.dumps([commit, mode, repair.edit_script], sort_keys=True).encode()
    ).hexdigest()[:12]
    # Harnesses name containers, log folders and branches after the id: keep it to
    # the characters those allow (a local folder's name may hold anything).
    return f"{re.sub(r'[^A-Za-z0-9._-]', '_', repo_name.replace('/', '__'))}.{digest}"


def build_task(
    *,
    checkout: Checkout,
    baseline: Baseline,
    corruption: Corruption,
    repair: Repair,
    verification: Verification,
    targets: list[Target],
    mode: TaskMode,
    seed: int,
    symbols: dict[str, Symbol],
    graph: nx.DiGraph,
    image_name: str | None = None,
) -> Task:
    report = verification.report
    assert report is not None
    argv, env = test_command(checkout.path, baseline.subset)
    command = " ".join([*(f"{k}={shlex.quote(v)}" for k, v in sorted(env.items())), *argv])
    bugs = [
        BugRecord(
            target=bug.target,
            file=bug.file,
            lines=bug.lines,
            category=bug.category,
            subcategory=bug.subcategory,
            operator=bug.operator,
            effect=_record(
                effect_of(report, verification.fail_to_pass, bug.target, symbols, graph)
            ),
        )
        for bug in corruption.bugs
    ]
    task = Task(
        task_id=task_id_for(checkout.name, checkout.commit, mode.told, repair),
        repo=RepoRef(
            name=checkout.name,
            url=checkout.url,
            commit=checkout.commit,
            stars=checkout.stars,
            published=checkout.published or "unknown",
        ),
        mode=mode,
        kind=corruption.kind,
        corruptor=corruption.corruptor,
        targets=[
            TargetRef(
                file=t.file,
                qualname=t.qualname,
                start_line=t.start_line,
                end_line=t.end_line,
                metrics=t.metrics,
            )
            for t in targets
        ],
        difficulty=Difficulty(
            centrality_pct=round(sum(t.centrality_pct for t in targets) / len(targets), 2),
            complexity_pct=round(sum(t.complexity_pct for t in targets) / len(targets), 2),
            n_functions=len(targets),
        ),
        corruption_patch=repair.corruption_patch,
        fix_patch=repair.fix_patch,
        edit_script=repair.edit_script,
        bugs=bugs,
        tests=TestsRecord(
            command=command,
            fail_to_pass=verification.fail_to_pass,
            pass_to_pass=verification.pass_to_pass,
            baseline_seconds=round(baseline.seconds, 3),
            subset=baseline.subset,
            unstable=verification.unstable,
        ),
        problem_statement="",
        seed=seed,
        image_name=image_name,
        engine_version=__version__,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    task.problem_statement = problem_statement(task, report)
    return task


def _record(effect: Effect) -> EffectRecord:
    """The static part of a bug's effect; :mod:`corrupt.tasks.effects` traces the rest."""
    return EffectRecord(
        exception=effect.exception,
        message=effect.message,
        manifest_frames=effect.manifest_frames,
        graph_distance=effect.hop_distance,
    )


def problem_statement(task: Task, report: TestReport) -> str:
    command = task.tests.command
    if task.mode == "remove":
        names = "\n".join(f"- `{t.qualname}` in `{t.file}`" for t in task.targets)
        return (
            "The body of the following function has been removed; it now raises NotImplementedError "
            "(or does nothing):\n\n"
            f"{names}\n\n"
            "Re-implement it so that the repository's test suite passes again. Keep its signature and "
            f"docstring. Run the tests with `{command}`."
        )
    lines = []
    for nodeid in task.tests.fail_to_pass[:MAX_LISTED_FAILURES]:
        result = report.results.get(nodeid)
        error = ""
        if result and result.exc_type:
            message = (result.message or "").strip().splitlines()
            error = f": {result.exc_type}" + (f": {message[0][:200]}" if message else "")
        lines.append(f"- `{nodeid}`{error}")
    more = len(task.tests.fail_to_pass) - MAX_LISTED_FAILURES
    if more > 0:
        lines.append(f"- … and {more} more")
    count = len(task.targets)
    scope = (
        "A bug has been introduced into the library code"
        if count == 1
        else f"Bugs have been introduced into {count} different functions of the library code"
    )
    return (
        f"{scope}; the tests themselves are correct. These tests fail:\n\n"
        + "\n".join(lines)
        + f"\n\nFind and fix the cause so that the whole suite passes. Run the tests with `{command}`."
    )


def effect_of(
    report: TestReport,
    fail_to_pass: list[str],
    target: str,
    symbols: dict[str, Symbol],
    graph: nx.DiGraph,
) -> Effect:
    """Where a bug manifests: the commonest error and the frames nearest the failure.

    The hop distance is the fewest caller->callee steps from any function in a
    failing test's traceback to the target (0 when the target itself is in the
    traceback); large distances make the cause hard to find from the symptom.
    """
    results = [report.results[n] for n in fail_to_pass if n in report.results]
    if not results:
        return Effect()
    exceptions = Counter(r.exc_type for r in results if r.exc_type)
    exception = exceptions.most_common(1)[0][0] if exceptions else None
    example = next((r for r in results if r.exc_type == exception), results[0])
    locate = _locator(symbols)
    hops = distances_to(graph, target)
    reached = [
        hops[caller]
        for result in results
        for frame in result.frames
        if (caller := locate(frame.file, frame.line)) in hops
    ]
    best = min(reached, default=None)
    return Effect(
        exception=exception,
        message=(example.message or "").strip()[:500] or None,
        manifest_frames=[f"{f.file}:{f.line}:{f.function}" for f in example.frames[-3:]],
        hop_distance=best,
    )


def _locator(symbols: dict[str, Symbol]) -> Callable[[str, int], str | None]:
    """Map (file, line) to the innermost function containing it."""
    by_file: dict[str, list[Symbol]] = {}
    for sym in symbols.values():
        if sym.is_function:
            by_file.setdefault(sym.file, []).append(sym)

    def locate(file: str, line: int) -> str | None:
        candidates = [
            s
            for s in by_file.get(file, [])
            if (s.decorators[0] if s.decorators else s.start_line) <= line <= s.end_line
        ]
        if not candidates:
            return None
        return max(candidates, key=lambda s: s.start_line).qualname

    return locate
