"""Multi-function groups over real networkx distances in hand-built call graphs."""

from __future__ import annotations

import itertools
from collections import Counter

import networkx as nx
import pytest

from corrupt.errors import InputError
from corrupt.graph.models import CodeGraph, Symbol
from corrupt.selection.groups import function_graph, make_groups
from corrupt.selection.models import Target


def graph_with(edges: list[tuple[str, str]], modules: tuple[str, ...] = ()) -> CodeGraph:
    names = sorted({n for e in edges for n in e} - set(modules))
    symbols = {
        q: Symbol(q, "function", "pkg/mod.py", i * 10 + 1, i * 10 + 8) for i, q in enumerate(names)
    }
    symbols.update({m: Symbol(m, "module", "pkg/mod.py", 1, 500) for m in modules})
    return CodeGraph(import_root="", symbols=symbols, edges=edges)


def targets_of(graph: CodeGraph, names=None) -> list[Target]:
    chosen = names or [q for q, s in graph.symbols.items() if s.is_function]
    return [
        Target(q, "pkg/mod.py", graph.symbols[q].start_line, graph.symbols[q].end_line, {}, 50, 50)
        for q in chosen
    ]


CHAIN = [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("e", "f")]


def test_pairs_respect_undirected_distance() -> None:
    graph = graph_with(CHAIN)
    groups = make_groups(targets_of(graph), graph, k=2, max_distance=2, n=100, seed=0)
    pairs = {frozenset(t.qualname for t in g.targets) for g in groups}
    expected = {
        frozenset(p) for p in itertools.combinations("abcdef", 2) if abs(ord(p[0]) - ord(p[1])) <= 2
    }
    assert pairs == expected
    for g in groups:
        a, b = (t.qualname for t in g.targets)
        assert g.max_pairwise_distance == abs(ord(a) - ord(b))


def test_callers_of_a_common_callee_are_related() -> None:
    graph = graph_with([("x", "shared"), ("y", "shared")])
    groups = make_groups(targets_of(graph, ["x", "y"]), graph, k=2, max_distance=2, n=5, seed=0)
    assert [[t.qualname for t in g.targets] for g in groups] == [["x", "y"]]
    assert groups[0].max_pairwise_distance == 2


def test_module_nodes_do_not_bridge_functions() -> None:
    graph = graph_with([("pkg.mod", "p"), ("pkg.mod", "q")], modules=("pkg.mod",))
    assert make_groups(targets_of(graph), graph, k=2, max_distance=4, n=1, seed=0) == []


def test_triples_are_pairwise_close() -> None:
    edges = [(f"n{i}", f"n{i + 1}") for i in range(12)] + [("n3", "m1"), ("m1", "m2"), ("n9", "m2")]
    graph = graph_with(edges)
    groups = make_groups(targets_of(graph), graph, k=3, max_distance=3, n=15, seed=7)
    assert len(groups) == 15
    undirected = nx.Graph(edges)
    for g in groups:
        names = [t.qualname for t in g.targets]
        assert len(set(names)) == 3
        dists = [
            nx.shortest_path_length(undirected, a, b) for a, b in itertools.combinations(names, 2)
        ]
        assert max(dists) <= 3 and g.max_pairwise_distance == max(dists)
    assert len({frozenset(t.qualname for t in g.targets) for g in groups}) == 15


def test_groups_are_diverse_and_seeded() -> None:
    hub_edges = [("hub", f"leaf{i}") for i in range(6)]
    graph = graph_with(hub_edges)
    groups = make_groups(targets_of(graph), graph, k=2, max_distance=2, n=3, seed=11)
    used = Counter(t.qualname for g in groups for t in g.targets)
    assert len(groups) == 3 and max(used.values()) == 1  # three disjoint pairs exist, so use them
    again = make_groups(targets_of(graph), graph, k=2, max_distance=2, n=3, seed=11)
    assert [[t.qualname for t in g.targets] for g in again] == [
        [t.qualname for t in g.targets] for g in groups
    ]
    others = {
        tuple(
            tuple(t.qualname for t in g.targets)
            for g in make_groups(targets_of(graph), graph, k=2, max_distance=2, n=3, seed=s)
        )
        for s in range(6)
    }
    assert len(others) > 1


def test_only_eligible_targets_are_grouped_and_paths_may_cross_others() -> None:
    graph = graph_with(CHAIN)
    groups = make_groups(targets_of(graph, ["a", "d"]), graph, k=2, max_distance=3, n=4, seed=0)
    assert [[t.qualname for t in g.targets] for g in groups] == [["a", "d"]]
    assert set(function_graph(graph).nodes) == set("abcdef")


def test_bad_group_requests() -> None:
    graph = graph_with(CHAIN)
    with pytest.raises(InputError, match="--functions must be at least 2"):
        make_groups(targets_of(graph), graph, k=1, n=1, seed=0)
    with pytest.raises(InputError, match="--max-distance"):
        make_groups(targets_of(graph), graph, k=2, max_distance=0, n=1, seed=0)
    assert make_groups(targets_of(graph), graph, k=7, max_distance=9, n=1, seed=0) == []
