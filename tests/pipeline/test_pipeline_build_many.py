"""`corrupt build-many`: the list, failures kept to their repository, resume after
Ctrl-C, and Ray tasks writing the task ids of the local executor. Builds run
for real on tiny git repositories made here (remove mode, one task each)."""

from __future__ import annotations

import inspect
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import git
import pytest
from gitrepos import commit, make_repo
from typer.testing import CliRunner

from corrupt.cli import app
from corrupt.cli.build import build, build_many
from corrupt.errors import InputError
from corrupt.pipeline.many import Ledger, RepoRecord, folder_name, parse_list
from corrupt.pipeline.options import BuildOptions

ROOT = Path(__file__).resolve().parents[2]
CORRUPT = [sys.executable, "-m", "corrupt.cli"]
# One task per repository from a suite of a few tests: the smallest build that verifies.
SMALL = ["--mode", "remove", "--n", "1", "--min-failing", "2", "--min-covering", "2"]
SMALL += ["--min-lines", "2", "--seed", "3"]


def tiny_repo(path: Path, name: str) -> Path:
    """A git repository of one module whose functions each fail two tests when deleted."""
    make_repo(
        path,
        {
            f"{name}.py": (
                "def clamp(value, low, high):\n"
                "    if value < low:\n"
                "        return low\n"
                "    return min(value, high)\n"
                "\n\n"
                "def mean(values):\n"
                "    values = list(values)\n"
                "    return sum(values) / len(values)\n"
            ),
            f"test_{name}.py": (
                f"from {name} import clamp, mean\n\n\n"
                "def test_clamp_low():\n    assert clamp(-1, 0, 9) == 0\n\n\n"
                "def test_clamp_high():\n    assert clamp(12, 0, 9) == 9\n\n\n"
                "def test_clamp_inside():\n    assert clamp(4, 0, 9) == 4\n\n\n"
                "def test_mean():\n    assert mean([1, 2, 3]) == 2\n\n\n"
                "def test_mean_one():\n    assert mean([5]) == 5\n"
            ),
        },
    )
    return path


def red_repo(path: Path) -> Path:
    """A git repository whose suite fails at its own commit."""
    tiny_repo(path, "gamma")
    repo_file = path / "test_gamma.py"
    commit(
        git.Repo(path),
        {repo_file.name: repo_file.read_text() + "\n\ndef test_red():\n    assert 1 == 2\n"},
        "a red test",
    )
    return path


def run_many(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CORRUPT, "build-many", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "200"},
    )


def summary(result: subprocess.CompletedProcess[str]) -> dict[str, dict]:
    return {row["folder"]: row for row in map(json.loads, result.stdout.splitlines())}


def task_ids(folder: Path) -> list[str]:
    return [
        json.loads(line)["task_id"] for line in (folder / "tasks.jsonl").read_text().splitlines()
    ]


def candidates(folder: Path) -> int:
    with sqlite3.connect(folder / "store.sqlite") as db:
        return int(db.execute("SELECT COUNT(*) FROM candidates").fetchone()[0])


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("many-repos")
    return {
        "alpha": tiny_repo(base / "alpha", "alpha"),
        "beta": tiny_repo(base / "beta", "beta"),
        "red": red_repo(base / "red"),
    }


