"""ODC *Checking* bugs: conditions, comparisons, guards and exception handling."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import libcst as cst

from corrupt.corruptors.operators.base import (
    FunctionContext,
    Operator,
    Site,
    block_statements,
    code,
    negated,
    spaced,
)


def _swap_comparison_operators(
    ctx: FunctionContext, pairs: dict[type, type], verb: str
) -> Iterator[Site]:
    for target in ctx.of_type(cst.ComparisonTarget):
        new_type = pairs.get(type(target.operator))
        if new_type is None:
            continue
        old = target.operator
        new = new_type(
            whitespace_before=old.whitespace_before, whitespace_after=old.whitespace_after
        )
        yield Site(target, target.with_changes(operator=new), f"{verb} {code(target).strip()}")


class FlipComparison(Operator):
    """``<`` ↔ ``>``, ``<=`` ↔ ``>=``, ``==`` ↔ ``!=``: the comparison points the wrong way."""

    name = "flip_comparison"
    odc_category, odc_subcategory = "Checking", "wrong comparison operator"
    hef_category = "operator misuse"
    PAIRS: dict[type, type] = {
        cst.LessThan: cst.GreaterThan,
        cst.GreaterThan: cst.LessThan,
        cst.LessThanEqual: cst.GreaterThanEqual,
        cst.GreaterThanEqual: cst.LessThanEqual,
        cst.Equal: cst.NotEqual,
        cst.NotEqual: cst.Equal,
    }

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        # A chain (``0 <= x <= 9``) flipped in one place reads as nonsense, a tell.
        for site in _swap_comparison_operators(ctx, self.PAIRS, "flipped"):
            parent = ctx.parent(site.node)
            if isinstance(parent, cst.Comparison) and len(parent.comparisons) == 1:
                yield site


class ShiftBoundary(Operator):
    """``<`` ↔ ``<=``, ``>`` ↔ ``>=``: the classic off-by-one at a boundary."""

    name = "shift_boundary"
    odc_category, odc_subcategory = "Checking", "off-by-one"
    hef_category = "operator misuse"
    PAIRS: dict[type, type] = {
        cst.LessThan: cst.LessThanEqual,
        cst.LessThanEqual: cst.LessThan,
        cst.GreaterThan: cst.GreaterThanEqual,
        cst.GreaterThanEqual: cst.GreaterThan,
    }

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        return _swap_comparison_operators(ctx, self.PAIRS, "shifted boundary of")


class InNotIn(Operator):
    """``in`` ↔ ``not in``."""

    name = "in_not_in"
    odc_category, odc_subcategory = "Checking", "negation error"
    hef_category = "operator misuse"
    PAIRS = {cst.In: cst.NotIn, cst.NotIn: cst.In}

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for target in ctx.of_type(cst.ComparisonTarget):
            old = target.operator
            if isinstance(old, cst.In):
                new: cst.BaseCompOp = cst.NotIn(whitespace_before=old.whitespace_before)
            elif isinstance(old, cst.NotIn):
                new = cst.In(whitespace_before=old.whitespace_before)
            else:
                continue
            new = new.with_changes(whitespace_after=old.whitespace_after)
            yield Site(
                target, target.with_changes(operator=new), f"negated membership {code(target)}"
            )


_LITERALS = (
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
    cst.List,
    cst.Tuple,
    cst.Dict,
    cst.Set,
)


def _is_none(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


class IsVsEquality(Operator):
    """``==`` ↔ ``is`` and ``!=`` ↔ ``is not`` between two non-literal, non-None operands.

    Literal operands are skipped: ``x is 1`` draws a SyntaxWarning, a tell.
    ``None`` is skipped: ``x == None`` behaves the same for almost every type.
    """

    name = "is_vs_equality"
    odc_category, odc_subcategory = "Checking", "identity vs equality"
    hef_category = "operator misuse"
    PAIRS: dict[type, type] = {
        cst.Equal: cst.Is,
        cst.Is: cst.Equal,
        cst.NotEqual: cst.IsNot,
        cst.IsNot: cst.NotEqual,
    }

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for comparison in ctx.of_type(cst.Comparison):
            if len(comparison.comparisons) != 1:
                continue
            target = comparison.comparisons[0]
            new_type = self.PAIRS.get(type(target.operator))
            operands = (comparison.left, target.comparator)
            if new_type is None or any(isinstance(o, _LITERALS) or _is_none(o) for o in operands):
                continue
            old = target.operator
            new = new_type(
                whitespace_before=spaced(old.whitespace_before),
                whitespace_after=spaced(old.whitespace_after),
            )
            yield Site(
                target,
                target.with_changes(operator=new),
                f"identity/equality in {code(comparison)}",
            )


def _condition_tests(ctx: FunctionContext) -> Iterator[cst.BaseExpression]:
    for node in ctx.of_type(cst.If, cst.While, cst.IfExp):
        yield node.test


_OPPOSITES: dict[type, type] = {
    cst.Is: cst.IsNot,
    cst.IsNot: cst.Is,
    cst.Equal: cst.NotEqual,
    cst.NotEqual: cst.Equal,
    cst.In: cst.NotIn,
    cst.NotIn: cst.In,
    cst.LessThan: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.LessThan,
    cst.LessThanEqual: cst.GreaterThan,
    cst.GreaterThan: cst.LessThanEqual,
}


def _negated_test(test: cst.BaseExpression) -> cst.BaseExpression:
    """The logical negation, as a programmer would write it (``x is not None``, not ``not x is None``)."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        old: Any = target.operator  # every comparison operator has both whitespace fields
        new = _OPPOSITES[type(old)](
            whitespace_before=old.whitespace_before, whitespace_after=old.whitespace_after
        )
        return test.with_changes(comparisons=[target.with_changes(operator=new)])
    if isinstance(test, cst.Comparison) and not test.lpar:  # a chain: ``not (a < b < c)``
        chain = test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return cst.UnaryOperation(operator=cst.Not(), expression=chain)
    return negated(test)


