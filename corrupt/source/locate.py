"""The libcst node of a target function, to rewrite it without touching the rest of the file.

The function is found by def line through :mod:`corrupt.source.functions`;
libcst gives the node to rewrite, and stdlib ``ast`` (ten times faster) checks
the result, which is what every mutant goes through.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
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
    slow path runs, and ``module`` is the whole file's (with a splice it may
    hold the function's own lines alone: :func:`locate`).
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
def _definitions(source: str) -> list[tuple[str, object]]:
    """A file's definitions in order (stdlib ast), cached: callers walk one file's
    functions in turn."""
    return defs_in_order(parse_python(source))


@functools.lru_cache(maxsize=16)
def _module(source: str) -> cst.Module | str:
    """The whole file's libcst module (or why it does not parse), for the rare
    function whose own text does not render back the same (:func:`locate`)."""
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        return f"file does not parse with libcst: {exc.message}"


def locate(source: str, qualname: str, def_line: int) -> Located:
    """The libcst node of the function whose ``def`` is on ``def_line``.

    Only the function's own lines are parsed with libcst (a whole file cost a
    search more than all its mutants: 150 ms for 2,000 lines), in a module
    that renders new code with the file's indentation and newline; where that
    does not reproduce the function's text exactly, the whole file is parsed.
    """
    ordered = _definitions(source)
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
    path, node = ordered[index]
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    span = span_of(node, split_lines(source))
    own = _own_parse(source, span)
    if own is not None:
        splice = _find_splice(source, *own, span)
        if splice is not None:
            return Located(own[0], own[1], span, source, splice, node)
    module = _module(source)
    if isinstance(module, str):
        raise TargetNotFound(module)
    cst_path, function = defs_in_order(module)[index]
    if cst_path != path or not isinstance(function, cst.FunctionDef):
        raise TargetNotFound(f"libcst and ast disagree about the definitions around {qualname}")
    splice = _find_splice(source, module, function, span)
    return Located(module, function, span, source, splice, node)


def _own_parse(source: str, span: Span) -> tuple[cst.Module, cst.FunctionDef] | None:
    """The function's lines parsed alone, in a module with the file's default
    indentation and newline; None if that fails.

    libcst records a block's indentation only where it differs from the
    module's default, which it takes from the first indented block: a block
    opened first with the file's default fixes it (and an indented function
    sits in an ``if`` of its own)."""
    style = _style(source)
    if style is None:
        return None
    indent, newline = style
    text = "".join(split_lines(source)[span.start - 1 : span.end])
    indented = text[:1] in (" ", "\t")
    opening = f"if 1:{newline}{indent}pass{newline}"
    try:
        module = cst.parse_module(opening + (f"if 1:{newline}{text}" if indented else text))
    except cst.ParserSyntaxError:
        return None
    body = module.body[1:]
    if indented and len(body) == 1 and isinstance(body[0], cst.If):
        body = body[0].body.body  # type: ignore[assignment]
    if len(body) != 1 or not isinstance(body[0], cst.FunctionDef):
        return None
    return module.with_changes(default_indent=indent, default_newline=newline), body[0]


@functools.lru_cache(maxsize=16)
def _style(source: str) -> tuple[str, str] | None:
    """The default indentation and newline libcst gives a whole file: its first
    indented block's indentation (four spaces if none) and its first newline."""
    newline = _NEWLINE.search(source)
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.INDENT:
                return token.string, newline.group(0) if newline else "\n"
    except (tokenize.TokenError, SyntaxError):
        return None
    return "    ", newline.group(0) if newline else "\n"


_NEWLINE = re.compile(r"\r\n?|\n")


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
