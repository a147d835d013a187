"""Screening throughput on real repositories: warm server, fresh process, whole suite.

    python bench/screening_bench.py [--repos toolz,marshmallow,...] [--targets 2]
        [--seed 0] [--n 1] [--no-builds] [--mirrors /work/.mirror]

For each repository (pinned as in bench/corpus.txt, read from a local
mirror) it prepares the checkout as ``corrupt build`` does, takes the first
``--targets`` targets of the build's seeded order, and runs the default
corruptor's search on them three times, once per screening mode:

- ``warm``: a server in the box imported and collected the suite once and
  forks per candidate (``corrupt build`` by default);
- ``fresh``: a new interpreter per candidate on the covering tests, with the
  failure budget (the default before warm screening);
- ``suite``: a new interpreter per candidate running the whole suite.

It prints candidates screened per CPU-second of each mode (corrupt's own
process and everything it ran, servers included), the ratios, whether warm and
fresh chose the same corruption with the same failing tests for every
target, and how many warm candidates fell back to a fresh process. It also
prints the time the screened tests themselves took (pytest's durations,
setup and teardown included): what no screening mode can save, since every
mode runs at least those tests. Suite CPU over warm's test time is the
ceiling of warm/suite, the ratio a warm mode without any overhead of its own
(no fork, no server, no search on the host, no fallback) would reach. What a
repository costs once per commit is not counted in any mode: the baseline,
the bytecode cache, and the warm server's check of the unchanged code, which
``corrupt build`` keeps like the baseline (the line says whether this run's
check was kept from an earlier one or run, and then counted). Unless
``--no-builds``, it then runs ``corrupt build --mode discovery --n N`` with
``--screening warm`` and ``--screening fresh`` and says whether the two wrote
the same task ids. Targets: warm ≥ 10× suite and ≥ 3× fresh.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import resource
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from intake_corpus import read_corpus, spec_for  # noqa: E402

from corrupt.corruptors.adversarial import AdversarialCorruptor  # noqa: E402
from corrupt.corruptors.models import CorruptionRequest, TargetSource  # noqa: E402
from corrupt.graph.distance import distances_to  # noqa: E402
from corrupt.pipeline.build import Build, frozen_heap  # noqa: E402
from corrupt.pipeline.options import BuildOptions  # noqa: E402
from corrupt.prepare import Prepared, prepare  # noqa: E402
from corrupt.repos.coverage import LineTests  # noqa: E402
from corrupt.repos.models import TestReport  # noqa: E402
from corrupt.repos.workspace import Workspace  # noqa: E402
from corrupt.sandboxes.registry import get_sandbox  # noqa: E402
from corrupt.screening.screen import RunBudget, TreeScreener, WarmPolicy  # noqa: E402
from corrupt.screening.warm_checks import kept_checks  # noqa: E402
from corrupt.selection.eligibility import eligible_targets  # noqa: E402
from corrupt.selection.models import Target  # noqa: E402
from corrupt.selection.slices import select_targets, slice_spec  # noqa: E402
from corrupt.tasks.modes import ScreeningMode  # noqa: E402
from corrupt.tasks.store import Store  # noqa: E402

DEFAULT_REPOS = "toolz,marshmallow,sqlparse,markdown,structlog,humanize"
CORPUS = Path(__file__).with_name("corpus.txt")


CPUACCT = Path("/sys/fs/cgroup/cpuacct")


def meter() -> Path:
    """A cpuacct group holding this process, so every process it starts counts.

    getrusage cannot see them: bubblewrap does not pass its box's CPU time up
    to its parent. The runs' own memory and pids groups are other hierarchies
    (cgroup v1), so they stay in this one.
    """
    if not (CPUACCT / "cpuacct.usage").exists():
        raise SystemExit("needs a cgroup v1 cpuacct hierarchy at /sys/fs/cgroup/cpuacct (and root)")
    group = CPUACCT / f"corrupt-screening-bench-{os.getpid()}"
    group.mkdir(exist_ok=True)
    (group / "cgroup.procs").write_text(str(os.getpid()))

    @atexit.register
    def leave() -> None:
        (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
        with contextlib.suppress(OSError):
            group.rmdir()

    return group


GROUP: Path | None = None


def cpu_seconds() -> tuple[float, float]:
    """CPU time of this process and everything it started (boxes and servers included),
    and of this process alone (the search itself: mutants, checks, ranking)."""
    assert GROUP is not None
    own = resource.getrusage(resource.RUSAGE_SELF)
    return int((GROUP / "cpuacct.usage").read_text()) / 1e9, own.ru_utime + own.ru_stime


@contextlib.contextmanager
def _no_stage(name: str) -> Iterator[None]:
    yield


def first_targets(ready: Prepared, count: int, seed: int) -> list[Target]:
    targets = eligible_targets(ready.graph, ready.coverage, root=ready.checkout.path)
    return select_targets(targets, slice_spec(None), len(targets), seed=seed)[:count]


def request_for(ready: Prepared, target: Target, seed: int) -> CorruptionRequest:
    source = (ready.checkout.path / target.file).read_text(encoding="utf-8")
    located = TargetSource(
        file=target.file,
        qualname=target.qualname,
        def_line=target.start_line,
        source=source,
        covering_tests=tuple(target.covering_tests),
        distance_to=distances_to(ready.graph.digraph(), target.qualname),
        line_tests=LineTests.of(ready.baseline, target.file, target.start_line, target.end_line),
    )
    return CorruptionRequest((located,), frozenset(ready.baseline.tests), 5, seed)


class TimedScreener:
    """A screener that adds up the time its runs' tests took (the floor of any mode)."""

    def __init__(self, inner: TreeScreener) -> None:
        self.inner = inner
        self.test_seconds = 0.0
        self.runs = 0

    def __call__(
        self, files: dict[str, str], tests: Sequence[str] | None, max_failures: int | None
    ) -> TestReport:
        report = self.inner(files, tests, max_failures)
        self.runs = self.inner.runs
        self.test_seconds += sum(r.duration for r in report.results.values())
        return report


