"""Deletion corruption ("remove mode"): the solver must re-implement a named function.

Decorators, the signature (however many lines) and the docstring stay, because
they are the specification the solver works from; only the body goes. The
rewrite goes through libcst so every other byte of the file is untouched.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from corrupt.corruptors.models import (
    Corruption,
    CorruptionKind,
    CorruptionOutcome,
    CorruptionRequest,
    DeletionStyle,
    FileChange,
    Mutant,
    Rejection,
    RejectionKind,
    Screener,
)
from corrupt.source.edits import changed_lines
from corrupt.source.functions import TargetNotFound
from corrupt.source.locate import locate

_REPLACEMENTS: dict[DeletionStyle, cst.BaseSmallStatement] = {
    DeletionStyle.RAISE: cst.Raise(exc=cst.Name("NotImplementedError")),
    DeletionStyle.PASS: cst.Pass(),
}


@dataclass(frozen=True)
class DeletionCorruptor:
    """Remove mode: the target's body goes; nothing is screened here (verification runs the suite)."""

    style: DeletionStyle = DeletionStyle.RAISE
    name: str = "deletion"

    def corrupt(self, request: CorruptionRequest, screener: Screener) -> CorruptionOutcome:
        target = request.target
        try:
            mutant = delete_function(
                target.source, target.file, target.qualname, target.def_line, style=self.style
            )
        except TargetNotFound as exc:
            rejection = Rejection(RejectionKind.NOT_FOUND, exc.message)
            return CorruptionOutcome(target.qualname, rejection=rejection)
        corruption = Corruption(
            kind=CorruptionKind.DELETION,
            corruptor=self.name,
            targets=[target.qualname],
            files={target.file: FileChange(target.source, mutant.corrupted)},
            bugs=[mutant.bug()],
        )
        return CorruptionOutcome(target.qualname, corruption=corruption, candidates=1)


def _docstring_statement(body: cst.BaseSuite) -> cst.CSTNode | None:
    """The docstring statement (or small statement, for one-line suites), if any."""
    if isinstance(body, cst.IndentedBlock):
        if body.body and isinstance(body.body[0], cst.SimpleStatementLine):
            first = body.body[0]
            if _is_string_expr(first.body[0]):
                return first
        return None
    assert isinstance(body, cst.SimpleStatementSuite)
    return body.body[0] if _is_string_expr(body.body[0]) else None


def _is_string_expr(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Expr) and isinstance(
        node.value, cst.SimpleString | cst.ConcatenatedString
    )


def hollow_body(body: cst.BaseSuite, style: DeletionStyle = DeletionStyle.RAISE) -> cst.BaseSuite:
    """``body`` reduced to its docstring plus ``raise NotImplementedError`` (or ``pass``)."""
    replacement = _REPLACEMENTS[style]
    docstring = _docstring_statement(body)
    if isinstance(body, cst.IndentedBlock):
        line = cst.SimpleStatementLine(body=[replacement])
        kept = [docstring, line] if isinstance(docstring, cst.SimpleStatementLine) else [line]
        return body.with_changes(body=kept)
    assert isinstance(body, cst.SimpleStatementSuite)
    small = [docstring, replacement] if isinstance(docstring, cst.Expr) else [replacement]
    last = cst.MaybeSentinel.DEFAULT
    return body.with_changes(body=[s.with_changes(semicolon=last) for s in small])


def delete_function(
    source: str,
    file: str,
    qualname: str,
    def_line: int,
    *,
    style: DeletionStyle = DeletionStyle.RAISE,
) -> Mutant:
    """Replace the body of the function whose ``def`` is on ``def_line``."""
    if style not in _REPLACEMENTS:
        raise TargetNotFound(f"unknown deletion style {style!r} (use 'raise' or 'pass')")
    located = locate(source, qualname, def_line)
    function = located.function
    hollowed = function.with_changes(body=hollow_body(function.body, style))
    corrupted = located.with_function(hollowed)
    if corrupted == source:
        raise TargetNotFound(f"{qualname} has no body to delete")
    return Mutant(
        target=qualname,
        file=file,
        operator="deletion",
        odc_category="Algorithm",
        odc_subcategory="missing implementation",
        hef_category="missing logic",
        original=source,
        corrupted=corrupted,
        lines=changed_lines(source, corrupted),
        description=f"body of {qualname} replaced by {style}",
    )
