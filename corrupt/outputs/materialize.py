"""Write a task out as a repository an agent can be dropped into.

The corrupted tree gets a brand-new git history of one commit, so nothing in
the folder — files, ``.git`` objects, reflogs, caches — holds the original
code: the answer cannot be recovered with ``git log -p`` or ``git checkout``.
The problem statement and the test command sit beside the code (``PROBLEM.md``,
``TASK.json``, ``run_tests.sh``) and are excluded from git through
``.git/info/exclude``, so ``git status`` and ``git diff`` show only the agent's
own edits.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

from corrupt.errors import InputError, StoreError
from corrupt.outputs.task_env import TASK_VENV, task_environment
from corrupt.repos.gittool import run_git
from corrupt.repos.models import Checkout
from corrupt.repos.original import original_checkout
from corrupt.repos.suiteargs import anchored_command
from corrupt.tasks.models import Task

PROBLEM_FILE = "PROBLEM.md"
TASK_FILE = "TASK.json"
RUNNER_FILE = "run_tests.sh"
SCRIPT_FOLDER = '"$PWD"'  # where run_tests.sh runs the tests: the folder it is in
# Never copied: another history, byte-code and tool caches could all hold the original.
IGNORED = shutil.ignore_patterns(
    ".git",
    "__pycache__",
    "*.pyc",
    "*.pyo",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    ".tox",
    ".nox",
    "*.orig",
    "*.rej",
    ".coverage",
    ".coverage.*",
)


def runner_script(command: str) -> str:
    return (
        "#!/usr/bin/env bash\n"
        "# Runs this task's tests from the repository root; extra arguments are passed on.\n"
        "# The environment the task was verified in is .venv, when materialize made one.\n"
        "set -euo pipefail\n"
        'cd "$(dirname "${BASH_SOURCE[0]}")"\n'
        f"if [ -x {TASK_VENV}/bin/python ]; then\n"
        f'  export VIRTUAL_ENV="$PWD/{TASK_VENV}" PATH="$PWD/{TASK_VENV}/bin:$PATH"\n'
        "fi\n"
        f'exec env {anchored_command(command, SCRIPT_FOLDER)} "$@"\n'  # env: VAR=value first
    )


HOW_TO_WORK = (
    "\n---\nRun the tests with `./{runner}` (extra arguments go to pytest). Your answer is "
    "your change to this repository, as `git diff` shows it.\n"
)


def task_manifest(task: Task) -> dict[str, Any]:
    """What a harness needs to run the task; nothing that locates or undoes the corruption."""
    manifest = {
        "task_id": task.task_id,
        "repo": task.repo.name,
        "mode": task.mode,
        "kind": task.kind,
        "test_command": task.tests.command,
        "run_tests": f"./{RUNNER_FILE}",
        "fail_to_pass": task.tests.fail_to_pass,
        "pass_to_pass": task.tests.pass_to_pass,
        "problem_statement": PROBLEM_FILE,
    }
    if task.image_name:
        manifest["image_name"] = task.image_name  # the environment the task was verified in
    return manifest


def materialize_task(
    task: Task, out: Path, *, tree: Path, files: dict[str, tuple[str, str]]
) -> Path:
    """Write ``task`` into the new folder ``out`` from the original ``tree``.

    ``files`` maps each corrupted path to ``(original, corrupted)`` text; every
    original must match ``tree`` exactly, so a tree that moved on since the
    build is refused rather than silently mixed with the corruption.
    """
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(f"{out} already exists and is not empty; choose a new --out folder")
    for path, (original, _) in files.items():
        source = tree / path
        if not source.is_file() or source.read_bytes() != original.encode("utf-8"):
            raise StoreError(
                f"{path} in {tree} differs from the file the task was built from; "
                "the repository changed since the build"
            )
    for name in (PROBLEM_FILE, TASK_FILE, RUNNER_FILE):
        if (tree / name).exists():
            raise StoreError(f"the repository has its own {name}; cannot write the task's")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        staging.chmod(0o755)
        _write_repo(task, staging, tree, files)
        if out.exists():
            out.rmdir()
        staging.rename(out)  # a failed run leaves no half-made repository at ``out``
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return out


def _write_repo(task: Task, root: Path, tree: Path, files: dict[str, tuple[str, str]]) -> None:
    shutil.copytree(tree, root, ignore=IGNORED, symlinks=True, dirs_exist_ok=True)
    for path, (_, corrupted) in files.items():
        target = root / path
        mode = stat.S_IMODE(target.stat().st_mode)
        target.chmod(mode | stat.S_IWUSR)  # copies keep a read-only source's mode
        target.write_text(corrupted, encoding="utf-8", newline="")
        target.chmod(mode)  # and so does the corrupted file: its mode gives nothing away
    when = {"GIT_AUTHOR_DATE": task.created_at, "GIT_COMMITTER_DATE": task.created_at}
    run_git(["init", "-q", "-b", "main"], root, when)
    run_git(["add", "--all", "--force", "."], root, when)
    run_git(["commit", "-q", "--no-verify", "-m", f"Task {task.task_id}"], root, when)
    info = root / ".git" / "info"
    info.mkdir(exist_ok=True)
    with (info / "exclude").open("a", encoding="utf-8") as fh:
        fh.write(f"/{PROBLEM_FILE}\n/{TASK_FILE}\n/{RUNNER_FILE}\n/{TASK_VENV}/\n")
    problem = task.problem_statement.rstrip("\n") + "\n" + HOW_TO_WORK.format(runner=RUNNER_FILE)
    (root / PROBLEM_FILE).write_text(problem, encoding="utf-8")
    (root / TASK_FILE).write_text(
        json.dumps(task_manifest(task), indent=2) + "\n", encoding="utf-8"
    )
    runner = root / RUNNER_FILE
    runner.write_text(runner_script(task.tests.command), encoding="utf-8")
    runner.chmod(0o755)
    _same_times(root, task.created_at)


def _same_times(root: Path, when: str) -> None:
    """Every file and folder gets the task's time: the corrupted files, written last,
    would otherwise be the newest, and ``ls -lt`` would list them first."""
    stamp = _stamp(when)
    for folder, dirs, names in os.walk(root, topdown=False):
        for name in [*names, *dirs]:
            os.utime(Path(folder) / name, (stamp, stamp), follow_symlinks=False)
    os.utime(root, (stamp, stamp))


def _stamp(when: str) -> float:
    return datetime.fromisoformat(when.replace("Z", "+00:00")).timestamp()


def _load(store_dir: Path, task_id: str) -> tuple[Task, dict[str, Any], dict[str, tuple[str, str]]]:
    from corrupt.tasks.store import Store

    store = Store.open(store_dir)
    try:
        task = store.get_task(task_id)
        info = store.checkout_info()
        if not info.get("spec"):
            raise StoreError(f"{store_dir} does not record which repository it was built from")
        return task, info, store.task_files(task.task_id)
    finally:
        store.close()


def materialize_from_store(
    store_dir: Path,
    task_id: str,
    out: Path,
    *,
    cache_dir: Path | None = None,
    environment: bool = False,
) -> tuple[Task, Path]:
    """Look ``task_id`` (or a unique prefix) up in a build folder and materialise it;
    with ``environment``, the venv it was verified in (less the project's code) goes
    to ``out/.venv`` and ``run_tests.sh`` uses it (see :mod:`task_env`)."""
    task, info, files = _load(store_dir, task_id)
    pinned = original_checkout(info, cache_dir=cache_dir)
    source = _verified_venv(pinned) if environment else None
    path = materialize_task(task, out, tree=pinned.path, files=files)
    if source is not None:
        try:
            task_environment(source, path / TASK_VENV)
        except BaseException:
            shutil.rmtree(path, ignore_errors=True)
            raise
        for folder in (path / TASK_VENV, path):  # the task's folder keeps the task's time
            os.utime(folder, (_stamp(task.created_at),) * 2)
    return task, path


def _verified_venv(pinned: Checkout) -> Path:
    """The local venv of the build's checkout (built now if the cache lost it)."""
    from corrupt.sandboxes.local.sandbox import LocalSandbox

    sandbox = LocalSandbox()
    try:
        env = sandbox.prepare(pinned)
    finally:
        sandbox.close()
    return Path(env.location)


def materialize_image_from_store(
    store_dir: Path,
    task_id: str,
    out: Path,
    *,
    cache_dir: Path | None = None,
    base_image: str | None = None,
) -> tuple[Task, Path, str]:
    """Materialise like :func:`materialize_from_store`, then build the per-task image of ``out``.

    The engine is reached before anything is written, so a missing engine
    leaves no folder behind; a failed image build removes the new folder, so
    the same command can simply be run again.
    """
    from corrupt.outputs.task_image import build_task_image
    from corrupt.sandboxes.docker.sandbox import DockerSandbox

    task, info, files = _load(store_dir, task_id)
    sandbox = DockerSandbox(base_image=base_image)
    try:
        sandbox.client  # noqa: B018 -- connects now, or raises SandboxError with how to start one
        pinned = original_checkout(info, cache_dir=cache_dir)
        path = materialize_task(task, out, tree=pinned.path, files=files)
        try:
            tag = build_task_image(sandbox, task, pinned, path)
        except BaseException:
            shutil.rmtree(path, ignore_errors=True)
            raise
    finally:
        sandbox.close()
    manifest_path = path / TASK_FILE
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["task_image"] = tag  # the image holding this very tree at /testbed
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return task, path, tag
