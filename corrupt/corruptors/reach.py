"""Which covering tests can see a mutant: the ones that ran the statement it changes.

A single-site mutant that keeps the file's lines and every scope's names and
kind (no new local, no ``yield`` turning a function into a generator) changes
only what one statement does when it runs. A covering test that never ran
that statement on the baseline runs the same code as before, so it passes as
before: screening runs only the tests that ran the changed statement and
counts the rest as passing. Same failures, fewer tests; a mutant of a
statement no test runs is screened without running anything.

The baseline's per-test line coverage says which tests ran a line, but a
line can run without a record of its own (a constant folded into the line
before it), so the unit is the innermost statement holding the changed line:
a test that runs any of its code records at least one of its lines. Where
any of this cannot be told (a changed def line or decorator, or a statement
that ran at import or collection, whose effects reach tests that never ran
it; lines added or removed; a statement with no code), every covering test
runs.

What the baseline's coverage cannot show is state one test leaves for
another: a module-scoped fixture built with the changed statement in its
first test is seen by later tests that never ran it. Their failures go
uncounted in screening (as with any coverage-based selection); a task's
failing tests come from verification's full-suite runs all the same.
"""

from __future__ import annotations

import ast
import bisect
import difflib
import functools
import types
from collections.abc import Collection, Sequence

from corrupt.repos.coverage import LineTests
from corrupt.source.functions import function_at

Statement = tuple[int, int]  # first and last line


def reaching_tests(
    original: str,
    corrupted: str,
    def_line: int,
    qualname: str,
    covering: Sequence[str],
    line_tests: LineTests | None,
) -> list[str]:
    """The tests of ``covering`` that ran a statement ``corrupted`` changes, in
    ``covering``'s order; all of ``covering`` when that cannot be told."""
    if line_tests is None:
        return list(covering)
    view = _function_view(original, def_line, qualname)
    changed = _changed_lines(original, corrupted)
    if view is None or changed is None or _scopes(corrupted, view.extent) != view.scopes:
        return list(covering)
    ran: set[str] = set()
    for line in changed:
        statement = view.innermost(line)
        if statement is None or not view.has_code(statement):
            return list(covering)
        at = range(statement[0], statement[1] + 1)
        if not line_tests.outside.isdisjoint(at):
            return list(covering)  # it ran at import or collection: every test may see it
        for n in at:
            ran.update(line_tests.tests.get(n, ()))
    return [nodeid for nodeid in covering if nodeid in ran]


def ran_outside_tests(original: str, corrupted: str, outside: Collection[int]) -> bool:
    """Whether a statement ``corrupted`` changes ran outside any test (``outside``: the
    baseline's lines that did, at import or collection), or may have: objects made
    then (a warm server's) hold what it did. False only for changes inside
    function bodies to statements that ran in tests alone, or never (a blank or
    comment line between them changes nothing), and for new statements where
    neither statement beside them ran outside tests."""
    statements = _body_statements(original)
    if statements is None:
        return True
    old = original.splitlines()
    changed, insertions = _replaced_lines(original, corrupted)

    def ran(statement: Statement | None) -> bool:
        return statement is not None and any(statement[0] <= n <= statement[1] for n in outside)

    for line in changed:
        statement = _innermost(statements, line)
        if ran(statement) or (statement is None and _has_code(old[line - 1])):
            return True
    for before, after in insertions:
        above = _innermost(statements, before) if before else None
        below = _innermost(statements, after) if after else None
        if above is not None and after and above[0] <= after <= above[1] and above != below:
            above = None  # a block's header: what is put first in the block runs with `below`
        if ran(above) or ran(below):
            return True
    return False


def _innermost(statements: Sequence[Statement], line: int) -> Statement | None:
    holding = [s for s in statements if s[0] <= line <= s[1]]
    return min(holding, key=lambda s: s[1] - s[0]) if holding else None


