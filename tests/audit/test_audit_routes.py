"""`corrupt audit`: every route an agent could read the original through is found, and only those.

Each test plants one route into a real materialised task of the shared
example build (a reflog entry, a branch, a stash, a dangling object, a packed
object, a stray ``.pyc`` compiled from the original, a cached wheel, an
installed copy beside its dist-info, the problem statement) and runs the real
command; the untouched folder passes, so each test fails if the audit is
switched off or goes blind.
"""

from __future__ import annotations

import json
import os
import py_compile
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corrupt.cli import app
from corrupt.tasks.store import Store

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "a",
    "GIT_AUTHOR_EMAIL": "a@b",
    "GIT_COMMITTER_NAME": "a",
    "GIT_COMMITTER_EMAIL": "a@b",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


def git(folder: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=folder, env=GIT_ENV, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture(scope="module")
def discovery_task(built, tmp_path_factory) -> tuple[Path, Path, str, str]:
    """(build folder, a clean materialised discovery task, its corrupted path, that file's original)."""
    out, tasks = built
    task = next(t for t in tasks if t["mode"] == "discovery" and t["kind"] == "adversarial")
    folder = tmp_path_factory.mktemp("audit") / "task"
    result = cli("materialize", task["task_id"], "--out", str(folder), "--build", str(out))
    assert result.exit_code == 0, result.output
    assert "audit passed" in result.output
    store = Store.open(out)
    try:
        ((path, (original, _)),) = store.task_files(task["task_id"]).items()
    finally:
        store.close()
    return out, folder, path, original


@pytest.fixture
def task_copy(discovery_task, tmp_path: Path) -> tuple[Path, Path, str, str]:
    out, folder, path, original = discovery_task
    copy = tmp_path / "task"
    shutil.copytree(folder, copy, symlinks=True)
    return out, copy, path, original


def _commit_original(folder: Path, path: str, original: str) -> None:
    (folder / path).write_text(original, encoding="utf-8")
    git(folder, "commit", "-qam", "the original")


def plant_reflog(folder: Path, path: str, original: str) -> None:
    _commit_original(folder, path, original)
    git(folder, "reset", "-q", "--hard", "HEAD~1")
    (folder / ".git" / "ORIG_HEAD").unlink()


def plant_branch(folder: Path, path: str, original: str) -> None:
    git(folder, "checkout", "-q", "-b", "other")
    _commit_original(folder, path, original)
    git(folder, "checkout", "-q", "main")


def plant_packed_branch(folder: Path, path: str, original: str) -> None:
    plant_branch(folder, path, original)
    git(folder, "gc", "-q", "--aggressive")
    assert not list((folder / ".git" / "objects").glob("??/*")), "everything should be packed"


def plant_stash(folder: Path, path: str, original: str) -> None:
    (folder / path).write_text(original, encoding="utf-8")
    git(folder, "stash", "-q")


def plant_dangling(folder: Path, path: str, original: str) -> None:
    (folder / "scratch.txt").write_text(original, encoding="utf-8")
    git(folder, "hash-object", "-w", "scratch.txt")
    (folder / "scratch.txt").unlink()


def plant_pyc(folder: Path, path: str, original: str) -> None:
    source = folder.parent / "original.py"
    source.write_text(original, encoding="utf-8")
    target = folder / Path(path).parent / "__pycache__" / f"{Path(path).stem}.cpython-3x.pyc"
    py_compile.compile(str(source), cfile=str(target), dfile=path, doraise=True)


def plant_foreign_pyc(folder: Path, path: str, original: str) -> None:
    """Byte-code another Python wrote (its magic number differs): it cannot be read here, so it fails."""
    plant_pyc(folder, path, original)
    (compiled,) = (folder / Path(path).parent / "__pycache__").glob("*.pyc")
    data = compiled.read_bytes()
    compiled.write_bytes(bytes([data[0] ^ 0x55]) + data[1:])


def plant_wheel(folder: Path, path: str, original: str) -> None:
    wheels = folder / ".cache" / "pip" / "wheels" / "ab" / "cd"
    wheels.mkdir(parents=True)
    with zipfile.ZipFile(
        wheels / "minishop-0.1-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED
    ) as whl:
        whl.writestr(f"minishop/{Path(path).name}", original)


def plant_dist_info(folder: Path, path: str, original: str) -> None:
    site = folder / "venv" / "lib" / "python3.11" / "site-packages"
    (site / "minishop").mkdir(parents=True)
    (site / "minishop" / Path(path).name).write_text(original, encoding="utf-8")
    (site / "minishop-0.1.dist-info").mkdir()
    (site / "minishop-0.1.dist-info" / "RECORD").write_text(f"minishop/{Path(path).name},,\n")


def plant_problem(folder: Path, path: str, original: str) -> None:
    with (folder / "PROBLEM.md").open("a", encoding="utf-8") as fh:
        fh.write("\nFor reference, the module as it was:\n\n" + original)


ROUTES = {
    plant_reflog: "reachable from the reflog",
    plant_branch: "reachable from refs/heads/other",
    plant_packed_branch: "reachable from refs/heads/other",
    plant_stash: "reachable from refs/stash",
    plant_dangling: "unreachable",
    plant_pyc: "(compiled)",
    plant_foreign_pyc: "(compiled by another Python) (compiled)",
    plant_wheel: ".whl!minishop/",
    plant_dist_info: "site-packages/minishop/",
    plant_problem: "PROBLEM.md",
}


@pytest.mark.parametrize("plant", list(ROUTES), ids=lambda p: p.__name__.removeprefix("plant_"))
def test_each_planted_route_is_found(task_copy, plant) -> None:
    out, folder, path, original = task_copy
    clean = cli("audit", str(out), str(folder), "--no-images")
    assert clean.exit_code == 0, clean.output
    plant(folder, path, original)
    found = cli("audit", str(out), str(folder), "--no-images")
    assert found.exit_code == 26, found.output
    flat = " ".join(found.output.split())
    assert f"the original of {path} is readable in" in flat and ROUTES[plant] in flat, flat


def test_byte_code_of_the_corrupted_tree_is_no_leak(task_copy) -> None:
    """What running the task's own tests leaves behind must not be mistaken for the answer."""
    out, folder, _, _ = task_copy
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder)], check=True)
    assert list(folder.rglob("*.pyc"))
    result = cli("audit", str(out), str(folder), "--no-images")
    assert result.exit_code == 0, result.output


