"""Warm checks that held, remembered per environment: a repository is checked once per commit.

Before warm screening is trusted, the warm server runs the unchanged code's
passing tests (:meth:`corrupt.screening.screen.TreeScreener`'s check), which costs
about one run of the suite. Whether they pass in a fork is a fact about the
repository at a commit in an environment, like its baseline, so a check that
held is kept and later builds skip it. A check that failed is not kept: warm
screening is off for that build, and the next build tries again.

The key names the environment (repository, commit, packages), the sandbox, the
way the check ran, the tests checked and the server's and plugin's own code, so
a change to any of them checks again.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

from corrupt.cache import cache_root
from corrupt.repos.models import Environment, TestReport
from corrupt.sandboxes.guest import PYTEST_PLUGIN, WARM_SERVER


def kept_checks() -> Path:
    """Where builds keep the checks that held, beside the baselines."""
    return cache_root() / "warm-checks"


def verdict_path(
    root: Path, env: Environment, sandbox: str, tests: Sequence[str], kind: str
) -> Path:
    """``kind``: which way the check ran (code swapped in, or the tree imported again)."""
    digest = hashlib.sha256()
    for part in (env.key, sandbox, kind, *tests):
        digest.update(part.encode("utf-8") + b"\0")
    for source in (WARM_SERVER, PYTEST_PLUGIN):
        digest.update(source.read_bytes())
    return root / f"{digest.hexdigest()[:24]}.json"


def held_before(path: Path) -> bool:
    try:
        return bool(json.loads(path.read_text(encoding="utf-8")).get("held"))
    except (OSError, ValueError, AttributeError):
        return False


def remember_held(path: Path, checked: int) -> None:
    """Written to a temporary name and renamed: a killed build leaves no half verdict."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(f".{os.getpid()}.part")
    part.write_text(json.dumps({"held": True, "checked": checked}), encoding="utf-8")
    part.replace(path)


def first_not_passed(report: TestReport, tests: Sequence[str]) -> tuple[str, str] | None:
    """The check's test that did not pass and its outcome (None: all passed). One that
    ran and failed comes before one the failure budget then left unrun, whatever the
    order of ``tests``: structlog's sorted check named a class's test, unrun, for the
    module-level ``test_recursive`` that ran before it and failed."""
    outcomes: dict[str, str] = {
        n: r.outcome for n, r in report.results.items() if r.outcome != "passed"
    }
    outcomes |= {n: "not run" for n in tests if n not in report.results}
    if not outcomes:
        return None
    nodeid = min(outcomes, key=lambda n: outcomes[n] == "not run")
    return nodeid, outcomes[nodeid]