def _statements(body: Sequence[ast.stmt]) -> list[Statement]:
    """Every statement in ``body``, nested ones too, from its first decorator."""
    return [
        (min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", ())]), s.end_lineno)
        for top in body
        for s in ast.walk(top)
        if isinstance(s, ast.stmt) and s.end_lineno is not None
    ]


@functools.lru_cache(maxsize=8)
def _body_statements(source: str) -> list[Statement] | None:
    """The statements inside the bodies of a file's functions."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    return [
        statement
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for statement in _statements(node.body)
    ]


class _FunctionView:
    """The statements of one function's body and the lines its code runs on."""

    def __init__(
        self, statements: list[Statement], code_lines: set[int], extent: Statement, scopes: object
    ) -> None:
        self.statements = statements
        self.code_lines = code_lines
        self.extent = extent  # the function's lines, decorators included
        self.scopes = scopes

    def innermost(self, line: int) -> Statement | None:
        return _innermost(self.statements, line)

    def has_code(self, statement: Statement) -> bool:
        return any(statement[0] <= line <= statement[1] for line in self.code_lines)


@functools.lru_cache(maxsize=8)
def _function_view(source: str, def_line: int, qualname: str) -> _FunctionView | None:
    """Computed once per search: every mutant of a target is checked against it."""
    try:
        tree = ast.parse(source)
        module = compile(source, "<reach>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    node = function_at(tree, def_line, qualname)
    if node is None:
        return None
    statements = _statements(node.body)
    first, last = node.body[0].lineno, node.end_lineno or node.lineno
    code_lines = {
        line
        for code in _code_objects(module)
        for _, _, line in code.co_lines()
        if line is not None and first <= line <= last
    }
    extent = (min([node.lineno] + [d.lineno for d in node.decorator_list]), last)
    scopes = _scopes(source, extent)
    if scopes is None:  # it does not compile on its own (a ``nonlocal`` of an outer scope)
        return None
    return _FunctionView(statements, code_lines, extent, scopes)


def _changed_lines(original: str, corrupted: str) -> list[int] | None:
    """1-based lines that differ; None when lines were added or removed."""
    old, new = original.splitlines(), corrupted.splitlines()
    if len(old) != len(new):
        return None
    return [n for n, (a, b) in enumerate(zip(old, new, strict=True), 1) if a != b]


def _replaced_lines(
    original: str, corrupted: str
) -> tuple[list[int], list[tuple[int | None, int | None]]]:
    """1-based lines of ``original`` that ``corrupted`` changes or removes, and for
    each place it puts new lines among old ones (where there was no code) the
    nearest old lines with code before and after it (None: none)."""
    same_length = _changed_lines(original, corrupted)
    if same_length is not None:
        return same_length, []
    old, new = original.splitlines(), corrupted.splitlines()
    code = [n for n, line in enumerate(old, 1) if _has_code(line)]
    changed: list[int] = []
    insertions: list[tuple[int | None, int | None]] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, first, last, _, _ in matcher.get_opcodes():
        changed += range(first + 1, last + 1) if tag != "equal" else ()
        if tag in ("insert", "replace") and not any(map(_has_code, old[first:last])):
            before, after = bisect.bisect_right(code, first), bisect.bisect_right(code, last)
            insertions.append(
                (code[before - 1] if before else None, code[after] if after < len(code) else None)
            )
    return changed, insertions


def _has_code(line: str) -> bool:
    return bool(line.strip()) and not line.lstrip().startswith("#")


def _scopes(source: str, extent: Statement) -> object:
    """The scope shape of the function on ``extent``'s lines, compiled on its own (a
    mutant's whole file would cost a compile of every line for each candidate)."""
    lines = source.splitlines(keepends=True)[extent[0] - 1 : extent[1]]
    text = "".join(lines)
    if text[:1].isspace():
        text = "if 1:\n" + text  # a method or nested function keeps its indentation
    try:
        return _scope_shape(compile(text, "<reach>", "exec", dont_inherit=True))
    except (SyntaxError, ValueError):
        return None


def _scope_shape(module: types.CodeType) -> list[tuple[object, ...]]:
    """What every code object's names mean and what kind of code it is: a change
    here (a new local, a ``yield``) alters statements that did not change."""
    return [
        (
            code.co_name,
            code.co_flags,
            code.co_argcount,
            code.co_posonlyargcount,
            code.co_kwonlyargcount,
            code.co_varnames,
            code.co_cellvars,
            code.co_freevars,
        )
        for code in _code_objects(module)
    ]


def _code_objects(code: types.CodeType) -> list[types.CodeType]:
    found = [code]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found += _code_objects(const)
    return found
