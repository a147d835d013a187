"""Per-file facts: symbols, local metrics, and the constraints call resolution solves.

Each file is parsed once with stdlib ``ast`` (no code is rewritten in this
stage, and ``ast`` is an order of magnitude faster than libcst). Everything
later stages need is pulled out of that one tree into a picklable
:class:`ModuleFacts`, so a file's facts can be cached by content hash and
computed in worker processes.

Call resolution is a small flow-insensitive points-to analysis in the spirit of
PyCG. Names are resolved lexically *here* to variable keys (``pkg.mod.f.x``);
what a key may hold is only known once every file is read, so this module
emits constraints over symbolic expressions (plain tuples) that
:mod:`corrupt.graph.resolve` solves to a fixed point:

* ``("assign", key, expr)``: the variable may hold what ``expr`` evaluates to;
* ``("call", site, owner, callee, args, kwargs, try)``: a call made by the symbol
  ``owner`` (inside the ``try`` body ``try``, or ``None``); its result is variable ``site``;
* ``("setattr", obj, name, expr)`` / ``("setitem", obj, expr, slot, key)``: stores into
  attributes and containers;
* ``("access", owner, expr)``: an attribute read, which calls a property;
* ``("dunder", site, owner, expr, names, args, try)``: an implicit call of the first of
  ``names`` an instance defines (``with`` calls ``__enter__``, ``for`` calls
  ``__iter__``/``__next__``, ``x[k]`` calls ``__getitem__``, ``len(x)`` ``__len__``...);
* ``("binop", site, owner, left, right, names, reflected, try)``: an operator, which
  calls the left operand's method, or the right one's reflected method when the left
  operand may not define it;
* ``("raise", owner, expr, try)``: an exception raised by ``owner``, inside the
  ``try`` body ``try`` when not ``None``. What a handler catches is what the
  calls in its ``try`` body raise, so ``except E as e`` binds ``e`` to those;
* ``("escape", owner, try, kinds, outer, reraises)``: what a ``try`` body raises and
  no handler (of exception classes ``kinds``) catches goes on to the ``outer`` try
  body, or out of ``owner`` (everything does when a handler re-raises).

Names of builtins (``sorted``, ``map``, ``len``, ``ValueError``...) that the module
does not rebind evaluate to ``("builtin", name)``: the solver models the builtins
that call back into project code (keys, ``map``/``filter`` functions, protocol
methods) and the exception hierarchy.

Calls inside lambdas, comprehensions, default arguments and decorators belong
to the enclosing symbol; module-level code belongs to the module node and
class-body code to the class node.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from corrupt.graph.local_metrics import LocalMetrics, measure
from corrupt.graph.models import Symbol, SymbolKind
from corrupt.source.functions import body_start, docstring_span, signature_end

Expr = tuple[Any, ...]
RETURN, YIELD, ELEMS, KEYS = "<return>", "<yield>", "<elems>", "<keys>"
RAISES = "<raises>"  # exceptions a function (or a try body) may raise
OPAQUE = "<reordered>"  # set once a container's elements may have moved or been replaced
GROWN = "<grown>"  # set once a list may have grown, so negative indexes no longer hold
ITEM = "<item{!r}>"  # a literal's element at a constant index or key
BUILTIN_NAMES = frozenset(dir(builtins))
STARRED: tuple[str] = ("starred",)  # a ``*args`` argument: positions after it are unknown
_BINARY = {
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
_BINDING_DECORATORS = {
    "staticmethod": "static",
    "classmethod": "class",
    "property": "property",
    "cached_property": "property",
}
_TRANSPARENT_DECORATORS = {"overload", "abstractmethod", "override", "final", "wraps"}
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
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


@dataclass
class FunctionInfo:
    """What binding call arguments to parameters needs to know about a function."""

    params: tuple[str, ...]  # positional parameters, in order
    kwonly: tuple[str, ...] = ()
    binding: str = "plain"  # plain | static | class | property
    is_generator: bool = False
    is_lambda: bool = False
    # Parameters returned as they are (``return func`` in a registering decorator,
    # ``return self`` in a fluent method). The solver passes the caller's own
    # argument through, so one call site's argument never leaks into another's result.
    returned_params: tuple[str, ...] = ()


@dataclass
class ModuleFacts:
    module: str
    file: str
    is_package: bool
    lines: int
    symbols: list[Symbol] = field(default_factory=list)
    metrics: dict[str, LocalMetrics] = field(default_factory=dict)
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    bases: dict[str, list[Expr]] = field(default_factory=dict)
    constraints: list[tuple[Any, ...]] = field(default_factory=list)
    star_imports: list[str] = field(default_factory=list)


class _Scope:
    """A lexical scope: where its names live (``prefix``) and who owns its calls."""

    def __init__(
        self,
        kind: str,
        prefix: str,
        owner: str,
        names: frozenset[str] = frozenset(),
        parent: _Scope | None = None,
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

    def function(self) -> _Scope | None:
        """The function whose body this scope's code belongs to (through lambdas/comprehensions)."""
        current: _Scope | None = self
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


