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


def test_architecture_names_every_module() -> None:
    """ARCHITECTURE.md's Modules section has a line for every module (an empty
    ``__init__.py`` aside) and none for a module that is gone."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text.split("\n## Modules\n", 1)[1].split("\n## ", 1)[0]
    named, folder = set(), None
    for line in section.splitlines():
        if line.startswith("**`") and line.endswith("/`**"):
            folder = line[3:-4]
        elif line.startswith("- `") and folder is not None:
            named.add(f"{folder}/{line[3:].split('`', 1)[0]}")
    modules = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "corrupt").rglob("*.py")
        if path.name != "__init__.py" or path.read_text(encoding="utf-8").strip()
    }
    assert sorted(modules - named) == [], "modules ARCHITECTURE.md does not name"
    assert sorted(named - modules) == [], "ARCHITECTURE.md names modules that are gone"
