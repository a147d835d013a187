"""Wrong values and wrong arithmetic: constants, booleans, ranges, math operators."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from corrupt.corruptors.operators.base import FunctionContext, Operator, Site, code

_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _is_string(node: cst.BaseExpression) -> bool:
    return isinstance(node, _STRINGS)


def _int_value(node: cst.CSTNode) -> int | None:
    """The value of a plain decimal integer literal (no underscores, hex, ...)."""
    if isinstance(node, cst.Integer) and node.value.isdigit():
        return int(node.value)
    return None


def _nudges(value: int) -> list[int]:
    return [value + 1, value - 1] if value > 0 else [value + 1]


class NudgeConstant(Operator):
    """An integer constant is off by one."""

    name = "nudge_constant"
    odc_category, odc_subcategory = "Assignment", "wrong constant value"
    hef_category = "value misuse"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for node in ctx.of_type(cst.Integer):
            value = _int_value(node)
            if value is None:
                continue
            signed = isinstance(ctx.parent(node), cst.UnaryOperation)
            for new in _nudges(value):
                if signed and new == 0:  # ``xs[-0]``: no person writes a signed zero
                    continue
                yield Site(node, node.with_changes(value=str(new)), f"constant {value} -> {new}")


class FlipBoolean(Operator):
    """``True`` ↔ ``False`` in the body (flags, initial values, returned answers)."""

    name = "flip_boolean"
    odc_category, odc_subcategory = "Assignment", "wrong initial value"
    hef_category = "value misuse"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for node in ctx.of_type(cst.Name):
            if node.value not in ("True", "False"):
                continue
            parent = ctx.parent(node)
            if isinstance(parent, cst.Arg) and parent.keyword is not None:
                continue  # flip_keyword_argument owns keyword arguments
            new = "False" if node.value == "True" else "True"
            yield Site(node, node.with_changes(value=new), f"{node.value} -> {new}")


def plus_minus_one(expr: cst.BaseExpression, delta: int) -> cst.BaseExpression | None:
    """``expr`` moved by ``delta`` (±1), cancelling an existing ``± 1`` rather than stacking."""
    value = _int_value(expr)
    if value is not None:
        return None if value + delta < 0 else expr.with_changes(value=str(value + delta))
    cancels = cst.Subtract if delta > 0 else cst.Add
    if (
        isinstance(expr, cst.BinaryOperation)
        and isinstance(expr.operator, cancels)
        and _int_value(expr.right) == 1
        and not expr.lpar
    ):
        return expr.left
    if not isinstance(
        expr, cst.Name | cst.Attribute | cst.Call | cst.Subscript | cst.BinaryOperation
    ):
        return None
    if isinstance(expr, cst.BinaryOperation) and not isinstance(
        expr.operator, cst.Add | cst.Subtract | cst.Multiply | cst.FloorDivide
    ):
        return None
    op = cst.Add() if delta > 0 else cst.Subtract()
    return cst.BinaryOperation(left=expr, operator=op, right=cst.Integer("1"))


class LoopRangeOffByOne(Operator):
    """``range(n)`` → ``range(n ± 1)``; ``range(a, b)`` → ``range(a + 1, b)`` too."""

    name = "loop_range_off_by_one"
    odc_category, odc_subcategory = "Algorithm", "off-by-one"
    hef_category = "value misuse"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for call in ctx.of_type(cst.Call):
            if not (isinstance(call.func, cst.Name) and call.func.value == "range"):
                continue
            args = list(call.args)
            if not 1 <= len(args) <= 3 or any(a.keyword or a.star for a in args):
                continue
            stop = 0 if len(args) == 1 else 1
            changes = [(stop, 1), (stop, -1)] + ([(0, 1)] if len(args) > 1 else [])
            for index, delta in changes:
                moved = plus_minus_one(args[index].value, delta)
                if moved is None:
                    continue
                new_args = list(args)
                new_args[index] = args[index].with_changes(value=moved)
                replacement = call.with_changes(args=new_args)
                yield Site(call, replacement, f"{code(call)} -> {code(replacement)}")


class SwapArithmetic(Operator):
    """``+`` ↔ ``-``, ``*`` ↔ ``/``, ``//`` → ``/``, ``%`` → ``//`` (also augmented ``+=``...)."""

    name = "swap_arithmetic"
    odc_category, odc_subcategory = "Algorithm", "wrong math expression"
    hef_category = "operator misuse"
    PAIRS: dict[type, type] = {
        cst.Add: cst.Subtract,
        cst.Subtract: cst.Add,
        cst.Multiply: cst.Divide,
        cst.Divide: cst.Multiply,
        cst.FloorDivide: cst.Divide,
        cst.Modulo: cst.FloorDivide,
        cst.Power: cst.Multiply,
        cst.AddAssign: cst.SubtractAssign,
        cst.SubtractAssign: cst.AddAssign,
        cst.MultiplyAssign: cst.DivideAssign,
        cst.DivideAssign: cst.MultiplyAssign,
        cst.FloorDivideAssign: cst.DivideAssign,
    }

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for node in ctx.of_type(cst.BinaryOperation, cst.AugAssign):
            old = node.operator
            new_type = self.PAIRS.get(type(old))
            if new_type is None:
                continue
            operands = (
                (node.left, node.right) if isinstance(node, cst.BinaryOperation) else (node.value,)
            )
            if any(_is_string(o) for o in operands):
                continue  # string concatenation or %-formatting: the change is a crash, not a bug
            new = new_type(
                whitespace_before=old.whitespace_before, whitespace_after=old.whitespace_after
            )
            yield Site(node, node.with_changes(operator=new), f"operator changed in {code(node)}")