def screen_mode(
    ready: Prepared, sandbox: Any, targets: list[Target], mode: ScreeningMode, seed: int
) -> dict[str, Any]:
    policy = WarmPolicy()
    began_cpu, began = cpu_seconds(), time.monotonic()
    picks, screened = [], 0
    with frozen_heap(), Workspace(ready.checkout) as workspace:  # as corrupt build has it
        screener = TreeScreener(
            sandbox,
            ready.env,
            workspace,
            RunBudget.from_baseline(ready.baseline),
            screening=mode,
            baseline=ready.baseline,
            policy=policy,
            verdicts=kept_checks(),
        )
        timed = TimedScreener(screener)
        try:
            for target in targets:
                outcome = AdversarialCorruptor().corrupt(request_for(ready, target, seed), timed)
                screened += outcome.screened
                found = outcome.corruption
                picks.append((found.files[target.file].corrupted, found.stats) if found else None)
        finally:
            screener.close()
    ended_cpu = cpu_seconds()
    cpu = ended_cpu[0] - began_cpu[0]
    return {
        "screened": screened,
        "cpu": cpu,
        "boxes": cpu - (ended_cpu[1] - began_cpu[1]),
        "wall": time.monotonic() - began,
        "tests": timed.test_seconds,
        "rate": screened / cpu if cpu else 0.0,
        "picks": picks,
        "policy": policy,
    }


@dataclass
class Tally:
    """One mode's totals over the repositories: candidates, CPU, time in tests."""

    count: int = 0
    cpu: float = 0.0
    tests: float = 0.0

    def add(self, row: dict[str, Any]) -> None:
        self.count += row["screened"]
        self.cpu += row["cpu"]
        self.tests += row["tests"]

    def rate(self) -> float:
        return self.count / self.cpu if self.cpu else 0.0


