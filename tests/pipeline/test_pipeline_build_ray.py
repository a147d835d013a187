"""`corrupt build --executor ray`: candidate screens in Ray actors on a local cluster the
build starts, with the task ids of a local build of the same seed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_pipeline_build_many import tiny_repo

from corrupt.tasks.store import Store

ROOT = Path(__file__).resolve().parents[2]
DISCOVERY = ["--mode", "discovery", "--n", "1", "--min-failing", "2", "--min-covering", "2"]
DISCOVERY += ["--min-lines", "2", "--seed", "3", "--jobs", "2"]


def build(repo: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "corrupt.cli", "build", str(repo), "--out", str(out), *DISCOVERY]
        + list(extra),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "COLUMNS": "200"},
    )


def task_ids(out: Path) -> list[str]:
    return [json.loads(line)["task_id"] for line in (out / "tasks.jsonl").read_text().splitlines()]


def screening(out: Path) -> dict:
    store = Store.open(out)
    try:
        return dict(store.get_meta("screening") or {})  # type: ignore[call-overload]
    finally:
        store.close()


@pytest.mark.slow
def test_ray_actors_screen_the_candidates_with_the_local_task_ids(tmp_path):
    pytest.importorskip("ray")
    repo = tiny_repo(tmp_path / "alpha", "alpha")
    local = build(repo, tmp_path / "local")
    assert local.returncode == 0, local.stderr[-3000:]
    remote = build(repo, tmp_path / "ray", "--executor", "ray")
    assert remote.returncode == 0, remote.stderr[-3000:]
    assert task_ids(tmp_path / "ray") == task_ids(tmp_path / "local") != []
    # the actors screened warm, checked their servers, and the driver added up their counts
    remote_record, local_record = screening(tmp_path / "ray"), screening(tmp_path / "local")
    assert remote_record["warm"] and remote_record["checked"] == 5
    # (not equal counts: with two workers a build screens candidates past the last it
    # needs, and how far they get before they are dropped depends on timing)
    assert remote_record["warm_runs"] > 0 and local_record["warm_runs"] > 0
    line = re.search(r"screening: warm .*?(\d+) runs in the warm server", remote.stdout)
    assert line and int(line.group(1)) == remote_record["warm_runs"]
    # the local build's check held and was kept for the commit: the actors did not run it again
    assert not local_record["check_reused"] and remote_record["check_reused"]
    assert "(checked on 5 unchanged tests, by an earlier build)" in remote.stdout


def test_ray_address_without_the_ray_executor_is_refused(tmp_path):
    result = build(tmp_path / "nowhere", tmp_path / "out", "--ray-address", "auto")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == "error: --ray-address needs --executor ray"
