"""The codebase stays typed and lint-clean: mypy and ruff run as part of the suite."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def _layout_check() -> Any:
    spec = importlib.util.spec_from_file_location("check_layout", ROOT / "scripts/check_layout.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_package_keeps_its_shape() -> None:
    """No import cycle between stage folders, no module over 800 lines, no function over 100."""
    assert _layout_check().breaches(ROOT / "corrupt") == []


def test_the_shape_check_finds_a_cycle_a_long_module_and_a_long_function(tmp_path: Path) -> None:
    package = tmp_path / "corrupt"
    for stage in ("low", "high"):
        (package / stage).mkdir(parents=True)
        (package / stage / "__init__.py").write_text("")
    (package / "high" / "run.py").write_text("from corrupt.low.parts import part\n")
    # a lazy import from below closes the circle: it counts
    body = "".join(f"    x{i} = {i}\n" for i in range(101))
    (package / "low" / "parts.py").write_text(
        f"def part():\n    from ..high import run\n{body}" + "\n" * 700
    )
    found = _layout_check().breaches(package)
    assert any(line.startswith("corrupt/low/parts.py: ") and "lines" in line for line in found)
    assert any("function part is 103 lines" in line for line in found)
    assert any(
        "stage import cycle" in line and "corrupt.low.parts imports corrupt.high" in line
        for line in found
    )
