"""The graph command's table: the top functions by one metric."""

from __future__ import annotations

from rich.table import Table

from corrupt.graph.models import CodeGraph
from corrupt.graph.report import top_functions

# The table shows a readable subset; --csv carries every metric.
_TABLE_COLUMNS = {
    "harmonic": "reach",
    "pagerank": "pagerank",
    "betweenness": "between",
    "in_degree": "in",
    "out_degree": "out",
    "cyclomatic": "cc",
    "halstead_volume": "volume",
    "code_lines": "lines",
}


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
        table.add_column(
            label, justify="right", style="bold" if name == sort else None, no_wrap=True
        )
    for symbol, metrics in top_functions(graph, sort, top):
        table.add_row(symbol.qualname, *(_cell(getattr(metrics, name)) for name in columns))
    return table
