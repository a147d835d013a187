"""Which covering tests can see a mutant: the ones that ran the statements it changes.

A mutant that keeps every scope's names and kind (no new local, no
``yield`` turning a function into a generator) changes only what some
statements of one function do when they run. A covering test that never
reached them on the baseline runs the same code as before, so it passes as
before: screening runs only the tests that reached a change and counts the
rest as passing. Same failures, fewer tests; a mutant of a statement no test
runs is screened without running anything.

The two versions of the function are aligned block by block (a compound
statement whose header did not change is compared inside). A block runs
from its first statement on, so what replaces or removes statements is
reached only by tests that ran the first of them, and a statement put
between two only by tests that ran both; statements put in a block that was
empty (a new ``else``) count as a change to the statement holding it. The
baseline's per-test line coverage says which tests ran a line, but a line
can run without a record of its own (a constant folded into the line before
it), so the unit is the statement: a test that runs any of its code records
at least one of its lines. Where any of this cannot be told (a changed
signature or decorator, a statement that ran at import or collection, whose
effects reach tests that never ran it, a statement with no code), every
covering test runs.

What the baseline's coverage cannot show is state one test leaves for
another: a module-scoped fixture built with the changed statement in its
first test is seen by later tests that never ran it. Nor does it show who
looks at line numbers: lines added or removed move the code below them, and
a test that compares a traceback of that code sees it without running the
change. Such failures go uncounted in screening (as with any coverage-based
selection); a task's failing tests come from verification's full-suite runs
all the same.
"""

from __future__ import annotations

import ast
import bisect
import difflib
import functools
import types
from collections.abc import Collection, Sequence

from corrupt.repos.coverage import LineTests
from corrupt.source.edits import common_ends
from corrupt.source.functions import function_at, parsed

Statement = tuple[int, int]  # first and last line


def reaching_tests(
    original: str,
    corrupted: str,
    def_line: int,
    qualname: str,
    covering: Sequence[str],
    line_tests: LineTests | None,
) -> list[str]:
    """The tests of ``covering`` that ran a statement ``corrupted`` changes or the
    statements beside one it adds, in ``covering``'s order; all of ``covering``
    when that cannot be told."""
    if line_tests is None:
        return list(covering)
    view = _function_view(original, def_line, qualname)
    anchors = view.anchors(corrupted) if view is not None else None
    if view is None or anchors is None:
        return list(covering)
    ran: set[str] = set()
    for group in anchors:
        if any(not line_tests.outside.isdisjoint(range(a, b + 1)) for a, b in group):
            return list(covering)  # it ran at import or collection: every test may see it
        bounds = [_tests_of(s, line_tests) for s in group if view.has_code(s)]
        if not bounds:
            return list(covering)
        ran |= set.intersection(*bounds)
    return [nodeid for nodeid in covering if nodeid in ran]


def _tests_of(statement: Statement, line_tests: LineTests) -> set[str]:
    return {t for n in range(statement[0], statement[1] + 1) for t in line_tests.tests.get(n, ())}


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
    lines = frozenset(outside)  # a file's every def line is in it: slow to scan as a list

    def ran(statement: Statement | None) -> bool:
        return statement is not None and not lines.isdisjoint(range(statement[0], statement[1] + 1))

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
    """Every statement in ``body``, nested ones too."""
    return [_span(s) for top in body for s in ast.walk(top) if isinstance(s, ast.stmt)]


@functools.lru_cache(maxsize=8)
def _body_statements(source: str) -> list[Statement] | None:
    """The statements inside the bodies of a file's functions."""
    try:
        tree = parsed(source)
    except (SyntaxError, ValueError):
        return None
    return [
        statement
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for statement in _statements(node.body)
    ]


Group = tuple[Statement, ...]  # statements whose tests all ran a change (their intersection)
BLOCKS = ("body", "orelse", "finalbody")


class _FunctionView:
    """One function as the baseline ran it: its parse, the lines its code runs on,
    and the file around it, so a mutant's version of it is found and compared."""

    def __init__(
        self, node: ast.stmt, code_lines: set[int], scopes: object, lines: list[str], end: int
    ) -> None:
        self.node = node
        self.code_lines = code_lines
        self.scopes = scopes
        self.lines = lines  # the file's, ends kept
        self.before = _span(node)[0] - 1  # how many lines of the file precede the function
        self.after = len(lines) - end  # and follow it

    def has_code(self, statement: Statement) -> bool:
        return any(statement[0] <= line <= statement[1] for line in self.code_lines)

    def anchors(self, corrupted: str) -> list[Group] | None:
        """Where ``corrupted`` changes the function, as groups of its statements: a
        test that runs a change ran every statement of one group. None when
        that cannot be told: the change is outside the body (the signature, a
        decorator, another function) or alters the function's scopes."""
        old, new = self.lines, corrupted.splitlines(keepends=True)
        end = len(new) - self.after
        if old[: self.before] != new[: self.before] or old[len(old) - self.after :] != new[end:]:
            return None
        parsed = _parse_function("".join(new[self.before : end]))
        if parsed is None:
            return None
        function, scopes, lines = parsed
        if scopes != self.scopes:
            return None
        return _Alignment(old, lines).within(self.node, function)


