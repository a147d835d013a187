"""Cause and effect per bug (DSDBench), from the real calls of the tests it breaks.

The static call graph cannot say how far a failure surfaces from its cause when
the bad value leaves the library and is checked by the test's own assertion: no
frame of the traceback is a caller of the target. So each bug of a verified task
gets one more run: its failing tests, with the bug alone in the tree (the other
bugs' ground-truth fixes applied, as scoring splits them), traced (see
:class:`corrupt.repos.models.Trace`). The effect is the first of those tests
that fails, by id; its hop distance the call steps between the corrupted
function and the frame where its error surfaces.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from corrupt.corruptors.models import Bug
from corrupt.errors import InputError
from corrupt.repos.models import TestReport, TraceTarget
from corrupt.source.edits import apply_edit_script
from corrupt.source.functions import extent, functions_in, matches, parsed
from corrupt.tasks.models import BugRecord, EffectRecord, Task

# Tests traced per run: tracing follows every call, so a few, not a suite; a bug none of
# whose first tests fails alone (they fail with another bug of the task) gets more runs.
MAX_TRACED_TESTS = 30
MAX_TRACED_RUNS = 3

NOT_CALLED = (
    "the failing test does not call the function while it runs "
    "(it ran at import or collection, or in another process)"
)

TracedRun = Callable[[dict[str, str], Sequence[str], Sequence[TraceTarget]], TestReport]


@dataclass(frozen=True)
class HopBand:
    """``--min-hops``/``--max-hops``: tasks whose ``difficulty.hops`` (the farthest any of
    their bugs' failures surfaces from its cause) lies within, ends included. With
    either end set, a task whose distance is unknown is outside."""

    low: int | None = None
    high: int | None = None

    @property
    def limited(self) -> bool:
        return self.low is not None or self.high is not None

    def checked(self) -> HopBand:
        if any(end is not None and end < 0 for end in (self.low, self.high)):
            raise InputError("--min-hops and --max-hops count call steps: 0 or more")
        if self.low is not None and self.high is not None and self.low > self.high:
            raise InputError(f"--min-hops {self.low} is above --max-hops {self.high}")
        return self

    def contains(self, hops: int | None) -> bool:
        if not self.limited:
            return True
        return (
            hops is not None
            and (self.low is None or hops >= self.low)
            and (self.high is None or hops <= self.high)
        )

    def describe(self) -> str:
        if self.high is None:
            return f"at least {self.low}"
        if self.low is None:
            return f"at most {self.high}"
        return f"{self.low} to {self.high}"


def trace_effects(
    task: Task,
    corrupted: dict[str, str],
    run: TracedRun,
    covering: Mapping[str, Sequence[str]] | None = None,
    traced: TestReport | None = None,
) -> None:
    """Fill in each bug's effect (and the task's ``difficulty.hops``) from traced runs of
    its failing tests; ``run(files, tests, targets)`` runs ``tests`` with ``files`` written.

    ``traced`` is a run of a single-bug task's failing tests already traced for its
    function (verification's rerun): read first, so the task needs no run of its own.

    ``covering`` (target qualname -> the tests that ran it at baseline) narrows a bug's
    tests to those that can fail because of it: a test that never runs a function
    cannot fail for a bug in it alone, and the first tests by id may all belong to
    another bug of the task."""
    failing = sorted(task.tests.fail_to_pass)
    alone = bugs_alone(task, corrupted)
    for bug, files in zip(task.bugs, alone, strict=True):
        target = target_span(bug, files.get(bug.file, corrupted.get(bug.file, "")))
        if target is None:
            bug.effect.hop_reason = f"{bug.target} is not found in {bug.file}"
            continue
        runs_it = set((covering or {}).get(bug.target, ()))
        candidates = [t for t in failing if t in runs_it] or failing
        if traced is not None and len(task.bugs) == 1:
            bug.effect = effect_from(traced, candidates, bug.effect)
            if bug.effect.test is not None:
                continue
        for start in range(
            0, min(len(candidates), MAX_TRACED_RUNS * MAX_TRACED_TESTS), MAX_TRACED_TESTS
        ):
            tests = candidates[start : start + MAX_TRACED_TESTS]
            bug.effect = effect_from(run(files, tests, [target]), tests, bug.effect)
            if bug.effect.test is not None:  # one of them failed with the bug alone
                break
    known = [b.effect.hop_distance for b in task.bugs if b.effect.hop_distance is not None]
    task.difficulty.hops = max(known) if known else None


def bugs_alone(task: Task, corrupted: dict[str, str]) -> list[dict[str, str]]:
    """Per bug, the corrupted files with every other bug's ground-truth fix applied."""
    if len(task.bugs) == 1:
        return [corrupted]
    per_bug = task.edits_by_bug()
    alone = []
    for keep in range(len(task.bugs)):
        scripts: dict[str, dict[str, dict[str, str]]] = {}
        for other, edits in enumerate(per_bug):
            if other != keep:
                for file, script in edits.items():
                    scripts.setdefault(file, {}).update(script)
        alone.append(
            {
                file: apply_edit_script(text, scripts[file]) if file in scripts else text
                for file, text in corrupted.items()
            }
        )
    return alone


def target_span(bug: BugRecord | Bug, source: str) -> TraceTarget | None:
    """The bug's function as it lies in ``source`` (decorators included): of the defs
    its qualname names, the one holding the most of its lines."""
    try:
        found = [
            extent(node) for path, node in functions_in(parsed(source)) if matches(bug.target, path)
        ]
    except (SyntaxError, ValueError):
        return None
    if not found:
        return None
    first, last = max(found, key=lambda span: sum(span[0] <= n <= span[1] for n in bug.lines))
    return TraceTarget(bug.file, first, last)


def effect_from(report: TestReport, tests: Sequence[str], before: EffectRecord) -> EffectRecord:
    """The effect of the first traced test that failed (``before`` keeps the static figures)."""
    failed = [
        report.results[n]
        for n in tests
        if n in report.results and report.results[n].outcome in ("failed", "error")
    ]
    if not failed:
        reason = "no traced test fails with this bug alone"
        return before.model_copy(update={"hop_distance": None, "hop_reason": reason})
    first = failed[0]
    trace = first.trace
    update: dict[str, object] = {
        "test": first.nodeid,
        "exception": first.exc_type,
        "message": (first.message or "").strip()[:500] or None,
    }
    if trace is None:
        update["hop_reason"] = "the failing test left no trace"
        return before.model_copy(update=update)
    if trace.effect is not None:
        update.update(
            file=trace.effect.file, line=trace.effect.line, function=trace.effect.function
        )
    hops = trace.hops[0] if trace.hops else None
    reason = trace.reason or NOT_CALLED
    update.update(hop_distance=hops, hop_reason=None if hops is not None else reason)
    return before.model_copy(update=update)
