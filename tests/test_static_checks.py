"""The codebase stays typed and lint-clean: mypy and ruff run as part of the suite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *argv], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_mypy_finds_no_type_errors() -> None:
    result = run("mypy", "corrupt")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_ruff_finds_no_lint_errors() -> None:
    result = run("ruff", "check", "corrupt", "tests", "bench")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_the_tree_is_formatted_by_ruff() -> None:
    result = run("ruff", "format", "--check", "corrupt", "tests", "bench")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
