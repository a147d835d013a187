"""Per-function metrics: call-graph centralities plus the local complexity measures.

Which graph the centralities use: the *function-level* call graph, i.e. only
functions, methods and nested functions as nodes, and only the edges between
them. Module and class nodes are left out because they are not candidates for
corruption and would distort reach: a module node "calls" everything its
import-time code touches. Nothing is lost for constructors: every call
``Class()`` already produces an edge to ``Class.__init__`` beside the edge to
the class node, so construction stays visible as a call of ``__init__``.
Degrees are counted on the same graph.

Harmonic centrality is *outgoing* reach (DESIGN.md): for f, the sum over every
other function g of 1/d(f -> g) along caller -> callee edges, 0 when g is
unreachable; this equals networkx's ``harmonic_centrality`` on the reversed
graph. Everything runs on rustworkx, which imports in milliseconds where
networkx, numpy and scipy take over a second (more than the metrics
themselves on a 100,000-line repository): distances come from its
breadth-first search, counted per distance layer, so the cost follows the number
of reachable pairs; betweenness (exact, normalised as networkx does) from its
Brandes, where networkx's pure-Python one takes minutes; PageRank is
networkx's power iteration step for step (see :func:`pagerank`).
"""

from __future__ import annotations

import rustworkx as rx

from corrupt.graph.local_metrics import LocalMetrics
from corrupt.graph.models import FunctionMetrics, Symbol


def function_graph(symbols: dict[str, Symbol], edges: list[tuple[str, str]]) -> rx.PyDiGraph:
    """The caller -> callee graph restricted to functions (see the module docstring):
    node ``i`` holds the ``i``-th function name in sorted order, at most one edge per pair."""
    names = sorted(q for q, s in symbols.items() if s.is_function)
    index = {name: i for i, name in enumerate(names)}
    pairs = {(index[a], index[b]) for a, b in edges if a in index and b in index and a != b}
    graph = rx.PyDiGraph()
    graph.add_nodes_from(names)
    graph.add_edges_from_no_data(sorted(pairs))
    return graph


def reach(graph: rx.PyDiGraph) -> tuple[list[float], list[float]]:
    """Outgoing harmonic reach and distance-discount reach (sum of 0.5**d) per node index.

    One breadth-first search per caller, counted layer by layer: memory stays
    linear in the graph, where an all-pairs table grows with every reachable pair.
    """
    harmonic = [0.0] * graph.num_nodes()
    discount = [0.0] * graph.num_nodes()
    for source in graph.node_indices():
        if graph.out_degree(source):
            layers = rx.bfs_layers(graph, [source])[1:]
            harmonic[source] = sum(len(layer) / d for d, layer in enumerate(layers, 1))
            discount[source] = sum(len(layer) * 0.5**d for d, layer in enumerate(layers, 1))
    return harmonic, discount


def pagerank(graph: rx.PyDiGraph, alpha: float = 0.85, tol: float = 1e-6) -> list[float]:
    """PageRank per node index as ``nx.pagerank(graph)`` computes it: the same start,
    dangling-node share, operations in the same order and the same stop (L1 change
    below ``n * tol``), so the values agree to rounding. networkx's default stops
    after a handful of iterations, far from convergence, so a converged or
    differently stopped implementation (rustworkx's) gives visibly other values.
    Each step shrinks the change by ``alpha``, so the loop ends."""
    n = graph.num_nodes()
    share = [1.0 / degree if (degree := graph.out_degree(i)) else 0.0 for i in range(n)]
    dangling = [i for i in range(n) if share[i] == 0.0]
    edges = sorted(graph.edge_list())  # by caller, the order scipy sums in
    uniform = 1.0 / n
    rank = [uniform] * n
    while True:
        flow = [0.0] * n
        for caller, callee in edges:
            flow[callee] += rank[caller] * share[caller]
        lost = sum(rank[i] for i in dangling)
        last, rank = rank, [alpha * (f + lost * uniform) + (1 - alpha) * uniform for f in flow]
        if sum(abs(new - old) for new, old in zip(rank, last, strict=True)) < n * tol:
            return rank


def function_metrics(
    symbols: dict[str, Symbol],
    edges: list[tuple[str, str]],
    local: dict[str, LocalMetrics],
) -> dict[str, FunctionMetrics]:
    """Every metric of every function, keyed by qualified name."""
    graph = function_graph(symbols, edges)
    n = graph.num_nodes()
    if n == 0:
        return {}
    harmonic, discount = reach(graph)
    ranks = pagerank(graph)
    between = rx.digraph_betweenness_centrality(graph, normalized=True)
    result = {}
    for node, name in enumerate(graph.nodes()):
        own = local.get(name)
        result[name] = FunctionMetrics(
            harmonic=harmonic[node],
            harmonic_norm=harmonic[node] / (n - 1) if n > 1 else 0.0,
            pagerank=ranks[node],
            betweenness=float(between[node]),
            distance_discount=discount[node],
            in_degree=graph.in_degree(node),
            out_degree=graph.out_degree(node),
            degree=graph.in_degree(node) + graph.out_degree(node),
            cyclomatic=own.cyclomatic if own else 1,
            halstead_volume=own.halstead_volume if own else 0.0,
            halstead_difficulty=own.halstead_difficulty if own else 0.0,
            code_lines=own.code_lines if own else 0,
            nesting_depth=own.nesting_depth if own else 0,
        )
    return result
