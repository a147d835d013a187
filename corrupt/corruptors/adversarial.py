"""Adversarial search: the default corruptor, a subtle mutant the tests still catch.

For one target it generates every single-site mutant the operator catalogue
offers, drops the ones a solver could spot without running anything (no-ops,
new pyflakes findings, edits outside the function), screens the rest on the
tests that cover the target (only those that ran the changed statement run:
:mod:`corrupt.corruptors.reach`), and returns the subtlest mutant that makes at
least ``min_failing`` previously passing tests fail.

Cost is bounded on purpose: screening runs at most ``max_candidates`` test
runs, each stopped by a failure budget of ``min_failing`` (enough to know a
mutant qualifies, no more), and the search stops once ``enough`` mutants have
qualified. A budget truncates the one figure ranking needs most (how many of
the covering tests fail); a truncated count is a lower bound, so the top
survivor's run is carried on (the tests it did not reach run, with a new
budget: :func:`~corrupt.corruptors.screening.resume`) until the top is
exactly measured, at most ``rank_runs`` times (by default as many as
``enough``, so the chosen mutant is always measured exactly). Once one
survivor is measured exactly, a carried-on run stops at the failure that
makes it score worse than that one: it can no longer be chosen, and the
choice is the one full re-runs would make. Total runs per target are at
most ``max_candidates + rank_runs``. Candidates are visited round-robin over
operators in a seeded order, so the first few runs already try different kinds
of bug, and the same seed always gives the same result.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from corrupt.corruptors.models import (
    Corruption,
    CorruptionKind,
    CorruptionOutcome,
    CorruptionRequest,
    DistanceTo,
    FileChange,
    Mutant,
    Rejection,
    RejectionKind,
    Screener,
)
from corrupt.corruptors.operators import generate_mutants
from corrupt.corruptors.reach import reaching_tests
from corrupt.corruptors.screening import (
    SIZE_WEIGHT,
    FrameNames,
    Screening,
    Subtlety,
    effect_of,
    resume,
    screen,
    subtlety,
)
from corrupt.corruptors.validate import tells
from corrupt.errors import CorruptError
from corrupt.source.functions import function_at, parsed


@dataclass
class _Survivor:
    mutant: Mutant
    result: Screening
    names: FrameNames
    reached: list[str]  # the covering tests that ran the changed statement

    def subtlety(self, distance_to: DistanceTo | None) -> Subtlety:
        size = len(self.mutant.lines)
        return subtlety(self.result, size, self.names, distance_to)


@dataclass(frozen=True)
class AdversarialCorruptor:
    """The procedural corruptor: :func:`adversarial_search` with its cost bounds."""

    max_candidates: int = 40
    enough: int = 4
    rank_runs: int = 4
    operators: tuple[str, ...] | None = None
    name: str = "procedural"

    def corrupt(self, request: CorruptionRequest, screener: Screener) -> CorruptionOutcome:
        return adversarial_search(
            request,
            screener,
            max_candidates=self.max_candidates,
            enough=self.enough,
            rank_runs=self.rank_runs,
            operators=self.operators,
        )


def adversarial_search(
    request: CorruptionRequest,
    screener: Screener,
    *,
    max_candidates: int = 40,
    enough: int = 4,
    rank_runs: int = 4,
    operators: Sequence[str] | None = None,
) -> CorruptionOutcome:
    """The subtlest qualifying mutant of the request's target, or the rejection saying why none."""
    target = request.target
    source, file, qualname, def_line = target.source, target.file, target.qualname, target.def_line
    baseline_passing, min_failing, seed = (
        set(request.baseline_passing),
        request.min_failing,
        request.seed,
    )
    distance_to = target.distance_to
    tests = request.covered(target)
    outcome = CorruptionOutcome(target=qualname)

    def reject(kind: RejectionKind, detail: str) -> CorruptionOutcome:
        outcome.rejection = Rejection(kind, detail)
        return outcome

    if not tests:
        return reject(RejectionKind.NO_COVERING_TESTS, "no covering tests")
    try:
        tree = parsed(source)
    except SyntaxError as exc:
        return reject(RejectionKind.NOT_FOUND, f"{file} does not parse: {exc.msg}")
    if function_at(tree, def_line, qualname) is None:
        return reject(RejectionKind.NOT_FOUND, f"target {qualname} not found at {file}:{def_line}")
    try:
        mutants = generate_mutants(source, file, qualname, def_line, seed=seed, operators=operators)
    except CorruptError as exc:
        return reject(RejectionKind.NOT_FOUND, f"mutant generation failed: {exc.message}")
    outcome.candidates = len(mutants)
    if not mutants:
        return reject(RejectionKind.NO_MUTANTS, "no mutants: no operator applies to this function")

    survivors: list[_Survivor] = []
    seen: set[str] = set()
    for mutant in _round_robin(mutants, seed):
        if len(survivors) >= enough or outcome.screened >= max_candidates:
            break
        entry: dict[str, Any] = {"operator": mutant.operator, "lines": mutant.lines}
        outcome.tried.append(entry)
        problems = _problems(mutant, source, seen, (qualname, def_line))
        if problems:
            entry.update(outcome="rejected", reason="; ".join(problems), failing=0)
            continue
        outcome.screened += 1
        reached = reaching_tests(
            source, mutant.corrupted, def_line, qualname, tests, target.line_tests
        )
        result = screen(
            screener,
            {file: mutant.corrupted},
            reached,
            baseline_passing,
            min_failing,
            covering=len(tests),
        )
        entry["failing"], entry["reached"] = len(result.failing), len(reached)
        entry["counted"] = result.counted
        if result.error or result.timed_out:
            entry["outcome"] = "timeout" if result.timed_out else "screen error"
            entry["reason"] = result.error or "the covering tests timed out"
        elif result.counted < min_failing:
            entry["outcome"] = "too few failing"
        else:
            entry["outcome"] = "survivor"
            names = FrameNames(file, mutant.corrupted, qualname, def_line, original=source)
            survivors.append(_Survivor(mutant, result, names, reached))

    if not survivors:
        return reject(*_no_survivor_reason(outcome, min_failing))

    _measure_top(
        survivors, screener, file, baseline_passing, distance_to, rank_runs, covering=len(tests)
    )
    if not survivors:
        detail = "no surviving mutant: the survivors' other tests timed out or did not run"
        return reject(RejectionKind.NO_SURVIVOR, detail)
    _rank(survivors, distance_to)
    best = survivors[0]
    outcome.corruption = _corruption(best, source, file, qualname, survivors, seed, distance_to)
    return outcome


