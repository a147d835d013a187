"""Find a target function in a file, and check that a rewrite stayed inside it.

Targets are named by qualname plus ``def`` line (the graph stage's ``start_line``),
because a qualname alone is ambiguous (property setters, conditional defs).
libcst gives the node to rewrite; stdlib ``ast`` (ten times faster) checks the
result, which is what every mutant goes through.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import libcst as cst

from corrupt.corrupt.edits import split_lines
from corrupt.errors import CorruptError

AstFunction = ast.FunctionDef | ast.AsyncFunctionDef


class TargetNotFound(CorruptError):
    """The file does not parse, or has no function of that name on that line."""

    exit_code = 27


@dataclass(frozen=True)
class Span:
    """1-based inclusive lines of a function; ``start`` is its first decorator."""

    start: int
    def_line: int
    end: int


@dataclass(frozen=True)
class Located:
    module: cst.Module
    function: cst.FunctionDef
    span: Span


def _defs_in_order(tree: ast.AST) -> list[tuple[str, ast.AST]]:
    """Every class and function with its in-file dotted path, in source order."""
    found: list[tuple[str, ast.AST]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                path = f"{prefix}.{child.name}" if prefix else child.name
                found.append((path, child))
                walk(child, path)
            else:
                walk(child, prefix)

    walk(tree, "")
    return sorted(found, key=lambda item: (item[1].lineno, item[1].col_offset))


class _CstDefs(cst.CSTVisitor):
    """The same list as :func:`_defs_in_order`, for libcst nodes (also source order)."""

    def __init__(self) -> None:
        self.found: list[tuple[str, cst.CSTNode]] = []
        self.stack: list[str] = []

    def _enter(self, node: cst.FunctionDef | cst.ClassDef) -> None:
        self.stack.append(node.name.value)
        self.found.append((".".join(self.stack), node))

    def _leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()

    visit_FunctionDef = _enter
    visit_ClassDef = _enter
    leave_FunctionDef = _leave
    leave_ClassDef = _leave


def _matches(qualname: str, path: str) -> bool:
    """The module prefix of a qualname is not known from the file, so match the tail."""
    return qualname == path or qualname.endswith("." + path)


def span_of(node: AstFunction) -> Span:
    start = min([d.lineno for d in node.decorator_list] + [node.lineno])
    return Span(start, node.lineno, node.end_lineno or node.lineno)


def find_ast_function(tree: ast.Module, qualname: str, def_line: int) -> AstFunction | None:
    for path, node in _defs_in_order(tree):
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.lineno == def_line
            and _matches(qualname, path)
        ):
            return node
    return None


def parse_python(source: str, what: str = "file") -> ast.Module:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        raise TargetNotFound(f"{what} does not parse: {exc}") from None


def locate(source: str, qualname: str, def_line: int) -> Located:
    """The libcst module and the function node whose ``def`` is on ``def_line``."""
    tree = parse_python(source)
    ordered = _defs_in_order(tree)
    index = next(
        (
            i
            for i, (path, node) in enumerate(ordered)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.lineno == def_line
            and _matches(qualname, path)
        ),
        None,
    )
    if index is None:
        raise TargetNotFound(f"no function {qualname} with its def on line {def_line}")
    path, node = ordered[index]
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise TargetNotFound(f"file does not parse with libcst: {exc.message}") from None
    collector = _CstDefs()
    module.visit(collector)
    cst_path, function = collector.found[index]
    if cst_path != path or not isinstance(function, cst.FunctionDef):
        raise TargetNotFound(f"libcst and ast disagree about the definitions around {qualname}")
    return Located(module, function, span_of(node))


def outside_unchanged(original: str, corrupted: str, span: Span, new_span: Span) -> bool:
    """Whether every line before ``span.start`` and after ``span.end`` is byte-identical."""
    old, new = split_lines(original), split_lines(corrupted)
    before = span.start - 1
    after_old, after_new = len(old) - span.end, len(new) - new_span.end
    return (
        span.start == new_span.start
        and old[:before] == new[:before]
        and after_old == after_new
        and old[len(old) - after_old :] == new[len(new) - after_new :]
    )
