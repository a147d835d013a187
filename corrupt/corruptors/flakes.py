"""pyflakes findings of a file, whole or with other functions' and classes' bodies skipped.

A corruption changes one function's body, yet a whole-file pyflakes run
parses and checks every body again, for each of the dozens of mutants a
search tries. pyflakes checks a function's body after the module's top
level (deferred), and what one body does can change another's findings only
through the names it uses or declares ``global``/``nonlocal`` (a class body
binds names in the class alone). So a check that skips every function and
class body but the target's, those enclosing it and those nested in it
(:func:`findings` with ``where``) finds, between an original and
a corrupted file, every new finding the whole-file check would (a skipped
body's findings are the same in both, and its uses only hide findings); it
may find more (an import the target stopped using that another body still
uses). An empty scoped difference therefore settles it; anything else is
confirmed by the whole-file check (:func:`corrupt.corruptors.validate.new_pyflakes_findings`).
"""

from __future__ import annotations

import ast
import copy
import functools
import re
from collections import Counter
from typing import Any

from pyflakes.checker import Checker

from corrupt.source.functions import AstFunction, function_at, parsed

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def findings(
    source: str, where: tuple[str, int] | None = None, *, original: str | None = None
) -> Counter[str] | None:
    """pyflakes messages without positions, so two versions of a file compare.

    ``where`` (qualname, def line): skip the bodies of functions other than
    that one, its enclosing and its nested functions. None when the source
    does not parse, or ``where`` names no function or the file declares
    ``global``/``nonlocal`` names (a skipped body could then bind module names).
    ``original``: a version of the file that ``source`` changes only inside that
    function, on as many lines; its parse is reused and the function alone
    parsed again (parsing was half the cost of a scoped check); ``source``
    itself, whose parse is then the one every stage shares.
    """
    if where is not None and GLOBAL_WORDS.search(source):
        return None
    spliced = _spliced(original, source, *where) if where and original is not None else None
    tree: ast.Module | None
    if spliced:
        tree = spliced[0]
    else:
        tree = _parsed_original(source) if source == original else _parse(source)
    if tree is None:
        return None
    kept: set[int] | None = None
    if where is not None:
        target = spliced[1] if spliced else function_at(tree, where[1], where[0])
        if target is None:
            return None
        kept = _kept(tree, target)
    checker = _Checker(tree, kept)
    return Counter(f"{type(m).__name__}{m.message_args}" for m in checker.messages)


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _parsed_original(source: str) -> ast.Module | None:
    """The shared parse (:func:`~corrupt.source.functions.parsed`): pyflakes only annotates nodes."""
    try:
        return parsed(source)
    except (SyntaxError, ValueError):
        return None


def unseen_by_pyflakes(original: str, source: str, qualname: str, def_line: int) -> bool:
    """Whether ``source`` changes ``original``'s function at ``def_line`` only where
    pyflakes does not look, so that their findings are the same: an operator
    (unless ``%``, ``>>``, ``is`` or ``is not``, which it reads) or a number of
    the same type (unless inside a dict display, whose keys and values it
    compares), each node left on its lines. A third of the operators' mutants
    are such; a scoped check cost them 5 ms each."""
    spliced = _spliced(original, source, qualname, def_line)
    before = _original_function(original, qualname, def_line)
    return spliced is not None and before is not None and _alike(before, spliced[1], False)


READ_OPERATORS = (ast.Mod, ast.RShift, ast.Is, ast.IsNot)
OPERATORS = (ast.operator, ast.cmpop, ast.boolop, ast.unaryop)
NUMBERS = (int, float, complex)


def _alike(old: Any, new: Any, in_dict: bool) -> bool:
    if type(old) is not type(new):
        return (
            isinstance(old, OPERATORS)
            and type(old).__bases__ == type(new).__bases__
            and not isinstance(old, READ_OPERATORS)
            and not isinstance(new, READ_OPERATORS)
        )
    if isinstance(old, list):
        return len(old) == len(new) and all(
            _alike(a, b, in_dict) for a, b in zip(old, new, strict=True)
        )
    if not isinstance(old, ast.AST):
        return bool(old == new)
    if getattr(old, "lineno", None) != getattr(new, "lineno", None) or getattr(
        old, "end_lineno", None
    ) != getattr(new, "end_lineno", None):
        return False
    if (
        isinstance(old, ast.Constant)
        and old.kind == new.kind
        and type(old.value) in NUMBERS
        and type(old.value) is type(new.value)
        and not in_dict
    ):
        return True
    in_dict = in_dict or isinstance(old, ast.Dict)
    return all(_alike(getattr(old, f, None), getattr(new, f, None), in_dict) for f in old._fields)


