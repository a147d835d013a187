"""Difficulty slices over the two percentile axes, and seeded sampling that spans a slice.

Named bands go by the lower of a function's two percentile ranks (centrality,
complexity): a function is as hard as its easier axis.

- ``easy``:   the lower below 50 (peripheral or small);
- ``medium``: the lower in [50, 90), both at least 50;
- ``hard``:   both at least 90 — the top decile of both axes, as in Breakpoint.

So every function and task is in exactly one named band (:func:`band_of`, the
``slice`` of a task record).  Explicit bands per axis select anything else
(``--centrality-pct 90 --complexity-pct 0:50``); ``all`` (no slice given) covers
everything.  Bands are half-open ``[lo, hi)`` except that an upper bound of 100 is
inclusive.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence

from corrupt.errors import InputError, SelectionError
from corrupt.selection.models import SliceName, SliceSpec, Target

NAMED_SLICES: dict[SliceName, SliceSpec] = {
    SliceName.ALL: SliceSpec("all"),
    SliceName.EASY: SliceSpec("easy", lower=(0.0, 50.0)),
    SliceName.MEDIUM: SliceSpec("medium", (50.0, 100.0), (50.0, 100.0), (50.0, 90.0)),
    SliceName.HARD: SliceSpec("hard", (90.0, 100.0), (90.0, 100.0), (90.0, 100.0)),
}
BANDS = (SliceName.EASY, SliceName.MEDIUM, SliceName.HARD)
GRID = 3  # strata per axis when sampling within a slice


def band_of(centrality_pct: float, complexity_pct: float) -> SliceName:
    """The one named band a function or task with these percentile ranks is in."""
    return next(b for b in BANDS if NAMED_SLICES[b].contains(centrality_pct, complexity_pct))


def parse_band(text: str, option: str) -> tuple[float, float]:
    """``"90"`` -> (90, 100); ``"50:90"`` -> (50, 90); anything else is an InputError."""
    lo_text, sep, hi_text = text.strip().partition(":")
    try:
        lo = float(lo_text)
        hi = float(hi_text) if sep else 100.0
    except ValueError:
        raise InputError(
            f"{option} must be LO or LO:HI with percentiles 0-100, got {text!r}"
        ) from None
    if not (0.0 <= lo < hi <= 100.0):
        raise InputError(f"{option} {text!r}: need 0 <= LO < HI <= 100")
    fraction = next((v for v in (lo, hi) if 0.0 < v < 1.0), None)
    if fraction is not None:
        raise InputError(
            f"{option} {text!r}: percentiles run 0-100, and {fraction:g} reads as a fraction "
            f"(write {fraction * 100:g} for the {fraction * 100:g}th percentile)"
        )
    return lo, hi


def slice_spec(
    name: str | None, centrality_pct: str | None = None, complexity_pct: str | None = None
) -> SliceSpec:
    """The slice a user asked for: a named band, or explicit percentile bands (an axis
    not given is whole); both at once is refused, since either could be meant."""
    key = (name or "all").strip().lower()
    if key not in NAMED_SLICES:
        raise InputError(f"unknown slice {name!r}; choose one of {', '.join(NAMED_SLICES)}")
    base = NAMED_SLICES[SliceName(key)]
    if centrality_pct is None and complexity_pct is None:
        return base
    if key != SliceName.ALL:
        raise InputError(
            f"--slice {key} is a named band ({base.describe()}); give it or "
            "--centrality-pct/--complexity-pct, not both"
        )
    return SliceSpec(
        "custom",
        parse_band(centrality_pct, "--centrality-pct") if centrality_pct else base.centrality,
        parse_band(complexity_pct, "--complexity-pct") if complexity_pct else base.complexity,
    )


def in_slice(targets: Sequence[Target], spec: SliceSpec) -> list[Target]:
    return [t for t in targets if spec.contains(t.centrality_pct, t.complexity_pct)]


def _stratum(value: float, band: tuple[float, float]) -> int:
    lo, hi = band
    return min(GRID - 1, int((value - lo) / (hi - lo) * GRID))


def select_targets(
    targets: Sequence[Target], spec: SliceSpec, n: int, *, seed: int
) -> list[Target]:
    """Up to ``n`` targets from the slice, spread over a GRID x GRID split of its rectangle.

    Each stratum is shuffled with the seed and strata are visited round-robin, so
    ten tasks from "all" are not ten near-median functions.  Fewer than ``n``
    in the slice: all of them are returned and the caller reports the shortfall.
    """
    members = in_slice(targets, spec)
    if not members:
        raise SelectionError(
            f"slice {spec.describe()} holds none of the {len(targets)} eligible functions; "
            "widen it or lower --min-lines / --min-covering"
        )
    rng = random.Random(seed)
    strata: dict[tuple[int, int], list[Target]] = defaultdict(list)
    for target in sorted(members, key=lambda t: (t.file, t.start_line, t.qualname)):
        key = (
            _stratum(target.centrality_pct, spec.centrality),
            _stratum(target.complexity_pct, spec.complexity),
        )
        strata[key].append(target)
    queues = [strata[key] for key in sorted(strata)]
    for queue in queues:
        rng.shuffle(queue)
    rng.shuffle(queues)
    chosen: list[Target] = []
    for depth in range(max(len(q) for q in queues)):
        for queue in queues:
            if depth < len(queue) and len(chosen) < n:
                chosen.append(queue[depth])
    return chosen
