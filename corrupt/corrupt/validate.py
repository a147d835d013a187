"""Checks that a corrupted file is a fair task: nothing outside the target gives it away.

A solver should find the bug by reasoning about behaviour, not by spotting
tells. Adversarial search and the LLM corruptor both run every candidate
through :func:`corruption_problems`, which rejects: files that no longer parse,
edits outside the target function, changed signatures, decorators or
docstrings, added comments, new pyflakes findings (an unused or undefined name
points straight at the edit) and no-ops (only layout changed).
"""

from __future__ import annotations

import ast
import difflib
import io
import textwrap
import tokenize
from collections import Counter
from dataclasses import dataclass

from pyflakes.api import check as pyflakes_check
from pyflakes.reporter import Reporter

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class FunctionSpan:
    """Where a function sits in a file (1-based, inclusive; ``start`` includes decorators)."""

    node: FunctionNode
    start: int
    end: int


def find_function(tree: ast.Module, qualname: str, def_line: int) -> FunctionSpan | None:
    """The function whose ``def`` is on ``def_line`` and whose in-file name ends ``qualname``.

    The module prefix of ``qualname`` is not known here, so the in-file dotted
    path (``Class.method``, ``outer.inner``) must be a suffix of it.
    """

    def walk(node: ast.AST, prefix: str) -> FunctionSpan | None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                path = f"{prefix}.{child.name}" if prefix else child.name
                if (
                    not isinstance(child, ast.ClassDef)
                    and child.lineno == def_line
                    and (qualname == path or qualname.endswith("." + path))
                ):
                    start = min([d.lineno for d in child.decorator_list] + [child.lineno])
                    return FunctionSpan(child, start, child.end_lineno or child.lineno)
                found = walk(child, path)
            else:
                found = walk(child, prefix)
            if found:
                return found
        return None

    return walk(tree, "")


def pyflakes_findings(source: str, filename: str = "<corrupt>") -> Counter[str]:
    """pyflakes messages without positions, so two versions of a file can be compared."""
    out = io.StringIO()
    collected: Counter[str] = Counter()

    class _Collect(Reporter):
        def flake(self, message) -> None:  # noqa: ANN001 - pyflakes' own type
            collected[f"{type(message).__name__}{message.message_args}"] += 1

    pyflakes_check(source, filename, _Collect(out, out))
    return collected


def new_pyflakes_findings(original: str, corrupted: str) -> list[str]:
    """Findings the corruption adds (an unused variable, an undefined name...)."""
    added = pyflakes_findings(corrupted) - pyflakes_findings(original)
    return sorted(added.elements())


def comments(source: str) -> Counter[str]:
    """The comment tokens of a piece of code (empty if it does not tokenize)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return Counter()
    return Counter(t.string.strip() for t in tokens if t.type == tokenize.COMMENT)


def _segment(lines: list[str], span: FunctionSpan) -> str:
    return "".join(lines[span.start - 1 : span.end])


def _signature(node: FunctionNode, *, with_defaults: bool) -> str:
    args = node.args
    if not with_defaults:
        args = ast.arguments(
            posonlyargs=args.posonlyargs,
            args=args.args,
            vararg=args.vararg,
            kwonlyargs=args.kwonlyargs,
            kw_defaults=[],
            kwarg=args.kwarg,
            defaults=[],
        )
    returns = ast.dump(node.returns) if node.returns else ""
    return f"{type(node).__name__}:{node.name}:{ast.dump(args)}:{returns}"


def corruption_problems(
    original: str,
    corrupted: str,
    qualname: str,
    def_line: int,
    *,
    allow_default_change: bool = False,
) -> list[str]:
    """Why ``corrupted`` is not an acceptable corruption of one function (empty when it is)."""
    try:
        old_tree = ast.parse(original)
    except SyntaxError as exc:
        return [f"original file does not parse: {exc.msg}"]
    try:
        new_tree = ast.parse(corrupted)
    except SyntaxError as exc:
        return [f"syntax error at line {exc.lineno}: {exc.msg}"]
    old = find_function(old_tree, qualname, def_line)
    if old is None:
        return [f"target {qualname} not found at line {def_line}"]
    new = find_function(new_tree, qualname, def_line)
    if new is None:
        return [f"the corrupted file no longer defines {qualname} at line {def_line}"]

    old_lines = original.splitlines(keepends=True)
    new_lines = corrupted.splitlines(keepends=True)
    problems: list[str] = []
    outside_same = old_lines[: old.start - 1] == new_lines[: new.start - 1] and (
        old_lines[old.end :] == new_lines[new.end :]
    )
    if not outside_same:
        problems.append("code outside the target function changed")
    if _signature(old.node, with_defaults=not allow_default_change) != _signature(
        new.node, with_defaults=not allow_default_change
    ):
        problems.append("signature changed")
    dump = [ast.dump(d) for d in old.node.decorator_list]
    if dump != [ast.dump(d) for d in new.node.decorator_list]:
        problems.append("decorators changed")
    if ast.get_docstring(old.node, clean=False) != ast.get_docstring(new.node, clean=False):
        problems.append("docstring changed")
    if comments(_segment(new_lines, new)) - comments(_segment(old_lines, old)):
        problems.append("comment added")
    if ast.dump(old.node) == ast.dump(new.node):
        problems.append("no behavioural change (only layout differs)")
    added = new_pyflakes_findings(original, corrupted)
    if added:
        problems.append("adds pyflakes findings: " + ", ".join(added))
    return problems


def splice_function(original: str, qualname: str, def_line: int, new_function: str) -> str:
    """``original`` with the target function (decorators included) replaced by ``new_function``.

    The replacement is re-indented to the target's column and its decorators
    are kept from the original when the replacement omits them, so a model
    only has to send the function itself. Line endings follow the file's.
    """
    span = find_function(ast.parse(original), qualname, def_line)
    if span is None:
        raise ValueError(f"target {qualname} not found at line {def_line}")
    lines = original.splitlines(keepends=True)
    first = lines[span.node.lineno - 1]
    indent = first[: len(first) - len(first.lstrip())]
    newline = "\r\n" if first.endswith("\r\n") else "\n"
    body = textwrap.dedent(new_function.strip("\n").replace("\r\n", "\n")).splitlines()
    if not body or not body[0].lstrip().startswith("@"):
        keep = lines[span.start - 1 : span.node.lineno - 1]
        body = [line.rstrip("\r\n") for line in keep] + [
            indent + line if line else line for line in body
        ]
    else:
        body = [indent + line if line else line for line in body]
    tail = lines[span.end - 1]
    last_newline = newline if tail.endswith(("\n", "\r")) else ""
    replaced = newline.join(body) + last_newline
    return "".join(lines[: span.start - 1]) + replaced + "".join(lines[span.end :])


def changed_lines(original: str, corrupted: str) -> list[int]:
    """1-based lines of ``corrupted`` that differ from ``original`` (a pure deletion marks the
    line that now stands where the deleted lines were)."""
    old = original.splitlines(keepends=True)
    new = corrupted.splitlines(keepends=True)
    lines: set[int] = set()
    for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(
        None, old, new, autojunk=False
    ).get_opcodes():
        if tag != "equal":
            lines.update(range(j1 + 1, j2 + 1) if j2 > j1 else [min(j1 + 1, max(len(new), 1))])
    return sorted(lines)