class NegateCondition(Operator):
    """The test of an ``if``/``elif``/``while``/conditional expression is negated."""

    name = "negate_condition"
    odc_category, odc_subcategory = "Checking", "negation error"
    hef_category = "operator misuse"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for test in _condition_tests(ctx):
            yield Site(test, _negated_test(test), f"negated condition {code(test)}")


_CONSTANT_NAMES = ("True", "False", "None", "__debug__")


class NoneVsFalsy(Operator):
    """``x is None`` ↔ ``not x`` and ``x is not None`` ↔ ``x``: 0, "" and [] now count as missing."""

    name = "none_vs_falsy"
    odc_category, odc_subcategory = "Checking", "None vs falsy check"
    hef_category = "value misuse"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for comparison in ctx.of_type(cst.Comparison):
            if len(comparison.comparisons) != 1 or comparison.lpar:
                continue
            target = comparison.comparisons[0]
            if not _is_none(target.comparator) or not isinstance(
                comparison.left, cst.Name | cst.Attribute | cst.Subscript | cst.Call
            ):
                continue
            if isinstance(target.operator, cst.Is):
                replacement = negated(comparison.left)
            elif isinstance(target.operator, cst.IsNot):
                replacement = comparison.left
            else:
                continue
            yield Site(comparison, replacement, f"None check {code(comparison)} made falsy")
        for test in _condition_tests(ctx):
            plain = test
            op: cst.BaseCompOp = cst.IsNot()
            if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                plain, op = test.expression, cst.Is()
            constant = isinstance(plain, cst.Name) and plain.value in _CONSTANT_NAMES
            if isinstance(plain, cst.Name | cst.Attribute) and not plain.lpar and not constant:
                # (``while True is not None`` compares two constants: a linter's find)
                replacement = cst.Comparison(plain, [cst.ComparisonTarget(op, cst.Name("None"))])
                yield Site(test, replacement, f"truth test {code(test)} made a None check")


class SwapAndOr(Operator):
    """``and`` ↔ ``or``."""

    name = "swap_and_or"
    odc_category, odc_subcategory = "Checking", "wrong logical operator"
    hef_category = "operator misuse"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for node in ctx.of_type(cst.BooleanOperation):
            old = node.operator
            new_type = cst.Or if isinstance(old, cst.And) else cst.And
            new = new_type(
                whitespace_before=old.whitespace_before, whitespace_after=old.whitespace_after
            )
            yield Site(node, node.with_changes(operator=new), f"and/or swapped in {code(node)}")


class DropConditionClause(Operator):
    """One operand of an ``and``/``or`` is dropped: a missing (or lost) check."""

    name = "drop_condition_clause"
    odc_category, odc_subcategory = "Checking", "missing check"
    hef_category = "missing logic"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for node in ctx.of_type(cst.BooleanOperation):
            for kept, dropped in ((node.left, node.right), (node.right, node.left)):
                replacement = kept
                if node.lpar and not kept.lpar:
                    replacement = kept.with_changes(lpar=node.lpar, rpar=node.rpar)
                yield Site(node, replacement, f"dropped clause {code(dropped)}")


