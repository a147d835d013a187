"""Precision and recall of the call graph per category of the hand-labelled fixtures.

    python bench/graph_accuracy.py [FIXTURES] [--cases]

FIXTURES defaults to tests/fixtures/graph. Prints one row per category
(micro-averaged over its cases' edges), the overall figures against the targets
(precision >= 0.99, recall >= 0.95), and every false or missed edge; ``--cases``
adds a row per case with the thresholds it must keep.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

from corrupt.graph.accuracy import Score, load_cases, score, totals

TARGETS = (0.99, 0.95)


def row(label: str, scores: list[Score]) -> str:
    precision, recall = totals(scores)
    edges = sum(len(s.case.expected) for s in scores)
    return f"{label:<28} {len(scores):>5} {edges:>6} {precision:>9.3f} {recall:>7.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__file__).parents[1] / "tests" / "fixtures" / "graph"
    parser.add_argument("fixtures", type=Path, nargs="?", default=default)
    parser.add_argument("--cases", action="store_true", help="also print a row per case")
    args = parser.parse_args()
    scores = [score(args.fixtures, case) for case in load_cases(args.fixtures)]
    by_category: dict[str, list[Score]] = defaultdict(list)
    for result in scores:
        by_category[result.case.category].append(result)
    print(f"{'category':<28} {'cases':>5} {'edges':>6} {'precision':>9} {'recall':>7}")
    for category, members in by_category.items():
        print(row(category, members))
        if args.cases:
            for s in members:
                print(
                    f"  {s.case.name:<26} {'':>5} {len(s.case.expected):>6} {s.precision:>9.3f} "
                    f"{s.recall:>7.3f}  (min {s.case.min_precision}, {s.case.min_recall})"
                    + ("" if s.passes else "  BELOW")
                )
    print(row("overall", scores))
    precision, recall = totals(scores)
    met = precision >= TARGETS[0] and recall >= TARGETS[1]
    print(
        f"targets: precision >= {TARGETS[0]}, recall >= {TARGETS[1]}: {'met' if met else 'NOT met'}"
    )
    for result in scores:
        for a, b in sorted(result.false):
            print(f"  false  {result.case.name}: {a} -> {b}")
        for a, b in sorted(result.missed):
            print(f"  missed {result.case.name}: {a} -> {b}")


if __name__ == "__main__":
    main()
