"""Metrics against values worked out by hand, networkx's own definitions, and radon."""

from __future__ import annotations

import textwrap
from pathlib import Path

import networkx as nx
import pytest
from radon.complexity import cc_visit
from radon.metrics import h_visit

from corrupt.graph import build_code_graph
from corrupt.graph.metrics import function_graph, function_metrics, reach
from corrupt.graph.models import Symbol


def symbols_for(names: list[str]) -> dict[str, Symbol]:
    return {n: Symbol(n, "function", "m.py", i + 1, i + 1) for i, n in enumerate(names)}


def test_harmonic_is_outgoing_reach_on_a_chain():
    metrics = function_metrics(symbols_for(["a", "b", "c"]), [("a", "b"), ("b", "c")], {})
    assert metrics["a"].harmonic == pytest.approx(1.5)  # 1/1 + 1/2
    assert metrics["b"].harmonic == pytest.approx(1.0)
    assert metrics["c"].harmonic == 0.0
    assert type(metrics["c"].harmonic) is float  # the CSV prints 0.0, not 0
    assert metrics["a"].harmonic_norm == pytest.approx(0.75)  # 1.5 / (3 - 1)
    assert metrics["a"].distance_discount == pytest.approx(0.75)  # 0.5 + 0.25
    assert metrics["b"].distance_discount == pytest.approx(0.5)
    assert metrics["c"].distance_discount == 0.0


def test_degrees_betweenness_and_pagerank_on_a_chain():
    metrics = function_metrics(symbols_for(["a", "b", "c"]), [("a", "b"), ("b", "c")], {})
    assert (metrics["b"].in_degree, metrics["b"].out_degree, metrics["b"].degree) == (1, 1, 2)
    assert (metrics["a"].in_degree, metrics["a"].out_degree) == (0, 1)
    # only the pair a -> c passes through b; directed normalisation 1/((n-1)(n-2)) = 1/2
    assert metrics["b"].betweenness == pytest.approx(0.5)
    assert metrics["a"].betweenness == 0.0
    assert sum(m.pagerank for m in metrics.values()) == pytest.approx(1.0)
    # rank flows along calls: the sink of the chain ranks highest
    assert metrics["c"].pagerank > metrics["b"].pagerank > metrics["a"].pagerank


def test_diamond_with_a_cycle_matches_hand_values_and_networkx():
    edges = [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d"), ("d", "a"), ("e", "a")]
    metrics = function_metrics(symbols_for(list("abcde")), edges, {})
    # a reaches b, c at 1 and d at 2; e is unreachable from a
    assert metrics["a"].harmonic == pytest.approx(1 + 1 + 0.5)
    # e reaches a at 1, b and c at 2, d at 3
    assert metrics["e"].harmonic == pytest.approx(1 + 0.5 + 0.5 + 1 / 3)
    assert metrics["e"].distance_discount == pytest.approx(0.5 + 0.25 + 0.25 + 0.125)
    expected = nx.harmonic_centrality(nx.DiGraph(edges).reverse())
    calls = function_graph(symbols_for(list("abcde")), edges)
    found, _ = reach(calls)
    for node, name in enumerate(calls.nodes()):
        assert found[node] == pytest.approx(expected[name])


def test_recursion_is_an_edge_but_not_reach():
    metrics = function_metrics(symbols_for(["f", "g"]), [("f", "f"), ("f", "g")], {})
    assert metrics["f"].harmonic == pytest.approx(1.0)
    assert metrics["f"].out_degree == 1


def test_module_and_class_nodes_stay_out_of_centrality():
    symbols = symbols_for(["pkg.f", "pkg.g"])
    symbols["pkg"] = Symbol("pkg", "module", "pkg.py", 1, 10)
    symbols["pkg.C"] = Symbol("pkg.C", "class", "pkg.py", 1, 10)
    edges = [("pkg", "pkg.f"), ("pkg.f", "pkg.C"), ("pkg.f", "pkg.g")]
    metrics = function_metrics(symbols, edges, {})
    assert set(metrics) == {"pkg.f", "pkg.g"}
    assert metrics["pkg.f"].in_degree == 0
    assert metrics["pkg.f"].harmonic == pytest.approx(1.0)


SOURCE = textwrap.dedent(
    '''
    import os


    def classify(values, limit=3):
        """Sort values into buckets.

        Long docstring lines do not count as code.
        """
        buckets = {}
        # comments do not count either
        for value in values:
            if value > limit and value % 2 == 0:
                buckets.setdefault("big-even", []).append(value)
            elif value > limit:
                while value > limit:
                    value -= limit
            else:
                try:
                    buckets[value] = os.fspath(str(value))
                except (TypeError, ValueError):
                    pass
        return buckets


    class Meter:
        def read(self, raw):
            total = raw * 2 + 1
            return total if total > 0 else -total

        async def fetch(self, source):
            async with source as stream:
                return [x async for x in stream if x]
    '''
)


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> tuple[Path, object]:
    root = tmp_path_factory.mktemp("metrics")
    (root / "sample.py").write_text(SOURCE, encoding="utf-8")
    return root, build_code_graph(root, use_cache=False)


def test_cyclomatic_matches_radon(sample):
    _, graph = sample
    radon_blocks = {}
    for block in cc_visit(SOURCE):
        radon_blocks[block.name] = block.complexity
        for method in getattr(block, "methods", []):
            radon_blocks[method.name] = method.complexity
    assert graph.metrics["sample.classify"].cyclomatic == radon_blocks["classify"]
    assert graph.metrics["sample.Meter.read"].cyclomatic == radon_blocks["read"]
    assert graph.metrics["sample.Meter.fetch"].cyclomatic == radon_blocks["fetch"]
    assert graph.metrics["sample.classify"].cyclomatic > 4


def test_halstead_matches_radon(sample):
    _, graph = sample
    reports = dict(h_visit(SOURCE).functions)
    for qualname, name in [("sample.classify", "classify"), ("sample.Meter.read", "read")]:
        assert graph.metrics[qualname].halstead_volume == pytest.approx(reports[name].volume)
        assert graph.metrics[qualname].halstead_difficulty == pytest.approx(
            reports[name].difficulty
        )
    assert graph.metrics["sample.classify"].halstead_volume > 0


def test_code_lines_and_nesting_by_hand(sample):
    _, graph = sample
    classify = graph.metrics["sample.classify"]
    # def, buckets, for, if, setdefault, elif, while, -=, else, try, assign, except, pass, return
    assert classify.code_lines == 14
    # for > if/elif > while, and for > else > try: three levels, elif is not deeper
    assert classify.nesting_depth == 3
    assert graph.metrics["sample.Meter.read"].nesting_depth == 0
    assert graph.metrics["sample.Meter.read"].code_lines == 3
    assert graph.metrics["sample.Meter.fetch"].nesting_depth == 1


def test_betweenness_equals_networkx_on_a_tangled_graph():
    graph = nx.gnp_random_graph(60, 0.06, seed=3, directed=True)
    graph = nx.relabel_nodes(graph, {n: f"f{n}" for n in graph})
    metrics = function_metrics(symbols_for(list(graph)), list(graph.edges), {})
    expected = nx.betweenness_centrality(graph)
    assert max(expected.values()) > 0
    for node in graph:
        assert metrics[node].betweenness == pytest.approx(expected[node], abs=1e-12)
    # networkx's own iteration, not merely PageRank: its default stops far from convergence
    pagerank = nx.pagerank(graph)
    assert any(graph.out_degree(node) == 0 for node in graph)  # dangling nodes too
    for node in graph:
        assert metrics[node].pagerank == pytest.approx(pagerank[node], rel=1e-12)
