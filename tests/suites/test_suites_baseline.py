"""Baselines on real suites: green, flaky, cached; coverage folded onto functions."""

from __future__ import annotations

import json
import time

import pytest
from repos_run_support import fixture_checkout, session_cache

from corrupt.repos.coverage import coverage_map
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.suites.baseline import compute_baseline

T = "tests/test_ops.py::"


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    return LocalSandbox(cache_dir=session_cache(tmp_path_factory))


def test_calc_baseline_is_green_cached_and_maps_functions(sandbox, tmp_path_factory, tmp_path):
    checkout = fixture_checkout("calc", tmp_path_factory)
    env = sandbox.prepare(checkout)
    baseline = compute_baseline(checkout, sandbox, env, cache_dir=tmp_path)
    assert baseline.commit == checkout.commit and baseline.flaky == []
    assert len(baseline.tests) == 8 and T + "test_add" in baseline.tests
    assert baseline.skipped == [T + "test_expected_failure", T + "test_skipped"]
    assert 0 < baseline.seconds < 60 and set(baseline.durations) == set(baseline.tests)
    assert baseline.command[:3] == ["python", "-m", "pytest"]
    # xfailed tests ran code too, but only trusted passing tests may appear in the coverage
    covering = {
        n for lines in baseline.line_coverage.values() for ids in lines.values() for n in ids
    }
    assert covering <= set(baseline.tests) and T + "test_expected_failure" not in covering
    # the def lines ran at import, outside any test; the bodies only inside tests
    outside = set(baseline.outside_tests["src/calc/ops.py"])
    assert {4, 8, 14, 23, 30} <= outside and outside.isdisjoint({5, 9, 15, 24, 31})

    spans = [
        ("calc.ops.add", "src/calc/ops.py", 5, 5),
        ("calc.ops.divide", "src/calc/ops.py", 9, 11),
        ("calc.ops.factorial", "src/calc/ops.py", 15, 20),
        ("calc.ops.mean", "src/calc/ops.py", 24, 27),
        ("calc.ops.unused", "src/calc/ops.py", 31, 31),
        ("calc.elsewhere", "src/calc/missing.py", 1, 9),
    ]
    cmap = coverage_map(baseline, spans)
    assert cmap["calc.ops.add"] == [T + "test_add"]
    assert cmap["calc.ops.divide"] == [T + "test_divide", T + "test_mean"]
    assert cmap["calc.ops.factorial"] == [
        T + "test_factorial[0-1]",
        T + "test_factorial[1-1]",
        T + "test_factorial[5-120]",
        T + "test_factorial_negative",
    ]
    assert cmap["calc.ops.unused"] == [] and cmap["calc.elsewhere"] == []

    [cached] = (tmp_path / "baselines").glob("*.json")
    stored = json.loads(cached.read_text())["baseline"]
    assert stored["tests"] == baseline.tests
    # each nodeid is stored once; lines hold indices (a 60,000-test suite stays small)
    packed = stored["line_coverage"]
    assert sorted(packed["tests"]) == sorted(covering)
    assert all(isinstance(i, int) for by_line in packed["lines"].values()
               for ids in by_line.values() for i in ids)  # fmt: skip
    started = time.monotonic()
    assert compute_baseline(checkout, sandbox, env, cache_dir=tmp_path) == baseline
    assert time.monotonic() - started < 0.5


def test_flaky_tests_are_recorded_and_excluded(sandbox, tmp_path_factory, tmp_path):
    checkout = fixture_checkout("flaky", tmp_path_factory)
    baseline = compute_baseline(checkout, sandbox, sandbox.prepare(checkout), cache_dir=tmp_path)
    assert baseline.flaky == ["tests/test_flaky.py::test_passes_only_once"]
    assert baseline.tests == ["tests/test_flaky.py::test_stable"]
    assert all(
        ids == ["tests/test_flaky.py::test_stable"]
        for lines in baseline.line_coverage.values()
        for ids in lines.values()
    )


def test_xdist_suites_report_every_test_and_their_coverage(sandbox, tmp_path_factory, tmp_path):
    """A suite whose addopts say ``-n 2``: workers report and measure, the controller merges."""
    checkout = fixture_checkout("parallel", tmp_path_factory)
    baseline = compute_baseline(checkout, sandbox, sandbox.prepare(checkout), cache_dir=tmp_path)
    squares = [f"tests/test_squares.py::test_square[{x}]" for x in range(6)]
    cubes = [f"tests/test_squares.py::test_cube[{x}]" for x in range(6)]
    assert baseline.tests == sorted(squares + cubes)
    assert sorted(baseline.line_coverage["squares.py"][2]) == sorted(squares + cubes)
    assert sorted(baseline.line_coverage["squares.py"][6]) == sorted(cubes)
