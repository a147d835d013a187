"""Checks that a corrupted file is a fair task: nothing outside the behaviour gives it away.

A solver should find the bug by reasoning about behaviour, not by spotting
tells. The operators' own check (:func:`mutant_problem`: compiles, only the
target changed, signature/decorators/docstring kept, not a no-op) is extended
here with the tells a whole-file view catches: new pyflakes findings (an unused
or undefined name points straight at the edit) and added comments. Adversarial
search applies :func:`tells` to operator mutants (already checked by the
operators); the LLM corruptor applies :func:`corruption_problems` to every
attempt.
"""

from __future__ import annotations

import functools
import io
import textwrap
import tokenize
from collections import Counter

from corrupt.corruptors.anomalies import new_anomalies
from corrupt.corruptors.flakes import findings, unseen_by_pyflakes
from corrupt.corruptors.operators import mutant_problem
from corrupt.source.edits import common_ends, split_lines
from corrupt.source.functions import extent, function_at, parsed, span_of


@functools.lru_cache(maxsize=32)
def _original_findings(original: str, where: tuple[str, int] | None) -> Counter[str] | None:
    """An original file's findings, computed once: a search checks dozens of mutants
    against the same file (callers only subtract from these)."""
    return findings(original, where, original=original)


@functools.lru_cache(maxsize=8)
def _original_comments(original: str) -> Counter[str]:
    return comments(original)


def new_pyflakes_findings(
    original: str, corrupted: str, where: tuple[str, int] | None = None
) -> list[str]:
    """Findings the corruption adds (an unused variable, an undefined name...).

    ``where`` (qualname, def line) names the one function the corruption
    changed: a check that skips the other bodies then settles most
    corruptions, and only a difference there is confirmed on the whole file
    (:mod:`corrupt.corruptors.flakes`).
    """
    if where is not None:
        if unseen_by_pyflakes(original, corrupted, *where):
            return []
        before = _original_findings(original, where)
        after = findings(corrupted, where, original=original)
        if before is not None and after is not None and not after - before:
            return []
    added = (findings(corrupted) or Counter()) - (_original_findings(original, None) or Counter())
    return sorted(added.elements())


def comments(source: str) -> Counter[str]:
    """The comment tokens of a piece of code (empty if it does not tokenize)."""
    return _tokenized_comments(source) or Counter()


LEXICAL = frozenset("#'\"\\")  # the characters that start comments and strings or escape


def comment_added(original: str, corrupted: str, where: tuple[str, int] | None = None) -> bool:
    """Whether ``corrupted`` has a comment ``original`` lacks.

    Tokenizing the whole file for every mutant cost more than screening it
    warm. When neither version of the changed lines holds ``#``, a quote or a
    backslash, the lines around them tokenize alike (no string or comment
    starts, ends or escapes inside the change), so no comment can be new.
    Else, with ``where`` (qualname, def line of the one function that
    changed), only that function is tokenized in each version: a whole
    statement starts and ends outside any string, so the lines around it
    hold the same comments in both.
    """
    old, new = split_lines(original), split_lines(corrupted)
    head, tail = common_ends(old, new)
    changed = "".join(old[head : len(old) - tail]) + "".join(new[head : len(new) - tail])
    if LEXICAL.isdisjoint(changed):
        return False
    function = _changed_function(original, corrupted, where)
    if function is not None:
        before, after = (_tokenized_comments(text) for text in function)
        if before is not None and after is not None:
            return bool(after - before)
    return bool(comments(corrupted) - _original_comments(original))


def _changed_function(
    original: str, corrupted: str, where: tuple[str, int] | None
) -> tuple[str, str] | None:
    """The text of the function ``where`` names in each version, when the change lies
    inside it (None: no ``where``, the function is not found, or the change reaches out)."""
    region = _function_lines(original, where) if where is not None else None
    if region is None:
        return None
    old, new = split_lines(original), split_lines(corrupted)
    head, tail = common_ends(old, new)
    first, last = region
    if first - 1 > head or tail < len(old) - last:
        return None
    return "".join(old[first - 1 : last]), "".join(new[first - 1 : last + len(new) - len(old)])


