"""Find a target function in a file, and check that a rewrite stayed inside it.

Targets are named by qualname plus ``def`` line (the graph stage's ``start_line``),
because a qualname alone is ambiguous (property setters, conditional defs).
libcst gives the node to rewrite; stdlib ``ast`` (ten times faster) checks the
result, which is what every mutant goes through.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass

import libcst as cst
from libcst._nodes.internal import CodegenState

from corrupt.corruptors.edits import split_lines
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
    """The target's libcst node, plus what is needed to write a changed version back.

    Re-rendering a whole module through libcst for every mutant costs a third of
    a second on a 300-line file, so :meth:`with_function` renders only the
    function (with its enclosing indentation) and splices it into the source.
    ``splice`` is ``(offset, length, indent, strip_final_newline)`` when the
    function's rendered text was verified to sit at ``offset``; otherwise the
    slow path runs.
    """

    module: cst.Module
    function: cst.FunctionDef
    span: Span
    source: str
    splice: tuple[int, int, str, bool] | None
    node: AstFunction  # the same function in stdlib ast (read-only: it is cached)

    def with_function(self, function: cst.FunctionDef) -> str:
        """The file text with the target function replaced by ``function``."""
        if self.splice is None:
            module = self.module.deep_replace(self.function, function)
            assert isinstance(module, cst.Module)
            return module.code
        offset, length, indent, strip = self.splice
        text = _render(self.module, function, indent)
        if strip:
            text = text.removesuffix(self.module.default_newline)
        return self.source[:offset] + text + self.source[offset + length :]


def _render(module: cst.Module, function: cst.FunctionDef, indent: str) -> str:
    # CodegenState is libcst's (stable, but private) rendering state; seeding it with
    # the enclosing indentation renders a nested function exactly as it sits in the file.
    state = CodegenState(
        default_indent=module.default_indent,
        default_newline=module.default_newline,
        indent_tokens=[indent] if indent else [],
    )
    function._codegen(state)
    return "".join(state.tokens)


def _find_splice(
    source: str, module: cst.Module, function: cst.FunctionDef, span: Span
) -> tuple[int, int, str, bool] | None:
    lines = split_lines(source)
    first = span.start - 1 - len(function.leading_lines)
    if first < 0:
        return None
    line = lines[span.start - 1]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    text = _render(module, function, indent)
    offset = sum(len(x) for x in lines[:first])
    if source.startswith(text, offset):
        return offset, len(text), indent, False
    trimmed = text.removesuffix(module.default_newline)
    if trimmed != text and source[offset:] == trimmed:
        return offset, len(trimmed), indent, True
    return None


_BLOCK_FIELDS = ("body", "orelse", "handlers", "finalbody", "cases")
_DEF_TYPES = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, cst.ClassDef, cst.FunctionDef)


def _statement_children(node: object) -> list:
    """Statements (or clause nodes holding statements) directly under ``node``.

    Definitions only ever sit in statement lists, so walking those alone (not
    expressions) finds every def in source order at a fraction of a full walk.
    Works for both ``ast`` and libcst nodes, which use the same field names.
    """
    children: list = []
    for name in _BLOCK_FIELDS:
        value = getattr(node, name, None)
        if value is None:
            continue
        if isinstance(value, cst.BaseSuite):
            value = value.body if isinstance(value, cst.IndentedBlock) else []
        children.extend(value if isinstance(value, list | tuple) else [value])
    return children


def _defs_in_order(root: object) -> list[tuple[str, object]]:
    """Every class and function with its in-file dotted path, in source order."""
    found: list[tuple[str, object]] = []

    def walk(node: object, prefix: str) -> None:
        for child in _statement_children(node):
            if isinstance(child, _DEF_TYPES):
                name = child.name if isinstance(child.name, str) else child.name.value
                path = f"{prefix}.{name}" if prefix else name
                found.append((path, child))
                walk(child, path)
            else:
                walk(child, prefix)

    walk(root, "")
    return found


def _matches(qualname: str, path: str) -> bool:
    """The module prefix of a qualname is not known from the file, so match the tail.
    The def line tells apart definitions of one name, so the graph's ``#2`` /
    ``#overload`` suffixes for them are not part of the match."""
    name = qualname.split("#", 1)[0]
    return name == path or name.endswith("." + path)


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


@functools.lru_cache(maxsize=16)
def _parsed(source: str) -> tuple[list[tuple[str, object]], cst.Module | str]:
    """Definitions (ast) and the libcst module of a file, cached: callers walk one
    file's functions in turn, and a libcst parse costs far more than a mutant."""
    ordered = _defs_in_order(parse_python(source))
    try:
        return ordered, cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        return ordered, f"file does not parse with libcst: {exc.message}"


def locate(source: str, qualname: str, def_line: int) -> Located:
    """The libcst module and the function node whose ``def`` is on ``def_line``."""
    ordered, module = _parsed(source)
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
    if isinstance(module, str):
        raise TargetNotFound(module)
    path, node = ordered[index]
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    cst_path, function = _defs_in_order(module)[index]
    if cst_path != path or not isinstance(function, cst.FunctionDef):
        raise TargetNotFound(f"libcst and ast disagree about the definitions around {qualname}")
    span = span_of(node)
    splice = _find_splice(source, module, function, span)
    return Located(module, function, span, source, splice, node)


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
