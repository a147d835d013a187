"""distances_to: caller->callee steps to a target, worked out by hand."""

import networkx as nx

from corrupt.graph.distance import distances_to


def test_distances_follow_calls_towards_the_target():
    graph = nx.DiGraph([("a", "b"), ("b", "c"), ("a", "c"), ("c", "d"), ("e", "a")])
    graph.add_node("lonely")
    assert distances_to(graph, "c") == {"c": 0, "b": 1, "a": 1, "e": 2}
    assert distances_to(graph, "e") == {"e": 0}  # nobody calls e; callees of e do not count
    assert distances_to(graph, "missing") == {}
