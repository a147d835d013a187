"""Rendering a :class:`CodeGraph` for people and tools: a rich table, JSON, CSV.

Kept apart from the analysis (as radon separates its visitors from its
reporters) so the graph stage stays free of presentation concerns.
"""

from __future__ import annotations

import csv
import json
from dataclasses import fields
from pathlib import Path

from rich.table import Table

from corrupt.graph.models import CodeGraph, FunctionMetrics, Symbol

METRICS: tuple[str, ...] = tuple(f.name for f in fields(FunctionMetrics))
# The table shows a readable subset; --csv carries every metric.
_TABLE_COLUMNS = {
    "harmonic": "reach", "pagerank": "pagerank", "betweenness": "between",
    "in_degree": "in", "out_degree": "out", "cyclomatic": "cc",
    "halstead_volume": "volume", "code_lines": "lines",
}


def top_functions(graph: CodeGraph, sort: str, top: int) -> list[tuple[Symbol, FunctionMetrics]]:
    """The ``top`` functions by ``sort`` (descending; ties by name)."""
    rows = [(s, graph.metrics[s.qualname]) for s in graph.functions() if s.qualname in graph.metrics]
    rows.sort(key=lambda row: (-getattr(row[1], sort), row[0].qualname))
    return rows[:top]


def _cell(value: float | int) -> str:
    return str(value) if isinstance(value, int) else f"{value:.3g}"


def metrics_table(graph: CodeGraph, sort: str, top: int) -> Table:
    table = Table(
        title=f"top {top} functions by {sort} "
        f"({len(graph.metrics)} functions, {len(graph.edges)} call edges, "
        f"{graph.lines_of_code} lines)",
        title_justify="left",
    )
    columns = dict(_TABLE_COLUMNS)
    columns.setdefault(sort, sort.replace("_", " "))
    table.add_column("function", overflow="fold", min_width=24, ratio=1)
    for name, label in columns.items():
        table.add_column(label, justify="right", style="bold" if name == sort else None, no_wrap=True)
    for symbol, metrics in top_functions(graph, sort, top):
        table.add_row(symbol.qualname, *(_cell(getattr(metrics, name)) for name in columns))
    return table


def write_json(graph: CodeGraph, path: Path) -> None:
    """The adjacency map ``{caller: [callee, ...]}``, every node a key."""
    path.write_text(json.dumps(graph.adjacency(), indent=2) + "\n", encoding="utf-8")


def write_csv(graph: CodeGraph, path: Path) -> None:
    """One row per function with its location and every metric."""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["qualname", "kind", "file", "start_line", "end_line", *METRICS])
        for symbol in graph.functions():
            metrics = graph.metrics.get(symbol.qualname, FunctionMetrics())
            writer.writerow(
                [symbol.qualname, symbol.kind, symbol.file, symbol.start_line, symbol.end_line,
                 *(getattr(metrics, name) for name in METRICS)]
            )
