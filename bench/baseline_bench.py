"""Time each phase of a baseline, cold and warm.

    python bench/baseline_bench.py REPO [--time-limit S] [--sandbox local|docker]

cold:   empty corrupt cache (uv's package cache is left as it is)
warm:   clone and environment cached, baseline recomputed (what a new commit
        of a known repository costs: the suite runs twice, then under coverage)
cached: everything cached (what every later command pays)
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from corrupt.repos.baseline import compute_baseline
from corrupt.repos.checkout import checkout
from corrupt.repos.sandboxes import get_sandbox
from corrupt.repos.specs import parse_spec


def measure(repo: str, cache: Path, sandbox_name: str, time_limit: float) -> dict[str, float]:
    times: dict[str, float] = {}
    started = time.monotonic()
    pinned = checkout(parse_spec(repo), cache_dir=cache)
    times["clone"] = time.monotonic() - started
    sandbox = get_sandbox(sandbox_name, cache_dir=cache)
    try:
        started = time.monotonic()
        env = sandbox.prepare(pinned)
        times["env"] = time.monotonic() - started
        fresh = not any((cache / "baselines").glob("*.json"))
        started = time.monotonic()
        baseline = compute_baseline(pinned, sandbox, env, time_limit=time_limit, cache_dir=cache)
        total = time.monotonic() - started
    finally:
        sandbox.close()
    times["runs"] = baseline.timings["runs"] if fresh else 0.0
    times["coverage"] = baseline.timings["coverage"] if fresh else 0.0
    times["baseline total"] = total
    times["tests"] = len(baseline.tests)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repo")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--sandbox", default="local")
    args = parser.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="corrupt-bench-"))
    try:
        rows = {"cold": measure(args.repo, cache, args.sandbox, args.time_limit)}
        shutil.rmtree(cache / "baselines")
        rows["warm"] = measure(args.repo, cache, args.sandbox, args.time_limit)
        rows["cached"] = measure(args.repo, cache, args.sandbox, args.time_limit)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    phases = ["clone", "env", "runs", "coverage", "baseline total"]
    print(f"{args.repo}: {int(rows['cold']['tests'])} tests")
    print(f"{'':8}" + "".join(f"{p:>16}" for p in phases))
    for name, times in rows.items():
        print(f"{name:8}" + "".join(f"{times[p]:>15.2f}s" for p in phases))


if __name__ == "__main__":
    main()
