"""The APR baseline: localisation and repair from a materialised task alone, and its place in a build.

The planted bug is one catalogue edit in a frozen copy of the bundled
example, written as ``corrupt materialize`` writes a task (tree, TASK.json,
no store anywhere near); the graded tests come from real runs of the suite.
The shared build of the example then goes through ``corrupt solve``,
``corrupt score`` and ``corrupt slice`` as a user would run them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corrupt.cli import app
from corrupt.corruptors.operators import generate_mutants
from corrupt.repos.checkout import checkout
from corrupt.repos.specs import parse_spec
from corrupt.sandboxes.registry import get_sandbox
from corrupt.solve.apr import AprStatus, solve_folder
from corrupt.solve.localize import ochiai
from corrupt.suites.runner import run_tests
from corrupt.tasks.store import Store

MODULE = "src/minishop/money.py"


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


def test_ochiai_ranks_the_lines_failing_tests_share_first() -> None:
    coverage = {
        "pkg/a.py": {1: ["t1", "t2", "t3"], 2: ["t1", "t2"], 3: ["t3"]},
        "tests/test_a.py": {9: ["t1", "t2"]},
    }
    ranked = ochiai(coverage, {"t1", "t2"}, {"t3"}, is_product=lambda f: not f.startswith("tests/"))
    assert [(r.file, r.line) for r in ranked] == [("pkg/a.py", 2), ("pkg/a.py", 1)]
    assert ranked[0].score == 1.0 and ranked[1].score == round(2 / (2 * 3) ** 0.5, 4)
    assert ochiai(coverage, set(), {"t3"}, is_product=lambda f: True) == []


@pytest.fixture(scope="module")
def environment(example):
    sandbox = get_sandbox("local")
    pinned = checkout(parse_spec(str(example)))
    yield sandbox, sandbox.prepare(pinned), pinned
    sandbox.close()


def planted_task(
    folder: Path, example: Path, sandbox, env, functions=("Money.is_negative",)
) -> tuple[str, list[str]]:
    """The example with, in each of ``functions`` of money.py, the first catalogue edit a test
    sees, as a materialised task; returns the original module and the failing tests."""
    shutil.copytree(example, folder, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    original = text = (folder / MODULE).read_text()
    green = run_tests(sandbox, env, folder).passing()
    for qualname in functions:
        def_line = next(
            n
            for n, line in enumerate(text.splitlines(), 1)
            if f"def {qualname.rsplit('.', 1)[1]}(" in line
        )
        for mutant in generate_mutants(text, MODULE, qualname, def_line):
            (folder / MODULE).write_text(mutant.corrupted)
            if green - run_tests(sandbox, env, folder).passing():
                text = mutant.corrupted
                break
        else:
            pytest.fail(f"no edit of {qualname} is seen by a test")
    failing = sorted(green - run_tests(sandbox, env, folder).passing())
    manifest = {
        "task_id": "planted",
        "mode": "discovery",
        "fail_to_pass": failing,
        "pass_to_pass": sorted(green - set(failing)),
    }
    (folder / "TASK.json").write_text(json.dumps(manifest))
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    return original, failing


def test_a_planted_single_edit_is_repaired_from_the_folder_alone(
    environment, example, tmp_path: Path
) -> None:
    sandbox, env, _ = environment
    folder = tmp_path / "task"
    original, failing = planted_task(folder, example, sandbox, env)
    assert not list(tmp_path.rglob("store.sqlite")), "the solver must have nothing but the folder"
    result = solve_folder(folder, sandbox, env, budget=40)
    assert result.status == AprStatus.SOLVED, result
    assert 1 <= result.patches_tried <= 40 and result.ranked[0].file == MODULE
    subprocess.run(["git", "apply", "-"], input=result.patch, text=True, cwd=folder, check=True)
    assert (folder / MODULE).read_text() == original  # the catalogue's inverse is the fix
    assert set(failing) <= run_tests(sandbox, env, folder).passing()


def test_a_bug_in_two_functions_is_not_claimed_solved(environment, example, tmp_path: Path) -> None:
    """One edit cannot undo two: the solver spends its budget and claims nothing."""
    sandbox, env, _ = environment
    folder = tmp_path / "task"
    planted_task(folder, example, sandbox, env, ("Money.is_negative", "Money.is_zero"))
    result = solve_folder(folder, sandbox, env, budget=15)
    assert result.status == AprStatus.UNSOLVED and not result.patch, result
    assert result.patches_tried == 15 and "budget" in result.reason


def test_a_deleted_body_is_not_attempted(tmp_path: Path) -> None:
    (tmp_path / "TASK.json").write_text(
        json.dumps({"mode": "remove", "fail_to_pass": ["t"], "pass_to_pass": []})
    )
    result = solve_folder(tmp_path, sandbox=None, env=None)  # type: ignore[arg-type]
    assert result.status == AprStatus.NOT_ATTEMPTED and result.patches_tried == 0


def test_the_build_goes_through_solve_score_and_slice(built, tmp_path: Path) -> None:
    out, tasks = built
    predictions = tmp_path / "apr.jsonl"
    solved = cli("solve", str(out), "--budget", "12", "--out", str(predictions))
    assert solved.exit_code == 0, solved.output
    store = Store.open(out)
    try:
        results = store.get_meta("apr")
    finally:
        store.close()
    assert isinstance(results, dict)
    by_kind = {t["task_id"]: t["kind"] for t in tasks}
    for task_id, result in results.items():
        if by_kind.get(task_id) == "deletion":
            assert result["status"] == "not attempted" and not result["patch"]
        if by_kind.get(task_id) == "multi":  # one edit cannot undo two independent bugs
            assert result["status"] == "unsolved" and not result["solved"]
    lines = [json.loads(line) for line in predictions.read_text().splitlines()]
    assert {p["model_name_or_path"] for p in lines} == {"apr"}
    assert {p["instance_id"] for p in lines} == {
        t["task_id"] for t in tasks if t["kind"] != "deletion"
    }
    scored = cli("score", str(out), str(predictions), "--out", str(tmp_path / "s.jsonl"))
    assert scored.exit_code == 0, scored.output
    scores = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
    plausible = {t for t, r in results.items() if r["solved"]}
    assert {s["task_id"] for s in scores if s["resolved"]} == plausible
    sliced = cli("slice", str(out), "--exclude-apr-solved", "--out", str(tmp_path / "hard.jsonl"))
    assert sliced.exit_code == 0, sliced.output
    kept = (tmp_path / "hard.jsonl").read_text().splitlines()
    assert len(kept) == len(tasks) - len(plausible)
    again = cli("solve", str(out), "--budget", "12", "--out", str(predictions))
    assert again.exit_code == 0 and f"{len(tasks)} from an earlier run" in again.output


def test_the_report_says_what_the_baseline_solved(built, tmp_path: Path) -> None:
    from corrupt.outputs.report import _summary, load_report_data

    out, _ = built
    assert (
        cli("solve", str(out), "--budget", "12", "--out", str(tmp_path / "p.jsonl")).exit_code == 0
    )
    page = " ".join(_summary(load_report_data(out, [])).split())
    assert "<th>APR baseline</th><td>" in page and "not attempted (a deleted body)" in page


def test_a_build_with_an_apr_budget_records_the_baseline(example, tmp_path: Path) -> None:
    frozen = tmp_path / "minishop"
    shutil.copytree(example, frozen, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    build = tmp_path / "build"
    args = ["build", str(frozen), "--mode", "discovery", "--n", "1", "--seed", "7"]
    result = cli(*args, "--out", str(build), "--apr-budget", "5")
    assert result.exit_code == 0, result.output
    assert "APR baseline:" in result.output
    store = Store.open(build)
    try:
        (task,), results = store.list_tasks(), store.get_meta("apr")
    finally:
        store.close()
    assert isinstance(results, dict) and results[task.task_id]["budget"] == 5
    assert (build / "apr.predictions.jsonl").is_file()
    assert cli("build", str(frozen), "--apr-budget", "-1", "--out", str(build)).exit_code == 2
