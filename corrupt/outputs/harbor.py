"""Harbor task folders: one per task, as ``harbor.models.task.task.Task`` loads them.

Each folder holds ``task.toml``, ``instruction.md`` (the problem statement),
``environment/Dockerfile`` (``FROM`` the per-task image, which ``task.toml``
also names as its prebuilt ``docker_image``), ``tests/`` (``test.sh``, which
puts the tests back as committed, runs the suite and writes
``/logs/verifier/reward.txt`` from ``grade.py``) and ``solution/`` (the fix
patch, applied by ``solve.sh`` for Harbor's oracle agent).

The grader reads pytest's ``-rA`` summary itself, matching each expected id
whole, so parametrized ids with spaces count too.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from corrupt.errors import InputError
from corrupt.outputs.files import umask
from corrupt.outputs.formats.harbor import MARKER
from corrupt.outputs.swebench import PYTEST_FLAGS, in_testbed
from corrupt.outputs.task_image import TaskImage
from corrupt.repos.models import WORKDIR
from corrupt.repos.suiteargs import anchored_command
from corrupt.tasks.models import Task

GRADE = '''\
"""Reward 1 when every FAIL_TO_PASS and PASS_TO_PASS test PASSED in a pytest -rA log, else 0."""
import json, sys

expected = json.load(open(sys.argv[1], encoding="utf-8"))
passed = set()
for line in open(sys.argv[2], encoding="utf-8", errors="replace"):
    if line.startswith("PASSED "):
        passed.add(line[len("PASSED "):].rstrip("\\n"))
missing = [t for t in expected["FAIL_TO_PASS"] + expected["PASS_TO_PASS"] if t not in passed]
for test in missing[:20]:
    print("not passed:", test, file=sys.stderr)
print(0 if missing else 1)
'''


def task_toml(task: Task, image: TaskImage) -> str:
    verifier_seconds = max(600.0, round(task.tests.baseline_seconds * 10, 1))
    metadata = {
        "source": "corrupt",
        "task_id": task.task_id,
        "repo": task.repo.name,
        "mode": str(task.mode),
        "kind": str(task.kind),
        "slice": task.difficulty.slice,
        "centrality_pct": task.difficulty.centrality_pct,
        "complexity_pct": task.difficulty.complexity_pct,
        "n_functions": task.difficulty.n_functions,
    }
    if task.difficulty.hops is not None:  # TOML has no null: unknown is absent
        metadata["hops"] = task.difficulty.hops
    lines = ['schema_version = "1.4"', "", "[metadata]"]
    lines += [f"{key} = {_toml(value)}" for key, value in metadata.items()]
    lines += [
        "",
        "[verifier]",
        f"timeout_sec = {verifier_seconds}",
        "",
        "[agent]",
        "timeout_sec = 3600.0",
        "",
        "[environment]",
        f"docker_image = {_toml(image.tag)}",
        "build_timeout_sec = 600.0",
        # The agent and the verifier need no network: the environment is in the image, and a
        # published release of the repository is a copy of the answer (Harbor >= 0.25).
        'network_mode = "no-network"',
        "",
    ]
    return "\n".join(lines)


def _toml(value: object) -> str:
    """A TOML scalar. JSON's string escapes are TOML's, except that TOML wants
    characters beyond the BMP as themselves (not surrogate pairs) and DEL escaped."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    return json.dumps(value)


def test_sh(task: Task, image: TaskImage) -> str:
    return "\n".join(
        [
            "#!/bin/bash",
            "# Puts the tests back as committed, runs the suite, writes the reward.",
            "mkdir -p /logs/verifier",
            *in_testbed(image),
            f"env {anchored_command(task.tests.command, WORKDIR)} -rA {PYTEST_FLAGS}"
            " > /logs/verifier/pytest.log 2>&1",
            "python3 /tests/grade.py /tests/expected.json /logs/verifier/pytest.log"
            " > /logs/verifier/reward.txt",
            "",
        ]
    )


SOLVE_SH = """\
#!/bin/bash
set -euo pipefail
cd /testbed
git apply --whitespace=nowarn /solution/fix.patch
"""


def write_task_folder(task: Task, image: TaskImage, folder: Path) -> None:
    files = {
        "task.toml": task_toml(task, image),
        "instruction.md": task.problem_statement.rstrip("\n")
        + "\n\nThe repository is at /testbed. Change the code, not the tests.\n",
        "environment/Dockerfile": f"FROM {image.tag}\nWORKDIR /testbed\n",
        "tests/test.sh": test_sh(task, image),
        "tests/grade.py": GRADE,
        "tests/expected.json": json.dumps(
            {"FAIL_TO_PASS": task.tests.fail_to_pass, "PASS_TO_PASS": task.tests.pass_to_pass},
            indent=1,
        )
        + "\n",
        "solution/solve.sh": SOLVE_SH,
        "solution/fix.patch": task.fix_patch,
    }
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
        if name.endswith(".sh"):
            path.chmod(0o777 & ~umask())


def write_harbor_tasks(tasks: list[Task], out: Path, image_for: Callable[[Task], TaskImage]) -> int:
    """Write a folder of task folders at ``out``, replacing an earlier export there only."""
    if out.exists() and not (out / MARKER).exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(f"{out} exists and is not an earlier harbor export; choose a new --out")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        for task in tasks:
            write_task_folder(task, image_for(task), staging / task.task_id)
        (staging / MARKER).write_text("written by corrupt export --format harbor\n")
        staging.chmod(0o777 & ~umask())
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return len(tasks)
