"""Screening a candidate corruption and judging how subtle its failures are.

Shared by adversarial search and the LLM corruptor so both rank candidates the
same way. A candidate is *subtle* when it fails few of the tests that exercise
its target (the bug hides in a corner), fails them with wrong answers rather
than crashes (a crash names the broken line), and fails them far from the
target (the traceback does not point at it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import networkx as nx

from corrupt.corrupt.models import Effect, Screener
from corrupt.errors import CorruptError
from corrupt.graph.models import CodeGraph
from corrupt.repos.models import Frame, TestReport, TestResult

# Exception types that mean "a test's expectation was not met" rather than "the code crashed".
ASSERTION_TYPES = frozenset({"AssertionError", "Failed", "DID NOT RAISE"})

# How a traceback maps to call-graph steps from the target: a callback over a
# failure's frames, or a map from a frame's function name to its hop distance.
DistanceTo = Callable[[Sequence[Frame]], "int | None"] | Mapping[str, int]

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
    ran: int  # how many tests were selected
    exact: bool  # False when the failure budget cut the run short
    timed_out: bool = False
    report: TestReport | None = None
    error: str = ""  # the screener could not run the candidate


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
) -> Screening:
    """Run ``tests`` (None: all) with ``files`` patched; count previously passing tests that fail."""
    selected = list(tests) if tests is not None else None
    try:
        report = screener(files, selected, budget)
    except CorruptError as exc:
        return Screening([], len(selected or ()), False, error=exc.message)
    failing = sorted(report.failing() & baseline_passing)
    exact = not report.stopped_early and not report.timed_out
    ran = len(selected) if selected is not None else report.collected
    return Screening(failing, ran, exact, report.timed_out, report)


def is_crash(result: TestResult) -> bool:
    name = (result.exc_type or "").rsplit(".", 1)[-1]
    return bool(name) and name not in ASSERTION_TYPES


def hop_distance(
    frames: Sequence[Frame], file: str, span: tuple[int, int], distance_to: DistanceTo | None
) -> int | None:
    """0 when a frame lies in the target; else what ``distance_to`` says; None if unknown."""
    if any(f.file == file and span[0] <= f.line <= span[1] for f in frames):
        return 0
    if distance_to is None:
        return None
    if callable(distance_to):
        return distance_to(frames)
    known = [distance_to[f.function] for f in frames if f.function in distance_to]
    return min(known) if known else None


def subtlety(
    result: Screening, file: str, span: tuple[int, int], size: int, distance_to: DistanceTo | None
) -> Subtlety:
    report = result.report
    failures = [report.results[n] for n in result.failing] if report else []
    hops = [hop_distance(r.frames, file, span, distance_to) for r in failures]
    # An unknown distance means the target is not in the traceback: count it as one hop.
    locality = [1.0 / (1 + (1 if h is None else h)) for h in hops]
    return Subtlety(
        failing_share=len(result.failing) / max(result.ran, 1),
        crash_share=sum(map(is_crash, failures)) / max(len(failures), 1),
        locality=sum(locality) / max(len(locality), 1),
        size=size,
        hops=hops,
    )


def effect_of(result: Screening, file: str, span: tuple[int, int], distance_to) -> Effect:
    """The first failure (by test id) as the bug's recorded effect."""
    if not result.report or not result.failing:
        return Effect()
    first = result.report.results[result.failing[0]]
    return Effect(
        exception=first.exc_type,
        message=first.message,
        manifest_frames=[f"{f.file}:{f.line}:{f.function}" for f in first.frames],
        hop_distance=hop_distance(first.frames, file, span, distance_to),
    )


def graph_distance(graph: CodeGraph, target: str) -> Callable[[Sequence[Frame]], int | None]:
    """A ``distance_to`` callback from a code graph: frames → fewest call steps to ``target``.

    A frame is mapped to the innermost function whose span contains it; the
    distance is the shortest caller→callee path from that function to the
    target, falling back to the undirected distance when the target is not
    reachable downwards (the failure surfaced in a caller's caller's sibling).
    """
    digraph = nx.DiGraph(graph.edges)
    digraph.add_node(target)
    undirected = digraph.to_undirected(as_view=True)
    functions = [s for s in graph.symbols.values() if s.is_function]

    def owner(frame: Frame) -> str | None:
        inside = [
            s
            for s in functions
            if s.file == frame.file and s.start_line <= frame.line <= s.end_line
        ]
        return max(inside, key=lambda s: s.start_line).qualname if inside else None

    def distance(frames: Sequence[Frame]) -> int | None:
        best: int | None = None
        for name in {owner(f) for f in frames} - {None}:
            for g in (digraph, undirected):
                if name in g and nx.has_path(g, name, target):
                    d = nx.shortest_path_length(g, name, target)
                    best = d if best is None else min(best, d)
                    break
        return best

    return distance
