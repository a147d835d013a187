"""Spectrum-based fault localisation: Ochiai over which tests run each line.

A line run by many failing tests and few passing ones is suspicious:
``ochiai = failed(line) / sqrt(total_failed * (failed(line) + passed(line)))``
(Abreu et al., 2007). Only product lines are ranked: a test file is the
specification the repair must satisfy, not a place to repair.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Set
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class RankedLine:
    """A line and its suspiciousness; sorted most suspicious first, then by place."""

    sort_key: tuple[float, str, int]
    file: str
    line: int
    score: float


def ochiai(
    coverage: Mapping[str, Mapping[int, Set[str] | list[str]]],
    failing: Set[str],
    passing: Set[str],
    *,
    is_product: Callable[[str], bool],
) -> list[RankedLine]:
    """Lines run by at least one failing test, most suspicious first."""
    if not failing:
        return []
    ranked = []
    for file, lines in coverage.items():
        if not is_product(file):
            continue
        for line, tests in lines.items():
            ran = set(tests)
            failed = len(ran & failing)
            if not failed:
                continue
            score = failed / math.sqrt(len(failing) * (failed + len(ran & passing)))
            ranked.append(RankedLine((-score, file, line), file, line, round(score, 4)))
    return sorted(ranked)
