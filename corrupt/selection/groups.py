"""Groups of functions to corrupt together for multi-function tasks.

Members of a group lie at most ``max_distance`` steps apart in the call graph
taken *undirected*: a caller and its callee's sibling are related even though
no directed path joins them, and Breakpoint's multi-function difficulty is
about how far the repair has to travel, not about call direction.  Paths run
only through functions (module and class nodes would tie together everything
a module calls at import time).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence

import networkx as nx

from corrupt.errors import InputError
from corrupt.graph.models import CodeGraph
from corrupt.selection.models import Group, Target

MAX_MISSES = 200  # consecutive duplicate or dead-end attempts before giving up


def function_graph(graph: CodeGraph) -> nx.Graph:
    """The undirected call graph over function symbols only."""
    functions = {q for q, s in graph.symbols.items() if s.is_function}
    undirected = nx.Graph()
    undirected.add_nodes_from(sorted(functions))
    undirected.add_edges_from(
        (a, b) for a, b in graph.edges if a in functions and b in functions and a != b
    )
    return undirected


def pairwise_near(
    targets: Sequence[Target], graph: CodeGraph, max_distance: int
) -> tuple[dict[str, set[str]], dict[tuple[str, str], int]]:
    """For each target, the other targets within ``max_distance``, and those distances."""
    names = {t.qualname for t in targets}
    undirected = function_graph(graph)
    near: dict[str, set[str]] = {q: set() for q in names}
    distance: dict[tuple[str, str], int] = {}
    for source in sorted(names):
        if source not in undirected:
            continue
        reach = nx.single_source_shortest_path_length(undirected, source, cutoff=max_distance)
        for other, d in reach.items():
            if other != source and other in names:
                near[source].add(other)
                distance[(source, other)] = d
    return near, distance


def make_groups(
    targets: Sequence[Target],
    graph: CodeGraph,
    *,
    k: int = 2,
    max_distance: int = 4,
    n: int,
    seed: int,
) -> list[Group]:
    """Up to ``n`` distinct groups of ``k`` targets, pairwise within ``max_distance``.

    Groups grow greedily from a seed function, always adding the candidate used
    least so far (ties broken by the seeded RNG), so a hub function does not
    appear in every group when others can stand in for it.  Same inputs and
    seed, same groups.  No ``k`` targets close enough: an empty list, so a build
    of several modes keeps and reports what the other modes made.
    """
    if k < 2:
        raise InputError(f"--functions must be at least 2 for multi-function tasks, got {k}")
    if max_distance < 1:
        raise InputError(f"--max-distance must be at least 1, got {max_distance}")
    by_name = {t.qualname: t for t in targets}
    near, distance = pairwise_near(list(by_name.values()), graph, max_distance)
    starts = sorted(q for q, others in near.items() if len(others) >= k - 1)
    if not starts:
        return []  # the caller reports it beside the tasks other modes produced
    rng = random.Random(seed)
    usage: Counter[str] = Counter()
    seen: set[frozenset[str]] = set()
    groups: list[Group] = []

    def least_used(candidates: set[str]) -> str:
        ordered = sorted(candidates)
        rng.shuffle(ordered)
        return min(ordered, key=lambda q: usage[q])

    misses = 0
    while len(groups) < n and misses < MAX_MISSES:
        members = [least_used(set(starts))]
        candidates = set(near[members[0]])
        while len(members) < k and candidates:
            members.append(least_used(candidates))
            candidates &= near[members[-1]]
        key = frozenset(members)
        if len(members) < k or key in seen:
            usage.update(members)  # steer the next attempt elsewhere
            misses += 1
            continue
        misses = 0
        seen.add(key)
        usage.update(members)
        members.sort()
        groups.append(
            Group(
                targets=[by_name[q] for q in members],
                max_pairwise_distance=max(
                    distance[(a, b)] for a, b in itertools.combinations(members, 2)
                ),
            )
        )
    return groups
