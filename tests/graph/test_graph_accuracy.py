"""Call-graph accuracy over hand-labelled fixtures: each case keeps its own precision
and recall, and the whole suite keeps the overall targets (0.99 and 0.95)."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from corrupt.graph.accuracy import Score, load_cases, score, totals
from corrupt.graph.build import build_code_graph

FIXTURES = Path(__file__).parents[1] / "fixtures" / "graph"
CASES = {case.name: case for case in load_cases(FIXTURES)}


@functools.cache
def scored(name: str) -> Score:
    return score(FIXTURES, CASES[name])


def test_every_fixture_folder_is_a_listed_case():
    folders = {p.name for p in FIXTURES.iterdir() if (p / "expected.json").is_file()}
    assert folders == set(CASES)


def test_suite_covers_the_required_categories():
    required = {
        "arguments",
        "classes and inheritance",
        "decorators",
        "dict containers",
        "direct calls",
        "exceptions",
        "generators and iterators",
        "builtins calling back",
        "imports",
        "lambdas",
        "list and tuple containers",
        "protocols: operators",
        "protocols: with",
        "returns",
        "nested functions",
        "module-level code",
    }
    assert required <= {case.category for case in CASES.values()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_case_keeps_its_precision_and_recall(name):
    result = scored(name)
    detail = [f"false {a} -> {b}" for a, b in sorted(result.false)]
    detail += [f"missed {a} -> {b}" for a, b in sorted(result.missed)]
    assert result.passes, (
        f"{name}: precision {result.precision:.3f} (min {result.case.min_precision}), "
        f"recall {result.recall:.3f} (min {result.case.min_recall}): " + "; ".join(detail)
    )


def test_overall_precision_and_recall():
    precision, recall = totals([scored(name) for name in CASES])
    assert precision >= 0.99
    assert recall >= 0.95


@pytest.mark.parametrize("name", sorted(CASES))
def test_expected_edges_name_real_symbols(name):
    """A typo in a fixture would silently lower recall: every name must exist."""
    graph = build_code_graph(FIXTURES / name, use_cache=False)
    for caller, callee in CASES[name].expected:
        assert caller in graph.symbols, caller
        assert callee in graph.symbols, callee
