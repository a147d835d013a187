"""A :class:`CodeGraph` for tools: the top functions by a metric, JSON and CSV.

Kept apart from the analysis (as radon separates its visitors from its
reporters); the rich table people see is drawn by the CLI (``cli/tables.py``).
"""

from __future__ import annotations

import csv
import json
from dataclasses import fields
from pathlib import Path

from corrupt.graph.models import CodeGraph, FunctionMetrics, Symbol

METRICS: tuple[str, ...] = tuple(f.name for f in fields(FunctionMetrics))


def top_functions(graph: CodeGraph, sort: str, top: int) -> list[tuple[Symbol, FunctionMetrics]]:
    """The ``top`` functions by ``sort`` (descending; ties by name)."""
    rows = [
        (s, graph.metrics[s.qualname]) for s in graph.functions() if s.qualname in graph.metrics
    ]
    rows.sort(key=lambda row: (-getattr(row[1], sort), row[0].qualname))
    return rows[:top]


def adjacency_json(graph: CodeGraph) -> str:
    """The adjacency map ``{caller: [callee, ...]}``, every node a key."""
    return json.dumps(graph.adjacency(), indent=2) + "\n"


def write_json(graph: CodeGraph, path: Path) -> None:
    path.write_text(adjacency_json(graph), encoding="utf-8")


def write_csv(graph: CodeGraph, path: Path) -> None:
    """One row per function with its location and every metric."""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["qualname", "kind", "file", "start_line", "end_line", *METRICS])
        for symbol in graph.functions():
            metrics = graph.metrics.get(symbol.qualname, FunctionMetrics())
            writer.writerow(
                [
                    symbol.qualname,
                    symbol.kind,
                    symbol.file,
                    symbol.start_line,
                    symbol.end_line,
                    *(getattr(metrics, name) for name in METRICS),
                ]
            )
