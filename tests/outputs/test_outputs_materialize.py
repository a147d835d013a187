"""Materialisation, slicing, export and show through the real CLI over a real store and git repo."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tasks_factory import ADVERSARIAL, BODY_MARKER, MULTI, ORIGINAL, PRICING, make_task, write_repo
from typer.testing import CliRunner

from corrupt.cli import app
from corrupt.errors import InputError, StoreError
from corrupt.outputs.materialize import materialize_task, runner_script
from corrupt.tasks.store import CandidateRow, CandidateStatus, Store

DELETION = {
    "src/shop/pricing.py": PRICING.replace(
        """    subtotal = 0
    for price, qty in items:
        subtotal += price * qty
    if discount:
        subtotal -= subtotal * discount / 100
    return round(subtotal, 2)
""",
        "    raise NotImplementedError\n",
    )
}
DELETED_BODY = [
    "subtotal = 0",
    BODY_MARKER,
    "subtotal -= subtotal * discount / 100",
    "round(subtotal, 2)",
]


@pytest.fixture
def build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A build folder over a real local git repository: tasks of all three kinds."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # an executable source file (git keeps the bit): a copy written anew would lose it
    repo = write_repo(tmp_path / "shop", ORIGINAL, modes={"src/shop/pricing.py": 0o755})
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    )
    store = Store.open(tmp_path / "build", create=True)
    store.bind_repo(
        {
            "name": "shop",
            "url": str(repo),
            "commit": head.stdout.strip(),
            "spec": str(repo),
            "stars": None,
        }
    )
    tasks = {}
    for name, corrupted, kind, pct in [
        ("adversarial", ADVERSARIAL, "adversarial", (95.0, 92.0)),
        ("multi", MULTI, "multi", (60.0, 70.0)),
        ("deletion", DELETION, "deletion", (20.0, 30.0)),
    ]:
        task, files = make_task(corrupted, kind=kind, centrality=pct[0], complexity=pct[1])
        store.record_candidate(
            CandidateRow(
                name,
                task.mode,
                [t.qualname for t in task.targets],
                CandidateStatus.VERIFIED,
                task.corruptor,
                1,
                0.1,
                task.task_id,
                None,
            ),
            task,
            files,
        )
        tasks[name] = (task, files)
    store.close()
    return tmp_path / "build", tasks, repo


def all_git_objects(repo: Path) -> str:
    listing = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=repo,
        capture_output=True,
        check=True,
    )
    return listing.stdout.decode("utf-8", errors="replace")


def all_files_text(root: Path) -> str:
    return "\n".join(
        p.read_bytes().decode("utf-8", "replace") for p in root.rglob("*") if p.is_file()
    )


def run(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize("name, gone", [("adversarial", [BODY_MARKER]), ("deletion", DELETED_BODY)])
def test_materialized_repo_hides_the_original(
    build, tmp_path: Path, name: str, gone: list[str]
) -> None:
    folder, tasks, repo = build
    task, files = tasks[name]
    out = tmp_path / "task"
    result = run(
        "materialize", task.task_id[:8], "--out", str(out), "--build", str(folder), "--no-env"
    )
    assert result.exit_code == 0, result.output
    log = subprocess.run(
        ["git", "log", "--format=%H %s"], cwd=out, capture_output=True, text=True, check=True
    )
    assert len(log.stdout.splitlines()) == 1
    everything = all_files_text(out) + all_git_objects(out)  # loose and packed objects alike
    for text in gone:
        assert text not in everything
    assert not list(out.rglob("*.orig")) and not list(out.rglob("__pycache__"))
    for path, (_, corrupted) in files.items():
        assert (out / path).read_bytes() == corrupted.encode()
    assert (out / "src/shop/tax.py").read_bytes() == ORIGINAL[
        "src/shop/tax.py"
    ].encode()  # CRLF kept
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=out, capture_output=True, text=True, check=True
    )
    assert status.stdout == ""  # PROBLEM.md, TASK.json, run_tests.sh are excluded
    assert (out / "PROBLEM.md").read_text(encoding="utf-8").startswith("Some tests fail")
    manifest = json.loads((out / "TASK.json").read_text(encoding="utf-8"))
    assert manifest["task_id"] == task.task_id and manifest["test_command"] == task.tests.command
    assert "edit_script" not in manifest and "fix_patch" not in manifest
    # no file's time gives the corrupted ones away (`ls -lt` would list them first); git
    # status above rewrote its own index, which is git's, not the tree's
    times = {p.lstat().st_mtime for p in out.rglob("*") if ".git" not in p.relative_to(out).parts}
    assert len(times) == 1, sorted(times)[-3:]
    # nor its mode: every file of the repository has the mode it has in the checkout
    for path in ORIGINAL:
        assert (out / path).stat().st_mode == (repo / path).stat().st_mode, path


def test_run_tests_script_puts_the_tree_on_the_path_absolutely(tmp_path: Path) -> None:
    """A process a test starts in another folder (sqlmodel's ``coverage run -m docs_src...``
    in ``tmp_path``) must still import the tree: ``PYTHONPATH=src`` is anchored where the
    script is, quoting and all, wherever it is called from."""
    folder = tmp_path / "a task"
    folder.mkdir()
    script = folder / "run_tests.sh"
    probe = "import os, sys; print(os.environ['PYTHONPATH']); print(sys.argv[1])"
    command = f"PYTHONHASHSEED=0 PYTHONPATH=src:. {sys.executable} -c {shlex.quote(probe)}"
    script.write_text(runner_script(command))
    script.chmod(0o755)
    ran = subprocess.run([str(script), "it's"], cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [f"{folder}/src:{folder}", "it's"]


def test_run_tests_script_shows_the_failure(build, tmp_path: Path) -> None:
    folder, tasks, _ = build
    out = tmp_path / "task"
    assert (
        run(
            "materialize",
            tasks["adversarial"][0].task_id,
            "--out",
            str(out),
            "--build",
            str(folder),
            "--no-env",  # the repository test below runs the example's own environment
        ).exit_code
        == 0
    )
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    ran = subprocess.run(
        [str(out / "run_tests.sh"), "-p", "no:cacheprovider"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert (
        "test_total FAILED" in ran.stdout or "FAILED tests/test_shop.py::test_total" in ran.stdout
    )
    assert "2 failed, 2 passed" in ran.stdout


def test_materialize_refuses_a_used_folder_and_a_changed_tree(tmp_path: Path) -> None:
    task, files = make_task(ADVERSARIAL)
    tree = write_repo(tmp_path / "tree", ORIGINAL, git=False)
    used = tmp_path / "used"
    used.mkdir()
    (used / "keep.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(InputError, match="not empty"):
        materialize_task(task, used, tree=tree, files=files)
    (tree / "src/shop/pricing.py").chmod(0o444)  # a read-only source still materialises
    (tree / "src/shop/tax.py").chmod(0o444)
    made = materialize_task(task, tmp_path / "ok", tree=tree, files=files)
    assert (made / "src/shop/pricing.py").read_bytes() == ADVERSARIAL[
        "src/shop/pricing.py"
    ].encode()
    # the corrupted file keeps its source's mode, as every other file does
    assert {
        (made / f).stat().st_mode & 0o777 for f in ("src/shop/pricing.py", "src/shop/tax.py")
    } == {0o444}
    (tree / "src/shop/tax.py").chmod(0o644)
    (tree / "src/shop/pricing.py").chmod(0o644)
    (tree / "src/shop/pricing.py").write_text(PRICING + "\n# edited\n", encoding="utf-8")
    with pytest.raises(StoreError, match="changed since the build"):
        materialize_task(task, tmp_path / "new", tree=tree, files=files)
    assert not (tmp_path / "new").exists()


def test_unknown_and_ambiguous_task_ids(build, tmp_path: Path) -> None:
    folder, _, _ = build
    result = run("materialize", "zzzz", "--out", str(tmp_path / "x"), "--build", str(folder))
    assert result.exit_code == 25 and "no task 'zzzz'" in result.output
    assert run("show", "", "--build", str(folder)).exit_code == 25  # every task matches ""
    missing = run("show", "abc", "--build", str(tmp_path / "nowhere"))
    assert missing.exit_code == 22 and "no task store" in missing.output


def test_show_prints_metadata_and_diff(build) -> None:
    folder, tasks, _ = build
    task = tasks["multi"][0]
    result = run("show", task.task_id[:10], "--build", str(folder))
    assert result.exit_code == 0, result.output
    for text in [
        task.task_id,
        "multi",
        "acme/shop",
        "swap_binop",
        "+    return round(amount - extra, 2)",
    ]:
        assert text in result.output
    fix = run("show", task.task_id, "--build", str(folder), "--fix")
    assert "+    return round(amount + extra, 2)" in fix.output


def test_slice_filters_by_difficulty_mode_and_kind(build, tmp_path: Path) -> None:
    folder, tasks, _ = build
    out = tmp_path / "hard.jsonl"
    result = run("slice", str(folder), "--out", str(out), "--slice", "hard")
    assert result.exit_code == 0, result.output
    assert [json.loads(x)["task_id"] for x in out.read_text().splitlines()] == [
        tasks["adversarial"][0].task_id
    ]
    run(
        "slice",
        str(folder),
        "--out",
        str(out),
        "--centrality-pct",
        "0:70",
        "--mode",
        "multi",
        "--mode",
        "remove",
    )
    assert {json.loads(x)["kind"] for x in out.read_text().splitlines()} == {"multi", "deletion"}
    # every record names the one band its percentiles are in, whatever it was chosen by
    assert {
        json.loads(x)["kind"]: json.loads(x)["difficulty"]["slice"]
        for x in out.read_text().splitlines()
    } == {"multi": "medium", "deletion": "easy"}
    # mode is one value everywhere: a JSONL filter on it agrees with slice --mode
    found = tmp_path / "discovery.jsonl"
    run("slice", str(folder), "--out", str(found), "--mode", "discovery")
    assert [json.loads(x)["mode"] for x in found.read_text().splitlines()] == ["discovery"]
    run(
        "slice", str(out), "--out", str(tmp_path / "again.jsonl"), "--kind", "deletion"
    )  # a JSONL source
    assert len((tmp_path / "again.jsonl").read_text().splitlines()) == 1
    empty = run("slice", str(folder), "--out", str(tmp_path / "e.jsonl"), "--complexity-pct", "99")
    assert empty.exit_code == 21 and "none of the 3 tasks" in empty.output
    bad = run("slice", str(folder), "--out", str(tmp_path / "e.jsonl"), "--centrality-pct", "x")
    assert bad.exit_code == 2 and "--centrality-pct" in bad.output and "Traceback" not in bad.output
    assert run("slice", str(folder), "--out", str(out), "--mode", "fast").exit_code == 2


def test_export_from_a_build_folder(build, tmp_path: Path) -> None:
    folder, tasks, _ = build
    result = run("export", str(folder), "--format", "pdb")
    assert result.exit_code == 0, result.output
    assert "4 pdb records from 3 tasks" in result.output  # the multi task has two files
    assert len(json.loads((folder / "pdb.json").read_text())) == 4
    assert run("export", str(folder), "--format", "xml").exit_code == 2
    records = tmp_path / "tasks.jsonl"
    assert run("export", str(folder), "--out", str(records)).exit_code == 0
    for fmt in ("pdb", "swebench", "swesmith", "harbor"):
        from_jsonl = run("export", str(records), "--format", fmt)
        assert from_jsonl.exit_code == 2 and "needs a build folder" in from_jsonl.output


def test_show_finds_the_build_under_out(
    build, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, tasks, _ = build
    (tmp_path / "out").mkdir()
    folder.rename(tmp_path / "out" / "shop")
    monkeypatch.chdir(tmp_path)
    task = tasks["deletion"][0]
    result = run("show", task.task_id[:6])
    assert result.exit_code == 0 and task.task_id in result.output
    shutil.copytree(tmp_path / "out" / "shop", tmp_path / "out" / "copy")
    twice = run("show", task.task_id[:6])
    assert twice.exit_code == 25 and "several builds" in twice.output