def _declared(
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


def _params(args: ast.arguments) -> tuple[list[ast.arg], list[ast.arg]]:
    return [*args.posonlyargs, *args.args], list(args.kwonlyargs)


def _slot(key: object) -> str | None:
    """The variable suffix of a literal's element at a constant key (``None``: no such slot)."""
    if isinstance(key, str) or type(key) is int:
        return ITEM.format(key)
    return None


def _decorator_name(node: ast.expr) -> str | None:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    return None


class _Extractor:
    def __init__(self, module: str, file: str, is_package: bool, lines: list[str]):
        self.facts = ModuleFacts(module, file, is_package, len(lines))
        self.lines = lines
        self.module = module
        self.is_package = is_package
        self.sites = 0
        self.depth = 0
        self.taken: set[str] = {module}
        self.module_names: frozenset[str] = frozenset()  # names the module binds
        self.try_key: str | None = None  # the innermost ``try`` body being read

    # -- helpers ---------------------------------------------------------
    def emit(self, *constraint: Any) -> None:
        self.facts.constraints.append(constraint)

    def new_site(self, tag: str = "call") -> str:
        self.sites += 1
        return f"<{tag}:{self.module}:{self.sites}>"

    def dunder(
        self, scope: _Scope, value: Expr | None, names: tuple[str, ...], *args: Expr | None
    ) -> Expr | None:
        """An implicit protocol call on ``value``; what it returns."""
        if value is None or value[0] in _NEVER_INSTANCES:
            return None
        site = self.new_site()
        self.emit("dunder", site, scope.owner, value, names, args, self.try_key)
        return ("var", site)

    def iterate(self, value: Expr | None, scope: _Scope, is_async: bool = False) -> Expr | None:
        """The elements a ``for`` over ``value`` sees, calling ``__iter__`` and ``__next__``."""
        if value is None:
            return None
        names = ("__aiter__", "__anext__") if is_async else ("__iter__", "__next__")
        iterator = self.dunder(scope, value, names[:1])
        following = self.dunder(scope, iterator, names[1:])
        return ("union", (("iter", value), following, ("yields", iterator)))

    def lookup(self, scope: _Scope, name: str) -> str:
        current, first = scope, True
        while current.kind != "module":
            if (first or current.kind != "class") and name in current.names:
                return f"{current.prefix}.{name}"
            current, first = cast(_Scope, current.parent), False  # only the module has none
        return f"{self.module}.{name}"

    def unique(self, qualname: str) -> str:
        """Repeated definitions of one name (conditional defs, property setters)
        keep distinct keys: the first is plain, later ones get ``#2``, ``#3``...
        (``@overload`` stubs are named ``name#overload``, ``name#overload#2``...)."""
        if qualname not in self.taken:
            self.taken.add(qualname)
            return qualname
        n = 2
        while f"{qualname}#{n}" in self.taken:
            n += 1
        self.taken.add(f"{qualname}#{n}")
        return f"{qualname}#{n}"

    def has_walrus(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
        start, end = node.lineno, node.end_lineno or node.lineno
        return any(":=" in line for line in self.lines[start - 1 : end])

    def resolve_from(self, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        package = self.module.split(".")
        if not self.is_package:
            package = package[:-1]
        if node.level > 1:
            package = package[: len(package) - (node.level - 1)]
        return ".".join([*package, *([node.module] if node.module else [])])

    # -- statements --------------------------------------------------------
    def body(self, statements: list[ast.stmt], scope: _Scope) -> None:
        for statement in statements:
            self.stmt(statement, scope)

    def stmt(self, node: ast.stmt, scope: _Scope) -> None:
        if isinstance(node, _BLOCKS):
            self.depth += 1
            function = scope.function()
            if function is not None and self.depth > function.deepest:
                function.deepest = self.depth
            try:
                self.dispatch(node, scope)
            finally:
                self.depth -= 1
        else:
            self.dispatch(node, scope)

    def dispatch(self, node: ast.stmt, scope: _Scope) -> None:
        method = _STMT_HANDLERS.get(type(node))
        if method is not None:
            method(self, node, scope)
            return
        if (
            type(node) is ast.If
            and node.orelse
            and len(node.orelse) == 1
            and type(node.orelse[0]) is ast.If
        ):
            # ``elif`` nests no deeper than its ``if``
            self.expr(node.test, scope)
            self.body(node.body, scope)
            self.dispatch(node.orelse[0], scope)
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child, scope)
            elif isinstance(child, ast.stmt):
                self.stmt(child, scope)
            elif isinstance(child, ast.match_case):
                if child.guard is not None:
                    self.expr(child.guard, scope)
                self.body(child.body, scope)

    def stmt_Try(self, node: ast.Try, scope: _Scope) -> None:
        outer, tried = self.try_key, self.new_site("try")
        self.try_key = tried
        self.body(node.body, scope)
        self.try_key = outer
        kinds = []
        for handler in node.handlers:
            # a bare ``except:`` catches everything
            kind = self.expr(handler.type, scope) if handler.type else ("builtin", "BaseException")
            if handler.name and kind is not None:
                self.emit("assign", self.lookup(scope, handler.name), ("caught", kind, tried))
            kinds.append(kind)
            self.body(handler.body, scope)
        reraises = any(
            isinstance(inner, ast.Raise) and inner.exc is None
            for handler in node.handlers
            for inner in ast.walk(handler)
        )
        self.emit("escape", scope.owner, tried, tuple(kinds), outer, reraises)
        self.body(node.orelse, scope)
        self.body(node.finalbody, scope)

    stmt_TryStar = stmt_Try

    def stmt_Raise(self, node: ast.Raise, scope: _Scope) -> None:
        value = self.expr(node.exc, scope)
        self.expr(node.cause, scope)
        if value is not None:
            self.emit("raise", scope.owner, value, self.try_key)

    def stmt_With(self, node: ast.With | ast.AsyncWith, scope: _Scope) -> None:
        is_async = isinstance(node, ast.AsyncWith)
        enter, leave = ("__aenter__", "__aexit__") if is_async else ("__enter__", "__exit__")
        for item in node.items:
            value = self.expr(item.context_expr, scope)
            entered = self.dunder(scope, value, (enter,))
            self.dunder(scope, value, (leave,))
            if item.optional_vars is not None and value is not None:
                self.bind(item.optional_vars, ("union", (entered, ("yields", value))), scope)
        self.body(node.body, scope)

    stmt_AsyncWith = stmt_With

    def stmt_Delete(self, node: ast.Delete, scope: _Scope) -> None:
        for target in node.targets:
            if isinstance(target, ast.Subscript):
                base = self.expr(target.value, scope)
                self.dunder(scope, base, ("__delitem__",), self.expr(target.slice, scope))
            elif isinstance(target, ast.Attribute):
                self.expr(target.value, scope)

    def stmt_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope) -> None:
        names = [_decorator_name(d) for d in node.decorator_list]
        plain = f"{scope.prefix}.{node.name}"
        # @overload stubs never take the plain name: the implementation does.
        qualname = self.unique(f"{plain}#overload" if "overload" in names else plain)
        in_class = scope.kind == "class"
        kind: SymbolKind = (
            "method" if in_class else ("nested" if scope.kind == "function" else "function")
        )
        binding = next((_BINDING_DECORATORS[n] for n in names if n in _BINDING_DECORATORS), "plain")
        is_accessor = any(
            isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter", "getter")
            for d in node.decorator_list
        )
        docstring = docstring_span(node)
        self.facts.symbols.append(
            Symbol(
                qualname=qualname,
                kind=kind,
                file=self.facts.file,
                start_line=node.lineno,
                end_line=cast(int, node.end_lineno),  # set on every parsed node
                is_async=isinstance(node, ast.AsyncFunctionDef),
                parent=scope.owner,
                decorators=(
                    node.decorator_list[0].lineno,
                    cast(int, node.decorator_list[-1].end_lineno),
                )
                if node.decorator_list
                else None,
                docstring=docstring,
                signature=(node.lineno, signature_end(self.lines, node)),
                body_start=body_start(node),
            )
        )
        positional, kwonly = _params(node.args)
        info = FunctionInfo(
            params=tuple(a.arg for a in positional),
            kwonly=tuple(a.arg for a in kwonly),
            binding=binding if in_class else "plain",
        )
        self.facts.functions[qualname] = info
        bound = _declared(node, self.has_walrus(node))
        params = {a.arg for a in (*positional, *kwonly)}
        for extra in (node.args.vararg, node.args.kwarg):
            if extra is not None:
                params.add(extra.arg)
        self_key = None
        if in_class and positional and info.binding != "static":
            self_key = f"{qualname}.{positional[0].arg}"
        inner = _Scope(
            "function",
            qualname,
            qualname,
            frozenset(bound | params),
            scope,
            cls=scope.prefix if in_class else scope.cls,
            self_key=self_key or scope.self_key,
        )
        # Defaults and decorators run in the enclosing scope, at definition time.
        defaults = [*node.args.defaults]
        default: ast.expr | None
        for arg, default in zip(
            positional[len(positional) - len(defaults) :], defaults, strict=True
        ):
            self.flow(f"{qualname}.{arg.arg}", self.expr(default, scope))
        for arg, default in zip(kwonly, node.args.kw_defaults, strict=True):
            if default is not None:
                self.flow(f"{qualname}.{arg.arg}", self.expr(default, scope))
        for arg in (*positional, *kwonly):
            if arg.annotation is not None:
                self.flow(f"{qualname}.{arg.arg}", self.annotation(arg.annotation, scope))
        if self_key is not None:
            own = ("val", ("C" if binding == "class" else "I", scope.prefix))
            self.emit("assign", self_key, own)
        if node.returns is not None:
            self.flow(f"{qualname}.{RETURN}", self.annotation(node.returns, scope))
        inner.info = info
        outer_depth, outer_try = self.depth, self.try_key
        self.depth, self.try_key = 0, None
        self.body(node.body, inner)
        self.depth, self.try_key = outer_depth, outer_try
        info.is_generator = inner.is_generator
        self.facts.metrics[qualname] = measure(node, self.lines, docstring, inner.deepest)
        value: Expr = ("val", ("F", qualname))
        if not is_accessor and "overload" not in names:
            self.emit("assign", f"{scope.prefix}.{node.name}", self.decorate(node, value, scope))
        else:
            self.decorate(node, value, scope)

    stmt_AsyncFunctionDef = stmt_FunctionDef

    def decorate(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
        value: Expr,
        scope: _Scope,
    ) -> Expr:
        """Apply decorators innermost first; an unresolvable decorator keeps the function."""
        for decorator in reversed(node.decorator_list):
            name = _decorator_name(decorator)
            callee = self.expr(decorator, scope)
            if name in _BINDING_DECORATORS or name in _TRANSPARENT_DECORATORS or callee is None:
                continue
            if isinstance(decorator, ast.Attribute) and decorator.attr in ("setter", "deleter"):
                continue
            site = self.new_site()
            self.emit("call", site, scope.owner, callee, (value,), (), self.try_key)
            value = ("dec", site, value)
        return value

    def stmt_ClassDef(self, node: ast.ClassDef, scope: _Scope) -> None:
        qualname = self.unique(f"{scope.prefix}.{node.name}")
        docstring = docstring_span(node)
        self.facts.symbols.append(
            Symbol(
                qualname=qualname,
                kind="class",
                file=self.facts.file,
                start_line=node.lineno,
                end_line=node.end_lineno or node.lineno,
                parent=scope.owner,
                decorators=(
                    node.decorator_list[0].lineno,
                    node.decorator_list[-1].end_lineno or node.decorator_list[-1].lineno,
                )
                if node.decorator_list
                else None,
                docstring=docstring,
                signature=(node.lineno, signature_end(self.lines, node)),
                body_start=body_start(node),
            )
        )
        self.facts.bases[qualname] = [b for b in (self.expr(b, scope) for b in node.bases) if b]
        for keyword in node.keywords:
            self.expr(keyword.value, scope)
        bound = _declared(node, self.has_walrus(node))
        inner = _Scope(
            "class", qualname, qualname, frozenset(bound), scope, scope.cls, scope.self_key
        )
        self.body(node.body, inner)
        value = self.decorate(node, ("val", ("C", qualname)), scope)
        self.emit("assign", f"{scope.prefix}.{node.name}", value)

    def stmt_Return(self, node: ast.Return, scope: _Scope) -> None:
        value = self.expr(node.value, scope) if node.value is not None else None
        if scope.kind != "function":
            return
        info = scope.info
        name = node.value.id if isinstance(node.value, ast.Name) else None
        if (
            info is not None
            and name is not None
            and (name in info.params or name in info.kwonly)
            and self.lookup(scope, name) == f"{scope.prefix}.{name}"
        ):
            if name not in info.returned_params:
                info.returned_params = (*info.returned_params, name)
            return
        self.flow(f"{scope.prefix}.{RETURN}", value)

    def stmt_Assign(self, node: ast.Assign, scope: _Scope) -> None:
        value = self.expr(node.value, scope)
        for target in node.targets:
            self.bind(target, value, scope)

    def stmt_AnnAssign(self, node: ast.AnnAssign, scope: _Scope) -> None:
        value = self.expr(node.value, scope) if node.value is not None else None
        kind = self.annotation(node.annotation, scope)
        self.bind(node.target, ("union", (value, kind)) if value and kind else value or kind, scope)

    def stmt_AugAssign(self, node: ast.AugAssign, scope: _Scope) -> None:
        value = self.expr(node.value, scope)
        target = node.target
        if isinstance(target, ast.Subscript):  # ``x[k] += v`` reads ``x[k]`` first
            target = ast.Subscript(target.value, target.slice, ast.Load())
        current = self.expr(target, scope)
        name = _BINARY[type(node.op)]
        names = (f"__i{name}__", f"__{name}__")
        self.bind(
            node.target, self.operator(scope, current, value, names, (f"__r{name}__",)), scope
        )

    def operator(
        self,
        scope: _Scope,
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

    def stmt_For(self, node: ast.For | ast.AsyncFor, scope: _Scope) -> None:
        iterable = self.expr(node.iter, scope)
        self.bind(node.target, self.iterate(iterable, scope, isinstance(node, ast.AsyncFor)), scope)
        self.body(node.body, scope)
        self.body(node.orelse, scope)

    stmt_AsyncFor = stmt_For

    def stmt_Import(self, node: ast.Import, scope: _Scope) -> None:
        for alias in node.names:
            if alias.asname:
                self.emit("assign", self.lookup(scope, alias.asname), ("mod", alias.name))
            else:
                top = alias.name.split(".")[0]
                self.emit("assign", self.lookup(scope, top), ("mod", top))

    def stmt_ImportFrom(self, node: ast.ImportFrom, scope: _Scope) -> None:
        base = self.resolve_from(node)
        for alias in node.names:
            if alias.name == "*":
                self.facts.star_imports.append(base)
                continue
            key = self.lookup(scope, alias.asname or alias.name)
            self.emit("assign", key, ("from", base, alias.name))

    # -- bindings ----------------------------------------------------------
    def flow(self, key: str, value: Expr | None) -> None:
        if value is not None:
            self.emit("assign", key, value)

    def bind(self, target: ast.expr, value: Expr | None, scope: _Scope) -> None:
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

    def annotation(self, node: ast.expr, scope: _Scope) -> Expr | None:
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
        if isinstance(node, ast.Subscript) and _decorator_name(node.value) in _CONTAINER_TYPES:
            # ``list[Item]``, ``dict[str, Item]``...: a container whose elements are instances
            inner = node.slice
            elements = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            if _decorator_name(node.value) in _MAPPING_TYPES and len(elements) == 2:
                key = self.new_site("dict")  # keys and values as a dict literal keeps them
                self.flow(f"{key}.{KEYS}", self.annotation(elements[0], scope))
                self.flow(f"{key}.{ELEMS}", self.annotation(elements[1], scope))
                self.emit("assign", f"{key}.{OPAQUE}", ("val", True))
                return ("seq", key, ())
            key = self.new_site("typed")
            for element in elements:
                self.flow(f"{key}.{ELEMS}", self.annotation(element, scope))
            return ("seq", key, ())
        if isinstance(node, ast.Subscript) and _decorator_name(node.value) in _UNION_WRAPPERS:
            inner = node.slice
            elements = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            if _decorator_name(node.value) == "Annotated":
                elements = elements[:1]
            members = tuple(self.annotation(e, scope) for e in elements)
            if _decorator_name(node.value) in ("Type", "type"):
                return None
            return ("union", members) if any(members) else None
        return None

    # -- expressions -------------------------------------------------------
    def expr(self, node: ast.expr | None, scope: _Scope) -> Expr | None:
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

    def expr_Name(self, node: ast.Name, scope: _Scope) -> Expr:
        key = self.lookup(scope, node.id)
        if (
            node.id in BUILTIN_NAMES
            and node.id not in self.module_names
            and key == f"{self.module}.{node.id}"
        ):
            return ("builtin", node.id)
        return ("var", key)

    def expr_Constant(self, node: ast.Constant, scope: _Scope) -> Expr | None:
        if type(node.value) in (str, int, bytes):
            return ("const", node.value)
        return None

    def expr_BinOp(self, node: ast.BinOp, scope: _Scope) -> Expr | None:
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        name = _BINARY[type(node.op)]
        return self.operator(scope, left, right, (f"__{name}__",), (f"__r{name}__",))

    def expr_Compare(self, node: ast.Compare, scope: _Scope) -> None:
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

    def expr_UnaryOp(self, node: ast.UnaryOp, scope: _Scope) -> Expr | None:
        value = self.expr(node.operand, scope)
        if isinstance(node.op, ast.USub) and value is not None and value[0] == "const":
            return ("const", -value[1]) if type(value[1]) is int else None  # ``x[-1]``
        name = _UNARY.get(type(node.op))
        return self.dunder(scope, value, (name,)) if name else None

    def expr_FormattedValue(self, node: ast.FormattedValue, scope: _Scope) -> None:
        value = self.expr(node.value, scope)
        self.expr(node.format_spec, scope)
        self.dunder(scope, value, _FORMAT_METHODS.get(node.conversion, ("__format__",)))

    def expr_Attribute(self, node: ast.Attribute, scope: _Scope) -> Expr | None:
        base = self.expr(node.value, scope)
        if base is None:
            return None
        result = ("attr", base, node.attr)
        if isinstance(node.ctx, ast.Load):
            self.emit("access", scope.owner, result)
        return result

    def expr_Call(self, node: ast.Call, scope: _Scope) -> Expr | None:
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

    def expr_Lambda(self, node: ast.Lambda, scope: _Scope) -> Expr:
        key = self.new_site("lambda")
        positional, kwonly = _params(node.args)
        for arg, default in zip(
            positional[len(positional) - len(node.args.defaults) :], node.args.defaults, strict=True
        ):
            self.flow(f"{key}.{arg.arg}", self.expr(default, scope))
        names = {a.arg for a in (*positional, *kwonly)}
        names |= {a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None}
        inner = _Scope(
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
        scope: _Scope,
        produced: list[ast.expr],
    ) -> Expr:
        key = self.new_site("comp")
        names: set[str] = set()
        for generator in node.generators:
            names |= {n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
        inner = _Scope(
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
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp, scope: _Scope
    ) -> Expr:
        return self.comprehension(node, scope, [node.elt])

    expr_SetComp = expr_GeneratorExp = expr_ListComp

    def expr_DictComp(self, node: ast.DictComp, scope: _Scope) -> None:
        self.comprehension(node, scope, [])
        return None

    def expr_List(self, node: ast.List | ast.Tuple | ast.Set, scope: _Scope) -> Expr:
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

    def expr_Dict(self, node: ast.Dict, scope: _Scope) -> Expr:
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

    def expr_Subscript(self, node: ast.Subscript, scope: _Scope) -> Expr | None:
        base = self.expr(node.value, scope)
        index = self.expr(node.slice, scope)
        if not isinstance(node.ctx, ast.Load):
            return base and ("sub", base)
        protocol = self.dunder(scope, base, ("__getitem__",), index)
        if index is not None and index[0] == "const" and _slot(index[1]) is not None:
            return base and ("union", (("index", base, _slot(index[1])), protocol))
        return base and ("union", (("sub", base), protocol))

    def expr_Await(self, node: ast.Await, scope: _Scope) -> Expr | None:
        return self.expr(node.value, scope)

    def expr_Yield(self, node: ast.Yield, scope: _Scope) -> None:
        value = self.expr(node.value, scope)
        if scope.kind == "function":
            scope.is_generator = True
            self.flow(f"{scope.prefix}.{YIELD}", value)

    def expr_YieldFrom(self, node: ast.YieldFrom, scope: _Scope) -> None:
        value = self.iterate(self.expr(node.value, scope), scope)
        if scope.kind == "function":
            scope.is_generator = True
            self.flow(f"{scope.prefix}.{YIELD}", value)

    def expr_NamedExpr(self, node: ast.NamedExpr, scope: _Scope) -> Expr | None:
        value = self.expr(node.value, scope)
        self.bind(node.target, value, scope)
        return value

    def expr_IfExp(self, node: ast.IfExp, scope: _Scope) -> Expr | None:
        self.expr(node.test, scope)
        parts = (self.expr(node.body, scope), self.expr(node.orelse, scope))
        return ("union", parts) if any(parts) else None

    def expr_BoolOp(self, node: ast.BoolOp, scope: _Scope) -> Expr | None:
        parts = tuple(self.expr(v, scope) for v in node.values)
        return ("union", parts) if any(parts) else None

    def expr_Starred(self, node: ast.Starred, scope: _Scope) -> Expr | None:
        value = self.expr(node.value, scope)
        return value and ("iter", value)


_BLOCKS = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.Match,
    *((ast.TryStar,) if hasattr(ast, "TryStar") else ()),
)
_STMT_HANDLERS: dict[type[ast.AST], Callable[[_Extractor, Any, _Scope], None]] = {
    getattr(ast, name[5:]): function
    for name, function in vars(_Extractor).items()
    if name.startswith("stmt_") and hasattr(ast, name[5:])
}
_EXPR_HANDLERS: dict[type[ast.AST], Callable[[_Extractor, Any, _Scope], Expr | None]] = {
    getattr(ast, name[5:]): function
    for name, function in vars(_Extractor).items()
    if name.startswith("expr_") and hasattr(ast, name[5:])
}


def extract(
    tree: ast.Module, module: str, file: str, is_package: bool, lines: list[str]
) -> ModuleFacts:
    """Symbols, local metrics and resolution constraints of one parsed module."""
    extractor = _Extractor(module, file, is_package, lines)
    extractor.facts.symbols.append(
        Symbol(
            qualname=module,
            kind="module",
            file=file,
            start_line=1,
            end_line=max(len(lines), 1),
            docstring=docstring_span(tree),
            body_start=body_start(tree),
        )
    )
    has_walrus = any(":=" in line for line in lines)
    if not any("import *" in line for line in lines):  # a star import may rebind builtins
        extractor.module_names = frozenset(_declared(tree, has_walrus))
    else:
        extractor.module_names = BUILTIN_NAMES
    scope = _Scope("module", module, module)
    extractor.body(tree.body, scope)
    return extractor.facts
