"""Difficulty slices and stratified, seeded sampling."""

from __future__ import annotations

from collections import Counter

import pytest

from corrupt.errors import InputError, SelectionError
from corrupt.selection.models import SliceSpec, Target
from corrupt.selection.slices import band_of, select_targets, slice_spec


def target(name: str, centrality: float, complexity: float) -> Target:
    return Target(name, "pkg/mod.py", 1, 9, {}, centrality, complexity)


def grid_targets(per_cell: int = 10) -> list[Target]:
    """Targets spread evenly over the whole 0..100 x 0..100 square."""
    out = []
    for i in range(30):
        for j in range(3):
            c = (i % 10) * 10 + 5
            x = ((i // 10) * 3 + j) * 100 / 9 + 1
            out.append(target(f"pkg.mod.f{i}_{j}", c, x))
    return out


def test_named_slices() -> None:
    hard = slice_spec("hard", None, None)
    assert hard.contains(90, 99) and hard.contains(100, 100)
    assert not hard.contains(89.9, 99) and not hard.contains(95, 50)
    easy, medium = slice_spec("easy", None, None), slice_spec("Medium", None, None)
    assert easy.contains(0, 49.9) and easy.contains(95, 10) and not easy.contains(50, 50)
    assert medium.contains(50, 89.9) and medium.contains(99, 60) and not medium.contains(90, 90)
    assert slice_spec(None, None, None).contains(0, 100)


def test_every_point_is_in_exactly_one_named_band() -> None:
    bands = [slice_spec(name, None, None) for name in ("easy", "medium", "hard")]
    edges = [0, 10, 49.99, 50, 50.01, 75, 89.99, 90, 95, 100]
    for c in edges:
        for x in edges:
            inside = [b.name for b in bands if b.contains(c, x)]
            assert inside == [band_of(c, x)], (c, x, inside)
    assert band_of(95, 10) == "easy" and band_of(60, 99) == "medium" and band_of(90, 90) == "hard"


def test_explicit_bands_leave_the_other_axis_whole_and_never_mix_with_a_named_one() -> None:
    assert slice_spec(None, "75", None) == SliceSpec("custom", (75.0, 100.0), (0.0, 100.0))
    assert slice_spec("all", "90", "0:50") == SliceSpec("custom", (90.0, 100.0), (0.0, 50.0))
    with pytest.raises(InputError, match="--slice hard is a named band"):
        slice_spec("hard", None, "0:50")


@pytest.mark.parametrize(("band", "meant"), [("0.5", "50"), ("0:0.9", "90")])
def test_a_fraction_is_not_taken_for_a_percentile(band, meant) -> None:
    with pytest.raises(InputError, match=f"write {meant} for the {meant}th percentile"):
        slice_spec(None, band, None)


@pytest.mark.parametrize(
    "centrality, complexity",
    [("abc", None), ("90:80", None), (None, "-5"), (None, "50:101"), ("", "10:"), ("1:2:3", None)],
)
def test_bad_bands_are_input_errors(centrality, complexity) -> None:
    with pytest.raises(InputError, match="pct"):
        slice_spec(None, centrality, complexity)


def test_unknown_slice_name() -> None:
    with pytest.raises(InputError, match="unknown slice 'brutal'"):
        slice_spec("brutal", None, None)


def test_empty_slice_is_a_selection_error() -> None:
    targets = [target("pkg.a", 10, 95), target("pkg.b", 95, 10)]
    with pytest.raises(SelectionError, match="hard .*none of the 2 eligible"):
        select_targets(targets, slice_spec("hard", None, None), 5, seed=0)


def test_fewer_than_n_returns_all_in_slice() -> None:
    targets = [target("pkg.a", 95, 95), target("pkg.b", 91, 99), target("pkg.c", 10, 10)]
    picked = select_targets(targets, slice_spec("hard", None, None), 10, seed=3)
    assert sorted(t.qualname for t in picked) == ["pkg.a", "pkg.b"]


def test_sampling_spans_the_slice_and_is_seeded() -> None:
    targets = grid_targets()
    spec = slice_spec(None, None, None)
    picked = select_targets(targets, spec, 9, seed=1)
    cells = Counter(
        (int(t.centrality_pct // (100 / 3)), int(t.complexity_pct // (100 / 3))) for t in picked
    )
    assert len(cells) == 9, cells  # one from every stratum
    assert [t.qualname for t in select_targets(targets, spec, 9, seed=1)] == [
        t.qualname for t in picked
    ]
    assert [t.qualname for t in select_targets(targets, spec, 9, seed=2)] != [
        t.qualname for t in picked
    ]
    assert len({t.qualname for t in select_targets(targets, spec, 50, seed=1)}) == 50


def test_sampling_within_a_custom_slice_uses_its_own_strata() -> None:
    targets = grid_targets()
    spec = slice_spec(None, "50:100", "50:100")
    picked = select_targets(targets, spec, 4, seed=0)
    assert all(spec.contains(t.centrality_pct, t.complexity_pct) for t in picked)
    halves = {(t.centrality_pct >= 75, t.complexity_pct >= 75) for t in picked}
    assert len(halves) >= 3  # not four neighbours from one corner
