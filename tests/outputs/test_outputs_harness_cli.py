"""`corrupt export` for harnesses, end to end on the shared example build.

File modes follow the umask, ``--out -`` writes stdout, a local repository is
stored absolute (so materialize and score work from any folder), and on a
container engine SWE-bench 5's ``run_evaluation`` and SWE-smith's ``eval``
run the exported instances: gold resolved, empty not.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from docker_engine import find_engine
from harness_envs import side_python

ROOT = Path(__file__).resolve().parents[2]
CORRUPT = [sys.executable, "-m", "corrupt.cli"]


def corrupt(*args: str, cwd: Path = ROOT, mask: int = 0o022, env: dict | None = None):
    return subprocess.run(
        [*CORRUPT, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=1200,
        env=env,
        preexec_fn=lambda: os.umask(mask),
    )


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("mask", [0o022, 0o027])
def test_export_files_follow_the_umask(built, tmp_path: Path, mask: int) -> None:
    out, tasks = built
    for fmt, name in (("jsonl", "tasks.jsonl"), ("pdb", "pdb.json"), ("parquet", "t.parquet")):
        result = corrupt(
            "export", str(out), "--format", fmt, "--out", str(tmp_path / name), mask=mask
        )
        assert result.returncode == 0, result.stderr
        assert mode_of(tmp_path / name) == 0o666 & ~mask
    assert mode_of(tmp_path / "tasks.features.json") == 0o666 & ~mask
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["tasks.jsonl", "tasks.features.json", "pdb.json", "t.parquet"]
    )  # no temporary files left


def test_dash_writes_the_records_to_stdout_and_the_summary_to_stderr(built) -> None:
    out, tasks = built
    result = corrupt("export", str(out), "--format", "gold", "--out", "-")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["instance_id"] for r in rows] == [t["task_id"] for t in tasks]
    assert f"{len(tasks)} gold records" in result.stderr
    pdb = corrupt("export", str(out), "--format", "pdb", "--out", "-")
    assert isinstance(json.loads(pdb.stdout), list)
    harbor = corrupt("export", str(out), "--format", "harbor", "--out", "-")
    assert harbor.returncode == 2 and "writes a folder" in harbor.stderr
    assert len(harbor.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_local_repository_is_stored_absolute(example, built, tmp_path: Path) -> None:
    """A build run as ``corrupt build minishop`` from the example's parent folder still materialises elsewhere."""
    out = tmp_path / "build"
    subprocess.run(["cp", "-a", str(built[0]), str(out)], check=True)
    with sqlite3.connect(out / "store.sqlite") as db:  # as an older build recorded it
        info = json.loads(db.execute("SELECT value FROM meta WHERE key = 'repo'").fetchone()[0])
        db.execute(
            "UPDATE meta SET value = ? WHERE key = 'repo'",
            (json.dumps({**info, "spec": "minishop"}),),
        )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    rebuilt = corrupt(
        "build",
        "minishop",
        "--mode",
        "all",
        "--n",
        "2",
        "--seed",
        "7",
        "--out",
        str(out),
        cwd=example.parent,
        env=env,
    )
    assert rebuilt.returncode == 0, rebuilt.stderr[-2000:]
    with sqlite3.connect(out / "store.sqlite") as db:
        spec = json.loads(db.execute("SELECT value FROM meta WHERE key = 'repo'").fetchone()[0])[
            "spec"
        ]
    assert spec == str(example)
    task_id = built[1][0]["task_id"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = corrupt(
        "materialize", task_id, "--build", str(out), "--out", "task", cwd=elsewhere, env=env
    )
    assert done.returncode == 0, done.stderr
    assert (elsewhere / "task" / "PROBLEM.md").is_file()


@pytest.mark.docker
def test_swebench_and_swesmith_run_the_exports_on_the_engine(built, tmp_path: Path) -> None:
    host, base = find_engine()
    env = {**os.environ, "DOCKER_HOST": host, "CORRUPT_BASE_IMAGE": base}
    out, tasks = built
    ids = sorted(t["task_id"] for t in tasks)
    instances, gold = tmp_path / "swebench.jsonl", tmp_path / "gold.jsonl"
    for fmt, target in (
        ("swebench", instances),
        ("gold", gold),
        ("swesmith", tmp_path / "swesmith.json"),
    ):
        result = corrupt("export", str(out), "--format", fmt, "--out", str(target), env=env)
        assert result.returncode == 0, result.stderr[-3000:]
    records = [json.loads(line) for line in instances.read_text().splitlines()]
    assert sorted(r["instance_id"] for r in records) == ids
    assert all(r["image"].startswith("corrupt/task.") and r["log_parser"] for r in records)
    empty = tmp_path / "empty.jsonl"
    empty.write_text(
        "".join(
            json.dumps({"instance_id": i, "model_name_or_path": "empty", "model_patch": ""}) + "\n"
            for i in ids
        )
    )
    swebench = str(side_python("swebench"))
    for model, predictions in (("gold", gold), ("empty", empty)):
        run = subprocess.run(
            [
                swebench,
                "-m",
                "swebench.harness.run_evaluation",
                "-d",
                str(instances),
                "-p",
                str(predictions),
                "--max_workers",
                "2",
                "--run_id",
                f"t-{model}",
                "--timeout",
                "900",
                "--report_dir",
                "reports",
            ],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        report = json.loads((tmp_path / "reports" / f"{model}.t-{model}.json").read_text())
        assert report["error_instances"] == 0, report
        expected = ids if model == "gold" else []
        assert sorted(report["resolved_ids"]) == expected
    smith = subprocess.run(
        [
            str(side_python("swesmith")),
            "swesmith_profiles.py",
            "eval",
            "-d",
            "swesmith.json",
            "-p",
            "gold",
            "--run_id",
            "t-gold",
            "-w",
            "2",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert smith.returncode == 0, smith.stdout[-3000:] + smith.stderr[-3000:]
    assert f"Resolved {len(ids)}/{len(ids)} instances." in smith.stdout
