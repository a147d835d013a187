"""Project-wide test settings, and the one build of the bundled example that
the end-to-end, scoring and report tests share."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# The fixture repositories under tests/fixtures carry their own pytest suites
# (some deliberately hostile: they sleep forever or eat memory). They are run
# by the tests through corrupt's sandboxed runner, never collected here.
collect_ignore_glob = ["fixtures/*"]

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "minishop"
IGNORE = shutil.ignore_patterns("__pycache__", "*.egg-info", ".pytest_cache")
EXAMPLE_BUILD = ["--mode", "all", "--n", "2", "--seed", "7", "--jobs", "2"]


def _shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every xdist worker of this session sees (its own temp folder without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def example_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(frozen copy of the bundled example, its build folder), built once per session.

    The first worker to get here builds under a lock; the others wait and
    reuse the folder (a build is read-only to the tests that share it).
    """
    root = _shared_root(tmp_path_factory) / "example-build"
    root.mkdir(exist_ok=True)
    example, out = root / "minishop", root / "out" / "minishop"
    with (root / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / ".built").exists():
            shutil.rmtree(example, ignore_errors=True)
            shutil.copytree(EXAMPLE, example, ignore=IGNORE)
            result = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "corrupt.cli",
                    "build",
                    str(example),
                    *EXAMPLE_BUILD,
                    "--out",
                    str(out),
                ],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=900,
            )
            assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
            (root / ".built").touch()
    return example, out


@pytest.fixture(scope="session")
def example_build_options() -> list[str]:
    """The options of the shared example build, for a test that builds it another way."""
    return list(EXAMPLE_BUILD)


@pytest.fixture(scope="session")
def example(example_build: tuple[Path, Path]) -> Path:
    """A frozen copy of the bundled example, so edits to it cannot change a running test."""
    return example_build[0]


@pytest.fixture(scope="session")
def built(example_build: tuple[Path, Path]) -> tuple[Path, list[dict]]:
    out = example_build[1]
    tasks = [json.loads(line) for line in (out / "tasks.jsonl").read_text().splitlines()]
    return out, tasks