@functools.lru_cache(maxsize=2)  # a mutant's check of what pyflakes sees, then its findings
def _spliced(
    original: str, source: str, qualname: str, def_line: int
) -> tuple[ast.Module, AstFunction] | None:
    """``original``'s parse with the function at ``def_line`` parsed again from ``source``,
    and that function; None unless ``source`` differs from ``original`` only inside it,
    on as many lines."""
    tree = _parsed_original(original)
    target = _original_function(original, qualname, def_line) if tree else None
    if source == original:
        return (tree, target) if tree and target else None
    old, new = original.splitlines(keepends=True), source.splitlines(keepends=True)
    if tree is None or target is None or target.end_lineno is None or len(old) != len(new):
        return None
    first = min([target.lineno, *(d.lineno for d in target.decorator_list)])
    last = target.end_lineno
    if old[: first - 1] != new[: first - 1] or old[last:] != new[last:]:
        return None
    text = "".join(new[first - 1 : last])
    indented = text[:1] in (" ", "\t")
    fragment = _parse("if 1:\n" + text if indented else text)
    if fragment is None:
        return None
    body = fragment.body[0].body if indented else fragment.body  # type: ignore[attr-defined]
    new_target = body[0]
    if type(new_target) is not type(target) or len(body) != 1 or new_target.name != target.name:
        return None
    ast.increment_lineno(fragment, first - (2 if indented else 1))
    replaced = _replaced(tree, target, new_target)
    return (replaced, new_target) if isinstance(replaced, ast.Module) else None


@functools.lru_cache(maxsize=32)
def _original_function(original: str, qualname: str, def_line: int) -> AstFunction | None:
    """The function in ``original``'s cached parse (found once: finding it walks the file)."""
    tree = _parsed_original(original)
    return function_at(tree, def_line, qualname) if tree else None


def _replaced(node: ast.AST, target: ast.AST, new: ast.AST) -> ast.AST | None:
    """A copy of ``node`` with ``target`` replaced by ``new``, sharing every other subtree;
    None when ``target`` is not in it. Only the statements whose lines hold the
    target's are searched."""
    if node is target:
        return new
    line = getattr(target, "lineno", 0)
    for field, value in ast.iter_fields(node):
        children = value if isinstance(value, list) else [value]
        for index, child in enumerate(children):
            if not isinstance(child, ast.AST):
                continue
            if not getattr(child, "lineno", line) <= line <= getattr(child, "end_lineno", line):
                continue
            replaced = _replaced(child, target, new)
            if replaced is not None:
                copied = copy.copy(node)
                if isinstance(value, list):
                    replaced = [*value[:index], replaced, *value[index + 1 :]]  # type: ignore[assignment]
                setattr(copied, field, replaced)
                return copied
    return None


GLOBAL_WORDS = re.compile(r"\b(global|nonlocal)\b")


def _kept(tree: ast.Module, target: ast.AST) -> set[int]:
    """ids of the function and class nodes whose bodies a scoped check runs:
    ``target``'s, those nested in it and those enclosing it (found by descending
    only into nodes whose lines hold the target's ``def``)."""
    def_line = getattr(target, "lineno", 0)
    kept = {id(n) for n in ast.walk(target) if isinstance(n, (*FUNCTIONS, ast.ClassDef))}
    around: list[ast.AST] = [tree]
    while around:
        node = around.pop()
        if isinstance(node, (*FUNCTIONS, ast.ClassDef)):
            kept.add(id(node))
        around += [
            child
            for child in ast.iter_child_nodes(node)
            if child is not target
            and getattr(child, "lineno", def_line) <= def_line <= getattr(child, "end_lineno", 0)
        ]
    return kept


class _Checker(Checker):  # type: ignore[misc]  # pyflakes ships no type information
    """pyflakes' checker that does not defer (so never runs) the bodies not ``kept``,
    and skips the bodies of classes not ``kept`` (their names bind in the class
    alone; their uses, like a body's, only hide findings)."""

    def __init__(self, tree: ast.Module, kept: set[int] | None) -> None:
        self._kept, self._skipping = kept, False
        super().__init__(tree, filename="<corrupt>")

    def CLASSDEF(self, node: Any) -> None:  # noqa: N802 - pyflakes' handler name
        if self._kept is not None and id(node) not in self._kept:
            node = copy.copy(node)  # the tree is shared with other checks: never edit it
            node.body = []
        super().CLASSDEF(node)

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