class _Alignment:
    """Two versions of one function compared block by block. Statements are
    aligned by their text (dumping their parses cost more than the rest of
    the check); where one statement's text replaces another's, their parses
    are compared, so one only split over more lines changes nothing."""

    def __init__(self, old_lines: list[str], new_lines: list[str]) -> None:
        self.old_lines, self.new_lines = old_lines, new_lines

    def within(self, old: ast.AST, new: ast.AST) -> list[Group] | None:
        """The groups of changes inside ``old``'s blocks; None when ``old`` itself
        changed (another kind of statement, a condition, a handler's exception,
        statements put in a block that was empty)."""
        if type(old) is not type(new):
            return None
        groups: list[Group] = []
        for name, value in ast.iter_fields(old):
            other = getattr(new, name)
            if name in BLOCKS:
                inner = self.aligned(value, other)
            elif name == "handlers" and len(value) == len(other):
                inner = []
                for handler, counterpart in zip(value, other, strict=True):
                    found = self.within(handler, counterpart)
                    if found is None:
                        return None
                    inner += found
            else:
                inner = None if _key(value) != _key(other) else []
            if inner is None:
                return None
            groups += inner
        return groups

    def aligned(self, old: list[ast.stmt], new: list[ast.stmt]) -> list[Group] | None:
        """Changes between two versions of one block, aligned statement by statement.

        A block runs from its first statement on, so a test that reaches any
        place in it ran the statement there: what replaces or removes
        statements is reached through the first of them; what is put between
        two ran after the one before it and before the one after it (both
        statements of its group).
        """
        keys = [_text(s, self.old_lines) for s in old], [_text(s, self.new_lines) for s in new]
        matcher = difflib.SequenceMatcher(None, *keys, autojunk=False)
        groups: list[Group] = []
        for tag, first, last, new_first, new_last in matcher.get_opcodes():
            if tag == "equal":
                continue
            if not old:
                return None  # statements put in an empty block (a new ``else``)
            inner = None
            if tag == "replace" and last - first == new_last - new_first == 1:
                inner = self.within(old[first], new[new_first])
            if inner is not None:
                groups += inner
            elif tag == "insert":
                groups.append(tuple(map(_span, old[max(first - 1, 0) : first + 1])))
            else:
                groups.append((_span(old[first]),))
        return groups


def _text(statement: ast.stmt, lines: list[str]) -> str:
    first, last = _span(statement)
    return "".join(lines[first - 1 : last])


def _key(value: object) -> object:
    """A field's value, compared without positions."""
    if isinstance(value, ast.AST):
        return ast.dump(value)
    if isinstance(value, list):
        return [_key(v) for v in value]
    return value


def _span(statement: ast.stmt) -> Statement:
    """A statement's first and last line, from its first decorator."""
    decorators = getattr(statement, "decorator_list", ())
    return min([statement.lineno] + [d.lineno for d in decorators]), statement.end_lineno or 0


@functools.lru_cache(maxsize=8)
def _function_view(source: str, def_line: int, qualname: str) -> _FunctionView | None:
    """Computed once per search: every mutant of a target is checked against it."""
    try:
        tree = parsed(source)
        module = compile(source, "<reach>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    node = function_at(tree, def_line, qualname)
    if node is None:
        return None
    first, last = node.body[0].lineno, node.end_lineno or node.lineno
    code_lines = {
        line
        for code in _code_objects(module)
        for _, _, line in code.co_lines()
        if line is not None and first <= line <= last
    }
    lines = source.splitlines(keepends=True)
    own = _parse_function("".join(lines[_span(node)[0] - 1 : last]))
    if own is None:  # it does not compile on its own (a ``nonlocal`` of an outer scope)
        return None
    return _FunctionView(node, code_lines, own[1], lines, last)


def _parse_function(text: str) -> tuple[ast.stmt, object, list[str]] | None:
    """A function's text (decorators included) parsed and compiled on its own: its
    node, its scope shape (a whole mutant file would cost a compile of every
    line for each candidate) and the lines its positions count; None unless it
    holds exactly one function."""
    indented = text[:1].isspace()
    if indented:
        text = "if 1:\n" + text  # a method or nested function keeps its indentation
    try:
        tree = ast.parse(text)
        code = compile(tree, "<reach>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    body = tree.body[0].body if indented and isinstance(tree.body[0], ast.If) else tree.body
    if len(body) != 1 or not isinstance(body[0], ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    return body[0], _scope_shape(code), text.splitlines(keepends=True)


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
    head, tail = common_ends(old, new)
    matcher = difflib.SequenceMatcher(
        None, old[head : len(old) - tail], new[head : len(new) - tail], autojunk=False
    )
    for tag, first, last, _, _ in matcher.get_opcodes():
        first, last = first + head, last + head
        changed += range(first + 1, last + 1) if tag != "equal" else ()
        if tag in ("insert", "replace") and not any(map(_has_code, old[first:last])):
            before, after = bisect.bisect_right(code, first), bisect.bisect_right(code, last)
            insertions.append(
                (code[before - 1] if before else None, code[after] if after < len(code) else None)
            )
    return changed, insertions


def _has_code(line: str) -> bool:
    return bool(line.strip()) and not line.lstrip().startswith("#")


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
