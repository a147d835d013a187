"""ODC *Assignment* bugs: wrong variable, wrong default, mutable default, late binding, shadowing."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import libcst as cst

from corrupt.corruptors.operators.base import FunctionContext, Operator, Site, code
from corrupt.corruptors.operators.values import _int_value, _nudges

_RECEIVERS = ("self", "cls")
_LITERAL_KINDS: dict[type, str] = {
    cst.Integer: "int",
    cst.Float: "float",
    cst.SimpleString: "str",
    cst.FormattedString: "str",
    cst.ConcatenatedString: "str",
    cst.List: "list",
    cst.ListComp: "list",
    cst.Dict: "dict",
    cst.DictComp: "dict",
    cst.Set: "set",
    cst.SetComp: "set",
    cst.Tuple: "tuple",
}
_CALL_KINDS = {"len": "int", "int": "int", "sum": "number", "float": "float", "str": "str"}
_CALL_KINDS |= {"list": "list", "sorted": "list", "dict": "dict", "set": "set", "tuple": "tuple"}


def _kinds(ctx: FunctionContext) -> dict[str, str]:
    """A rough type per variable, from annotations and literal or builtin-call assignments."""
    kinds: dict[str, str] = {}
    params = ctx.function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.annotation is not None:
            kinds[param.name.value] = code(param.annotation.annotation).strip()
    for assign in ctx.of_type(cst.Assign):
        value = assign.value
        kind = _LITERAL_KINDS.get(type(value))
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
            kind = _CALL_KINDS.get(value.func.value)
        if isinstance(value, cst.Name) and value.value in ("True", "False"):
            kind = "bool"
        for target in assign.targets:
            if isinstance(target.target, cst.Name) and kind:
                kinds.setdefault(target.target.value, kind)
    return kinds


class WrongVariable(Operator):
    """A variable read is replaced by another variable of the same rough type bound before it.

    Only names bound earlier in the function (or parameters) are used, so no
    undefined name appears; a local whose only read this is stays untouched, so
    no unused variable appears either (both would be pyflakes tells).
    """

    name = "wrong_variable"
    odc_category, odc_subcategory = "Assignment", "wrong variable"
    hef_category = "variable misuse"
    PER_SITE = 1  # the nearest earlier variable; more would swamp the other operators

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        bound = ctx.bindings()
        kinds = _kinds(ctx)
        params = set(ctx.parameters())
        for node in ctx.variables():
            name = node.value
            if ctx.name_role(node) != "load" or name in _RECEIVERS or name not in bound:
                continue
            parent = ctx.parent(node)
            if isinstance(parent, cst.Call) and parent.func is node:
                continue
            if name not in params and len(ctx.loads(name)) < 2:
                continue
            here = ctx.index(node)
            beside = _operands_beside(ctx, node)
            candidates = [
                other
                for other, at in sorted(bound.items(), key=lambda item: -item[1])
                if other != name
                and other not in _RECEIVERS
                and other not in beside
                and at < here
                and kinds.get(other) == kinds.get(name)
            ]
            for other in candidates[: self.PER_SITE]:
                yield Site(node, node.with_changes(value=other), f"{name} -> {other}")


def _operands_beside(ctx: FunctionContext, node: cst.Name) -> set[str]:
    """The names on the other side of the comparison, operation or assignment ``node`` is an
    operand of: substituting one of them writes ``a < a`` or ``a = a``, which a linter finds."""
    parent = ctx.parent(node)
    if isinstance(parent, cst.ComparisonTarget):
        parent = ctx.parent(parent)
    operands: list[cst.CSTNode] = []
    if isinstance(parent, cst.Comparison):
        operands = [parent.left, *(c.comparator for c in parent.comparisons)]
    elif isinstance(parent, cst.BinaryOperation | cst.BooleanOperation):
        operands = [parent.left, parent.right]
    elif isinstance(parent, cst.IfExp):
        operands = [parent.body, parent.orelse]
    elif isinstance(parent, cst.Assign):
        operands = [t.target for t in parent.targets]
    elif isinstance(parent, cst.AugAssign | cst.AnnAssign):
        operands = [parent.target]
    return {o.value for o in operands if isinstance(o, cst.Name) and o is not node}


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    return [*params.posonly_params, *params.params, *params.kwonly_params]


class ChangeDefault(Operator):
    """A keyword default of the function itself changes: a flag flips or a number moves by one."""

    name = "change_default"
    odc_category, odc_subcategory = "Assignment", "wrong default value"
    hef_category = "value misuse"
    changes_defaults = True

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for param in _all_params(ctx.function.params):
            default = param.default
            if isinstance(default, cst.Name) and default.value in ("True", "False"):
                new = "False" if default.value == "True" else "True"
                yield Site(default, default.with_changes(value=new), f"{param.name.value}={new}")
            value = _int_value(default) if isinstance(default, cst.Integer) else None
            if isinstance(default, cst.Integer) and value is not None:
                for moved in _nudges(value):
                    replacement = default.with_changes(value=str(moved))
                    yield Site(default, replacement, f"{param.name.value}={moved}")


_EMPTY_FACTORIES = ("list", "dict", "set")


def _fresh_container(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.List | cst.Dict | cst.Set):
        return True
    return (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value in _EMPTY_FACTORIES
        and not expr.args
    )


def _none_fallback(statement: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """The container of ``if name is None: name = []`` or ``name = name or []``."""
    if isinstance(statement, cst.If) and statement.orelse is None:
        test = statement.test
        if not (
            isinstance(test, cst.Comparison)
            and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Is)
            and isinstance(test.left, cst.Name)
            and test.left.value == name
            and isinstance(test.comparisons[0].comparator, cst.Name)
            and test.comparisons[0].comparator.value == "None"
            and len(statement.body.body) == 1
        ):
            return None
        statement = statement.body.body[0]
        if isinstance(statement, cst.SimpleStatementLine):
            assign = statement.body[0]
            if (
                len(statement.body) == 1
                and isinstance(assign, cst.Assign)
                and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Name)
                and assign.targets[0].target.value == name
                and _fresh_container(assign.value)
            ):
                return assign.value
        return None
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        assign = statement.body[0]
        if (
            isinstance(assign, cst.Assign)
            and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)
            and assign.targets[0].target.value == name
            and isinstance(assign.value, cst.BooleanOperation)
            and isinstance(assign.value.operator, cst.Or)
            and isinstance(assign.value.left, cst.Name)
            and assign.value.left.value == name
            and _fresh_container(assign.value.right)
        ):
            return assign.value.right
    return None


class MutableDefault(Operator):
    """``def f(items=None): if items is None: items = []`` becomes ``def f(items=[])``.

    The container is then shared between calls, so state leaks from one call
    into the next.
    """

    name = "mutable_default"
    odc_category, odc_subcategory = "Assignment", "mutable default argument"
    hef_category = "value misuse"
    changes_defaults = True

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        function = ctx.function
        if not isinstance(function.body, cst.IndentedBlock):
            return
        statements = list(function.body.body)
        for param in _all_params(function.params):
            default = param.default
            if not (isinstance(default, cst.Name) and default.value == "None"):
                continue
            for i, statement in enumerate(statements):
                container = _none_fallback(statement, param.name.value)
                if container is None or len(statements) < 3:
                    continue
                new_params = _replace_default(function.params, param, container)
                kept = statements[:i] + statements[i + 1 :]
                replacement = function.with_changes(
                    params=new_params, body=function.body.with_changes(body=kept)
                )
                yield Site(function, replacement, f"{param.name.value}={code(container)} default")


def _replace_default(
    params: cst.Parameters, old: cst.Param, default: cst.BaseExpression
) -> cst.Parameters:
    def swap(group: Sequence[cst.Param]) -> list[cst.Param]:
        return [p.with_changes(default=default) if p is old else p for p in group]

    return params.with_changes(
        posonly_params=swap(params.posonly_params),
        params=swap(params.params),
        kwonly_params=swap(params.kwonly_params),
    )


_LOOPS = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


class LateBindingClosure(Operator):
    """``lambda x=x: ...`` made in a loop loses its default: every closure sees the last ``x``."""

    name = "late_binding_closure"
    odc_category, odc_subcategory = "Assignment", "late binding"
    hef_category = "variable misuse"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for node in ctx.of_type(cst.Lambda, cst.FunctionDef):
            if not any(isinstance(a, _LOOPS) for a in ctx.ancestors(node)):
                continue
            params = node.params
            for group in ("params", "kwonly_params"):
                members = list(getattr(params, group))
                for i, param in enumerate(members):
                    default = param.default
                    if not (isinstance(default, cst.Name) and default.value == param.name.value):
                        continue
                    kept = members[:i] + members[i + 1 :]
                    if kept and i == len(members) - 1:
                        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                    new_params = params.with_changes(**{group: kept})
                    changes: dict[str, Any] = {"params": new_params}
                    if isinstance(node, cst.Lambda) and not _all_params(new_params):
                        changes["whitespace_after_lambda"] = cst.MaybeSentinel.DEFAULT
                    yield Site(
                        node, node.with_changes(**changes), f"closure binds {param.name.value} late"
                    )


class _Rename(cst.CSTTransformer):
    def __init__(self, targets: set[int], new: str) -> None:
        self.targets, self.new = targets, new

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        if id(original_node) in self.targets:
            return updated_node.with_changes(value=self.new)
        return updated_node


class ShadowedName(Operator):
    """A loop variable is renamed to an outer variable that is read after the loop.

    The loop then overwrites (shadows) that variable, so the code after the loop
    sees the last loop item instead of the value it expected.
    """

    name = "shadowed_name"
    odc_category, odc_subcategory = "Assignment", "variable shadowing"
    hef_category = "variable misuse"
    PER_SITE = 2

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        bound = ctx.bindings()
        variables = ctx.variables()
        for loop in ctx.of_type(cst.For):
            if ctx.in_nested_scope(loop) or not isinstance(loop.target, cst.Name):
                continue
            old = loop.target.value
            start, end = ctx.index(loop), ctx.end_index(loop)
            inside = [
                n for n in ctx.of_type(cst.Name) if start <= ctx.index(n) < end and n.value == old
            ]
            outside = [n for n in variables if n.value == old and not start <= ctx.index(n) < end]
            if outside or any(ctx.in_nested_scope(n) for n in inside):
                continue
            used_inside = {n.value for n in ctx.of_type(cst.Name) if start <= ctx.index(n) < end}
            choices = [
                name
                for name, at in sorted(bound.items(), key=lambda item: -item[1])
                if at < start
                and name not in used_inside
                and name not in _RECEIVERS
                and any(ctx.index(n) >= end for n in ctx.loads(name))
            ]
            targets = {id(n) for n in inside if ctx.name_role(n) in ("load", "store")}
            for new in choices[: self.PER_SITE]:
                renamed = loop.visit(_Rename(targets, new))
                yield Site(loop, renamed, f"loop variable {old} renamed to outer {new}")
