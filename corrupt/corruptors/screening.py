"""Screening a candidate corruption and judging how subtle its failures are.

Shared by adversarial search and the LLM corruptor so both rank candidates the
same way. A candidate is *subtle* when it fails few of the tests that exercise
its target (the bug hides in a corner), fails them with wrong answers rather
than crashes (a crash names the broken line), and fails them far from the
target (the traceback does not point at it).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from corrupt.corruptors.models import DistanceTo, Effect, Screener
from corrupt.errors import CorruptError
from corrupt.repos.models import Frame, TestReport, TestResult, harness_readable
from corrupt.source.edits import common_ends, split_lines
from corrupt.source.functions import extent, functions_in, matches, parsed

# Exception types that mean "a test's expectation was not met" rather than "the code crashed".
ASSERTION_TYPES = frozenset({"AssertionError", "Failed"})  # Failed: pytest.raises, pytest.fail

# Weights of the subtlety score (lower is subtler). The failing share dominates
# (it ranges 0..1); a crash costs half of that range, a target visible in every
# traceback a quarter, each changed line a little, so a smaller edit only breaks ties.
CRASH_WEIGHT = 0.5
LOCALITY_WEIGHT = 0.25
SIZE_WEIGHT = 0.02


@dataclass
class Screening:
    """One candidate's run on the covering tests."""

    failing: list[str]  # previously passing tests that now fail, sorted
    ran: int  # how many covering tests it was screened on (run, or known to pass)
    exact: bool  # False when the failure budget cut the run short
    timed_out: bool = False
    report: TestReport | None = None
    error: str = ""  # the screener could not run the candidate

    @property
    def counted(self) -> int:
        """The failing tests that count toward ``min_failing``: those a harness can name
        (verification counts no other, so a candidate short of them is not screened on)."""
        return sum(harness_readable(t) for t in self.failing)


@dataclass
class Subtlety:
    failing_share: float
    crash_share: float
    locality: float  # 1 when every failure's traceback runs through the target
    size: int
    hops: list[int | None] = field(default_factory=list)

    @property
    def score(self) -> float:
        return round(
            self.failing_share
            + CRASH_WEIGHT * self.crash_share
            + LOCALITY_WEIGHT * self.locality
            + SIZE_WEIGHT * min(self.size, 10),
            6,
        )


def screen(
    screener: Screener,
    files: dict[str, str],
    tests: Sequence[str] | None,
    baseline_passing: set[str],
    budget: int | None,
    *,
    covering: int | None = None,
) -> Screening:
    """Run ``tests`` (None: all) with ``files`` patched; count previously passing tests that fail.

    ``covering``: how many covering tests ``tests`` stands for, when only those
    that can see the change run (:mod:`corrupt.corruptors.reach`); the rest pass.
    """
    selected = list(tests) if tests is not None else None
    try:  # the budget counts failures harnesses can name (run_tests' max_failures)
        report = screener(files, selected, budget)
    except CorruptError as exc:
        return Screening([], _count(covering, len(selected or ())), False, error=exc.message)
    failing = sorted(report.failing() & baseline_passing)
    exact = not report.stopped_early and not report.timed_out
    ran = len(selected) if selected is not None else report.collected
    return Screening(failing, _count(covering, ran), exact, report.timed_out, report)


def resume(
    screener: Screener,
    files: dict[str, str],
    tests: Sequence[str],
    earlier: Screening,
    baseline_passing: set[str],
    budget: int | None,
    *,
    covering: int | None = None,
) -> Screening:
    """``earlier``, a run of ``tests`` that its failure budget cut short, carried on to a
    new ``budget`` (failures of both parts; None: no budget).

    Only the tests it did not reach run, and their results join its own: running
    every test again repeated what was known, and a ranking re-run of a survivor
    is mostly such a carry-on. The tests run where a fresh run would put them,
    in a process of their own, like any screening run of a subset of the
    covering tests (state one test leaves for another is not screening's to see).
    """
    assert earlier.report is not None
    done = earlier.report.results
    failed = len(earlier.report.failing())
    rest = [nodeid for nodeid in tests if nodeid not in done]
    left = None if budget is None else max(budget - failed, 1)
    later = screen(screener, files, rest, baseline_passing, left, covering=covering)
    if later.report is None:
        return later
    report = dataclasses.replace(
        later.report,
        results={**done, **later.report.results},
        duration=earlier.report.duration + later.report.duration,
    )
    return dataclasses.replace(
        later, failing=sorted(report.failing() & baseline_passing), report=report
    )


def _count(covering: int | None, ran: int) -> int:
    return ran if covering is None else covering


def is_crash(result: TestResult) -> bool:
    name = (result.exc_type or "").rsplit(".", 1)[-1]
    return bool(name) and name not in ASSERTION_TYPES


