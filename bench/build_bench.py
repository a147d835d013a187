"""Build throughput: coverage-guided screening versus whole-suite screening.

    python bench/build_bench.py REPO [--mode discovery] [--n 4] [--seed 0]

Runs the same build twice in fresh output folders (environment and baseline
come from the cache, so both runs pay only for corruption and verification):
once as `corrupt build` does by default (candidates screened on the tests that
cover the target, stopping at the failure budget) and once with
`--full-suite-screening` (every candidate runs the whole suite, the approach
earlier tools take). Prints verified tasks per minute, candidates screened per
minute, and the ratio of the two builds' task rates.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from corrupt.tasks.build import Build, BuildOptions


def measure(
    repo: str, mode: str, n: int, seed: int, full_suite: bool, jobs: int
) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        options = BuildOptions(
            repo=repo,
            out=Path(tmp) / "out",
            mode=mode,
            n=n,
            seed=seed,
            jobs=jobs,
            full_suite_screening=full_suite,
        )
        started = time.monotonic()
        summary = Build(options).run()
        minutes = (time.monotonic() - started) / 60
    tried = sum(m.tried for m in summary.modes.values())
    return {
        "tasks": summary.tasks,
        "candidates": tried,
        "test_runs": summary.test_runs,
        "minutes": minutes,
        "tasks_per_min": summary.tasks / minutes,
        "candidates_per_min": tried / minutes,
        "runs_per_min": summary.test_runs / minutes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo")
    parser.add_argument("--mode", default="discovery")
    parser.add_argument("--n", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    # warm the caches (clone, environment, baseline) so neither measured build pays for them
    measure(args.repo, "remove", 1, args.seed, False, 1)
    rows = {
        "coverage-guided": measure(args.repo, args.mode, args.n, args.seed, False, args.jobs),
        "full-suite": measure(args.repo, args.mode, args.n, args.seed, True, args.jobs),
    }
    print(f"repo {args.repo}  mode {args.mode}  n {args.n}  seed {args.seed}  jobs {args.jobs}")
    print(
        f"{'screening':<16}{'tasks':>6}{'cands':>7}{'runs':>6}{'minutes':>9}{'tasks/min':>11}"
        f"{'cands/min':>11}{'runs/min':>10}"
    )
    for name, r in rows.items():
        print(
            f"{name:<16}{r['tasks']:>6}{r['candidates']:>7}{r['test_runs']:>6}{r['minutes']:>9.2f}"
            f"{r['tasks_per_min']:>11.2f}{r['candidates_per_min']:>11.2f}{r['runs_per_min']:>10.1f}"
        )
    fast, slow = rows["coverage-guided"], rows["full-suite"]
    if slow["tasks_per_min"]:
        print(
            f"ratio (coverage-guided / full-suite) tasks/min: {fast['tasks_per_min'] / slow['tasks_per_min']:.2f}x"
        )
    if slow["candidates_per_min"]:
        print(
            f"ratio candidates/min: {fast['candidates_per_min'] / slow['candidates_per_min']:.2f}x"
        )


if __name__ == "__main__":
    main()
