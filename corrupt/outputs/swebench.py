"""SWE-bench 5 task instances that ``swebench.harness.run_evaluation`` runs as they are.

SWE-bench 5 reads an instance's own ``image``, ``eval_script``, ``log_parser``
and ``eval_type`` (``make_test_spec``), so no SWE-bench-side spec has to exist
for our repositories. The image is the per-task image
(:mod:`corrupt.outputs.task_image`): the corrupted tree committed at
/testbed, the repository's environment installed, the original nowhere in it.
The harness applies the model patch in /testbed, then runs the eval script,
which puts the task's tests back as committed (a patch cannot pass by editing
them) and runs ``pytest -rA`` between the harness's markers.

``parse_log_pytest_v2`` is the log parser because it keeps the whole id after
the status word; ids holding whitespace are left out anyway
(:func:`~corrupt.repos.models.harness_readable`), so SWE-smith-style parsers
read the same lists.
"""

from __future__ import annotations

import shlex
from typing import Any

from corrupt.outputs.task_image import TaskImage
from corrupt.repos.models import WORKDIR
from corrupt.repos.suiteargs import anchored_command, run_flags
from corrupt.repos.testsupport import TEST_SUPPORT
from corrupt.tasks.models import Task

START_MARKER = ">>>>> Start Test Output"
END_MARKER = ">>>>> End Test Output"
LOG_PARSER = "parse_log_pytest_v2"
EVAL_TYPE = "pass_and_fail"  # fail_only would count a missing or erroring test as success
# As the runner verified the task: a module that no longer imports fails its own
# tests, not the whole session; pytest's cache (plugins read it) outside the tree;
# no shuffled order, no linter plugins.
PYTEST_FLAGS = shlex.join(run_flags("/tmp/.pytest_cache"))


def support_pathspecs() -> list[str]:
    """The scorer's test-support patterns (tests, conftest, pytest configuration, start-up hooks) as git pathspecs."""
    return [
        f":(glob)**/{pattern}**" if pattern.endswith("/") else f":(glob)**/{pattern}"
        for pattern in TEST_SUPPORT
    ]


def restore_tests(base_commit: str) -> list[str]:
    """Shell lines putting every test-support file back as in ``base_commit``, and removing new ones.

    The task's own commit, not HEAD: an agent working in the container may
    have committed its edits. New files are those untracked, or added since
    that commit. One ``git checkout`` per pathspec: a single call naming a
    pathspec that matches nothing would restore nothing at all.
    """
    specs = shlex.join(support_pathspecs())
    return [
        f"git diff -z --name-only --no-renames --diff-filter=A {base_commit} -- {specs}"
        " | xargs -0 -r rm -f --",
        f"git ls-files -z --others -- {specs} | xargs -0 -r rm -f --",
        f'for spec in {specs}; do git checkout {base_commit} -- "$spec" 2>/dev/null; done',
    ]


def in_testbed(image: TaskImage) -> list[str]:
    """The start of every grading script: into /testbed, no byte-code, the tests put back."""
    return ["cd /testbed", "export PYTHONDONTWRITEBYTECODE=1", *restore_tests(image.base_commit)]


def eval_script(task: Task, image: TaskImage) -> str:
    """Restore the tests as committed, then run the task's suite between the markers."""
    return "\n".join(
        [
            "#!/bin/bash",
            "set -uxo pipefail",
            *in_testbed(image),
            f": '{START_MARKER}'",
            f"env {anchored_command(task.tests.command, WORKDIR)} -rA {PYTEST_FLAGS}",
            f": '{END_MARKER}'",
            "",
        ]
    )


def repo_version(task: Task) -> str:
    """The pinned commit, short: a local folder's ``tree:<hash>`` loses its prefix."""
    return task.repo.commit.removeprefix("tree:")[:12]


def swebench_instance(task: Task, image: TaskImage) -> dict[str, Any]:
    fail_to_pass, pass_to_pass = task.tests.readable()
    return {
        "instance_id": task.task_id,
        "repo": task.repo.name,
        "base_commit": image.base_commit,
        "environment_setup_commit": image.base_commit,
        "version": repo_version(task),
        "patch": task.fix_patch,  # the gold answer, as in SWE-bench
        "test_patch": "",  # the tests are already in the image
        "problem_statement": task.problem_statement,
        "hints_text": "",
        "created_at": task.created_at,
        "FAIL_TO_PASS": fail_to_pass,
        "PASS_TO_PASS": pass_to_pass,
        "image": image.tag,
        "image_name": image.tag,  # what SWE-agent reads
        "eval_script": eval_script(task, image),
        "log_parser": LOG_PARSER,
        "eval_type": EVAL_TYPE,
    }
