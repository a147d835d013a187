"""pyflakes findings of a file, whole or with other functions' bodies skipped.

A corruption changes one function's body, yet a whole-file pyflakes run
checks every body again: half the host's screening time went there. pyflakes
checks a function's body after the module's top level (deferred), and what
one body does can change another's findings only through the names it uses
or declares ``global``/``nonlocal``. So a check that skips every body but the
target's, its enclosing functions' and its nested ones (:func:`scoped_findings`)
finds, between an original and a corrupted file, every new finding the
whole-file check would (a skipped body's findings are the same in both, and
its uses only hide findings); it may find more (an import the target stopped
using that another body still uses). An empty scoped difference therefore
settles it; anything else is confirmed by the whole-file check.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from typing import Any

from pyflakes.checker import Checker

from corrupt.source.functions import function_at

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def findings(source: str, where: tuple[str, int] | None = None) -> Counter[str] | None:
    """pyflakes messages without positions, so two versions of a file compare.

    ``where`` (qualname, def line): skip the bodies of functions other than
    that one, its enclosing and its nested functions. None when the source
    does not parse, or ``where`` names no function or the file declares
    ``global``/``nonlocal`` names (a skipped body could then bind module names).
    """
    if where is not None and GLOBAL_WORDS.search(source):
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    kept: set[int] | None = None
    if where is not None:
        kept = _kept(tree, *where)
        if kept is None:
            return None
    checker = _Checker(tree, kept)
    return Counter(f"{type(m).__name__}{m.message_args}" for m in checker.messages)


GLOBAL_WORDS = re.compile(r"\b(global|nonlocal)\b")


def _kept(tree: ast.Module, qualname: str, def_line: int) -> set[int] | None:
    """ids of the function nodes whose bodies a scoped check runs: the target's,
    those nested in it and those enclosing it (found by descending only into
    nodes whose lines hold the target's ``def``)."""
    target = function_at(tree, def_line, qualname)
    if target is None:
        return None
    kept = {id(n) for n in ast.walk(target) if isinstance(n, FUNCTIONS)}
    around: list[ast.AST] = [tree]
    while around:
        node = around.pop()
        if isinstance(node, FUNCTIONS):
            kept.add(id(node))
        around += [
            child
            for child in ast.iter_child_nodes(node)
            if child is not target
            and getattr(child, "lineno", def_line) <= def_line <= getattr(child, "end_lineno", 0)
        ]
    return kept


class _Checker(Checker):  # type: ignore[misc]  # pyflakes ships no type information
    """pyflakes' checker that does not defer (so never runs) the bodies not ``kept``."""

    def __init__(self, tree: ast.Module, kept: set[int] | None) -> None:
        self._kept, self._skipping = kept, False
        super().__init__(tree, filename="<corrupt>")

    def LAMBDA(self, node: Any) -> None:  # noqa: N802 - pyflakes' handler name
        skipping = self._skipping  # a lambda in a default sits inside another definition
        self._skipping = self._kept is not None and id(node) not in self._kept
        try:
            super().LAMBDA(node)
        finally:
            self._skipping = skipping

    def deferFunction(self, callable: Any) -> None:  # noqa: N802 - pyflakes' method name
        if not self._skipping:
            super().deferFunction(callable)
