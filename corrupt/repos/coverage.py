"""From line coverage to function coverage: which tests execute each function.

Screening a candidate corruption only needs the tests that can see it, so the
baseline's line-level coverage (file -> line -> nodeids) is folded onto
function body spans from the code graph.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from corrupt.repos.models import Baseline

LineCoverage = dict[str, dict[int, list[str]]]  # file -> line -> nodeids that ran it
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


@dataclass(frozen=True)
class LineTests:
    """The baseline's line coverage over one function: what screening a change
    to one of its statements needs to know (:mod:`corrupt.corruptors.reach`)."""

    tests: Mapping[int, tuple[str, ...]]  # line -> the tests that ran it
    outside: frozenset[int] = frozenset()  # lines that also ran outside any test

    @classmethod
    def of(cls, baseline: Baseline, file: str, first: int, last: int) -> LineTests:
        by_line = baseline.line_coverage.get(file, {})
        tests = {n: tuple(by_line[n]) for n in range(first, last + 1) if n in by_line}
        outside = {n for n in baseline.outside_tests.get(file, ()) if first <= n <= last}
        return cls(tests, frozenset(outside))


def pack_line_coverage(coverage: LineCoverage) -> dict[str, Any]:
    """The JSON form of line coverage: each nodeid once, lines holding indices into them.
    A 60,000-test suite would otherwise repeat its nodeids millions of times (500 MB)."""
    index: dict[str, int] = {}
    lines = {
        file: {
            str(line): [index.setdefault(nodeid, len(index)) for nodeid in nodeids]
            for line, nodeids in by_line.items()
        }
        for file, by_line in coverage.items()
    }
    return {"tests": list(index), "lines": lines}


def unpack_line_coverage(raw: Any) -> LineCoverage:
    """Line coverage from :func:`pack_line_coverage`'s form (the plugin writes it too);
    anything else, e.g. a file the code under test overwrote, reads as no coverage."""
    try:
        tests: list[str] = raw["tests"]
        return {
            file: {int(line): [tests[i] for i in ids] for line, ids in by_line.items()}
            for file, by_line in raw["lines"].items()
        }
    except (TypeError, KeyError, IndexError, ValueError, AttributeError):
        return {}
