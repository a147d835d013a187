"""Mutation tells in written tasks, the yield the tells gate costs, and its time per mutant.

    python bench/tells_bench.py REPO... [--n 3] [--seed 0] [--out DIR] [--functions 40]

Builds each repository with ``--mode all`` (the Build the CLI runs; environment
and baseline come from corrupt's cache), then prints:

- per repository, the tasks written and the hits of a grep over each task's
  corrupted lines for code no person writes (an operand compared with itself,
  ``x - x``, a signed zero, ``not not``, ``x = x``). The grep shares nothing with
  the gate (an ``ast`` walk and ruff), so a tell the gate misses shows here;
- per operator, the candidates the gate rejected as tells beside the tasks
  written: the yield it costs;
- the gate's time per mutant, over every operator mutant of the first
  ``--functions`` functions of the first repository: the screening check (own
  checks, the changed function alone) and the verification check (own checks
  and ruff, the whole file).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sqlite3
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from corrupt.corruptors.anomalies import new_anomalies, tell_operators
from corrupt.corruptors.models import RejectionKind
from corrupt.corruptors.operators import generate_mutants
from corrupt.corruptors.validate import new_anomalies_in
from corrupt.pipeline.build import Build
from corrupt.pipeline.options import BuildOptions
from corrupt.source.functions import functions_in
from corrupt.tasks.store import STORE_NAME

# A grep's view of an anomaly, on one corrupted line (the gate's own checks are ast's).
GREP = {
    "compared with itself": re.compile(r"(?<![\w.])([\w.]+)\s*(?:[<>]=?|==|!=)\s*\1(?![\w.(\[])"),
    "x - x": re.compile(r"(?<![\w.])([\w.]+)\s*[-/%^]\s*\1(?![\w.(\[])"),
    "signed zero": re.compile(r"(?<![\w.)\]])[-+]\s*0(?![\w.])"),
    "not not": re.compile(r"\bnot\s+not\b"),
    "x = x": re.compile(r"^\s*([\w.]+)\s*=\s*\1\s*$"),
}


def grep_tells(patch: str) -> list[str]:
    """The anomalies on the lines a corruption patch adds that its removed lines lack."""
    added = [
        line[1:]
        for line in patch.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]
    removed = [
        line[1:]
        for line in patch.splitlines()
        if line.startswith("-") and not line.startswith("---")
    ]
    hits = []
    for name, pattern in GREP.items():
        before = sum(bool(pattern.search(line)) for line in removed)
        after = [line.strip() for line in added if pattern.search(line)]
        if len(after) > before:
            hits.append(f"{name}: {after[0]}")
    return hits


def build(repo: str, out: Path, n: int, seed: int) -> None:
    Build(BuildOptions(repo=repo, out=out, mode="all", n=n, seed=seed)).run()


def scan(out: Path) -> tuple[int, list[str], Counter[str], Counter[str]]:
    """Tasks, grep hits, tasks per operator, tells rejected per operator."""
    tasks = [json.loads(line) for line in (out / "tasks.jsonl").read_text().splitlines()]
    hits = [f"{t['task_id']}: {h}" for t in tasks for h in grep_tells(t["corruption_patch"])]
    written = Counter(b["operator"] for t in tasks for b in t["bugs"] if t["kind"] != "deletion")
    db = sqlite3.connect(out / STORE_NAME)
    rows = db.execute(
        "SELECT reason FROM candidates WHERE rejection = ?", (RejectionKind.TELL.value,)
    ).fetchall()
    db.close()
    rejected = Counter(op for (reason,) in rows for op in tell_operators(reason))
    return len(tasks), hits, written, rejected


def gate_cost(root: Path, functions: int) -> tuple[Counter[str], Counter[str], float, float]:
    """Per operator, the mutants of the first ``functions`` functions under ``root`` and
    those the gate rejects (own checks and ruff); median milliseconds per mutant of the
    screening and the verification check."""
    made: Counter[str] = Counter()
    told: Counter[str] = Counter()
    screening, verification = [], []
    seen = 0
    for path in sorted(root.rglob("*.py")):
        if seen >= functions or "test" in path.as_posix():
            continue
        try:
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source)
        except (UnicodeDecodeError, SyntaxError):
            continue
        for inner, node in functions_in(tree):
            if seen >= functions:
                break
            seen += 1
            qualname = f"m.{inner}"
            for mutant in generate_mutants(source, path.name, qualname, node.lineno):
                started = time.perf_counter()
                new_anomalies_in(source, mutant.corrupted, (qualname, node.lineno))
                screening.append(time.perf_counter() - started)
                started = time.perf_counter()
                found = new_anomalies(source, mutant.corrupted)
                verification.append(time.perf_counter() - started)
                made[mutant.operator] += 1
                told[mutant.operator] += bool(found)
    if not screening:
        return made, told, 0.0, 0.0
    ms = 1000.0
    return made, told, statistics.median(screening) * ms, statistics.median(verification) * ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+")
    parser.add_argument("--n", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--out", type=Path, help="keep the builds here (default: a temporary folder)"
    )
    parser.add_argument("--functions", type=int, default=40)
    parser.add_argument(
        "--cost-only", action="store_true", help="only the gate's cost, on local folders"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = args.out or Path(tmp)
        written: Counter[str] = Counter()
        rejected: Counter[str] = Counter()
        total_tasks = total_hits = 0
        for i, repo in enumerate([] if args.cost_only else args.repos):
            out = base / f"build-{i}"
            started = time.monotonic()
            build(repo, out, args.n, args.seed)
            tasks, hits, by_op, tells = scan(out)
            written += by_op
            rejected += tells
            total_tasks += tasks
            total_hits += len(hits)
            print(f"{repo}: {tasks} tasks, {len(hits)} grep tells, {sum(tells.values())} "
                  f"rejected as tells, {time.monotonic() - started:.0f} s")  # fmt: skip
            for hit in hits:
                print(f"  TELL {hit}")
        if not args.cost_only:
            print(f"\nall: {total_tasks} tasks, {total_hits} with a tell a grep finds")
            print("\noperator                      written  rejected as tells")
            for op in sorted(written.keys() | rejected.keys()):
                print(f"{op:28s} {written[op]:8d} {rejected[op]:18d}")
    for repo in args.repos:
        root = Path(repo)
        if not root.is_dir():
            continue
        made, told, screen_ms, verify_ms = gate_cost(root, args.functions)
        print(f"\ngate over {sum(made.values())} operator mutants of {args.functions} functions "
              f"of {root.name}: screening check {screen_ms:.2f} ms, verification check "
              f"(with ruff) {verify_ms:.1f} ms per mutant (medians); rejected per operator:")  # fmt: skip
        for op in sorted(made):
            if told[op]:
                print(f"  {op:28s} {told[op]:4d} of {made[op]:4d}")
        print(f"  {'all':28s} {sum(told.values()):4d} of {sum(made.values()):4d}")


if __name__ == "__main__":
    main()