def _measure_top(
    survivors: list[_Survivor],
    screener: Screener,
    file: str,
    baseline_passing: set[str],
    distance_to: DistanceTo | None,
    rank_runs: int,
    *,
    covering: int,
) -> None:
    """Carry the top survivor's run on until its count is exact, at most ``rank_runs``
    times, dropping a survivor whose other tests hang or cannot run (``survivors``
    may end up empty).

    A budget-truncated count is a lower bound on the failing share, which
    dominates the score, so a truncated survivor mostly ranks worse once
    measured: only the top's run is carried on (lazy evaluation)."""
    for _ in range(rank_runs):
        _rank(survivors, distance_to)
        top = survivors[0]
        if top.result.exact:
            return
        again = resume(
            screener,
            {file: top.mutant.corrupted},
            top.reached,
            top.result,
            baseline_passing,
            _losing_failures(top, survivors, distance_to),
            covering=covering,
        )
        if again.error or again.timed_out:
            survivors.pop(0)  # its other tests hang or cannot run: not a reliable task
            if not survivors:
                return
        else:
            top.result = again


def _losing_failures(
    top: _Survivor, survivors: list[_Survivor], distance_to: DistanceTo | None
) -> int | None:
    """The failure budget of ``top``'s re-run: the count at which it scores worse than
    the best exactly measured survivor whatever its other failures are (crashes
    and locality only add), so it can no longer be chosen; None: run them all."""
    measured = [s.subtlety(distance_to).score for s in survivors if s.result.exact]
    if not measured:
        return None
    floor = SIZE_WEIGHT * min(len(top.mutant.lines), 10)
    covering = max(top.result.ran, 1)
    failures = max(0, math.floor((min(measured) - floor) * covering)) + 1
    while failures / covering + floor <= min(measured):  # float rounding
        failures += 1
    return failures


