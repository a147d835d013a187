"""From a repository spec to everything selection needs: the one path shared by
``corrupt build``, ``corrupt baseline`` and the benchmarks.

checkout → environment → green baseline → call graph → coverage map. The suite
is judged before the graph is built, so a repository whose tests cannot serve
as ground truth is refused for that reason first (a suite with no product code
around it is still a red or green suite). Each step runs inside
``stage(name)``, so a caller can time it or show it.

A suite that is red with today's packages gets a second chance, where the
sandbox can install by date: an environment of the packages released by the
pinned commit's date, as its CI saw the index (a plugin's major release that
removed a fixture, a dependency that changed behaviour since). The green
baseline records that date, and the checkout carries it from then on, so every
later run of the build (screening, verification, scoring, exports) installs
the same packages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from corrupt.errors import InstallError, NoPythonError, RedBaselineError
from corrupt.graph.models import CodeGraph
from corrupt.repos.models import Baseline, Checkout, Environment
from corrupt.repos.sandbox import Sandbox

Stage = Callable[[str], AbstractContextManager[None]]
RECENT = timedelta(days=1)


@dataclass
class Prepared:
    checkout: Checkout
    graph: CodeGraph
    env: Environment
    baseline: Baseline
    coverage: dict[str, list[str]]  # qualname -> baseline tests that run its body


@contextmanager
def _quietly(name: str) -> Iterator[None]:
    yield


def prepare(
    spec: str,
    sandbox: Sandbox,
    *,
    time_limit: float = 60.0,
    min_stars: int = 0,
    api_url: str | None = None,
    cache_dir: Path | None = None,
    stage: Stage = _quietly,
    checked_out: Callable[[Checkout], None] | None = None,
    note: Callable[[str], None] | None = None,
    env_progress: Callable[[str], None] | None = None,
) -> Prepared:
    """Check out ``spec``, build its graph, environment, baseline and coverage map.

    ``checked_out`` sees the pinned checkout before anything expensive runs
    (the build binds its store there); ``note`` hears about files the graph
    skipped; ``env_progress`` about environment steps.
    """
    from corrupt.graph import build_code_graph
    from corrupt.repos.baseline import cached_baseline
    from corrupt.repos.checkout import checkout as do_checkout
    from corrupt.repos.coverage import coverage_map
    from corrupt.repos.specs import parse_spec

    with stage("checkout"):
        pinned = do_checkout(
            parse_spec(spec), min_stars=min_stars, api_url=api_url, cache_dir=cache_dir
        )
    if checked_out is not None:
        checked_out(pinned)
    # a cached green baseline says which packages it was green with: the environment to use
    baseline = cached_baseline(pinned, sandbox, cache_dir)
    if baseline is not None:
        pinned = replace(pinned, packages_as_of=baseline.packages_as_of)
    with stage("environment"):
        env = sandbox.prepare(pinned, progress=env_progress)
    with stage("baseline"):
        if baseline is None:
            pinned, env, baseline = _green_baseline(
                pinned, sandbox, env, time_limit, cache_dir, note, env_progress
            )
    with stage("graph"):
        try:
            graph = build_code_graph(pinned.path)
        except NoPythonError:
            raise NoPythonError(f"{spec} has no Python files to analyse (tests excluded)") from None
    for skipped in graph.skipped:
        if note is not None:
            note(f"skipped {skipped.file}: {skipped.reason}")
    with stage("coverage"):
        spans = [
            (s.qualname, s.file, s.body_start or s.start_line, s.end_line)
            for s in graph.functions()
        ]
        coverage = coverage_map(baseline, spans)
    return Prepared(pinned, graph, env, baseline, coverage)


def _dated(committed: str | None) -> bool:
    """Whether the commit is old enough for its date's packages to differ from today's
    (a commit of today, like most local work, would only repeat the red run)."""
    if committed is None:
        return False
    age = datetime.now(UTC) - datetime.fromisoformat(committed.replace("Z", "+00:00"))
    return age > RECENT


def _green_baseline(
    pinned: Checkout,
    sandbox: Sandbox,
    env: Environment,
    time_limit: float,
    cache_dir: Path | None,
    note: Callable[[str], None] | None,
    env_progress: Callable[[str], None] | None,
) -> tuple[Checkout, Environment, Baseline]:
    """The baseline with today's packages, else with those of the commit's date."""
    from corrupt.repos.baseline import compute_baseline

    try:
        return (
            pinned,
            env,
            compute_baseline(pinned, sandbox, env, time_limit=time_limit, cache_dir=cache_dir),
        )
    except RedBaselineError as red:
        if pinned.packages_as_of or not sandbox.dates_packages or not _dated(pinned.committed):
            raise
        dated = replace(pinned, packages_as_of=pinned.committed)
        if note is not None:
            note(
                f"the suite is red with today's packages ({red.cause}); trying the packages "
                f"released by {dated.committed}, the commit's date"
            )
        try:
            env = sandbox.prepare(dated, progress=env_progress)
            baseline = compute_baseline(
                dated, sandbox, env, time_limit=time_limit, cache_dir=cache_dir
            )
        except (RedBaselineError, InstallError) as again:
            raise RedBaselineError(
                f"{red}; with the packages of {dated.committed} too: {again}", cause=red.cause
            ) from None
        return dated, env, baseline
