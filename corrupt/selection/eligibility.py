"""Which functions are worth corrupting, and how hard each one is relative to its repository.

A target must be real product code (not tests), big enough to hide a bug
(``min_lines`` code lines) and watched by enough tests (``min_covering``) that a
corruption is caught by the suite rather than slipping through.  Trivial
accessors are dropped even when they pass both bars: deleting ``return self._x``
makes a task whose answer is obvious from the attribute name.

Difficulty is a percentile rank *among the eligible functions of one
repository*, so "hard" means the same thing in a 200-function library and a
20,000-function framework.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath

from corrupt.errors import InputError
from corrupt.graph.models import CodeGraph, FunctionMetrics, Symbol
from corrupt.selection.models import ComplexityMetric, Target
from corrupt.source.functions import AstFunction, functions_in

TEST_DIRS = frozenset({"test", "tests", "testing"})
# Methods whose bodies are conventionally one-line formatting glue.
TRIVIAL_DUNDERS = frozenset({"__repr__", "__str__", "__format__", "__hash__", "__sizeof__"})


def is_test_file(path: str) -> bool:
    """Test modules by pytest's own conventions, plus anything under a tests folder."""
    parts = PurePosixPath(path).parts
    name = parts[-1] if parts else ""
    return (
        any(p in TEST_DIRS for p in parts[:-1])
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
    )


def _is_trivial_statement(stmt: ast.stmt) -> bool:
    simple_values = (ast.Name, ast.Attribute, ast.Constant)
    if isinstance(stmt, ast.Return):
        return stmt.value is None or isinstance(stmt.value, simple_values)
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return True  # `...`
    if isinstance(stmt, ast.Raise):
        exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):  # setter: self.x = value
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return (
            len(targets) == 1
            and isinstance(targets[0], ast.Attribute)
            and isinstance(stmt.value, simple_values)
        )
    return False


def is_trivial_body(fn: AstFunction) -> bool:
    """A getter, setter, stub or abstract method: one statement that does no work."""
    body = list(fn.body)
    first = body[0] if body else None
    is_docstring = (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )
    if is_docstring and len(body) > 1:
        body = body[1:]
    return len(body) == 1 and _is_trivial_statement(body[0])


class _SourceIndex:
    """Function nodes of repository files by ``def`` line, parsed once per file."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._by_file: dict[str, dict[int, AstFunction]] = {}

    def function_at(self, file: str, def_line: int) -> AstFunction | None:
        if file not in self._by_file:
            nodes: dict[int, AstFunction] = {}
            try:
                text = (self.root / file).read_text(encoding="utf-8")
                nodes = {node.lineno: node for _, node in functions_in(ast.parse(text))}
            except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
                pass  # the graph stage already recorded why; eligibility stays name-based
            self._by_file[file] = nodes
        return self._by_file[file].get(def_line)


def is_trivial(symbol: Symbol, source: _SourceIndex | None) -> bool:
    if symbol.qualname.rsplit(".", 1)[-1] in TRIVIAL_DUNDERS:
        return True
    if source is None:
        return False
    node = source.function_at(symbol.file, symbol.start_line)
    return node is not None and is_trivial_body(node)


def percentile_ranks(values: Sequence[float]) -> list[float]:
    """Percentile rank of each value among ``values`` (0..100, ties share the mean rank).

    ``100 * (below + equal / 2) / n``: with ten distinct values the largest
    gets 95 and the next 85, so ">= 90" is exactly the top decile; a repository
    where every function ties puts them all at 50, never in an extreme band.
    """
    ordered = sorted(values)
    n = len(ordered)
    ranks = []
    for v in values:
        below = bisect.bisect_left(ordered, v)
        equal = bisect.bisect_right(ordered, v) - below
        ranks.append(100.0 * (below + equal / 2) / n)
    return ranks


def complexity_of(metrics: FunctionMetrics, metric: str) -> float:
    return float(getattr(metrics, metric))


def eligible_targets(
    graph: CodeGraph,
    coverage: Mapping[str, Sequence[str]],
    *,
    min_lines: int = 5,
    min_covering: int = 5,
    complexity_metric: str = "code_lines",
    root: Path | None = None,
) -> list[Target]:
    """Functions fit for corruption, each with its centrality and complexity percentile.

    ``coverage`` maps a qualname to the test node ids that run its body.
    ``root`` (the repository checkout) lets trivial accessors be recognised
    from their source; without it only dunder trivia are dropped by name.
    Returned in file and line order.
    """
    if complexity_metric not in set(ComplexityMetric):
        raise InputError(
            f"unknown complexity metric {complexity_metric!r}; "
            f"choose one of {', '.join(ComplexityMetric)}"
        )
    source = _SourceIndex(root) if root is not None else None
    chosen: list[tuple[Symbol, FunctionMetrics, list[str]]] = []
    for symbol in graph.symbols.values():
        metrics = graph.metrics.get(symbol.qualname)
        if not symbol.is_function or metrics is None or is_test_file(symbol.file):
            continue
        tests = sorted(set(coverage.get(symbol.qualname, ())))
        if metrics.code_lines < min_lines or len(tests) < min_covering:
            continue
        if is_trivial(symbol, source):
            continue
        chosen.append((symbol, metrics, tests))
    chosen.sort(key=lambda item: (item[0].file, item[0].start_line, item[0].qualname))
    centrality = percentile_ranks([m.harmonic for _, m, _ in chosen])
    complexity = percentile_ranks([complexity_of(m, complexity_metric) for _, m, _ in chosen])
    return [
        Target(
            qualname=symbol.qualname,
            file=symbol.file,
            start_line=symbol.start_line,
            end_line=symbol.end_line,
            metrics=metrics.as_dict(),
            centrality_pct=c_pct,
            complexity_pct=x_pct,
            covering_tests=tests,
        )
        for (symbol, metrics, tests), c_pct, x_pct in zip(
            chosen, centrality, complexity, strict=True
        )
    ]
