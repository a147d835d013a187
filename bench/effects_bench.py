"""Cause and effect on real builds: where each bug's failure surfaces and how many calls away.

    python bench/effects_bench.py REPO ... [--work DIR] [--n 3] [--seed 0]

Builds discovery and multi tasks of each repository (``corrupt build REPO
--mode discovery`` then ``--mode multi``, ``--n`` each, in ``WORK/<name>``; a
rerun resumes), then prints, per mode, the distribution of each bug's traced hop
distance (call steps from the corrupted function to the frame where its first
failing test's error surfaces), how many effects surface in a test and how many
in the library, the static call-graph distance beside it, and every null with
its reason.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import Counter
from pathlib import Path

from corrupt.tasks.models import Task
from corrupt.tasks.store import STORE_NAME, Store


def build(repo: str, out: Path, mode: str, n: int, seed: int) -> None:
    argv = [sys.executable, "-m", "corrupt.cli", "build", repo, "--mode", mode, "--n", str(n)]
    argv += ["--seed", str(seed), "--out", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode:
        print(
            f"{repo} {mode}: exit {done.returncode}: {done.stderr.strip()[-300:]}", file=sys.stderr
        )


def folder_name(repo: str) -> str:
    """``/tmp/src/h2`` -> h2, ``file:///m/Pylons+venusian/repo@SHA`` -> Pylons+venusian."""
    path = repo.split("@")[0].rstrip("/").removesuffix(".git").removesuffix("/repo")
    return path.rsplit("/", 1)[-1]


def mode_of(task: Task) -> str:
    return "multi" if task.kind == "multi" else task.mode


def report(tasks: list[Task]) -> None:
    for mode in ("discovery", "multi"):
        bugs = [(t, b) for t in tasks if mode_of(t) == mode for b in t.bugs]
        if not bugs:
            continue
        hops = Counter(b.effect.hop_distance for _, b in bugs)
        static = Counter(b.effect.graph_distance for _, b in bugs)
        in_test = sum(
            1 for _, b in bugs if b.effect.file and "test" in b.effect.file.split("/")[-1]
        )
        located = sum(1 for _, b in bugs if b.effect.line is not None)
        print(f"\n{mode}: {len(bugs)} bugs in {len({t.task_id for t, _ in bugs})} tasks")
        print(f"  effect line known: {located}; surfacing in a test file: {in_test}")
        known = sorted(h for h in hops.elements() if h is not None)
        print(
            "  traced hops:  " + ", ".join(f"{h}: {c}" for h, c in sorted(hops.items(), key=_order))
        )
        if known:
            print(f"  median {known[len(known) // 2]}, max {known[-1]}")
        print(
            "  static graph: "
            + ", ".join(f"{h}: {c}" for h, c in sorted(static.items(), key=_order))
        )
        for task, bug in bugs:
            if bug.effect.hop_distance is None:
                print(f"  null: {task.task_id} {bug.target}: {bug.effect.hop_reason}")


def _order(item: tuple[int | None, int]) -> tuple[int, int]:
    return (1, 0) if item[0] is None else (0, item[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+")
    parser.add_argument("--work", type=Path, default=Path("effects-bench"))
    parser.add_argument("--n", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    tasks: list[Task] = []
    for repo in args.repos:
        out = args.work / folder_name(repo)
        for mode in ("discovery", "multi"):
            build(repo, out, mode, args.n, args.seed)
        if not (out / STORE_NAME).exists():
            print(f"{repo}: no build", file=sys.stderr)
            continue
        found = Store.open(out).list_tasks()
        print(f"{repo}: {len(found)} tasks")
        tasks += found
    report(tasks)


if __name__ == "__main__":
    main()
