"""Per-file facts: symbols, local metrics, and the constraints call resolution solves.

Each file is parsed once with stdlib ``ast`` (no code is rewritten in this
stage, and ``ast`` is an order of magnitude faster than libcst). Everything
later stages need is pulled out of that one tree into a picklable
:class:`ModuleFacts`, so a file's facts can be cached by content hash and
computed in worker processes.

The statements of a file are walked here (definitions become symbols, and
their metrics are measured); expressions are read by
:class:`~corrupt.graph.expressions.ExpressionReader`, in the scopes of
:mod:`corrupt.graph.scopes`, into the constraints of
:mod:`corrupt.graph.facts` that :mod:`corrupt.graph.resolve` solves.

Calls inside lambdas, comprehensions, default arguments and decorators belong
to the enclosing symbol; module-level code belongs to the module node and
class-body code to the class node.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any, cast

from corrupt.graph.expressions import BINARY, ExpressionReader, decorator_name
from corrupt.graph.facts import RETURN, Expr, FunctionInfo, ModuleFacts
from corrupt.graph.local_metrics import measure
from corrupt.graph.models import Symbol, SymbolKind
from corrupt.graph.scopes import BUILTIN_NAMES, Scope, declared, parameters
from corrupt.source.functions import body_start, docstring_span, signature_end

_BINDING_DECORATORS = {
    "staticmethod": "static",
    "classmethod": "class",
    "property": "property",
    "cached_property": "property",
}
_TRANSPARENT_DECORATORS = {"overload", "abstractmethod", "override", "final", "wraps"}


class _Extractor(ExpressionReader):
    """Walks one module's statements: its symbols, their metrics and the constraints."""

    def __init__(self, module: str, file: str, is_package: bool, lines: list[str]):
        super().__init__(module, file, is_package, lines)
        self.lines = lines
        self.is_package = is_package
        self.depth = 0
        self.taken: set[str] = {module}

    # -- helpers ---------------------------------------------------------
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
    def body(self, statements: list[ast.stmt], scope: Scope) -> None:
        for statement in statements:
            self.stmt(statement, scope)

    def stmt(self, node: ast.stmt, scope: Scope) -> None:
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

    def dispatch(self, node: ast.stmt, scope: Scope) -> None:
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

    def stmt_Try(self, node: ast.Try, scope: Scope) -> None:
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

    def stmt_Raise(self, node: ast.Raise, scope: Scope) -> None:
        value = self.expr(node.exc, scope)
        self.expr(node.cause, scope)
        if value is not None:
            self.emit("raise", scope.owner, value, self.try_key)

    def stmt_With(self, node: ast.With | ast.AsyncWith, scope: Scope) -> None:
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

    def stmt_Delete(self, node: ast.Delete, scope: Scope) -> None:
        for target in node.targets:
            if isinstance(target, ast.Subscript):
                base = self.expr(target.value, scope)
                self.dunder(scope, base, ("__delitem__",), self.expr(target.slice, scope))
            elif isinstance(target, ast.Attribute):
                self.expr(target.value, scope)

    def stmt_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> None:
        names = [decorator_name(d) for d in node.decorator_list]
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
        positional, kwonly = parameters(node.args)
        info = FunctionInfo(
            params=tuple(a.arg for a in positional),
            kwonly=tuple(a.arg for a in kwonly),
            binding=binding if in_class else "plain",
        )
        self.facts.functions[qualname] = info
        bound = declared(node, self.has_walrus(node))
        params = {a.arg for a in (*positional, *kwonly)}
        for extra in (node.args.vararg, node.args.kwarg):
            if extra is not None:
                params.add(extra.arg)
        self_key = None
        if in_class and positional and info.binding != "static":
            self_key = f"{qualname}.{positional[0].arg}"
        inner = Scope(
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
        scope: Scope,
    ) -> Expr:
        """Apply decorators innermost first; an unresolvable decorator keeps the function."""
        for decorator in reversed(node.decorator_list):
            name = decorator_name(decorator)
            callee = self.expr(decorator, scope)
            if name in _BINDING_DECORATORS or name in _TRANSPARENT_DECORATORS or callee is None:
                continue
            if isinstance(decorator, ast.Attribute) and decorator.attr in ("setter", "deleter"):
                continue
            site = self.new_site()
            self.emit("call", site, scope.owner, callee, (value,), (), self.try_key)
            value = ("dec", site, value)
        return value

    def stmt_ClassDef(self, node: ast.ClassDef, scope: Scope) -> None:
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
        bound = declared(node, self.has_walrus(node))
        inner = Scope(
            "class", qualname, qualname, frozenset(bound), scope, scope.cls, scope.self_key
        )
        self.body(node.body, inner)
        value = self.decorate(node, ("val", ("C", qualname)), scope)
        self.emit("assign", f"{scope.prefix}.{node.name}", value)

    def stmt_Return(self, node: ast.Return, scope: Scope) -> None:
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

    def stmt_Assign(self, node: ast.Assign, scope: Scope) -> None:
        value = self.expr(node.value, scope)
        for target in node.targets:
            self.bind(target, value, scope)

    def stmt_AnnAssign(self, node: ast.AnnAssign, scope: Scope) -> None:
        value = self.expr(node.value, scope) if node.value is not None else None
        kind = self.annotation(node.annotation, scope)
        self.bind(node.target, ("union", (value, kind)) if value and kind else value or kind, scope)

    def stmt_AugAssign(self, node: ast.AugAssign, scope: Scope) -> None:
        value = self.expr(node.value, scope)
        target = node.target
        if isinstance(target, ast.Subscript):  # ``x[k] += v`` reads ``x[k]`` first
            target = ast.Subscript(target.value, target.slice, ast.Load())
        current = self.expr(target, scope)
        name = BINARY[type(node.op)]
        names = (f"__i{name}__", f"__{name}__")
        self.bind(
            node.target, self.operator(scope, current, value, names, (f"__r{name}__",)), scope
        )

    def stmt_For(self, node: ast.For | ast.AsyncFor, scope: Scope) -> None:
        iterable = self.expr(node.iter, scope)
        self.bind(node.target, self.iterate(iterable, scope, isinstance(node, ast.AsyncFor)), scope)
        self.body(node.body, scope)
        self.body(node.orelse, scope)

    stmt_AsyncFor = stmt_For

    def stmt_Import(self, node: ast.Import, scope: Scope) -> None:
        for alias in node.names:
            if alias.asname:
                self.emit("assign", self.lookup(scope, alias.asname), ("mod", alias.name))
            else:
                top = alias.name.split(".")[0]
                self.emit("assign", self.lookup(scope, top), ("mod", top))

    def stmt_ImportFrom(self, node: ast.ImportFrom, scope: Scope) -> None:
        base = self.resolve_from(node)
        for alias in node.names:
            if alias.name == "*":
                self.facts.star_imports.append(base)
                continue
            key = self.lookup(scope, alias.asname or alias.name)
            self.emit("assign", key, ("from", base, alias.name))


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
_STMT_HANDLERS: dict[type[ast.AST], Callable[[_Extractor, Any, Scope], None]] = {
    getattr(ast, name[5:]): function
    for name, function in vars(_Extractor).items()
    if name.startswith("stmt_") and hasattr(ast, name[5:])
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
        extractor.module_names = frozenset(declared(tree, has_walrus))
    else:
        extractor.module_names = BUILTIN_NAMES
    scope = Scope("module", module, module)
    extractor.body(tree.body, scope)
    return extractor.facts
