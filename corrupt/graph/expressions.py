"""The expression half of extraction: expressions read into symbolic values, with the constraints they emit.

:class:`ExpressionReader` turns each expression into the symbolic value
:mod:`corrupt.graph.resolve` evaluates (``("var", key)``, ``("attr", base,
name)``, ``("seq", key, elements)``...), emitting the calls, implicit protocol
calls and operators it contains, and binds assignment targets to values. The
statement visitor in :mod:`corrupt.graph.extract` builds on it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any, cast

from corrupt.graph.facts import (
    ELEMS,
    ITEM,
    KEYS,
    OPAQUE,
    RETURN,
    STARRED,
    YIELD,
    Expr,
    FunctionInfo,
    ModuleFacts,
)
from corrupt.graph.scopes import BUILTIN_NAMES, Scope, parameters

BINARY = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.MatMult: "matmul",
    ast.Div: "truediv",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.Pow: "pow",
    ast.LShift: "lshift",
    ast.RShift: "rshift",
    ast.BitOr: "or",
    ast.BitXor: "xor",
    ast.BitAnd: "and",
}
_COMPARE = {
    ast.Eq: ("__eq__", "__eq__"),
    ast.NotEq: ("__ne__", "__ne__"),
    ast.Lt: ("__lt__", "__gt__"),
    ast.LtE: ("__le__", "__ge__"),
    ast.Gt: ("__gt__", "__lt__"),
    ast.GtE: ("__ge__", "__le__"),
}
_NEVER_INSTANCES = {"const", "seq"}  # literals: their operators are the builtins' own
_UNARY = {ast.USub: "__neg__", ast.UAdd: "__pos__", ast.Invert: "__invert__"}
# f-string conversions: ``{x}`` formats (object.__format__ falls back to str, then repr)
_FORMAT_METHODS = {
    -1: ("__format__", "__str__", "__repr__"),
    115: ("__str__", "__repr__"),
    114: ("__repr__",),
    97: ("__repr__",),
}
_MAPPING_TYPES = {"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict"}
_CONTAINER_TYPES = _MAPPING_TYPES | {
    "list",
    "List",
    "Sequence",
    "MutableSequence",
    "Iterable",
    "Iterator",
    "Collection",
    "set",
    "Set",
    "frozenset",
    "FrozenSet",
    "AbstractSet",
    "tuple",
    "Tuple",
    "deque",
}
_UNION_WRAPPERS = {"Optional", "Union", "Annotated", "ClassVar", "Final", "Type", "type"}


def _slot(key: object) -> str | None:
    """The variable suffix of a literal's element at a constant key (``None``: no such slot)."""
    if isinstance(key, str) or type(key) is int:
        return ITEM.format(key)
    return None


def decorator_name(node: ast.expr) -> str | None:
    """The last name of a decorator or annotation head (``@a.b(...)``: ``b``), if it has one."""
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    return None


