"""Score the call graph against hand-labelled programs: precision and recall per case.

A case is a folder holding a small program (its own import root) and
``expected.json``, the caller -> callee edges a person wrote down
(``{caller: [callees]}``). ``cases.json`` beside the cases gives each one its
category and the precision and recall it must keep, so a regression in one
behaviour cannot hide in an aggregate over all of them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from corrupt.graph.build import build_code_graph

Edge = tuple[str, str]


@dataclass(frozen=True)
class Case:
    name: str
    category: str
    min_precision: float
    min_recall: float
    expected: frozenset[Edge]


@dataclass(frozen=True)
class Score:
    case: Case
    found: frozenset[Edge]

    @property
    def false(self) -> frozenset[Edge]:
        return self.found - self.case.expected

    @property
    def missed(self) -> frozenset[Edge]:
        return self.case.expected - self.found

    @property
    def precision(self) -> float:
        return ratio(len(self.found & self.case.expected), len(self.found))

    @property
    def recall(self) -> float:
        return ratio(len(self.found & self.case.expected), len(self.case.expected))

    @property
    def passes(self) -> bool:
        return self.precision >= self.case.min_precision and self.recall >= self.case.min_recall


def ratio(part: int, whole: int) -> float:
    """``part / whole``, 1.0 for an empty whole (nothing to find, nothing wrong found)."""
    return part / whole if whole else 1.0


def load_cases(folder: Path) -> list[Case]:
    """Every case listed in ``folder/cases.json``, in its order."""
    table = json.loads((folder / "cases.json").read_text(encoding="utf-8"))
    cases = []
    for name, entry in table.items():
        adjacency = json.loads((folder / name / "expected.json").read_text(encoding="utf-8"))
        edges = frozenset((a, b) for a, callees in adjacency.items() for b in callees)
        cases.append(
            Case(name, entry["category"], entry["min_precision"], entry["min_recall"], edges)
        )
    return cases


def score(folder: Path, case: Case) -> Score:
    graph = build_code_graph(folder / case.name, use_cache=False)
    return Score(case, frozenset(graph.edges))


def totals(scores: list[Score]) -> tuple[float, float]:
    """Micro-averaged precision and recall over ``scores`` (every edge counts once)."""
    right = sum(len(s.found & s.case.expected) for s in scores)
    return (
        ratio(right, sum(len(s.found) for s in scores)),
        ratio(right, sum(len(s.case.expected) for s in scores)),
    )
