"""The libcst node of a target function, to rewrite it without touching the rest of the file.

The function is found by def line through :mod:`corrupt.source.functions`;
libcst gives the node to rewrite, and stdlib ``ast`` (ten times faster) checks
the result, which is what every mutant goes through.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass

import libcst as cst
from libcst._nodes.internal import CodegenState

from corrupt.source.edits import split_lines
from corrupt.source.functions import (
    AstFunction,
    Span,
    TargetNotFound,
    defs_in_order,
    matches,
    parse_python,
    span_of,
)


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


@functools.lru_cache(maxsize=16)
def _parsed(source: str) -> tuple[list[tuple[str, object]], cst.Module | str]:
    """Definitions (ast) and the libcst module of a file, cached: callers walk one
    file's functions in turn, and a libcst parse costs far more than a mutant."""
    ordered = defs_in_order(parse_python(source))
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
            and matches(qualname, path)
        ),
        None,
    )
    if index is None:
        raise TargetNotFound(f"no function {qualname} with its def on line {def_line}")
    if isinstance(module, str):
        raise TargetNotFound(module)
    path, node = ordered[index]
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    cst_path, function = defs_in_order(module)[index]
    if cst_path != path or not isinstance(function, cst.FunctionDef):
        raise TargetNotFound(f"libcst and ast disagree about the definitions around {qualname}")
    span = span_of(node, split_lines(source))
    splice = _find_splice(source, module, function, span)
    return Located(module, function, span, source, splice, node)


def outside_unchanged(
    original: str, corrupted: str, extent: tuple[int, int], new_extent: tuple[int, int]
) -> bool:
    """Whether every line before and after a function's extent (first, last line) is byte-identical."""
    old, new = split_lines(original), split_lines(corrupted)
    before = extent[0] - 1
    after_old, after_new = len(old) - extent[1], len(new) - new_extent[1]
    return (
        extent[0] == new_extent[0]
        and old[:before] == new[:before]
        and after_old == after_new
        and old[len(old) - after_old :] == new[len(new) - after_new :]
    )
