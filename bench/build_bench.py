"""Build throughput under each screening mode: warm, fresh and whole-suite.

    python bench/build_bench.py REPO [--mode discovery] [--n 4] [--seed 0]
        [--sandbox local|docker] [--base-image IMAGE] [--screenings warm,fresh,suite]

Runs the same build three times in fresh output folders (environment and
baseline come from the cache, so every run pays only for corruption and
verification): ``--screening warm`` (the default: a forked server that
imported the suite once runs the covering tests), ``--screening fresh`` (a new
interpreter per candidate) and ``--screening suite`` (every candidate runs the
whole suite, the approach earlier tools take). Prints verified tasks per
minute, candidates screened per minute, the ratios to whole-suite screening,
and whether the builds wrote the same tasks. ``--sandbox docker`` measures the
container sandbox (its warm server lives in a container of its own);
``--screenings warm,fresh`` leaves the slowest build out.
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from corrupt.corruptors.models import RejectionKind
from corrupt.pipeline.build import Build
from corrupt.pipeline.options import BuildOptions
from corrupt.tasks.store import Store


def measure(
    repo: str, mode: str, n: int, seed: int, screening: str, jobs: int, **options: Any
) -> dict[str, Any]:
    """One build in a fresh folder (``options``: more BuildOptions fields), and what it
    cost; ``failed`` counts the candidates that failed verification, by reason."""
    with tempfile.TemporaryDirectory() as tmp:
        build = BuildOptions(
            repo=repo,
            out=Path(tmp) / "out",
            mode=mode,
            n=n,
            seed=seed,
            jobs=jobs,
            screening=screening,
            **options,
        )
        started = time.monotonic()
        summary = Build(build).run()
        seconds = time.monotonic() - started
        store = Store.open(Path(tmp) / "out")
        try:
            ids = sorted(t.task_id for t in store.list_tasks())
            failed = Counter(  # each cost at least one whole-suite run and wrote no task
                re.sub(r"\d+", "N", c.rejection.detail)
                for c in store.candidates()
                if c.rejection and c.rejection.kind == RejectionKind.NOT_VERIFIED
            )
        finally:
            store.close()
    tried = sum(m.tried for m in summary.modes.values())
    minutes = seconds / 60
    return {
        "tasks": summary.tasks,
        "candidates": tried,
        "test_runs": summary.test_runs,
        "suite_runs": summary.suite_runs,
        "seconds": seconds,
        "minutes": minutes,
        "tasks_per_min": summary.tasks / minutes,
        "candidates_per_min": tried / minutes,
        "runs_per_min": summary.test_runs / minutes,
        "ids": ids,
        "failed": failed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo")
    parser.add_argument("--mode", default="discovery")
    parser.add_argument("--n", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--sandbox", default="local")
    parser.add_argument("--base-image", default=None, help="for --sandbox docker")
    parser.add_argument("--screenings", default="warm,fresh,suite")
    args = parser.parse_args()
    box = {"sandbox": args.sandbox, "base_image": args.base_image}
    # warm the caches (clone, environment, baseline) so no measured build pays for them
    measure(args.repo, "remove", 1, args.seed, "fresh", 1, **box)
    rows = {
        name: measure(args.repo, args.mode, args.n, args.seed, name, args.jobs, **box)
        for name in args.screenings.split(",")
    }
    print(
        f"repo {args.repo}  mode {args.mode}  n {args.n}  seed {args.seed}  jobs {args.jobs}"
        f"  sandbox {args.sandbox}"
    )
    print(
        f"{'screening':<16}{'tasks':>6}{'cands':>7}{'runs':>6}{'minutes':>9}{'tasks/min':>11}"
        f"{'cands/min':>11}{'runs/min':>10}"
    )
    for name, r in rows.items():
        print(
            f"{name:<16}{r['tasks']:>6}{r['candidates']:>7}{r['test_runs']:>6}{r['minutes']:>9.2f}"
            f"{r['tasks_per_min']:>11.2f}{r['candidates_per_min']:>11.2f}{r['runs_per_min']:>10.1f}"
        )
    names = list(rows)
    slow = rows[names[-1]]
    for name in names[:-1]:
        fast = rows[name]
        if slow["tasks_per_min"] and slow["candidates_per_min"]:
            print(
                f"{name} / {names[-1]}: tasks/min "
                f"{fast['tasks_per_min'] / slow['tasks_per_min']:.2f}x, candidates/min "
                f"{fast['candidates_per_min'] / slow['candidates_per_min']:.2f}x"
            )
    same = len({tuple(r["ids"]) for r in rows.values()}) == 1
    print(f"{', '.join(names)} wrote the same tasks: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
