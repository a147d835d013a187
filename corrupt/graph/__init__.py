"""What the code is: symbol index, call graph and per-function metrics."""

from corrupt.graph.build import build_code_graph
from corrupt.graph.discover import DEFAULT_EXCLUDES
from corrupt.graph.models import CodeGraph, FunctionMetrics, SkippedFile, Symbol

__all__ = [
    "DEFAULT_EXCLUDES",
    "CodeGraph",
    "FunctionMetrics",
    "SkippedFile",
    "Symbol",
    "build_code_graph",
]
