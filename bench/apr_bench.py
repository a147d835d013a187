"""The APR baseline over builds: how often it solves, what, at what cost, plausible versus correct.

    python bench/apr_bench.py BUILD... [--budget 40] [--jobs 1]

For each build folder runs ``corrupt solve`` (each task from its materialised
folder alone), then ``corrupt score`` on the predictions, and prints:

- per repository and kind: tasks, attempted, solved (a plausible patch:
  every graded test passes), correct (plausible, every corrupted function
  edited and every bug recovered, as the scorer judges), the median patches
  tried, the median rank of the first bug line in the solver's Ochiai
  ranking, and the median seconds per attempted task;
- the same pooled per operator (of a single-bug task), per centrality band
  and per complexity band (easy < 50, medium 50–90, hard ≥ 90: the slices),
  and per number of corrupted functions.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from corrupt.tasks.store import Store

CORRUPT = [sys.executable, "-m", "corrupt.cli"]


def band(pct: float) -> str:
    return "easy" if pct < 50 else "medium" if pct < 90 else "hard"


def run_build(build: Path, budget: int, jobs: int) -> list[dict[str, Any]]:
    """One row per task: the task's axes, the solver's result and the scorer's verdict."""
    predictions = build / f"apr-{budget}.predictions.jsonl"
    scores = build / f"apr-{budget}.scores.jsonl"
    for args in (
        [
            "solve",
            str(build),
            "--budget",
            str(budget),
            "--jobs",
            str(jobs),
            "--out",
            str(predictions),
        ],
        ["score", str(build), str(predictions), "--out", str(scores)],
    ):
        done = subprocess.run([*CORRUPT, *args], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"corrupt {args[0]} {build} failed: {done.stderr.strip()[-400:]}")
    verdicts = {s["task_id"]: s for s in map(json.loads, scores.read_text().splitlines())}
    store = Store.open(build)
    try:
        tasks, results = store.list_tasks(), store.get_meta("apr")
    finally:
        store.close()
    assert isinstance(results, dict)
    rows = []
    for task in tasks:
        result, verdict = results[task.task_id], verdicts.get(task.task_id)
        correct = bool(
            verdict
            and verdict["resolved"]
            and verdict["right_function"]
            and verdict["recall"] == 1.0
        )
        rows.append(
            {
                "repo": build.name,
                "kind": str(task.kind),
                "operator": task.bugs[0].operator if len(task.bugs) == 1 else "(several)",
                "centrality": band(task.difficulty.centrality_pct),
                "complexity": band(task.difficulty.complexity_pct),
                "functions": str(task.difficulty.n_functions),
                "attempted": result["status"] != "not attempted",
                "solved": result["solved"],
                "correct": correct,
                "patches": result["patches_tried"],
                "rank": result["bug_rank"],
                "seconds": result["seconds"],
            }
        )
    return rows


def table(rows: list[dict[str, Any]], key: Callable[[dict[str, Any]], str], title: str) -> None:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[key(row)].append(row)
    print(f"\n{title}\ttasks\tattempted\tsolved\tcorrect\tpatches\tbug rank\ts/task")
    for name, group in sorted(groups.items()):
        tried = [r for r in group if r["attempted"]]
        solved, correct = sum(r["solved"] for r in tried), sum(r["correct"] for r in tried)
        rate = f"{solved} ({100 * solved / len(tried):.0f}%)" if tried else "-"
        print(
            f"{name}\t{len(group)}\t{len(tried)}\t{rate}\t{correct}\t"
            f"{_median([r['patches'] for r in tried])}\t"
            f"{_median([r['rank'] for r in tried if r['rank'] is not None])}\t"
            f"{_median([r['seconds'] for r in tried])}"
        )


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):g}" if values else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("builds", nargs="+", type=Path)
    parser.add_argument("--budget", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    rows = [row for build in args.builds for row in run_build(build, args.budget, args.jobs)]
    table(rows, lambda r: f"{r['repo']} {r['kind']}", "repository kind")
    table(rows, lambda r: r["kind"], "kind")
    table([r for r in rows if r["kind"] == "adversarial"], lambda r: r["operator"], "operator")
    table([r for r in rows if r["attempted"]], lambda r: r["centrality"], "centrality band")
    table([r for r in rows if r["attempted"]], lambda r: r["complexity"], "complexity band")
    table([r for r in rows if r["attempted"]], lambda r: r["functions"], "functions")


if __name__ == "__main__":
    main()
