"""The operator contract and what operators know about the function they break.

An operator is a small class that looks at one function and lists every *site*:
one node of the function's body plus the node that replaces it (or removal).
Each site becomes one single-site mutant. Operators never see the rest of the
module, so they cannot change it; :mod:`corrupt.corruptors.operators.mutate`
checks every mutant anyway.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import libcst as cst

NESTED_SCOPES = (
    cst.FunctionDef,
    cst.ClassDef,
    cst.Lambda,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
)
Replacement = cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]


@dataclass(frozen=True)
class Site:
    """Replace ``node`` (a node of the target function) by ``replacement``."""

    node: cst.CSTNode
    replacement: Replacement
    description: str


class Operator:
    """One kind of bug. Subclasses set the tags and implement :meth:`sites`."""

    name: ClassVar[str]
    odc_category: ClassVar[str]  # Assignment | Checking | Algorithm | ...
    odc_subcategory: ClassVar[str]
    hef_category: ClassVar[str]  # HumanEvalFix: value/operator/variable/function misuse, ...
    changes_defaults: ClassVar[bool] = False  # the bug *is* a default value

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<operator {self.name}>"


def _is_docstring(statement: cst.CSTNode) -> bool:
    if isinstance(statement, cst.SimpleStatementLine):
        statement = statement.body[0]
    return isinstance(statement, cst.Expr) and isinstance(
        statement.value, cst.SimpleString | cst.ConcatenatedString
    )


@dataclass
class FunctionContext:
    """The target function's body in source order, with parents and name bindings.

    The docstring is left out (it is the specification, never a bug site) and so
    are the signature and decorators, which operators must not touch unless
    their bug is a default value.
    """

    function: cst.FunctionDef
    nodes: list[cst.CSTNode] = field(default_factory=list)
    _parent: dict[int, cst.CSTNode] = field(default_factory=dict)
    _index: dict[int, int] = field(default_factory=dict)
    _nested: set[int] = field(default_factory=set)
    _end: dict[int, int] = field(default_factory=dict)
    _by_type: dict[tuple[type[cst.CSTNode], ...], list[cst.CSTNode]] = field(default_factory=dict)
    _variables: list[cst.Name] | None = None
    _loads: dict[str, list[cst.Name]] | None = None

    @classmethod
    def build(cls, function: cst.FunctionDef) -> FunctionContext:
        ctx = cls(function)
        collector = _Collector(ctx)
        body = function.body
        statements = list(body.body)
        if statements and _is_docstring(statements[0]):
            statements = statements[1:]
        ctx._parent[id(body)] = function
        for statement in statements:
            ctx._parent[id(statement)] = body
            statement.visit(collector)
        return ctx

    def replaced(self, node: cst.CSTNode, replacement: Replacement) -> cst.FunctionDef:
        """The function with ``node`` replaced (or removed), rebuilding only its ancestors.

        libcst's ``deep_replace`` rebuilds the whole tree and cost over 10 ms a
        mutant; copying the path from ``node`` up to the function is enough.
        """
        while node is not self.function:
            parent = self.parent(node)
            if parent is None:
                raise ValueError("node is not inside the target function")
            replacement = _with_child(parent, node, replacement)
            node = parent
        assert isinstance(replacement, cst.FunctionDef)
        return replacement

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._parent.get(id(node))

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        current = self.parent(node)
        while current is not None:
            yield current
            current = self.parent(current)

    def index(self, node: cst.CSTNode) -> int:
        """Source-order position of ``node`` within the body."""
        return self._index[id(node)]

    def end_index(self, node: cst.CSTNode) -> int:
        """Source-order position just after the last descendant of ``node``."""
        return self._end[id(node)]

    def in_nested_scope(self, node: cst.CSTNode) -> bool:
        return id(node) in self._nested

    def of_type(self, *types: type[cst.CSTNode]) -> list[Any]:
        key = types
        if key not in self._by_type:
            self._by_type[key] = [node for node in self.nodes if isinstance(node, types)]
        return self._by_type[key]

    # --- names -----------------------------------------------------------------

    def parameters(self) -> list[str]:
        params = self.function.params
        found = [p.name.value for p in (*params.posonly_params, *params.params)]
        found += [p.name.value for p in params.kwonly_params]
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                found.append(star.name.value)
        return found

    def variables(self) -> list[cst.Name]:
        """Name nodes that are local or parameter variables of the function's own scope."""
        if self._variables is None:
            self._variables = [
                node
                for node in self.of_type(cst.Name)
                if not self.in_nested_scope(node) and self.name_role(node) in ("load", "store")
            ]
        return self._variables

    def name_role(self, name: cst.Name) -> str:
        """``load``, ``store``, ``del`` or ``other`` (attribute, keyword, def name...)."""
        child: cst.CSTNode = name
        parent = self.parent(name)
        while isinstance(parent, cst.Element | cst.StarredElement | cst.Tuple | cst.List):
            child, parent = parent, self.parent(parent)
        if isinstance(parent, cst.AssignTarget | cst.AnnAssign | cst.AugAssign):
            return "store" if parent.target is child else "load"
        if isinstance(parent, cst.For | cst.CompFor):
            return "store" if parent.target is child else "load"
        if isinstance(parent, cst.NamedExpr):
            return "store" if parent.target is child else "load"
        if isinstance(parent, cst.AsName):
            return "store"
        if isinstance(parent, cst.Del):
            return "del"
        if child is not name:
            return "load"
        if isinstance(parent, cst.Attribute) and parent.attr is name:
            return "other"
        if isinstance(parent, cst.Arg) and parent.keyword is name:
            return "other"
        other = (
            cst.Param,
            cst.FunctionDef,
            cst.ClassDef,
            cst.ImportAlias,
            cst.NameItem,
            cst.ImportFrom,
        )
        return "other" if isinstance(parent, other) else "load"

    def bindings(self) -> dict[str, int]:
        """Each local name and the source-order position of its first binding (params: -1)."""
        bound = dict.fromkeys(self.parameters(), -1)
        for node in self.variables():
            if self.name_role(node) == "store":
                bound.setdefault(node.value, self.index(node))
        return bound

    def loads(self, name: str) -> list[cst.Name]:
        if self._loads is None:
            self._loads = {}
            for node in self.variables():
                if self.name_role(node) == "load":
                    self._loads.setdefault(node.value, []).append(node)
        return self._loads.get(name, [])