def _round_robin(mutants: list[Mutant], seed: int) -> list[Mutant]:
    """Interleave operators (in a seeded order) so early runs try different kinds of bug."""
    rng = random.Random(seed)
    by_operator: dict[str, list[Mutant]] = {}
    for m in mutants:
        by_operator.setdefault(m.operator, []).append(m)
    names = sorted(by_operator)
    rng.shuffle(names)
    queues = []
    for name in names:
        queue = list(by_operator[name])
        rng.shuffle(queue)
        queues.append(queue)
    ordered: list[Mutant] = []
    while any(queues):
        for queue in queues:
            if queue:
                ordered.append(queue.pop())
    return ordered


def _problems(mutant: Mutant, source: str, seen: set[str], where: tuple[str, int]) -> list[str]:
    """The operators already checked compilation, scope, signature and no-ops (so only the
    function at ``where`` changed); add the tells."""
    if mutant.corrupted in seen:
        return ["duplicate of an earlier mutant"]
    seen.add(mutant.corrupted)
    return tells(source, mutant.corrupted, where)


def _rank(survivors: list[_Survivor], distance_to: DistanceTo | None) -> None:
    """Subtlest first; ties broken by operator and lines so the order is reproducible."""
    survivors.sort(
        key=lambda s: (
            s.subtlety(distance_to).score,
            s.mutant.operator,
            s.mutant.lines,
        )
    )


def _no_survivor_reason(outcome: CorruptionOutcome, min_failing: int) -> tuple[RejectionKind, str]:
    if outcome.screened == 0:
        return (
            RejectionKind.NO_VALID_MUTANT,
            "no valid mutant: every candidate was a no-op or left a tell",
        )
    best = max(outcome.tried, key=lambda t: (t.get("counted", 0), t.get("failing", 0)))
    most, counted = best.get("failing", 0), best.get("counted", best.get("failing", 0))
    unnamed = f" ({most - counted} more no harness can name)" if most > counted else ""
    return RejectionKind.NO_SURVIVOR, (
        f"no surviving mutant: {outcome.screened} screened, the best failed {counted} "
        f"previously passing test(s){unnamed}, {min_failing} needed"
    )


def _corruption(
    best: _Survivor,
    source: str,
    file: str,
    qualname: str,
    survivors: list[_Survivor],
    seed: int,
    distance_to: DistanceTo | None,
) -> Corruption:
    mutant, result = best.mutant, best.result
    profile = best.subtlety(distance_to)
    bug = mutant.bug(effect_of(result, best.names, distance_to))
    others = [
        {
            "operator": s.mutant.operator,
            "lines": s.mutant.lines,
            "failing": len(s.result.failing),
            "exact": s.result.exact,
            "score": s.subtlety(distance_to).score,
        }
        for s in survivors[1:]
    ]
    return Corruption(
        kind=CorruptionKind.ADVERSARIAL,
        corruptor=f"procedural:{mutant.operator}",
        targets=[qualname],
        files={file: FileChange(original=source, corrupted=mutant.corrupted)},
        bugs=[bug],
        stats={
            "failing": result.failing,
            "covering": result.ran,
            "exact": result.exact,
            "score": profile.score,
            "failing_share": profile.failing_share,
            "crash_share": profile.crash_share,
            "locality": profile.locality,
            "seed": seed,
            "survivors": others,
            "description": mutant.description,
        },
    )