_NON_COMMUTATIVE = (
    cst.Subtract,
    cst.Divide,
    cst.FloorDivide,
    cst.Modulo,
    cst.Power,
    cst.LeftShift,
    cst.RightShift,
)


class SwapOperands(Operator):
    """``a - b`` → ``b - a`` (any non-commutative operator)."""

    name = "swap_operands"
    odc_category, odc_subcategory = "Algorithm", "wrong math expression"
    hef_category = "variable misuse"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for node in ctx.of_type(cst.BinaryOperation):
            if not isinstance(node.operator, _NON_COMMUTATIVE) or _is_string(node.left):
                continue
            left, right = node.left, node.right
            if code(left).strip() == code(right).strip():
                continue
            # Operands keep their own precedence only when both are atoms or parenthesized.
            if isinstance(left, cst.BinaryOperation | cst.UnaryOperation) and not left.lpar:
                continue
            if isinstance(right, cst.BinaryOperation | cst.UnaryOperation) and not right.lpar:
                continue
            swapped = node.with_changes(left=right, right=left)
            yield Site(node, swapped, f"operands swapped in {code(node)}")


class IndexOffByOne(Operator):
    """A slice bound or an index computed with ``±`` moves by one (``xs[:n]`` → ``xs[:n - 1]``).

    Plain-name indexes are left alone: ``d[key + 1]`` on a dict is a crash, not a
    subtle bug; literal bounds belong to ``nudge_constant``.
    """

    name = "index_off_by_one"
    odc_category, odc_subcategory = "Algorithm", "off-by-one"
    hef_category = "value misuse"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for element in ctx.of_type(cst.SubscriptElement):
            if any(isinstance(a, cst.Annotation) for a in ctx.ancestors(element)):
                continue
            part = element.slice
            if isinstance(part, cst.Index) and isinstance(part.value, cst.BinaryOperation):
                bounds = [("value", part.value)]
            elif isinstance(part, cst.Slice):
                bounds = [(f, getattr(part, f)) for f in ("lower", "upper")]
                bounds = [(f, v) for f, v in bounds if v is not None and _int_value(v) is None]
            else:
                continue
            for field_name, value in bounds:
                for delta in (1, -1):
                    moved = plus_minus_one(value, delta)
                    if moved is None:
                        continue
                    replacement = element.with_changes(
                        slice=part.with_changes(**{field_name: moved})
                    )
                    yield Site(element, replacement, f"[{code(value)}] moved by {delta:+d}")
