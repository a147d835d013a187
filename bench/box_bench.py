"""What the local sandbox's bubblewrap box costs per test run.

    python bench/box_bench.py [REPO] [--runs 20]

REPO (default: examples/minishop) is pinned with ``checkout`` and its venv
prepared once. Then, interleaved so machine noise hits both alike, N runs of
a trivial command (``python -c pass``) and N one-test pytest runs through the
runner, each in the box and with ``--no-isolation`` (the same environment
scrubbing, limits and process-group kill, without the box). The difference of
the medians is the box's overhead per run (target: under 50 ms).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from corrupt.repos.checkout import checkout
from corrupt.repos.models import Command
from corrupt.repos.specs import parse_spec
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.suites.runner import run_tests

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "minishop"


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", default=str(EXAMPLE))
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()

    pinned = checkout(parse_spec(args.repo))
    boxes = {"box": LocalSandbox(), "no box": LocalSandbox(isolation=False)}
    env = boxes["box"].prepare(pinned)
    samples: dict[tuple[str, str], list[float]] = {
        (b, w): [] for b in boxes for w in ("trivial", "pytest")
    }
    with Workspace(pinned) as ws:
        first = next(iter(run_tests(boxes["box"], env, ws.path).results))
        for _ in range(args.runs):
            for name, sandbox in boxes.items():
                samples[name, "trivial"].append(
                    timed(lambda s=sandbox: s.run(env, ws.path, Command(["python", "-c", "pass"])))
                )
                samples[name, "pytest"].append(
                    timed(lambda s=sandbox: run_tests(s, env, ws.path, select=[first]))
                )
    print(f"repo {pinned.name} at {pinned.commit[:17]}; {args.runs} runs each, interleaved")
    for what in ("trivial", "pytest"):
        medians = {name: statistics.median(samples[name, what]) for name in boxes}
        for name in boxes:
            runs = samples[name, what]
            print(
                f"  {what:8} {name:7} median {medians[name] * 1000:7.1f} ms  min {min(runs) * 1000:7.1f} ms"
                f"  max {max(runs) * 1000:7.1f} ms"
            )
        print(
            f"  {what:8} box overhead per run: {(medians['box'] - medians['no box']) * 1000:+.1f} ms"
        )


if __name__ == "__main__":
    main()
