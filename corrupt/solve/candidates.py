"""Repair candidates: the operator catalogue's edits at the most suspicious lines, in rank order.

Mutation-based repair (PraPR, Ghanbari et al., ISSTA 2019) applies the same
kind of edit a mutation tool makes, at the lines fault localisation ranks
first, and keeps the first one the tests accept. Applied to buggy code, the
catalogue holds most of its own inverses (a flipped comparison flips back, a
shifted boundary shifts back, a swapped ``and`` swaps back, a nudged constant
is nudged the other way); what it cannot undo is a deletion, since no
operator writes code the function never had. Each candidate changes one line
the ranking names, in the function holding that line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from corrupt.corruptors.models import Mutant
from corrupt.corruptors.operators import generate_mutants
from corrupt.solve.localize import RankedLine
from corrupt.source.functions import TargetNotFound, functions_in, parse_python


@dataclass(frozen=True)
class Candidate:
    """One repair: ``file`` rewritten to ``text`` by ``operator`` at a line of rank ``rank``."""

    file: str
    text: str
    operator: str
    description: str
    line: int
    rank: int


def candidates(ranked: list[RankedLine], read: Callable[[str], str | None]) -> Iterator[Candidate]:
    """Every distinct single-edit repair touching a ranked line, the top line's first."""
    seen: set[tuple[str, str]] = set()
    mutants_of: dict[tuple[str, str, int], list[Mutant]] = {}
    for rank, place in enumerate(ranked, 1):
        source = read(place.file)
        if source is None:
            continue
        try:
            functions = functions_in(parse_python(source))
        except TargetNotFound:
            continue
        holding = [
            (path, node)
            for path, node in functions
            if node.lineno <= place.line <= (node.end_lineno or node.lineno)
        ]
        if not holding:
            continue
        path, node = holding[-1]  # the innermost function holding the line
        key = (place.file, path, node.lineno)
        if key not in mutants_of:
            mutants_of[key] = generate_mutants(source, place.file, path, node.lineno, seed=0)
        for mutant in mutants_of[key]:
            if place.line not in mutant.lines or (place.file, mutant.corrupted) in seen:
                continue
            seen.add((place.file, mutant.corrupted))
            yield Candidate(
                place.file, mutant.corrupted, mutant.operator, mutant.description, place.line, rank
            )
