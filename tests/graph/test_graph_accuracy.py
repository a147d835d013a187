"""Call-graph accuracy over hand-written fixtures: precision first, then recall."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from corrupt.graph import build_code_graph

FIXTURES = Path(__file__).parents[1] / "fixtures" / "graph"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.json").is_file())


def expected_edges(case: str) -> set[tuple[str, str]]:
    adjacency = json.loads((FIXTURES / case / "expected.json").read_text(encoding="utf-8"))
    return {(caller, callee) for caller, callees in adjacency.items() for callee in callees}


@functools.cache
def graph_of(case: str):
    return build_code_graph(FIXTURES / case, use_cache=False)


def found_edges(case: str) -> set[tuple[str, str]]:
    return set(graph_of(case).edges)


def score() -> tuple[float, float, dict[str, tuple[set, set]]]:
    """Micro-averaged precision and recall, plus each case's (false, missed) edges."""
    true_positives = found_total = expected_total = 0
    errors = {}
    for case in CASES:
        expected, found = expected_edges(case), found_edges(case)
        true_positives += len(expected & found)
        found_total += len(found)
        expected_total += len(expected)
        errors[case] = (found - expected, expected - found)
    return true_positives / found_total, true_positives / expected_total, errors


def test_suite_covers_the_required_categories():
    required = {
        "arguments",
        "assignments",
        "classes",
        "decorators",
        "dicts",
        "direct_calls",
        "exceptions",
        "generators",
        "imports",
        "kwargs",
        "lambdas",
        "lists",
        "mro",
        "returns",
        "nested",
        "module_level",
    }
    assert required <= set(CASES)


def test_precision_and_recall_over_the_suite(capsys):
    precision, recall, errors = score()
    with capsys.disabled():
        print(
            f"\ncall-graph accuracy over {len(CASES)} cases: "
            f"precision {precision:.3f}, recall {recall:.3f}"
        )
        for case, (false, missed) in errors.items():
            for edge in sorted(false):
                print(f"  {case}: false edge {edge[0]} -> {edge[1]}")
            for edge in sorted(missed):
                print(f"  {case}: missed edge {edge[0]} -> {edge[1]}")
    assert precision >= 0.99
    assert recall >= 0.90


@pytest.mark.parametrize("case", CASES)
def test_expected_edges_name_real_symbols(case):
    """A typo in a fixture would silently lower recall: every name must exist."""
    graph = graph_of(case)
    for caller, callee in expected_edges(case):
        assert caller in graph.symbols and callee in graph.symbols
