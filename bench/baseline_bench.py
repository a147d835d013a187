"""Time each phase of a baseline, cold and warm.

    python bench/baseline_bench.py REPO [--time-limit S] [--sandbox local|docker]

cold:   empty corrupt cache (uv's package cache is left as it is)
warm:   clone and environment cached, baseline recomputed (what a new commit
        of a known repository costs: the suite runs twice, then under coverage)
cached: everything cached (what every later command pays)
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from corrupt.prepare import prepare
from corrupt.sandboxes.registry import get_sandbox


def measure(repo: str, cache: Path, sandbox_name: str, time_limit: float) -> dict[str, float]:
    times: dict[str, float] = {}

    @contextlib.contextmanager
    def timed(stage: str) -> Iterator[None]:
        started = time.monotonic()
        yield
        times[stage] = time.monotonic() - started

    fresh = not any((cache / "baselines").glob("*.json"))
    sandbox = get_sandbox(sandbox_name, cache_dir=cache)
    try:
        baseline = prepare(
            repo, sandbox, time_limit=time_limit, cache_dir=cache, stage=timed
        ).baseline
    finally:
        sandbox.close()
    times["clone"] = times["checkout"]
    times["env"] = times["environment"]
    times["runs"] = baseline.timings["runs"] if fresh else 0.0
    times["coverage"] = baseline.timings["coverage"] if fresh else 0.0
    times["baseline total"] = times["baseline"]
    times["tests"] = len(baseline.tests)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
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
