"""Call-graph distances to one function, for locating where a bug manifests."""

from __future__ import annotations

import networkx as nx


def distances_to(graph: nx.DiGraph, target: str) -> dict[str, int]:
    """Fewest caller->callee steps from every function that reaches ``target`` (itself: 0).

    One breadth-first search on the reversed graph, so callers can look up any
    number of traceback frames without a path search each.
    """
    if target not in graph:
        return {}
    return dict(nx.single_source_shortest_path_length(graph.reverse(copy=False), target))
