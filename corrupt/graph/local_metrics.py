"""Metrics of one function that need only its own syntax tree.

radon's visitors accept an already-parsed ``ast`` node, so the tree parsed
once for indexing is reused here instead of letting radon parse the file again.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from radon.metrics import h_visit_ast
from radon.visitors import ComplexityVisitor


@dataclass(frozen=True)
class LocalMetrics:
    cyclomatic: int
    halstead_volume: float
    halstead_difficulty: float
    code_lines: int
    nesting_depth: int


def cyclomatic(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """radon's cyclomatic complexity of the function (closures not included, as in radon)."""
    complexity: int = ComplexityVisitor.from_ast(node).functions[0].complexity
    return complexity


def halstead(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[float, float]:
    """radon's Halstead (volume, difficulty) of the function's body."""
    report = h_visit_ast(node).functions[0][1]
    return float(report.volume), float(report.difficulty)


def code_lines(lines: list[str], start: int, end: int, docstring: tuple[int, int] | None) -> int:
    """Lines in ``start..end`` that are neither blank, comment-only, nor docstring."""
    count = 0
    for number in range(start, end + 1):
        if docstring and docstring[0] <= number <= docstring[1]:
            continue
        text = lines[number - 1].strip() if number <= len(lines) else ""
        if text and not text.startswith("#"):
            count += 1
    return count


def measure(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    lines: list[str],
    docstring: tuple[int, int] | None,
    nesting_depth: int,
) -> LocalMetrics:
    """The local metrics; ``nesting_depth`` is counted by the extractor's own walk
    (deepest compound statement, ``elif`` as deep as its ``if``, nested
    functions measured on their own), which saves a pass over the tree."""
    volume, difficulty = halstead(node)
    start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    return LocalMetrics(
        cyclomatic=cyclomatic(node),
        halstead_volume=volume,
        halstead_difficulty=difficulty,
        code_lines=code_lines(lines, start, node.end_lineno or node.lineno, docstring),
        nesting_depth=nesting_depth,
    )