def _with_child(parent: cst.CSTNode, child: cst.CSTNode, new: Replacement) -> cst.CSTNode:
    for item in dataclasses.fields(parent):
        value = getattr(parent, item.name)
        if value is child:
            if not isinstance(new, cst.CSTNode):
                raise ValueError(
                    f"cannot remove or repeat the {item.name} of {type(parent).__name__}"
                )
            return parent.with_changes(**{item.name: new})
        if isinstance(value, tuple | list) and any(v is child for v in value):
            kept: list[cst.CSTNode] = []
            for v in value:
                if v is not child:
                    kept.append(v)
                elif isinstance(new, cst.FlattenSentinel):
                    kept.extend(new.nodes)
                elif isinstance(new, cst.CSTNode):
                    kept.append(new)
            return parent.with_changes(**{item.name: kept})
    raise ValueError(f"{type(child).__name__} is not a child of {type(parent).__name__}")


class _Collector(cst.CSTVisitor):
    def __init__(self, ctx: FunctionContext) -> None:
        self.ctx = ctx
        self.stack: list[cst.CSTNode] = []
        self.nested_depth = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        ctx = self.ctx
        if self.stack:
            ctx._parent[id(node)] = self.stack[-1]
        ctx._index[id(node)] = len(ctx.nodes)
        ctx.nodes.append(node)
        if self.nested_depth:
            ctx._nested.add(id(node))
        if isinstance(node, NESTED_SCOPES):
            self.nested_depth += 1
        self.stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.ctx._end[id(original_node)] = len(self.ctx.nodes)
        self.stack.pop()
        if isinstance(original_node, NESTED_SCOPES):
            self.nested_depth -= 1


# --- small builders shared by operators ------------------------------------------

_ATOMS = (
    cst.Name,
    cst.Attribute,
    cst.Call,
    cst.Subscript,
    cst.Integer,
    cst.Float,
    cst.SimpleString,
    cst.List,
    cst.Tuple,
    cst.Dict,
    cst.Set,
)


def parenthesized(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` wrapped in parentheses unless it binds tighter than any operator."""
    if isinstance(expr, _ATOMS) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def negated(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``not expr``, or ``expr`` without its ``not``; parentheses only where needed."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        inner = expr.expression
        return inner if not expr.lpar else inner.with_changes(lpar=expr.lpar, rpar=expr.rpar)
    if expr.lpar:
        # ``while(x)`` becomes ``while(not x)``: a ``not`` outside the parentheses would
        # need a space after the keyword that the original never had.
        bare = expr.with_changes(lpar=[], rpar=[])
        inner = bare if isinstance(bare, cst.Comparison) else parenthesized(bare)
        return cst.UnaryOperation(
            operator=cst.Not(), expression=inner, lpar=expr.lpar, rpar=expr.rpar
        )
    inner = expr if isinstance(expr, cst.Comparison) else parenthesized(expr)
    return cst.UnaryOperation(operator=cst.Not(), expression=inner)


def spaced(whitespace: cst.BaseParenthesizableWhitespace) -> cst.BaseParenthesizableWhitespace:
    """At least one space: keywords such as ``is`` or ``not in`` cannot touch their operands."""
    if isinstance(whitespace, cst.SimpleWhitespace) and not whitespace.value:
        return cst.SimpleWhitespace(" ")
    return whitespace


def code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def block_statements(ctx: FunctionContext, statement: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The statements of the indented block holding ``statement`` (docstring excluded)."""
    block = ctx.parent(statement)
    if not isinstance(block, cst.IndentedBlock):
        return None
    return [s for s in block.body if not _is_docstring(s)]