class ExpressionReader:
    """Reads expressions and assignment targets of one module into values and constraints."""

    def __init__(self, module: str, file: str, is_package: bool, lines: list[str]):
        self.facts = ModuleFacts(module, file, is_package, len(lines))
        self.module = module
        self.sites = 0
        self.module_names: frozenset[str] = frozenset()  # names the module binds
        self.try_key: str | None = None  # the innermost ``try`` body being read

    # -- helpers ---------------------------------------------------------
    def emit(self, *constraint: Any) -> None:
        self.facts.constraints.append(constraint)

    def new_site(self, tag: str = "call") -> str:
        self.sites += 1
        return f"<{tag}:{self.module}:{self.sites}>"

    def dunder(
        self, scope: Scope, value: Expr | None, names: tuple[str, ...], *args: Expr | None
    ) -> Expr | None:
        """An implicit protocol call on ``value``; what it returns."""
        if value is None or value[0] in _NEVER_INSTANCES:
            return None
        site = self.new_site()
        self.emit("dunder", site, scope.owner, value, names, args, self.try_key)
        return ("var", site)

    def iterate(self, value: Expr | None, scope: Scope, is_async: bool = False) -> Expr | None:
        """The elements a ``for`` over ``value`` sees, calling ``__iter__`` and ``__next__``."""
        if value is None:
            return None
        names = ("__aiter__", "__anext__") if is_async else ("__iter__", "__next__")
        iterator = self.dunder(scope, value, names[:1])
        following = self.dunder(scope, iterator, names[1:])
        return ("union", (("iter", value), following, ("yields", iterator)))

    def lookup(self, scope: Scope, name: str) -> str:
        current, first = scope, True
        while current.kind != "module":
            if (first or current.kind != "class") and name in current.names:
                return f"{current.prefix}.{name}"
            current, first = cast(Scope, current.parent), False  # only the module has none
        return f"{self.module}.{name}"

    def operator(
        self,
        scope: Scope,
        left: Expr | None,
        right: Expr | None,
        names: tuple[str, ...],
        reflected: tuple[str, ...],
    ) -> Expr | None:
        if all(side is None or side[0] in _NEVER_INSTANCES for side in (left, right)):
            return None
        site = self.new_site()
        self.emit("binop", site, scope.owner, left, right, names, reflected, self.try_key)
        return ("var", site)

    # -- bindings ----------------------------------------------------------
    def flow(self, key: str, value: Expr | None) -> None:
        if value is not None:
            self.emit("assign", key, value)

    def bind(self, target: ast.expr, value: Expr | None, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            self.flow(self.lookup(scope, target.id), value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            starred = any(isinstance(e, ast.Starred) for e in target.elts)
            literal = value is not None and value[0] == "seq" and len(value[2]) == len(target.elts)
            for position, element in enumerate(target.elts):
                if literal and not starred and value is not None:
                    self.bind(element, value[2][position], scope)
                elif not starred:
                    self.bind(element, value and ("unpack", value, position), scope)
                else:
                    inner = element.value if isinstance(element, ast.Starred) else element
                    self.bind(inner, value and ("iter", value), scope)
        elif isinstance(target, ast.Attribute):
            owner = target.value
            if (
                isinstance(owner, ast.Name)
                and scope.self_key is not None
                and self.lookup(scope, owner.id) == scope.self_key
            ):
                self.flow(f"{scope.cls}.{target.attr}", value)
            else:
                base = self.expr(owner, scope)
                if base is not None and value is not None:
                    self.emit("setattr", base, target.attr, value)
        elif isinstance(target, ast.Subscript):
            base = self.expr(target.value, scope)
            index = self.expr(target.slice, scope)
            self.dunder(scope, base, ("__setitem__",), index, value)
            if base is not None and value is not None:
                key = index[1] if index is not None and index[0] == "const" else None
                self.emit("setitem", base, value, _slot(key), index)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, value, scope)

    def annotation(self, node: ast.expr, scope: Scope) -> Expr | None:
        """Instances of the project classes a type annotation names (no calls emitted)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(node, (ast.Name, ast.Attribute)):
            path = []
            while isinstance(node, ast.Attribute):
                path.append(node.attr)
                node = node.value
            if not isinstance(node, ast.Name):
                return None
            expr: Expr = ("var", self.lookup(scope, node.id))
            for attr in reversed(path):
                expr = ("attr", expr, attr)
            return ("inst", expr)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            parts = (self.annotation(node.left, scope), self.annotation(node.right, scope))
            return ("union", parts) if any(parts) else None
        if isinstance(node, ast.Subscript) and decorator_name(node.value) in _CONTAINER_TYPES:
            # ``list[Item]``, ``dict[str, Item]``...: a container whose elements are instances
            inner = node.slice
            elements = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            if decorator_name(node.value) in _MAPPING_TYPES and len(elements) == 2:
                key = self.new_site("dict")  # keys and values as a dict literal keeps them
                self.flow(f"{key}.{KEYS}", self.annotation(elements[0], scope))
                self.flow(f"{key}.{ELEMS}", self.annotation(elements[1], scope))
                self.emit("assign", f"{key}.{OPAQUE}", ("val", True))
                return ("seq", key, ())
            key = self.new_site("typed")
            for element in elements:
                self.flow(f"{key}.{ELEMS}", self.annotation(element, scope))
            return ("seq", key, ())
        if isinstance(node, ast.Subscript) and decorator_name(node.value) in _UNION_WRAPPERS:
            inner = node.slice
            elements = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            if decorator_name(node.value) == "Annotated":
                elements = elements[:1]
            members = tuple(self.annotation(e, scope) for e in elements)
            if decorator_name(node.value) in ("Type", "type"):
                return None
            return ("union", members) if any(members) else None
        return None

    # -- expressions -------------------------------------------------------
    def expr(self, node: ast.expr | None, scope: Scope) -> Expr | None:
        if node is None:
            return None
        method = _EXPR_HANDLERS.get(type(node))
        if method is not None:
            return method(self, node, scope)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child, scope)
            elif isinstance(child, ast.keyword):
                self.expr(child.value, scope)
        return None

    def expr_Name(self, node: ast.Name, scope: Scope) -> Expr:
        key = self.lookup(scope, node.id)
        if (
            node.id in BUILTIN_NAMES
            and node.id not in self.module_names
            and key == f"{self.module}.{node.id}"
        ):
            return ("builtin", node.id)
        return ("var", key)

    def expr_Constant(self, node: ast.Constant, scope: Scope) -> Expr | None:
        if type(node.value) in (str, int, bytes):
            return ("const", node.value)
        return None

    def expr_BinOp(self, node: ast.BinOp, scope: Scope) -> Expr | None:
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        name = BINARY[type(node.op)]
        return self.operator(scope, left, right, (f"__{name}__",), (f"__r{name}__",))

    def expr_Compare(self, node: ast.Compare, scope: Scope) -> None:
        left = self.expr(node.left, scope)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.expr(comparator, scope)
            if type(op) in _COMPARE:
                name, reflected = _COMPARE[type(op)]
                names = (name, "__eq__") if name == "__ne__" else (name,)
                self.operator(scope, left, right, names, (reflected,))
            elif isinstance(op, (ast.In, ast.NotIn)):
                self.dunder(scope, right, ("__contains__",), left)
            left = right

    def expr_UnaryOp(self, node: ast.UnaryOp, scope: Scope) -> Expr | None:
        value = self.expr(node.operand, scope)
        if isinstance(node.op, ast.USub) and value is not None and value[0] == "const":
            return ("const", -value[1]) if type(value[1]) is int else None  # ``x[-1]``
        name = _UNARY.get(type(node.op))
        return self.dunder(scope, value, (name,)) if name else None

    def expr_FormattedValue(self, node: ast.FormattedValue, scope: Scope) -> None:
        value = self.expr(node.value, scope)
        self.expr(node.format_spec, scope)
        self.dunder(scope, value, _FORMAT_METHODS.get(node.conversion, ("__format__",)))

    def expr_Attribute(self, node: ast.Attribute, scope: Scope) -> Expr | None:
        base = self.expr(node.value, scope)
        if base is None:
            return None
        result = ("attr", base, node.attr)
        if isinstance(node.ctx, ast.Load):
            self.emit("access", scope.owner, result)
        return result

    def expr_Call(self, node: ast.Call, scope: Scope) -> Expr | None:
        func = node.func
        if isinstance(func, ast.Name) and func.id == "super" and scope.cls and scope.self_key:
            for arg in node.args:
                self.expr(arg, scope)
            return ("super", scope.cls, scope.self_key)
        callee = self.expr(func, scope)
        args = tuple(
            STARRED if isinstance(a, ast.Starred) else self.expr(a, scope) for a in node.args
        )
        for a in node.args:
            if isinstance(a, ast.Starred):
                self.expr(a.value, scope)
        kwargs = tuple((k.arg, self.expr(k.value, scope)) for k in node.keywords)
        if callee is None:
            return None
        site = self.new_site()
        self.emit("call", site, scope.owner, callee, args, kwargs, self.try_key)
        return ("var", site)

    def expr_Lambda(self, node: ast.Lambda, scope: Scope) -> Expr:
        key = self.new_site("lambda")
        positional, kwonly = parameters(node.args)
        for arg, default in zip(
            positional[len(positional) - len(node.args.defaults) :], node.args.defaults, strict=True
        ):
            self.flow(f"{key}.{arg.arg}", self.expr(default, scope))
        names = {a.arg for a in (*positional, *kwonly)}
        names |= {a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None}
        inner = Scope(
            "lambda", key, scope.owner, frozenset(names), scope, scope.cls, scope.self_key
        )
        self.flow(f"{key}.{RETURN}", self.expr(node.body, inner))
        self.facts.functions[key] = FunctionInfo(
            params=tuple(a.arg for a in positional),
            kwonly=tuple(a.arg for a in kwonly),
            is_lambda=True,
        )
        return ("val", ("F", key))

    def comprehension(
        self,
        node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
        scope: Scope,
        produced: list[ast.expr],
    ) -> Expr:
        key = self.new_site("comp")
        names: set[str] = set()
        for generator in node.generators:
            names |= {n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
        inner = Scope(
            "comprehension", key, scope.owner, frozenset(names), scope, scope.cls, scope.self_key
        )
        for position, generator in enumerate(node.generators):
            iterable = self.expr(generator.iter, scope if position == 0 else inner)
            elements = self.iterate(iterable, inner, bool(generator.is_async))
            self.bind(generator.target, elements, inner)
            for condition in generator.ifs:
                self.expr(condition, inner)
        for element in produced:
            self.flow(f"{key}.{ELEMS}", self.expr(element, inner))
        return ("seq", key, ())

    def expr_ListComp(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp, scope: Scope
    ) -> Expr:
        return self.comprehension(node, scope, [node.elt])

    expr_SetComp = expr_GeneratorExp = expr_ListComp

    def expr_DictComp(self, node: ast.DictComp, scope: Scope) -> None:
        self.comprehension(node, scope, [])
        return None

    def expr_List(self, node: ast.List | ast.Tuple | ast.Set, scope: Scope) -> Expr:
        key = self.new_site("seq")
        elements: list[Expr | None] = []
        positional = True
        starred = any(isinstance(element, ast.Starred) for element in node.elts)
        for position, element in enumerate(node.elts):
            if isinstance(element, ast.Starred):
                inner = self.expr(element.value, scope)
                self.flow(f"{key}.{ELEMS}", inner and ("iter", inner))
                elements.append(None)
                positional = False
            else:
                value = self.expr(element, scope)
                self.flow(f"{key}.{ELEMS}", value)
                if positional and value is not None:
                    self.flow(f"{key}.{ITEM.format(position)}", value)
                    if not starred:
                        self.flow(f"{key}.{ITEM.format(position - len(node.elts))}", value)
                elements.append(value)
        return ("seq", key, tuple(elements))

    expr_Tuple = expr_Set = expr_List

    def expr_Dict(self, node: ast.Dict, scope: Scope) -> Expr:
        key = self.new_site("dict")
        for item_key, value in zip(node.keys, node.values, strict=True):
            written = self.expr(item_key, scope)
            inner = self.expr(value, scope)
            if item_key is None:  # ``**other``: keys unknown
                self.flow(f"{key}.{ELEMS}", inner and ("sub", inner))
                self.emit("assign", f"{key}.{OPAQUE}", ("val", True))
            elif written is not None and written[0] == "const" and _slot(written[1]):
                self.flow(f"{key}.{ELEMS}", inner)
                self.flow(f"{key}.{_slot(written[1])}", inner)
            else:
                self.flow(f"{key}.{ELEMS}", inner)
                self.flow(f"{key}.{KEYS}", written)
                self.emit("assign", f"{key}.{OPAQUE}", ("val", True))
        return ("seq", key, ())

    def expr_Subscript(self, node: ast.Subscript, scope: Scope) -> Expr | None:
        base = self.expr(node.value, scope)
        index = self.expr(node.slice, scope)
        if not isinstance(node.ctx, ast.Load):
            return base and ("sub", base)
        protocol = self.dunder(scope, base, ("__getitem__",), index)
        if index is not None and index[0] == "const" and _slot(index[1]) is not None:
            return base and ("union", (("index", base, _slot(index[1])), protocol))
        return base and ("union", (("sub", base), protocol))

    def expr_Await(self, node: ast.Await, scope: Scope) -> Expr | None:
        return self.expr(node.value, scope)

    def expr_Yield(self, node: ast.Yield, scope: Scope) -> None:
        value = self.expr(node.value, scope)
        if scope.kind == "function":
            scope.is_generator = True
            self.flow(f"{scope.prefix}.{YIELD}", value)

    def expr_YieldFrom(self, node: ast.YieldFrom, scope: Scope) -> None:
        value = self.iterate(self.expr(node.value, scope), scope)
        if scope.kind == "function":
            scope.is_generator = True
            self.flow(f"{scope.prefix}.{YIELD}", value)

    def expr_NamedExpr(self, node: ast.NamedExpr, scope: Scope) -> Expr | None:
        value = self.expr(node.value, scope)
        self.bind(node.target, value, scope)
        return value

    def expr_IfExp(self, node: ast.IfExp, scope: Scope) -> Expr | None:
        self.expr(node.test, scope)
        parts = (self.expr(node.body, scope), self.expr(node.orelse, scope))
        return ("union", parts) if any(parts) else None

    def expr_BoolOp(self, node: ast.BoolOp, scope: Scope) -> Expr | None:
        parts = tuple(self.expr(v, scope) for v in node.values)
        return ("union", parts) if any(parts) else None

    def expr_Starred(self, node: ast.Starred, scope: Scope) -> Expr | None:
        value = self.expr(node.value, scope)
        return value and ("iter", value)


_EXPR_HANDLERS: dict[type[ast.AST], Callable[[ExpressionReader, Any, Scope], Expr | None]] = {
    getattr(ast, name[5:]): function
    for name, function in vars(ExpressionReader).items()
    if name.startswith("expr_") and hasattr(ast, name[5:])
}
