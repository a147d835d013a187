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

A suite still red then gets a chance on the other interpreters installed here
that the project says it supports (``requires-python``, trove classifiers),
newest first and at most two (:mod:`corrupt.sandboxes.local.interpreters`): a bug of
one patch release, a standard module a newer release removed. Not when the
failure is the network's (the box has none, whatever the interpreter) or a
third-party module that did not install, nor when the project declares no
versions, or the user chose the interpreter (``--python``). The baseline
records the interpreter it was green on and the checkout carries it, like the
date.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from corrupt.cache import cache_root
from corrupt.errors import (
    NETWORK_FAILURE,
    InputError,
    InstallError,
    NoPythonError,
    RedBaselineError,
)
from corrupt.graph.models import CodeGraph
from corrupt.repos.budget import suite_cut
from corrupt.repos.models import Baseline, Checkout, Environment
from corrupt.repos.published import published
from corrupt.sandboxes.base import Sandbox
from corrupt.sandboxes.local.interpreters import (
    declared_support,
    find_interpreter,
    installed_interpreters,
    interpreter_hint,
    other_interpreters,
    own_interpreter,
    valid_version,
    which_interpreter,
)

Stage = Callable[[str], AbstractContextManager[None]]
RECENT = timedelta(days=1)
MAX_OTHER_PYTHONS = 2  # each costs an environment and two suite runs
MISSING_MODULE = re.compile(r"No module named '([\w.]+)'")


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
    python: str | None = None,
    strict_baseline: bool = False,
) -> Prepared:
    """Check out ``spec``, build its graph, environment, baseline and coverage map.

    ``checked_out`` sees the pinned checkout before anything expensive runs
    (the build binds its store there); ``note`` hears about files the graph
    skipped; ``env_progress`` about environment steps. ``python`` (``3.13``,
    ``3.13.0``) builds the environment on that installed interpreter, and no
    other is tried. ``strict_baseline`` refuses a suite with any test red in both
    baseline runs for a cause corrupt cannot name (by default a few are left out).
    """
    from corrupt.graph import build_code_graph
    from corrupt.repos.checkout import checkout as do_checkout
    from corrupt.repos.coverage import coverage_map
    from corrupt.repos.specs import parse_spec
    from corrupt.suites.baseline import cached_baseline, prime_bytecode

    with stage("checkout"):
        pinned = do_checkout(
            parse_spec(spec), min_stars=min_stars, api_url=api_url, cache_dir=cache_dir
        )
    if python is not None:
        pinned = replace(pinned, python=asked_python(python, sandbox))
    if checked_out is not None:
        checked_out(pinned)
    # a cached green baseline says which packages and Python it was green with: the
    # environment to use (unless the user asks for another Python, or that one is gone)
    baseline = cached_baseline(pinned, sandbox, cache_dir)
    if baseline is not None and (
        (python is not None and baseline.python != pinned.python)
        or (baseline.python is not None and not _installed(baseline.python))
        or baseline.cut_below(time_limit)
        or (strict_baseline and baseline.red)
    ):
        baseline = None
    if baseline is not None:
        pinned = replace(pinned, packages_as_of=baseline.packages_as_of, python=baseline.python)
    elif python is None and sandbox.picks_python:
        pinned = _supported_python(pinned, note)
    with stage("environment"):
        pinned, env = _environment(pinned, sandbox, note, env_progress, dating=baseline is None)
    with stage("baseline"):
        if baseline is None:
            pinned, env, baseline = _green_baseline(
                pinned,
                sandbox,
                env,
                time_limit,
                cache_dir,
                note,
                env_progress,
                other_pythons=python is None,
                strict=strict_baseline,
            )
        prime_bytecode(pinned, sandbox, env, time_limit, baseline.subset)
        if baseline.subset:
            _note(note, suite_cut(baseline))
        if baseline.red:
            first, error = next(iter(baseline.red.items()))
            more = f" and {len(baseline.red) - 1} more" if len(baseline.red) > 1 else ""
            _note(note, f"left out, red in both baseline runs: {first} ({error}){more}")
    # what the index publishes of the project: a release there is the answer to an agent online
    pinned = replace(
        pinned,
        published=published(pinned.path, pinned.version, cache_dir=cache_dir or cache_root()),
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


def _environment(
    pinned: Checkout,
    sandbox: Sandbox,
    note: Callable[[str], None] | None,
    progress: Callable[[str], None] | None,
    *,
    dating: bool,
) -> tuple[Checkout, Environment]:
    """The environment with today's packages, else, when installing fails, with those of
    the commit's date: a build backend or dependency released since may refuse what the
    commit declares (flit_core 4 no longer reads ``[tool.flit.metadata]``)."""
    try:
        return pinned, sandbox.prepare(pinned, progress=progress)
    except InstallError as failed:
        if not dating or pinned.packages_as_of or not sandbox.dates_packages:
            raise
        if not _dated(pinned.committed) or NETWORK_FAILURE.search(str(failed)):
            raise
        first = failed
    dated = replace(pinned, packages_as_of=pinned.committed)
    _note(
        note,
        f"installing failed with today's packages ({first}); trying the packages released "
        f"by {dated.committed}, the commit's date",
    )
    try:
        return dated, sandbox.prepare(dated, progress=progress)
    except InstallError as again:
        raise InstallError(
            f"{first}; with the packages of {dated.committed} too: {again}"
        ) from None


def _installed(version: str) -> bool:
    """Whether exactly that interpreter is still installed (a green baseline holds for it)."""
    found = find_interpreter(version)
    return found is not None and found.label == version


def asked_python(version: str, sandbox: Sandbox) -> str | None:
    """The record of the installed interpreter ``version`` names (None: corrupt's own), or an
    InputError saying what is installed."""
    if not sandbox.picks_python:
        raise InputError(
            f"--python needs the local sandbox; the {sandbox.name} sandbox runs its base "
            "image's Python (choose it with --base-image, e.g. python:3.13-slim)"
        )
    found = find_interpreter(version) if valid_version(version) else None
    if found is None:
        installed = ", ".join(i.label for i in installed_interpreters())
        raise InputError(
            f"no Python {version} is installed (found: {installed}); {interpreter_hint(version)}"
        )
    return None if found == own_interpreter() else found.label


def _green_baseline(
    pinned: Checkout,
    sandbox: Sandbox,
    env: Environment,
    time_limit: float,
    cache_dir: Path | None,
    note: Callable[[str], None] | None,
    env_progress: Callable[[str], None] | None,
    *,
    other_pythons: bool = True,
    strict: bool = False,
) -> tuple[Checkout, Environment, Baseline]:
    """The baseline with today's packages, else with those of the commit's date, else on
    another interpreter the project supports."""
    from corrupt.suites.baseline import compute_baseline

    def attempt(chosen: Checkout) -> tuple[Checkout, Environment, Baseline]:
        ready = sandbox.prepare(chosen, progress=env_progress)
        baseline = compute_baseline(
            chosen, sandbox, ready, time_limit=time_limit, cache_dir=cache_dir, strict=strict
        )
        return chosen, ready, baseline

    try:
        return (
            pinned,
            env,
            compute_baseline(
                pinned, sandbox, env, time_limit=time_limit, cache_dir=cache_dir, strict=strict
            ),
        )
    except RedBaselineError as red:
        first = red
    message = str(first)
    dating = not pinned.packages_as_of and sandbox.dates_packages and _dated(pinned.committed)
    if dating:
        dated = replace(pinned, packages_as_of=pinned.committed)
        _note(
            note,
            f"the suite is red with today's packages ({first.cause}); trying the packages "
            f"released by {dated.committed}, the commit's date",
        )
        try:
            return attempt(dated)
        except (RedBaselineError, InstallError) as again:
            message += f"; with the packages of {dated.committed} too: {again}"
    if other_pythons and sandbox.picks_python:
        found = _other_pythons(pinned, first, note, attempt, dating=dating)
        if not isinstance(found, str):
            return found
        message += found
    raise RedBaselineError(message, cause=first.cause) from None


def _supported_python(pinned: Checkout, note: Callable[[str], None] | None) -> Checkout:
    """The checkout on corrupt's own interpreter, unless the project's ``requires-python``
    excludes it: then on the newest installed interpreter the project supports (the
    install would only fail), or an InstallError saying none is installed."""
    support = declared_support(pinned.path)
    own = own_interpreter()
    if support.specifier is None or support.specifier.contains(own.label, prereleases=True):
        return pinned
    others = other_interpreters(pinned.path, own)
    if not others:
        installed = ", ".join(i.label for i in installed_interpreters())
        raise InstallError(
            f"{pinned.name} requires Python {support.requires}, and no installed interpreter "
            f"satisfies it (installed: {installed}); install one, e.g. uv python install "
            f"{_lowest(support.requires)}"
        )
    _note(
        note,
        f"requires-python {support.requires} excludes corrupt's Python {own.label}: "
        f"the environment is built on Python {others[0].label}",
    )
    return replace(pinned, python=others[0].label)


def _lowest(requires: str | None) -> str:
    """The lowest version a ``requires-python`` names (``>=3.12`` -> ``3.12``), for a hint."""
    found = re.search(r"\d+\.\d+", requires or "")
    return found.group(0) if found else "3"


def _other_pythons(
    pinned: Checkout,
    red: RedBaselineError,
    note: Callable[[str], None] | None,
    attempt: Callable[[Checkout], tuple[Checkout, Environment, Baseline]],
    *,
    dating: bool,
) -> tuple[Checkout, Environment, Baseline] | str:
    """The suite green on another interpreter the project supports, or what to add to the red
    message (why none was tried, or how each was red too). With ``dating``, the first one
    (for an old commit, the newest Python of its date) is also tried with the packages of
    the commit's date when today's are red on it: an old suite can need both, as its CI
    had them that day (cheetah_lint's tests expect a pycodestyle warning removed in 2023,
    and the pytest of its date does not start on Python 3.11)."""
    support = declared_support(pinned.path)
    if support.specifier is None and not support.classified:
        return ""  # which Pythons it supports is unknown
    text = str(red)
    if NETWORK_FAILURE.search(text):
        return ""
    needs = None
    missing = MISSING_MODULE.search(text)
    if missing is not None:
        needs = missing.group(1).split(".")[0]
        if not any(needs in i.stdlib for i in installed_interpreters()):
            return ""  # a third-party module that did not install: no interpreter brings it
    tried = which_interpreter(pinned.python)
    others = other_interpreters(pinned.path, tried, needs_module=needs, as_of=pinned.committed)[
        :MAX_OTHER_PYTHONS
    ]
    if not others:
        installed = ", ".join(i.label for i in installed_interpreters())
        return (
            f"; no other Python it supports is installed to try ({support.describe()}; "
            f"installed: {installed})"
        )
    added = ""
    for n, interpreter in enumerate(others):
        _note(
            note,
            f"the suite is red on Python {tried.label} ({red.cause}); trying {interpreter}, "
            f"which it supports ({support.describe()})",
        )
        on_it = replace(pinned, python=interpreter.label)
        tries = [(on_it, "too")]
        if n == 0 and dating:
            tries.append(
                (replace(on_it, packages_as_of=pinned.committed), "with those packages too")
            )
        for i, (chosen, said) in enumerate(tries):
            if i:
                _note(note, f"trying the packages released by {pinned.committed} on it")
            try:
                return attempt(chosen)
            except (RedBaselineError, InstallError) as again:
                added += f"; on Python {interpreter.label} {said}: {again}"
    return added


def _note(note: Callable[[str], None] | None, text: str) -> None:
    if note is not None:
        note(text)