class FrameNames:
    """Maps traceback frames (file, line, bare function name) to dotted qualified names.

    Built from the text that ran (the corrupted file), it also knows the
    target's ``span`` there. Frames in the target's own file are resolved
    exactly (a failing method is ``pkg.mod.Class.method``, not
    ``pkg.mod.method``); frames elsewhere get ``<module>.<function>``, the
    module taken from the path with a ``src/`` prefix dropped. Unresolvable
    names simply match nothing in the call graph.
    """

    def __init__(
        self, file: str, source: str, qualname: str, def_line: int, original: str | None = None
    ) -> None:
        """``original``: the file ``source`` corrupts, when only the target's body differs;
        its table of functions (parsed once) is reused for every candidate."""
        self.file = file
        moved = _moved_rows(original, source, def_line, qualname) if original else None
        self.functions = moved if moved is not None else list(_function_rows(source))
        target = next(
            (f for f in self.functions if f[0] == def_line and matches(qualname, f[3])), None
        )
        self.span = (target[2], target[1]) if target else (def_line, def_line)
        name = qualname.split("#", 1)[0]  # the graph's mark for a repeated definition
        self.prefix = name[: -len(target[3]) - 1] if target and name != target[3] else ""

    def __call__(self, frame: Frame) -> str:
        if frame.file == self.file:
            inside = [f for f in self.functions if f[0] <= frame.line <= f[1]]
            if inside:
                path = max(inside)[3]  # the innermost: the latest def line
                return f"{self.prefix}.{path}" if self.prefix else path
        module = frame.file.removesuffix(".py").removesuffix("/__init__")
        module = module.removeprefix("src/").replace("/", ".")
        return f"{module}.{frame.function}"


Row = tuple[int, int, int, str]  # a function's def line, last line, first line, in-file path


@functools.lru_cache(maxsize=8)
def _function_rows(source: str) -> tuple[Row, ...]:
    rows = []
    for path, node in functions_in(parsed(source)):
        first, end = extent(node)
        rows.append((node.lineno, end, first, path))
    return tuple(rows)


def _moved_rows(original: str, source: str, def_line: int, qualname: str) -> list[Row] | None:
    """``original``'s functions as they lie in ``source``, a version that changes the
    body of the one at ``def_line`` alone (those below it move with the lines it adds
    or removes); None when that cannot be told without parsing ``source``: the
    change reaches past the function, or either version defines functions inside it."""
    rows = _function_rows(original)
    target = next((r for r in rows if r[0] == def_line and matches(qualname, r[3])), None)
    if target is None:
        return None
    first, end = target[2], target[1]
    if any(first <= r[2] and r[1] <= end for r in rows if r is not target):
        return None
    old, new = split_lines(original), split_lines(source)
    head, tail = common_ends(old, new)
    delta = len(new) - len(old)
    if head < def_line or tail < len(old) - end:
        return None
    if any(DEF.match(line) for line in new[def_line : end + delta]):
        return None
    return [
        (d + delta, e + delta, f + delta, p) if f > end else (d, e + delta if e >= end else e, f, p)
        for d, e, f, p in rows
    ]


DEF = re.compile(r"\s*(async\s+)?def\b")


def hop_distance(
    frames: Sequence[Frame], names: FrameNames, distance_to: DistanceTo | None
) -> int | None:
    """0 when a frame lies in the target; else what ``distance_to`` says; None if unknown."""
    span = names.span
    if any(f.file == names.file and span[0] <= f.line <= span[1] for f in frames):
        return 0
    if distance_to is None or not frames:
        return None
    qualnames = [names(f) for f in frames]
    if callable(distance_to):
        return distance_to(qualnames)
    known = [distance_to[q] for q in qualnames if q in distance_to]
    return min(known) if known else None


def subtlety(
    result: Screening, size: int, names: FrameNames, distance_to: DistanceTo | None
) -> Subtlety:
    report = result.report
    failures = [report.results[n] for n in result.failing] if report else []
    hops = [hop_distance(r.frames, names, distance_to) for r in failures]
    # An unknown distance means the target is not in the traceback: count it as one hop.
    locality = [1.0 / (1 + (1 if h is None else h)) for h in hops]
    return Subtlety(
        failing_share=len(result.failing) / max(result.ran, 1),
        crash_share=sum(map(is_crash, failures)) / max(len(failures), 1),
        locality=sum(locality) / max(len(locality), 1),
        size=size,
        hops=hops,
    )


def effect_of(result: Screening, names: FrameNames, distance_to: DistanceTo | None) -> Effect:
    """The first failure (by test id) as the bug's recorded effect."""
    if not result.report or not result.failing:
        return Effect()
    first = result.report.results[result.failing[0]]
    return Effect(
        exception=first.exc_type,
        message=first.message,
        manifest_frames=[f"{f.file}:{f.line}:{f.function}" for f in first.frames],
        hop_distance=hop_distance(first.frames, names, distance_to),
    )
