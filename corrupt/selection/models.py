"""Records of the selection stage: eligible targets, slices and groups."""

from __future__ import annotations

from dataclasses import dataclass, field


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


@dataclass(frozen=True)
class SliceSpec:
    name: str  # "easy", "medium", "hard", "custom", "all"
    centrality: tuple[float, float] = (0.0, 100.0)
    complexity: tuple[float, float] = (0.0, 100.0)


@dataclass
class Group:
    """Functions to corrupt together: pairwise within ``max_distance`` call-graph steps."""

    targets: list[Target]
    max_pairwise_distance: int
