"""Whole-build throughput: what a verified task costs, against one fresh run of the suite.

    python bench/throughput_bench.py [--repos toolz,structlog,...] [--mode discovery] [--n 3]
        [--ways warm+fast,warm+full,suite+fast] [--marginal]

For each repository (names from bench/corpus.txt, read from the mirrors): one
fresh run of the whole suite in a working copy, as verification runs it (the
median of two), then the same build in fresh folders three ways, the
environment, the baseline and the warm server's check (each kept per commit)
coming from the cache, filled by a throwaway build of one task first: warm screening with fast
verification (the defaults), warm with ``--verify full``, and whole-suite
screening (``--screening suite``) with fast verification. Prints, per build,
seconds per verified task, whole-suite runs per verified task and the ratio
of seconds per task to one fresh suite run; then the warm/suite whole-build
ratio (tasks per minute) and whether fast and full wrote the same tasks.

A build's seconds per task include what it pays once (the graph, the warm
server's start), shared by ``--n`` tasks. ``--ways`` picks the builds (names
of WAYS); ``--marginal`` adds a warm+fast build of twice ``--n`` tasks and
prints what each further task cost: the difference in seconds over the
difference in tasks, the figure a user building thousands pays per task.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from build_bench import measure  # noqa: E402
from intake_corpus import read_corpus, spec_for  # noqa: E402

from corrupt.errors import CorruptError  # noqa: E402
from corrupt.pipeline.options import default_jobs  # noqa: E402
from corrupt.prepare import prepare  # noqa: E402
from corrupt.repos.workspace import Workspace  # noqa: E402
from corrupt.sandboxes.registry import get_sandbox  # noqa: E402
from corrupt.suites.runner import run_tests  # noqa: E402

REPOS = "toolz,marshmallow,sqlparse,markdown,structlog,humanize,mimesis"
CORPUS = Path(__file__).with_name("corpus.txt")
WAYS = {  # name -> (screening, verify)
    "warm+fast": ("warm", "fast"),
    "warm+full": ("warm", "full"),
    "suite+fast": ("suite", "fast"),
}


def one_suite_run(spec: str) -> tuple[float, int]:
    """Seconds of one fresh whole-suite run (median of two) and the suite's size."""
    sandbox = get_sandbox("local")
    ready = prepare(spec, sandbox, time_limit=300)
    seconds = []
    with Workspace(ready.checkout) as workspace:
        for _ in range(2):
            started = time.monotonic()
            run_tests(sandbox, ready.env, workspace.path, timeout=600, subset=ready.baseline.subset)
            seconds.append(time.monotonic() - started)
    return statistics.median(seconds), len(ready.baseline.tests)


def build(
    spec: str, mode: str, n: int, seed: int, screening: str, verify: str, jobs: int
) -> dict[str, Any]:
    row = measure(spec, mode, n, seed, screening, jobs, verify=verify, time_limit=300)
    tasks = max(row["tasks"], 1)
    return {**row, "per_task": row["seconds"] / tasks, "suite_runs": row["suite_runs"] / tasks}


def marginal(first: dict[str, Any], spec: str, args: argparse.Namespace, suite: float) -> str:
    """What each task past the first ``--n`` cost, from a build of twice as many."""
    more = build(spec, args.mode, 2 * args.n, args.seed, "warm", "fast", args.jobs)
    added = more["tasks"] - first["tasks"]
    if added <= 0:
        return f"each further task: unknown ({more['tasks']} tasks for --n {2 * args.n})"
    each = (more["seconds"] - first["seconds"]) / added
    runs = (more["suite_runs"] * more["tasks"] - first["suite_runs"] * first["tasks"]) / added
    failed = f"; failed verification: {dict(more['failed'])}" if more["failed"] else ""
    return (
        f"each further task (--n {2 * args.n}, {more['tasks']} tasks, {more['seconds']:.0f} s): "
        f"{each:.1f} s, {each / suite:.2f}x one suite run, {runs:.1f} suite runs{failed}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repos",
        default=REPOS,
        help="names from bench/corpus.txt, owner/name@commit, or a local clone's path",
    )
    parser.add_argument("--mode", default="discovery")
    parser.add_argument("--n", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--ways", default=",".join(WAYS), help="builds to measure")
    parser.add_argument("--marginal", action="store_true", help="also a build of 2n tasks")
    parser.add_argument("--jobs", type=int, default=default_jobs(), help="as build's --jobs")
    args = parser.parse_args()
    ways = {way: WAYS[way] for way in args.ways.split(",")}
    corpus = dict(read_corpus(CORPUS)[0])
    ratios = []
    for short in args.repos.split(","):
        if Path(short).is_dir():  # a local clone (a mirror git cannot serve a commit from)
            name, spec = short, short
        else:
            if "@" in short:  # owner/name@commit: a repository outside the corpus, pinned here
                name, commit = short.split("@", 1)
            else:
                name = next(n for n in corpus if n.split("/")[1].removeprefix("python-") == short)
                commit = corpus[name]
            spec = spec_for(name, commit, args.mirrors)
        try:
            suite, size = one_suite_run(spec)
        except CorruptError as exc:  # a snapshot that cannot be cloned, a red suite
            print(f"\n{name}: skipped ({exc.message})")
            continue
        # A throwaway build first: the warm server's check of the unchanged code is kept
        # per commit (like the baseline), so no measured build pays for it.
        build(spec, args.mode, 1, args.seed, "warm", "fast", args.jobs)
        rows = {
            way: build(spec, args.mode, args.n, args.seed, *how, args.jobs)
            for way, how in ways.items()
        }
        print(f"\n{name}: {size} tests, one fresh suite run {suite:.2f} s, --jobs {args.jobs}")
        for way, row in rows.items():
            print(
                f"  {way:<11} {row['tasks']:>2} tasks  {row['seconds']:>6.0f} s  "
                f"{row['per_task']:>6.1f} s/task  {row['suite_runs']:>4.1f} suite runs/task  "
                f"{row['per_task'] / suite:>5.2f}x one suite run  ({row['test_runs']} test runs)"
            )
            if row["failed"]:
                print(f"{'':<15}failed verification: {dict(row['failed'])}")
        if args.marginal and "warm+fast" in rows:
            print("  " + marginal(rows["warm+fast"], spec, args, suite))
        fast, full, slow = (rows.get(w) for w in WAYS)
        if fast and slow and fast["tasks"] and slow["tasks"]:
            ratios.append(slow["per_task"] / fast["per_task"])
            print(f"  warm/suite whole build {ratios[-1]:.1f}x")
        if fast and full:
            print(
                f"  fast and full wrote the same tasks: {'yes' if fast['ids'] == full['ids'] else 'NO'}"
            )
    if ratios:
        print(f"\nwarm/suite over the bench: median {statistics.median(ratios):.1f}x")


if __name__ == "__main__":
    main()
