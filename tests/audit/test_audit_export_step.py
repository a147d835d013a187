"""The audit as a step of materialize and export: a leak fails the command and leaves nothing.

The repository here carries a copy of its own modules (documentation
listings, as ``.py.txt``), so every materialised task of it holds the
original of its corrupted function: the copy is the answer. Without the
audit, ``materialize`` would write the folder and exit 0.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corrupt.cli import app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "minishop"


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def copied_build(tmp_path_factory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("copies")
    repo = root / "minishop"
    shutil.copytree(EXAMPLE, repo, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    listing = repo / "docs" / "listing"
    listing.mkdir(parents=True)
    for module in (repo / "src" / "minishop").glob("*.py"):
        shutil.copy(module, listing / f"{module.name}.txt")
    build = root / "build"
    result = cli(
        "build", str(repo), "--mode", "discovery", "--n", "1", "--seed", "7", "--out", str(build)
    )
    assert result.exit_code == 0, result.output
    task_id = json.loads((build / "tasks.jsonl").read_text().splitlines()[0])["task_id"]
    return build, task_id


def test_materialize_refuses_a_task_whose_tree_holds_the_original(
    copied_build, tmp_path: Path
) -> None:
    build, task_id = copied_build
    out = tmp_path / "task"
    result = cli("materialize", task_id, "--out", str(out), "--build", str(build))
    assert result.exit_code == 26, result.output
    flat = " ".join(result.output.split())
    assert "docs/listing/" in flat and "(file)" in flat and f"removed {out}" in flat
    assert not out.exists()


def test_an_export_the_agent_reads_no_copy_in_still_passes(copied_build, tmp_path: Path) -> None:
    build, _ = copied_build
    result = cli("export", str(build), "--format", "pdb", "--out", str(tmp_path / "pdb.json"))
    assert result.exit_code == 0 and "audit passed" in result.output, result.output
