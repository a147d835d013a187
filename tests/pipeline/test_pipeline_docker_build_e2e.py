"""`corrupt build --sandbox docker` on the bundled example agrees with a local build of the same seed,
both screening warm.

Both builds run on one frozen copy of examples/minishop, so they see the same
tree (and commit id) even while the example is being edited. One test does
everything, so under ``pytest -n 2`` the two builds are never repeated by a
second worker.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from docker_engine import engine_client, find_engine

from corrupt.tasks.models import Task
from corrupt.tasks.store import Store

pytestmark = [pytest.mark.docker, pytest.mark.slow]

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "minishop"
CLI = [sys.executable, "-c", "from corrupt.cli import app; app()"]


def corrupt(*args: str, env: dict[str, str]) -> None:
    result = subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, (
        f"corrupt {' '.join(args)} failed:\n{result.stdout[-3000:]}{result.stderr[-3000:]}"
    )


def tasks_of(out: Path) -> list[Task]:
    store = Store.open(out)
    try:
        return store.list_tasks()
    finally:
        store.close()


def screening_of(out: Path) -> dict[str, object]:
    store = Store.open(out)
    try:
        record = store.get_meta("screening")
    finally:
        store.close()
    assert isinstance(record, dict)
    return record


def test_docker_build_matches_local_build(tmp_path: Path) -> None:
    host, base = find_engine()
    if not EXAMPLE.is_dir():
        pytest.fail("examples/minishop is missing")
    frozen = tmp_path / "minishop"
    shutil.copytree(EXAMPLE, frozen, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    env = {**os.environ, "DOCKER_HOST": host}
    common = [str(frozen), "--mode", "all", "--n", "1", "--seed", "0"]
    # One build after the other: side by side, on two busy cores, a screening run of the
    # local build once hit its per-test timeout, and the search kept another mutant.
    for name, extra in [
        ("local", ["--sandbox", "local"]),
        ("docker", ["--sandbox", "docker", "--base-image", base]),
    ]:
        done = subprocess.run(
            [*CLI, "build", *common, "--out", str(tmp_path / name), *extra],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, f"{name} build failed:\n{done.stdout[-4000:]}"

    local, docker = tasks_of(tmp_path / "local"), tasks_of(tmp_path / "docker")
    assert sorted(t.kind for t in local) == ["adversarial", "deletion", "multi"]

    def tests_by_id(tasks: list[Task]) -> dict[str, tuple[str, list[str], list[str]]]:
        return {
            t.task_id: (t.kind, sorted(t.tests.fail_to_pass), sorted(t.tests.pass_to_pass))
            for t in tasks
        }

    assert tests_by_id(docker) == tests_by_id(local)

    def effects_by_id(tasks: list[Task]) -> dict[str, list[tuple[str | None, int | None]]]:
        return {t.task_id: [(b.effect.test, b.effect.hop_distance) for b in t.bugs] for t in tasks}

    # the effects were traced in the warm servers, the docker one's in its container
    assert effects_by_id(docker) == effects_by_id(local)
    changed = [b for t in local if t.kind != "deletion" for b in t.bugs]
    assert changed and all(b.effect.hop_distance is not None for b in changed)
    # both screened in a warm server (the docker one in a container of its own), none fresh
    for name in ("local", "docker"):
        record = screening_of(tmp_path / name)
        assert record["mode"] == "warm" and record["warm"] is True, (name, record)
        assert record["warm_runs"] and not record["fallbacks"], (name, record)
    assert all(t.image_name is None for t in local)
    images = {t.image_name for t in docker}
    assert len(images) == 1 and None not in images
    (image,) = images
    with engine_client(host) as client:
        assert client.images.get(image).labels["corrupt.repo"] == "minishop"

    corrupt(
        "export",
        str(tmp_path / "docker"),
        "--format",
        "swesmith",
        "--out",
        str(tmp_path / "sw.json"),
        env=env,
    )
    records = json.loads((tmp_path / "sw.json").read_text())
    agents = {r["image_name"] for r in records}  # one image per task to work in
    assert len(records) == len(agents) == 3
    assert all(a.startswith("corrupt/swesmith-task.") for a in agents)
    with engine_client(host) as client:  # SWE-smith's image to grade in, built from the build's
        assert any(
            "corrupt/swesmith." in tag and image.labels.get("corrupt.repo") == "minishop"
            for image in client.images.list()
            for tag in image.tags
        )
