"""Lexical scopes and the names each binds: where a name read in a function, class or module lives.

Extraction resolves every name to a variable key (``pkg.mod.f.x``) while it
walks a file, so it needs to know, before reading a body, which names that
body binds locally (Python's scoping is decided per body, not per statement).
:class:`Scope` is one level of that nesting; :func:`declared` finds a body's
local names from its statements alone.
"""

from __future__ import annotations

import ast
import builtins
from typing import Any

from corrupt.graph.facts import FunctionInfo

BUILTIN_NAMES = frozenset(dir(builtins))


class Scope:
    """A lexical scope: where its names live (``prefix``) and who owns its calls."""

    def __init__(
        self,
        kind: str,
        prefix: str,
        owner: str,
        names: frozenset[str] = frozenset(),
        parent: Scope | None = None,
        cls: str | None = None,
        self_key: str | None = None,
    ) -> None:
        self.kind = kind  # module | class | function | lambda | comprehension
        self.prefix = prefix
        self.owner = owner
        self.names = names
        self.parent = parent
        self.cls = cls  # for methods: the qualname of the class they are defined in
        self.self_key = self_key  # for methods: the variable holding self/cls
        self.is_generator = False
        self.info: FunctionInfo | None = None
        self.deepest = 0  # deepest nesting of compound statements seen in a function

    def function(self) -> Scope | None:
        """The function whose body this scope's code belongs to (through lambdas/comprehensions)."""
        current: Scope | None = self
        while current is not None and current.kind in ("lambda", "comprehension"):
            current = current.parent
        return current if current is not None and current.kind == "function" else None


def _target_names(target: ast.expr, into: set[str]) -> None:
    if isinstance(target, ast.Name):
        into.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _target_names(element, into)
    elif isinstance(target, ast.Starred):
        _target_names(target.value, into)


def declared(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module, has_walrus: bool
) -> set[str]:
    """Names a function or class body binds locally (minus global/nonlocal ones).

    Only statements are walked, which is several times faster than visiting
    every expression; names bound by ``:=`` inside expressions need the full
    walk, so callers say whether the body's text contains one.
    """
    bound: set[str] = set()
    declared: set[str] = set()
    stack: list[Any] = list(node.body)
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            bound.add(current.name)
            continue
        if kind is ast.Assign:
            for target in current.targets:
                _target_names(target, bound)
        elif kind in (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor):
            _target_names(current.target, bound)
        elif kind in (ast.With, ast.AsyncWith):
            for item in current.items:
                if item.optional_vars is not None:
                    _target_names(item.optional_vars, bound)
        elif kind in (ast.Import, ast.ImportFrom):
            for alias in current.names:
                if alias.name != "*":
                    bound.add(alias.asname or alias.name.split(".")[0])
        elif kind in (ast.Global, ast.Nonlocal):
            declared.update(current.names)
        elif kind is ast.ExceptHandler and current.name:
            bound.add(current.name)
        elif kind is ast.Delete:
            for target in current.targets:
                _target_names(target, bound)
        elif kind is ast.match_case:
            for pattern in ast.walk(current.pattern):
                if isinstance(pattern, (ast.MatchAs, ast.MatchStar)) and pattern.name:
                    bound.add(pattern.name)
                elif isinstance(pattern, ast.MatchMapping) and pattern.rest:
                    bound.add(pattern.rest)
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(current, name, None)
            if children:
                stack.extend(children)
    if has_walrus:
        for statement in node.body:
            for inner in ast.walk(statement):
                if isinstance(inner, ast.NamedExpr) and isinstance(inner.target, ast.Name):
                    bound.add(inner.target.id)
    return bound - declared


def parameters(args: ast.arguments) -> tuple[list[ast.arg], list[ast.arg]]:
    """A signature's positional parameters (positional-only ones first) and keyword-only ones."""
    return [*args.posonlyargs, *args.args], list(args.kwonlyargs)
