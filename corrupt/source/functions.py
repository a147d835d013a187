"""Find a function by its ``def`` line and give its spans: the one rule every stage uses.

The graph stage names symbols (``pkg.mod.Class.value#2`` for a second
definition), selection checks bodies, corruptors rewrite them, screening maps
traceback frames to them and verification compares signatures; all of them
find the function here, by def line, so a property setter, an overload or a
conditional redefinition is the same function in each. Works on stdlib
``ast`` trees; the walk in :func:`defs_in_order` also accepts libcst trees,
which name their nodes and fields alike, so both parsers agree on which def is
which (without the graph stage having to import libcst).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Sequence
from dataclasses import dataclass

from corrupt.errors import CorruptError

AstFunction = ast.FunctionDef | ast.AsyncFunctionDef


class TargetNotFound(CorruptError):
    """The file does not parse, or has no function of that name on that line."""

    exit_code = 27


@dataclass(frozen=True)
class Span:
    """1-based inclusive lines of one function.

    ``start`` is its first decorator (or the def line), ``signature_end`` the
    line of the colon ending the header, ``docstring`` the docstring's first and
    last line, ``body_start`` the first statement after the docstring (None when
    the docstring is the whole body) and ``end`` its last line.
    """

    start: int
    def_line: int
    end: int
    signature_end: int
    docstring: tuple[int, int] | None = None
    body_start: int | None = None


def docstring_span(node: ast.AST) -> tuple[int, int] | None:
    """First and last line of a module's, class's or function's docstring."""
    body = getattr(node, "body", None)
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        return body[0].lineno, body[0].end_lineno or body[0].lineno
    return None


def body_start(node: ast.Module | ast.ClassDef | AstFunction) -> int | None:
    """The first statement after the docstring."""
    statements = node.body[1:] if docstring_span(node) else node.body
    return statements[0].lineno if statements else None


def signature_end(lines: Sequence[str], node: ast.ClassDef | AstFunction) -> int:
    """Line of the colon ending a def/class header: the last code line before the body."""
    first = node.body[0].lineno
    if first == node.lineno:
        return node.lineno
    for number in range(first - 1, node.lineno - 1, -1):
        text = lines[number - 1].strip()
        if text and not text.startswith("#"):
            return number
    return node.lineno


def extent(node: AstFunction) -> tuple[int, int]:
    """First line (its first decorator's) and last line of a function: what a rewrite may touch."""
    return min(
        [d.lineno for d in node.decorator_list] + [node.lineno]
    ), node.end_lineno or node.lineno


def span_of(node: AstFunction, lines: Sequence[str]) -> Span:
    """Every span of ``node``; ``lines`` are the file's lines (for the header's end)."""
    start, end = extent(node)
    return Span(
        start=start,
        def_line=node.lineno,
        end=end,
        signature_end=signature_end(lines, node),
        docstring=docstring_span(node),
        body_start=body_start(node),
    )


_BLOCK_FIELDS = ("body", "orelse", "handlers", "finalbody", "cases")
_DEF_NAMES = frozenset({"ClassDef", "FunctionDef", "AsyncFunctionDef"})  # ast's and libcst's


def _statement_children(node: object) -> list[object]:
    """Statements (or clause nodes holding statements) directly under ``node``.

    Definitions only ever sit in statement lists, so walking those alone (not
    expressions) finds every def in source order at a fraction of a full walk.
    """
    children: list[object] = []
    for name in _BLOCK_FIELDS:
        value = getattr(node, name, None)
        if value is None:
            continue
        suite = type(
            value
        ).__name__  # libcst wraps statements in a suite; one-line suites hold no def
        if suite in ("IndentedBlock", "SimpleStatementSuite"):
            value = value.body if suite == "IndentedBlock" else []
        children.extend(value if isinstance(value, list | tuple) else [value])
    return children


def defs_in_order(root: object) -> list[tuple[str, object]]:
    """Every class and function with its in-file dotted path, in source order."""
    found: list[tuple[str, object]] = []

    def walk(node: object, prefix: str) -> None:
        for child in _statement_children(node):
            if type(child).__name__ in _DEF_NAMES:
                name = getattr(child, "name")  # noqa: B009 - ast holds a str, libcst a Name node
                name = name if isinstance(name, str) else name.value
                path = f"{prefix}.{name}" if prefix else name
                found.append((path, child))
                walk(child, path)
            else:
                walk(child, prefix)

    walk(root, "")
    return found


def matches(qualname: str, path: str) -> bool:
    """Whether a graph qualname names the def at in-file ``path``.

    The module prefix of a qualname is not known from the file, so the tail is
    matched. The def line tells apart definitions of one name, so the graph's
    ``#2`` / ``#overload`` suffixes for them are not part of the match.
    """
    name = qualname.split("#", 1)[0]
    return name == path or name.endswith("." + path)


def functions_in(tree: ast.Module) -> list[tuple[str, AstFunction]]:
    """Every function (methods and nested ones too) with its in-file path, in source order."""
    return [
        (path, node)
        for path, node in defs_in_order(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def function_at(tree: ast.Module, def_line: int, qualname: str | None = None) -> AstFunction | None:
    """The function whose ``def`` is on ``def_line`` (and whose path fits ``qualname``)."""
    for path, node in functions_in(tree):
        if node.lineno == def_line and (qualname is None or matches(qualname, path)):
            return node
    return None


@functools.lru_cache(maxsize=16)
def parsed(source: str) -> ast.Module:
    """``ast.parse(source)``, shared by every caller: a search reads one target's file
    in several stages (mutant generation, reach, the tells, frame names), each of
    which parsed it again, 5-8 ms a large file. Callers must not change the tree.
    Raises what ``ast.parse`` raises (failures are not cached)."""
    return ast.parse(source)


def parse_python(source: str, what: str = "file") -> ast.Module:
    """:func:`parsed`, or :class:`TargetNotFound` saying why not."""
    try:
        return parsed(source)
    except (SyntaxError, ValueError) as exc:
        raise TargetNotFound(f"{what} does not parse: {exc}") from None
