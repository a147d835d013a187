"""Yield of adversarial search: how many eligible functions get a valid corruption, at what cost.

    python bench/corrupt_yield.py REPO [--min-failing 5] [--seed 0] [--sample N] [--max-candidates 40]

Prepares the repository the way a build does (checkout, environment, baseline,
coverage map, call graph, eligible targets), then runs ``adversarial_search``
on every eligible function (or a seeded random ``--sample`` of them) with the real screener,
and prints: yield (valid / tried targets), mean candidates screened and test
runs per target, seconds per target, the reasons targets failed, and the
distribution of the chosen corruptions over operators, ODC categories and
HumanEvalFix categories.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from pathlib import Path

from corrupt.corruptors.adversarial import adversarial_search
from corrupt.corruptors.models import CorruptionRequest, TargetSource
from corrupt.prepare import prepare
from corrupt.repos.coverage import LineTests
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.screening.screen import RunBudget, TreeScreener
from corrupt.selection.eligibility import eligible_targets


def distance_callback(digraph, target: str):
    """Fewest caller→callee steps from any failing frame's function to the target."""
    import networkx as nx

    def distance(functions: list[str]) -> int | None:
        hops = [
            nx.shortest_path_length(digraph, f, target)
            for f in functions
            if f in digraph and target in digraph and nx.has_path(digraph, f, target)
        ]
        return min(hops, default=None)

    return distance


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo")
    parser.add_argument("--min-failing", type=int, default=5)
    parser.add_argument("--min-covering", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--sample", type=int, default=0, help="a seeded sample of N eligible targets"
    )
    parser.add_argument("--max-candidates", type=int, default=40)
    parser.add_argument("--enough", type=int, default=4, help="stop after this many survivors")
    parser.add_argument("--cache-dir", type=Path, default=None, help="clones, venvs and baselines")
    args = parser.parse_args()

    started = time.monotonic()
    sandbox = LocalSandbox(cache_dir=args.cache_dir)
    ready = prepare(args.repo, sandbox, cache_dir=args.cache_dir)
    repo, env, baseline, graph = ready.checkout, ready.env, ready.baseline, ready.graph
    targets = eligible_targets(
        graph, ready.coverage, min_covering=args.min_covering, root=repo.path
    )
    if 0 < args.sample < len(targets):
        chosen = random.Random(args.seed).sample(range(len(targets)), args.sample)
        targets = [targets[i] for i in sorted(chosen)]
    digraph = graph.digraph()
    passing = frozenset(baseline.tests)
    print(
        f"{repo.name}: {len(graph.functions())} functions, {len(targets)} eligible, "
        f"{len(passing)} baseline tests, suite {baseline.seconds:.1f}s; "
        f"set-up {time.monotonic() - started:.1f}s"
    )

    reasons: Counter[str] = Counter()
    operators: Counter[str] = Counter()
    odc: Counter[str] = Counter()
    hef: Counter[str] = Counter()
    screened, runs, valid, failing_share = 0, 0, 0, []
    search_started = time.monotonic()
    with Workspace(repo) as workspace:
        screener = TreeScreener(sandbox, env, workspace, RunBudget.from_baseline(baseline))
        for target in targets:
            with open(repo.path / target.file, encoding="utf-8", newline="") as fh:
                source = fh.read()
            before = screener.runs
            asked = TargetSource(
                target.file,
                target.qualname,
                target.start_line,
                source,
                tuple(target.covering_tests),
                distance_callback(digraph, target.qualname),
                LineTests.of(baseline, target.file, target.start_line, target.end_line),
            )
            request = CorruptionRequest((asked,), passing, args.min_failing, args.seed)
            outcome = adversarial_search(
                request, screener, max_candidates=args.max_candidates, enough=args.enough
            )
            runs += screener.runs - before
            screened += outcome.screened
            if outcome.corruption is None:
                kind = outcome.rejection.kind if outcome.rejection else "unknown"
                reasons[str(kind)] += 1
                print(f"  - {target.qualname}: {outcome.rejection}")
                continue
            valid += 1
            bug = outcome.corruption.bugs[0]
            operators[bug.operator] += 1
            odc[f"{bug.category}/{bug.subcategory}"] += 1
            hef[bug.hef_category] += 1
            failing_share.append(outcome.corruption.stats["failing_share"])
            stats = outcome.corruption.stats
            others = ", ".join(f"{o['operator']} {o['failing']}" for o in stats["survivors"])
            print(
                f"  + {target.qualname}: {bug.operator} lines {bug.lines}, "
                f"{len(stats['failing'])}{'' if stats['exact'] else '+'}/{stats['covering']} "
                f"failing, {bug.effect.exception}, hop {bug.effect.hop_distance}, "
                f"{outcome.screened} screened; other survivors: {others or 'none'}"
            )
    seconds = time.monotonic() - search_started
    tried = max(len(targets), 1)
    print(f"\nyield: {valid}/{len(targets)} = {valid / tried:.0%}")
    print(
        f"mean candidates screened per target: {screened / tried:.1f}; "
        f"test runs per target: {runs / tried:.1f}; seconds per target: {seconds / tried:.1f}"
    )
    if failing_share:
        print(
            f"mean failing share of covering tests (chosen): {sum(failing_share) / len(failing_share):.2f}"
        )
    for title, counts in (
        ("operators", operators),
        ("ODC", odc),
        ("HumanEvalFix", hef),
        ("no corruption", reasons),
    ):
        print(f"{title}: " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))


if __name__ == "__main__":
    main()