_EXITS = (cst.Return, cst.Raise, cst.Continue, cst.Break)


class DropGuard(Operator):
    """A guard clause (``if cond: return/raise/continue/break``) is removed."""

    name = "drop_guard"
    odc_category, odc_subcategory = "Checking", "missing check"
    hef_category = "missing logic"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for node in ctx.of_type(cst.If):
            if node.orelse is not None or ctx.parent(node) is None:
                continue
            body = node.body.body
            if len(body) != 1:
                continue
            line = body[0]
            small = line.body if isinstance(line, cst.SimpleStatementLine) else body
            if not all(isinstance(s, _EXITS) for s in small):
                continue
            siblings = block_statements(ctx, node)
            if siblings is None or len(siblings) < 2:
                continue
            yield Site(node, cst.RemovalSentinel.REMOVE, f"dropped guard if {code(node.test)}")


class InvertIfElse(Operator):
    """The bodies of an ``if``/``else`` are swapped (condition unchanged)."""

    name = "invert_if_else"
    odc_category, odc_subcategory = "Checking", "inverted branches"
    hef_category = "operator misuse"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for node in ctx.of_type(cst.If):
            orelse = node.orelse
            if not isinstance(orelse, cst.Else):
                continue
            if code(node.body).strip() == code(orelse.body).strip():
                continue
            swapped = node.with_changes(
                body=orelse.body, orelse=orelse.with_changes(body=node.body)
            )
            yield Site(node, swapped, f"swapped branches of if {code(node.test)}")


_GUARDABLE = (cst.AugAssign, cst.Expr)


class AddSpuriousGuard(Operator):
    """A statement is wrapped in ``if name:``, silently skipping it for 0, "", [] or None."""

    name = "add_spurious_guard"
    odc_category, odc_subcategory = "Checking", "extraneous check"
    hef_category = "excess logic"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        bound = ctx.bindings()
        for line in ctx.of_type(cst.SimpleStatementLine):
            if ctx.in_nested_scope(line) or not isinstance(ctx.parent(line), cst.IndentedBlock):
                continue
            if len(line.body) != 1 or not isinstance(line.body[0], _GUARDABLE):
                continue
            statement = line.body[0]
            if isinstance(statement, cst.Expr) and not isinstance(statement.value, cst.Call):
                continue
            names = [
                n
                for n in ctx.variables()
                if ctx.index(line) <= ctx.index(n) < ctx.end_index(line)
                and ctx.name_role(n) == "load"
                and n.value in bound
                and n.value not in ("self", "cls")
                and bound[n.value] < ctx.index(line)
            ]
            if not names:
                continue
            guard = names[-1].value
            inner = cst.IndentedBlock(body=[line.with_changes(leading_lines=[])])
            wrapped = cst.If(test=cst.Name(guard), body=inner, leading_lines=line.leading_lines)
            yield Site(line, wrapped, f"guarded {code(statement)} with if {guard}")


class WrongException(Operator):
    """``except ValueError`` becomes ``except TypeError`` (and similar near misses)."""

    name = "wrong_exception"
    odc_category, odc_subcategory = "Checking", "wrong exception caught"
    hef_category = "value misuse"
    PAIRS: dict[str, str] = {
        "ValueError": "TypeError",
        "TypeError": "ValueError",
        "KeyError": "IndexError",
        "IndexError": "KeyError",
        "LookupError": "KeyError",
        "AttributeError": "TypeError",
        "ZeroDivisionError": "ValueError",
        "FileNotFoundError": "PermissionError",
        "OSError": "ValueError",
        "RuntimeError": "ValueError",
        "StopIteration": "IndexError",
        "UnicodeDecodeError": "ValueError",
        "ArithmeticError": "ValueError",
        "NotImplementedError": "TypeError",
    }

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for handler in ctx.of_type(cst.ExceptHandler):
            kind = handler.type
            names = [kind] if isinstance(kind, cst.Name) else []
            if isinstance(kind, cst.Tuple):
                names = [e.value for e in kind.elements if isinstance(e.value, cst.Name)]
            for name in names:
                new = self.PAIRS.get(name.value)
                if new is None or (isinstance(kind, cst.Tuple) and new in code(kind)):
                    continue
                yield Site(name, name.with_changes(value=new), f"except {name.value} -> {new}")
