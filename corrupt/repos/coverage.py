"""From line coverage to function coverage: which tests execute each function.

Screening a candidate corruption only needs the tests that can see it, so the
baseline's line-level coverage (file -> line -> nodeids) is folded onto
function body spans from the code graph.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable

from corrupt.repos.models import Baseline

Span = tuple[str, str, int, int]  # qualname, file, first body line, end line (inclusive)


def coverage_map(baseline: Baseline, spans: Iterable[Span]) -> dict[str, list[str]]:
    """qualname -> sorted nodeids of baseline tests that run any line of its body.

    Every span gets an entry; a function no test reaches maps to ``[]``.
    """
    by_file = {file: sorted(lines) for file, lines in baseline.line_coverage.items()}
    result: dict[str, list[str]] = {}
    for qualname, file, first, last in spans:
        lines = by_file.get(file, [])
        covering: set[str] = set()
        for line in lines[bisect_left(lines, first) : bisect_right(lines, last)]:
            covering.update(baseline.line_coverage[file][line])
        result[qualname] = sorted(covering)
    return result