@pytest.fixture(scope="module")
def local_run(
    repos: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """(list, root, result) of one local run over two good, one red and one missing repository."""
    base = tmp_path_factory.mktemp("many-local")
    listing = base / "repos.txt"
    listing.write_text(
        "# two good, one red, one missing\n"
        f"{repos['alpha']}\n{repos['red']}\n\n{base / 'missing'}\n{repos['beta']}\n"
    )
    root = base / "root"
    return listing, root, run_many(str(listing), "--root", str(root), "--json", *SMALL)


def test_list_lines_are_specs_or_search_results():
    text = (
        "# a corpus\n\n"
        "github:pallets/click@8.1.7\n"
        '{"full_name": "pallets/itsdangerous", "url": "https://github.com/pallets/itsdangerous", "stars": 3000}\n'
        "  https://example.org/a/b.git@v1  \n"
        "github:pallets/click@8.1.7\n"  # once is enough
    )
    assert parse_list(text) == [
        "github:pallets/click@8.1.7",
        "github:pallets/itsdangerous",
        "https://example.org/a/b.git@v1",
    ]
    with pytest.raises(InputError, match="line 2 of the list is not valid JSON"):
        parse_list("github:a/b\n{nope\n")
    with pytest.raises(InputError, match="line 1 of the list is JSON without a full_name"):
        parse_list('{"name": "b"}\n')
    with pytest.raises(InputError, match="names no repository"):
        parse_list("# nothing\n\n")


def test_folders_are_named_after_the_repository_and_never_shared(tmp_path):
    assert folder_name("github:pallets/click@8.1.7") == "pallets__click"
    assert folder_name("https://example.org/a/b.git@v1") == "a__b"
    assert folder_name(str(tmp_path)) == tmp_path.name
    assert folder_name(str(tmp_path / "gone")) == "gone"  # unparsable: built to record its error
    ledger = Ledger(tmp_path)
    first = ledger.folder_for("github:pallets/click@8.1.7")
    ledger.put(RepoRecord("github:pallets/click@8.1.7", first))
    second = ledger.folder_for("github:pallets/click@8.2.0")
    assert first == "pallets__click" and second.startswith("pallets__click-") and second != first
    assert Ledger(tmp_path).folder_for("github:pallets/click@8.1.7") == first  # kept across runs


def test_build_many_takes_build_options_less_its_own(monkeypatch, tmp_path):
    """build-many's options are BuildOptions' fields but the repository, the folder and the
    executor (its own); their values make each repository's BuildOptions as they are."""
    many = {p.name for p in inspect.signature(build_many).parameters.values()}
    assert many - {p.name for p in inspect.signature(build).parameters.values()} == {
        "list_", "root", "retry_failed", "as_json"
    }  # fmt: skip
    assert "repo" not in many and "out" not in many
    seen: list[dict[str, object]] = []

    def recorded(specs, root, fields, executor, view, retry_failed):
        seen.append(fields)
        raise InputError("stopped before any work")

    monkeypatch.setattr("corrupt.pipeline.many.run_many", recorded)
    listing = tmp_path / "list.txt"
    listing.write_text("github:o/n\n", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["build-many", str(listing), "--n", "2", "--no-isolation", "--executor", "local"]
    )
    assert result.exit_code == 2, result.output
    assert BuildOptions(repo="r", out=tmp_path, **seen[0]) == BuildOptions(
        repo="r", out=tmp_path, n=2, isolation=False
    )


@pytest.mark.slow
def test_a_failing_repository_is_recorded_and_the_others_still_build(local_run):
    listing, root, result = local_run
    assert result.returncode == 1, result.stderr[-3000:]
    rows = summary(result)
    assert set(rows) == {"alpha", "beta", "red", "missing"}
    for good in ("alpha", "beta"):
        assert rows[good]["status"] == "done" and rows[good]["tasks"] == {"remove": 1}
        assert len(task_ids(root / good)) == 1
    assert rows["red"]["status"] == "failed" and rows["red"]["cause"] == "red test"
    assert (
        rows["missing"]["cause"] == "InputError"
        and "no such repository path" in (rows["missing"]["message"])
    )
    assert "2 of 4 repositories failed: red (red test), missing (InputError)" in " ".join(
        result.stderr.split()
    )
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_a_rerun_skips_settled_repositories_and_duplicates_nothing(local_run, tmp_path):
    listing, first_root, _ = local_run
    root = shutil.copytree(first_root, tmp_path / "root")  # the shared run stays as it was
    before = {name: (task_ids(root / name), candidates(root / name)) for name in ("alpha", "beta")}
    again = run_many(str(listing), "--root", str(root), "--json", *SMALL)
    assert again.returncode == 1  # the failures still stand
    assert all(row["skipped"] for row in summary(again).values())
    after = {name: (task_ids(root / name), candidates(root / name)) for name in ("alpha", "beta")}
    assert after == before


@pytest.mark.slow
def test_retry_failed_builds_a_repository_fixed_since(tmp_path):
    red = red_repo(tmp_path / "red")
    listing = tmp_path / "repos.txt"
    listing.write_text(f"{red}\n")
    root = tmp_path / "root"
    assert run_many(str(listing), "--root", str(root), *SMALL).returncode == 1
    suite = (red / "test_gamma.py").read_text().split("\n\ndef test_red")[0]
    commit(git.Repo(red), {"test_gamma.py": suite}, "green again")
    unchanged = run_many(str(listing), "--root", str(root), "--json", *SMALL)
    assert unchanged.returncode == 1 and summary(unchanged)["red"]["skipped"]
    retried = run_many(str(listing), "--root", str(root), "--json", "--retry-failed", *SMALL)
    assert retried.returncode == 0, retried.stderr[-3000:]
    row = summary(retried)["red"]
    assert not row["skipped"] and row["status"] == "done" and row["cause"] is None


@pytest.mark.slow
def test_ctrl_c_stops_the_run_and_the_next_one_resumes(repos, tmp_path):
    listing = tmp_path / "repos.txt"
    listing.write_text(f"{repos['alpha']}\n{repos['beta']}\n")
    root = tmp_path / "root"
    proc = subprocess.Popen(
        [*CORRUPT, "build-many", str(listing), "--root", str(root), *SMALL],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        # Ctrl-C as in a terminal: a suite run in the background would pass SIGINT on ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdout is not None
    for line in proc.stdout:  # interrupted as the second build starts
        if line.startswith("beta: "):
            proc.send_signal(signal.SIGINT)
            break
    assert proc.wait(timeout=300) == 130
    assert "rerun the same command to resume" in proc.stderr.read()
    ledger = {
        r["folder"]: r["status"]
        for r in json.loads((root / "build-many.json").read_text())["repos"]
    }
    assert ledger == {"alpha": "done", "beta": "pending"}
    resumed = run_many(str(listing), "--root", str(root), "--json", *SMALL)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    rows = summary(resumed)
    assert rows["alpha"]["skipped"] and not rows["beta"]["skipped"]
    assert rows["beta"]["status"] == "done" and len(task_ids(root / "beta")) == 1


@pytest.mark.slow
def test_ray_tasks_write_the_task_ids_of_the_local_executor(local_run, repos, tmp_path):
    pytest.importorskip("ray")
    _, local_root, _ = local_run
    listing = tmp_path / "repos.txt"
    listing.write_text(f"{repos['alpha']}\n{repos['beta']}\n")
    root = tmp_path / "root"
    result = run_many(str(listing), "--root", str(root), "--json", "--executor", "ray", *SMALL)
    assert result.returncode == 0, result.stderr[-3000:]
    rows = summary(result)
    assert {name: row["status"] for name, row in rows.items()} == {"alpha": "done", "beta": "done"}
    for name in ("alpha", "beta"):
        assert task_ids(root / name) == task_ids(local_root / name)
    assert "beta: started" in result.stderr  # progress came back from the workers


def test_ray_executor_without_ray_is_one_line(tmp_path):
    fake = tmp_path / "site" / "ray"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no ray on this machine')\n")
    listing = tmp_path / "repos.txt"
    listing.write_text("github:a/b\n")
    result = subprocess.run(
        [
            *CORRUPT,
            "build-many",
            str(listing),
            "--root",
            str(tmp_path / "root"),
            "--executor",
            "ray",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(fake.parent), str(ROOT)])},
    )
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error: --executor ray needs the ray package: pip install 'corrupt[ray]'"
    )
