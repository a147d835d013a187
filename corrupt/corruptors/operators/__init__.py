"""Procedural corruption operators: the catalogue and single-site mutant generation.

``CATALOGUE`` maps each operator's name to an instance; every operator carries
its ODC category/subcategory and HumanEvalFix category. ``generate_mutants``
runs all (or the named) operators over one function and returns checked,
deduplicated single-site mutants in a seed-determined order.
"""

from __future__ import annotations

from collections.abc import Iterable

from corrupt.corruptors.operators.assignment import (
    ChangeDefault,
    LateBindingClosure,
    MutableDefault,
    ShadowedName,
    WrongVariable,
)
from corrupt.corruptors.operators.base import FunctionContext, Operator, Site
from corrupt.corruptors.operators.calls import (
    DropKeywordArgument,
    FlipKeywordArgument,
    SwapCallArguments,
    WrongBuiltin,
    WrongMethod,
)
from corrupt.corruptors.operators.checking import (
    AddSpuriousGuard,
    DropConditionClause,
    DropGuard,
    FlipComparison,
    InNotIn,
    InvertIfElse,
    IsVsEquality,
    NegateCondition,
    NoneVsFalsy,
    ShiftBoundary,
    SwapAndOr,
    WrongException,
)
from corrupt.corruptors.operators.statements import (
    DropBreakContinue,
    DropStatement,
    DuplicateStatement,
    ReturnInsideLoop,
)
from corrupt.corruptors.operators.values import (
    FlipBoolean,
    IndexOffByOne,
    LoopRangeOffByOne,
    NudgeConstant,
    SwapArithmetic,
    SwapOperands,
)
from corrupt.errors import InputError

_CLASSES: list[type[Operator]] = [
    FlipComparison,
    ShiftBoundary,
    NegateCondition,
    DropConditionClause,
    SwapAndOr,
    IsVsEquality,
    InNotIn,
    NoneVsFalsy,
    DropGuard,
    InvertIfElse,
    AddSpuriousGuard,
    WrongException,
    NudgeConstant,
    FlipBoolean,
    LoopRangeOffByOne,
    IndexOffByOne,
    SwapArithmetic,
    SwapOperands,
    WrongMethod,
    WrongBuiltin,
    SwapCallArguments,
    FlipKeywordArgument,
    DropKeywordArgument,
    DropStatement,
    DropBreakContinue,
    DuplicateStatement,
    ReturnInsideLoop,
    WrongVariable,
    ChangeDefault,
    MutableDefault,
    LateBindingClosure,
    ShadowedName,
]
CATALOGUE: dict[str, Operator] = {cls.name: cls() for cls in sorted(_CLASSES, key=lambda c: c.name)}


def select(names: Iterable[str] | None = None) -> list[Operator]:
    """The named operators (all when ``names`` is None), in catalogue (name) order."""
    if names is None:
        return list(CATALOGUE.values())
    wanted = set(names)
    unknown = sorted(wanted - set(CATALOGUE))
    if unknown:
        raise InputError(f"unknown operator(s): {', '.join(unknown)}; see CATALOGUE")
    return [op for name, op in CATALOGUE.items() if name in wanted]


from corrupt.corruptors.operators.mutate import generate_mutants, mutant_problem  # noqa: E402

__all__ = [
    "CATALOGUE",
    "FunctionContext",
    "Operator",
    "Site",
    "generate_mutants",
    "mutant_problem",
    "select",
]
