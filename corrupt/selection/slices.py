"""Difficulty slices over the two percentile axes, and seeded sampling that spans a slice.

Named bands are rectangles over (centrality percentile, complexity percentile),
both axes inside the band:

- ``easy``:   both below 50 (peripheral, small functions);
- ``medium``: both in [50, 90);
- ``hard``:   both at least 90 — the top decile of both axes, as in Breakpoint.

Functions that are high on one axis and low on the other belong to no named
band; ask for them explicitly (``--centrality-pct 90 --complexity-pct 0:50``).
``all`` (no slice given) covers everything.  Bands are half-open ``[lo, hi)``
except that an upper bound of 100 is inclusive.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence

from corrupt.errors import InputError, SelectionError
from corrupt.selection.models import SliceName, SliceSpec, Target

FULL: tuple[float, float] = (0.0, 100.0)
NAMED_SLICES: dict[SliceName, SliceSpec] = {
    SliceName.ALL: SliceSpec("all", FULL, FULL),
    SliceName.EASY: SliceSpec("easy", (0.0, 50.0), (0.0, 50.0)),
    SliceName.MEDIUM: SliceSpec("medium", (50.0, 90.0), (50.0, 90.0)),
    SliceName.HARD: SliceSpec("hard", (90.0, 100.0), (90.0, 100.0)),
}
GRID = 3  # strata per axis when sampling within a slice


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
            f"--slice {key} is a band on both axes ({base.describe()}); give it or "
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