def build_ids(spec: str, mode: str, n: int, seed: int) -> tuple[list[str], float]:
    with tempfile.TemporaryDirectory() as tmp:
        began = time.monotonic()
        Build(
            BuildOptions(repo=spec, out=Path(tmp), mode="discovery", n=n, seed=seed, screening=mode)
        ).run()
        store = Store.open(Path(tmp))
        try:
            return sorted(t.task_id for t in store.list_tasks()), time.monotonic() - began
        finally:
            store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", default=DEFAULT_REPOS, help="names from bench/corpus.txt")
    parser.add_argument("--targets", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n", type=int, default=1, help="tasks per comparison build")
    parser.add_argument("--no-builds", action="store_true")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    args = parser.parse_args()
    global GROUP
    GROUP = meter()
    corpus = dict(read_corpus(CORPUS)[0])
    sandbox = get_sandbox("local")
    totals = {mode: Tally() for mode in ScreeningMode}
    for short in args.repos.split(","):
        name = next(n for n in corpus if n.split("/")[1].removeprefix("python-") == short)
        spec = spec_for(name, corpus[name], args.mirrors)
        ready = prepare(spec, sandbox, time_limit=300, stage=_no_stage)
        targets = first_targets(ready, args.targets, args.seed)
        rows = {
            mode: screen_mode(ready, sandbox, targets, mode, args.seed) for mode in ScreeningMode
        }
        for mode, row in rows.items():
            totals[mode].add(row)
        warm, fresh, suite = (rows[m] for m in ScreeningMode)
        policy: WarmPolicy = warm["policy"]
        print(
            f"\n{name} ({len(ready.baseline.tests)} tests, suite {ready.baseline.seconds:.1f} s, "
            f"{len(targets)} targets)"
        )
        for mode, row in rows.items():
            print(
                f"  {mode:<6} {row['screened']:>4} candidates  {row['cpu']:>7.1f} CPU s "
                f"({row['boxes']:.1f} in the boxes, {row['tests']:.1f} in tests)  "
                f"{row['wall']:>7.1f} s wall  "
                f"{row['rate']:>6.2f} candidates/CPU s"
            )
        print(
            f"  warm/fresh {warm['rate'] / max(fresh['rate'], 1e-9):.1f}x  "
            f"warm/suite {warm['rate'] / max(suite['rate'], 1e-9):.1f}x  "
            f"same picks warm/fresh: {'yes' if warm['picks'] == fresh['picks'] else 'NO'}  "
            f"warm held: {'yes' if policy.enabled else 'no, ' + policy.reason} "
            f"(check {'kept from an earlier build' if policy.check_reused else 'run'})  "
            f"re-imported: {policy.reimports} {dict(policy.reimport_reasons) or ''}"
            f"{'' if policy.reimport is not False else '(off: ' + policy.reimport_failure + ') '} "
            f"fell back: {policy.fallbacks} {dict(policy.fallback_reasons) or ''}"
        )
        if not args.no_builds:
            warm_ids, warm_s = build_ids(spec, "warm", args.n, args.seed)
            fresh_ids, fresh_s = build_ids(spec, "fresh", args.n, args.seed)
            print(
                f"  builds (discovery, n={args.n}): warm {warm_s:.0f} s, fresh {fresh_s:.0f} s, "
                f"same task ids: {'yes' if warm_ids == fresh_ids else 'NO'} {warm_ids}"
            )
    rate = {mode: tally.rate() for mode, tally in totals.items()}
    print(
        f"\nall: warm {rate[ScreeningMode.WARM]:.2f}, fresh {rate[ScreeningMode.FRESH]:.2f}, "
        f"suite {rate[ScreeningMode.SUITE]:.2f} candidates/CPU s; warm/fresh "
        f"{rate[ScreeningMode.WARM] / max(rate[ScreeningMode.FRESH], 1e-9):.1f}x (target 3x), "
        f"warm/suite {rate[ScreeningMode.WARM] / max(rate[ScreeningMode.SUITE], 1e-9):.1f}x (target 10x)"
    )
    held = totals[ScreeningMode.WARM]
    best = held.count / max(held.tests, 1e-9)  # warm's rate if it cost only its tests' time
    print(
        f"warm: {held.cpu:.1f} CPU s, {held.tests:.1f} of them in the screened tests, "
        f"{held.cpu - held.tests:.1f} overhead; with no overhead warm/fresh would be "
        f"{best / max(rate[ScreeningMode.FRESH], 1e-9):.1f}x and warm/suite "
        f"{best / max(rate[ScreeningMode.SUITE], 1e-9):.1f}x"
    )


if __name__ == "__main__":
    main()