@functools.lru_cache(maxsize=8)
def _function_lines(original: str, where: tuple[str, int]) -> tuple[int, int] | None:
    """The first and last line of the function ``where`` names (None: not found)."""
    try:
        node = function_at(parsed(original), where[1], where[0])
    except (SyntaxError, ValueError):
        return None
    return extent(node) if node is not None else None


def _tokenized_comments(source: str) -> Counter[str] | None:
    """:func:`comments`, None when ``source`` does not tokenize."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    return Counter(t.string.strip() for t in tokens if t.type == tokenize.COMMENT)


def new_anomalies_in(
    original: str, corrupted: str, where: tuple[str, int] | None = None
) -> list[str]:
    """The own-check anomalies (:func:`corrupt.corruptors.anomalies.own_findings`) the
    corruption adds. Each looks at one expression, so with ``where`` only the changed
    function is parsed in each version (a whole file's parse, per mutant, costs about
    what a warm screening run does)."""
    function = _changed_function(original, corrupted, where)
    if function is not None:
        before, after = (textwrap.dedent(text) for text in function)
        if _decorated_def(before) and _decorated_def(after):
            return new_anomalies(before, after, ruff=False)
    return new_anomalies(original, corrupted, ruff=False)


def _decorated_def(source: str) -> bool:
    return source.lstrip().startswith(("def ", "async def ", "@"))


def tells(original: str, corrupted: str, where: tuple[str, int] | None = None) -> list[str]:
    """Give-aways a reader could spot without running anything: new comments, anomalies no
    person writes, new pyflakes findings. ``where``: (qualname, def line) of the only
    function that changed."""
    problems = []
    if comment_added(original, corrupted, where):
        problems.append("comment added")
    anomalies = new_anomalies_in(original, corrupted, where)
    if anomalies:
        problems.append("anomaly: " + ", ".join(anomalies))
    added = new_pyflakes_findings(original, corrupted, where)
    if added:
        problems.append("adds pyflakes findings: " + ", ".join(added))
    return problems


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
        before = function_at(parsed(original), def_line, qualname)
    except SyntaxError as exc:
        return [f"original file does not parse: {exc.msg}"]
    if before is None:
        return [f"target {qualname} not found at line {def_line}"]
    problem = mutant_problem(
        original, corrupted, qualname, before, allow_defaults=allow_default_change
    )
    return [problem] if problem else tells(original, corrupted, (qualname, def_line))


def splice_function(original: str, qualname: str, def_line: int, new_function: str) -> str:
    """``original`` with the target function (decorators included) replaced by ``new_function``.

    The replacement is re-indented to the target's column and its decorators
    are kept from the original when the replacement omits them, so a model
    only has to send the function itself. Line endings follow the file's.
    """
    node = function_at(parsed(original), def_line, qualname)
    if node is None:
        raise ValueError(f"target {qualname} not found at line {def_line}")
    lines = original.splitlines(keepends=True)
    span = span_of(node, lines)
    first = lines[span.def_line - 1]
    indent = first[: len(first) - len(first.lstrip())]
    newline = "\r\n" if first.endswith("\r\n") else "\n"
    body = textwrap.dedent(new_function.strip("\n").replace("\r\n", "\n")).splitlines()
    if not body or not body[0].lstrip().startswith("@"):
        keep = lines[span.start - 1 : span.def_line - 1]
        body = [line.rstrip("\r\n") for line in keep] + [
            indent + line if line else line for line in body
        ]
    else:
        body = [indent + line if line else line for line in body]
    tail = lines[span.end - 1]
    last_newline = newline if tail.endswith(("\n", "\r")) else ""
    replaced = newline.join(body) + last_newline
    return "".join(lines[: span.start - 1]) + replaced + "".join(lines[span.end :])