def test_record_exports_are_read_where_the_agent_reads(built, tmp_path: Path) -> None:
    out, tasks = built
    target = tmp_path / "tasks.jsonl"
    result = cli("export", str(out), "--format", "jsonl", "--out", str(target))
    assert result.exit_code == 0 and "audit passed" in result.output, result.output
    records = [json.loads(line) for line in target.read_text().splitlines()]
    store = Store.open(out)
    try:
        files = store.task_files(records[0]["task_id"])
    finally:
        store.close()
    original = next(iter(files.values()))[0]
    records[0]["problem_statement"] += "\n\n" + original
    target.write_text("".join(json.dumps(r) + "\n" for r in records))
    found = cli("audit", str(out), str(target))
    assert found.exit_code == 26, found.output
    assert "record 1 problem_statement (text)" in " ".join(found.output.split())
    assert cli("audit", str(out), str(tmp_path / "nothing")).exit_code == 2


def test_gold_predictions_are_refused_not_passed(built, tmp_path: Path) -> None:
    out, _ = built
    gold = tmp_path / "gold.jsonl"
    assert cli("export", str(out), "--format", "gold", "--out", str(gold)).exit_code == 0
    result = cli("audit", str(out), str(gold))
    assert result.exit_code == 2 and "nothing to audit" in result.output


def test_the_report_shows_each_audit(built, tmp_path: Path) -> None:
    from corrupt.outputs.report import _summary, load_report_data

    out, _ = built
    target = tmp_path / "audited.pdb.json"
    assert cli("export", str(out), "--format", "pdb", "--out", str(target)).exit_code == 0
    page = " ".join(_summary(load_report_data(out, [])).split())
    assert f"{target} (pdb): passed" in page, page


def test_an_image_the_engine_no_longer_has_is_one_line(task_copy, monkeypatch) -> None:
    from docker_engine import find_engine

    host, _ = find_engine()
    monkeypatch.setenv("DOCKER_HOST", host)
    out, folder, _, _ = task_copy
    manifest = json.loads((folder / "TASK.json").read_text())
    manifest["task_image"] = "corrupt/task.pruned-long-ago:latest"
    (folder / "TASK.json").write_text(json.dumps(manifest))
    result = cli("audit", str(out), str(folder))
    assert result.exit_code == 23, result.output
    assert "is not on the container engine" in result.output and "Traceback" not in result.output
