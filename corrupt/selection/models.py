"""Records of the selection stage: eligible targets, slices and groups."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class ComplexityMetric(StrEnum):
    """The complexity axis of difficulty (a field of the graph's function metrics)."""

    CODE_LINES = "code_lines"
    CYCLOMATIC = "cyclomatic"
    HALSTEAD_VOLUME = "halstead_volume"


class SliceName(StrEnum):
    """Named difficulty bands (``--slice``); ``all`` is every eligible function."""

    ALL = "all"
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


@dataclass
class Target:
    qualname: str
    file: str
    start_line: int
    end_line: int
    metrics: dict[str, float]
    centrality_pct: float  # 0..100 percentile rank within the repository
    complexity_pct: float
    covering_tests: list[str] = field(default_factory=list)


WHOLE: tuple[float, float] = (0.0, 100.0)


def _in_band(value: float, band: tuple[float, float]) -> bool:
    """Half-open ``[lo, hi)``, except that a band reaching 100 includes 100."""
    lo, hi = band
    return lo <= value < hi or (hi >= 100.0 and value == hi)


@dataclass(frozen=True)
class SliceSpec:
    """A band on each percentile axis, and one on the lower of the two.

    The named slices are bands of the lower percentile alone (a task is as hard as its
    easier axis), which makes them a partition; ``centrality``/``complexity`` are then
    their bounding box, what sampling spreads over.
    """

    name: str  # "easy", "medium", "hard", "custom", "all"
    centrality: tuple[float, float] = WHOLE
    complexity: tuple[float, float] = WHOLE
    lower: tuple[float, float] = WHOLE

    def contains(self, centrality_pct: float, complexity_pct: float) -> bool:
        """Whether a function (or task) with these percentile ranks lies in the slice."""
        return (
            _in_band(centrality_pct, self.centrality)
            and _in_band(complexity_pct, self.complexity)
            and _in_band(min(centrality_pct, complexity_pct), self.lower)
        )

    def describe(self) -> str:
        if self.lower != WHOLE:
            lo, hi = self.lower
            return f"{self.name} (the lower of the two percentiles {lo:g}-{hi:g})"
        c, x = self.centrality, self.complexity
        return f"{self.name} (centrality {c[0]:g}-{c[1]:g}, complexity {x[0]:g}-{x[1]:g})"


@dataclass
class Group:
    """Functions to corrupt together: pairwise within ``max_distance`` call-graph steps."""

    targets: list[Target]
    max_pairwise_distance: int
