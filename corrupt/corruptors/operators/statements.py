"""Control flow and missing statements: dropped effects, lost ``break``s, early returns."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from corrupt.corruptors.operators.base import (
    FunctionContext,
    Operator,
    Site,
    block_statements,
    code,
)


def _droppable_effect(statement: cst.BaseSmallStatement) -> bool:
    """A statement whose removal loses an effect but leaves no name unbound."""
    if isinstance(statement, cst.Expr):
        return isinstance(statement.value, cst.Call | cst.Await)
    if isinstance(statement, cst.AugAssign):
        return True
    if isinstance(statement, cst.Assign):
        return all(isinstance(t.target, cst.Attribute | cst.Subscript) for t in statement.targets)
    return False


class DropStatement(Operator):
    """A side-effecting statement (call, ``+=``, attribute or item assignment) is removed."""

    name = "drop_statement"
    odc_category, odc_subcategory = "Algorithm", "missing statement"
    hef_category = "missing logic"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for line in ctx.of_type(cst.SimpleStatementLine):
            if len(line.body) != 1 or not _droppable_effect(line.body[0]):
                continue
            siblings = block_statements(ctx, line)
            if siblings is None or len(siblings) < 2:
                continue
            yield Site(line, cst.RemovalSentinel.REMOVE, f"dropped {code(line.body[0])}")


class DropBreakContinue(Operator):
    """A ``break`` or ``continue`` that shares its block with other statements is removed.

    A lone ``break`` under an ``if`` is left to ``drop_guard``: replacing it by
    ``pass`` would leave an ``if ...: pass`` that gives the bug away.
    """

    name = "drop_break_continue"
    odc_category, odc_subcategory = "Algorithm", "missing control flow"
    hef_category = "missing logic"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for line in ctx.of_type(cst.SimpleStatementLine):
            if len(line.body) != 1 or not isinstance(line.body[0], cst.Break | cst.Continue):
                continue
            siblings = block_statements(ctx, line)
            if siblings is None or len(siblings) < 2:
                continue
            yield Site(line, cst.RemovalSentinel.REMOVE, f"dropped {code(line.body[0])}")


_ACCUMULATING_METHODS = ("append", "extend", "insert", "write", "appendleft")


def _accumulates(statement: cst.BaseSmallStatement) -> bool:
    """``total += x`` or ``out.append(x)``: doing it twice double-counts."""
    if isinstance(statement, cst.AugAssign):
        return True
    return (
        isinstance(statement, cst.Expr)
        and isinstance(statement.value, cst.Call)
        and isinstance(statement.value.func, cst.Attribute)
        and statement.value.func.attr.value in _ACCUMULATING_METHODS
    )


class DuplicateStatement(Operator):
    """An accumulating statement runs twice in a row (``total += x`` doubled): double counting."""

    name = "duplicate_statement"
    odc_category, odc_subcategory = "Algorithm", "extraneous statement"
    hef_category = "excess logic"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for line in ctx.of_type(cst.SimpleStatementLine):
            if len(line.body) != 1 or not _accumulates(line.body[0]):
                continue
            if not isinstance(ctx.parent(line), cst.IndentedBlock):
                continue
            # The copy drops the line's own comment: a repeated comment would be added text.
            again = line.with_changes(
                leading_lines=[], trailing_whitespace=cst.TrailingWhitespace()
            )
            yield Site(line, cst.FlattenSentinel([line, again]), f"repeated {code(line.body[0])}")


def _is_return_line(statement: cst.CSTNode) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Return)
    )


class ReturnInsideLoop(Operator):
    """The ``return`` after a loop moves into the loop body: it returns after one pass."""

    name = "return_inside_loop"
    odc_category, odc_subcategory = "Algorithm", "early return"
    hef_category = "excess logic"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        blocks = [ctx.function.body] + ctx.of_type(cst.IndentedBlock)
        for block in blocks:
            if not isinstance(block, cst.IndentedBlock) or ctx.in_nested_scope(block):
                continue
            body = list(block.body)
            for i in range(len(body) - 1):
                loop, after = body[i], body[i + 1]
                if not isinstance(loop, cst.For | cst.While) or not _is_return_line(after):
                    continue
                if loop.orelse is not None or not isinstance(loop.body, cst.IndentedBlock):
                    continue
                moved = after.with_changes(leading_lines=[])
                new_loop = loop.with_changes(
                    body=loop.body.with_changes(body=[*loop.body.body, moved])
                )
                new_body = body[:i] + [new_loop] + body[i + 2 :]
                yield Site(
                    block,
                    block.with_changes(body=new_body),
                    f"{code(after).strip()} moved into the loop",
                )
