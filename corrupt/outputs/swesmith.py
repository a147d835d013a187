"""SWE-smith instances, the repository profile SWE-smith needs for them, and its image.

SWE-smith finds everything about a repository through a registered profile
(``swesmith.profiles.registry``), keyed ``owner__repo.commit8``; an instance
id is that key, a dot, and a dot-free suffix. Its harness runs in the
profile's image, where /testbed holds the clean repository and one branch per
instance: "Bug Patch" (the corruption), then "Remove F2P Tests". Evaluation
checks out the branch, steps back over the test removal, and applies the
instance's ``patch`` (the bug-introducing diff) in reverse for ``gold``.

So the export writes, beside the instances, ``swesmith_profiles.py``: one
``PythonProfile`` per repository commit, registered on import, with the
GitHub lookups SWE-smith makes answered locally (the repository is not on
GitHub), and a ``__main__`` that runs SWE-smith's own harness with the
profiles registered::

    python swesmith_profiles.py eval -d swesmith.json -p gold --run_id r1
    python swesmith_profiles.py valid swesmith.json

and builds the profile's image from the repository's (on the engine, named
as the profile says) with the branches laid out as above.
"""

from __future__ import annotations

import io
import platform
import re
import shlex
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from corrupt.outputs.materialize import (
    PROBLEM_FILE,
    RUNNER_FILE,
    TASK_FILE,
    materialize_task,
)
from corrupt.outputs.swebench import PYTEST_FLAGS, repo_version
from corrupt.repos.gittool import run_git
from corrupt.repos.models import WORKDIR
from corrupt.repos.suiteargs import anchored_command
from corrupt.repos.testsupport import is_test_support
from corrupt.sandboxes.docker.images import add_tree
from corrupt.tasks.models import Task

if TYPE_CHECKING:
    from corrupt.outputs.task_image import ExportImages

ORG = "corrupt"  # the profiles' image namespace: local images, never pulled
AGENT_PREFIX = "corrupt/swesmith-task."


def owner_and_name(task: Task) -> tuple[str, str]:
    owner, _, name = task.repo.name.rpartition("/")
    return _safe(owner or "local"), _safe(name)


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)


def repo_key(task: Task) -> str:
    owner, name = owner_and_name(task)
    return f"{owner}__{name}.{repo_version(task)[:8]}"


def instance_id(task: Task) -> str:
    """``owner__repo.commit8.<kind>__<hash>``: SWE-smith splits at the last dot."""
    digest = re.sub(r"[^A-Za-z0-9_-]", "_", task.task_id.rsplit(".", 1)[-1])
    return f"{repo_key(task)}.{task.kind}__{digest[:12]}"


def image_name(task: Task) -> str:
    """What SWE-smith's ``RepoProfile.image_name`` computes for the generated profile."""
    owner, name = owner_and_name(task)
    arch = "arm64" if platform.machine() in {"aarch64", "arm64"} else "x86_64"
    return f"{ORG}/swesmith.{arch}.{owner}_1776_{name}.{repo_version(task)[:8]}".lower()


def swesmith_record(task: Task, agent_image: str) -> dict[str, Any]:
    """The instance; its ``image_name`` (what SWE-agent starts the agent in) is ``agent_image``."""
    fail_to_pass, pass_to_pass = task.tests.readable()
    return {
        "instance_id": instance_id(task),
        "repo": repo_key(task),
        "patch": task.corruption_patch,  # SWE-smith's patch introduces the bug
        "FAIL_TO_PASS": fail_to_pass,
        "PASS_TO_PASS": pass_to_pass,
        "problem_statement": task.problem_statement,
        "created_at": task.created_at,
        "image_name": agent_image,
    }


def profiles_module(tasks: list[Task]) -> str:
    """Python source registering one profile per repository commit among ``tasks``."""
    by_key = {repo_key(t): t for t in tasks}
    classes = []
    for key, task in sorted(by_key.items()):
        owner, name = owner_and_name(task)
        cls = "Corrupt_" + re.sub(r"\W", "_", key)
        flags = f"--disable-warnings --color=no --tb=no --verbosity=1 {PYTEST_FLAGS}"
        timeout = max(90, round(task.tests.baseline_seconds * 10))  # SWE-smith's default is 90 s
        command = f"cd {WORKDIR} && env {anchored_command(task.tests.command, WORKDIR)} {flags}"
        classes.append(
            f"""
@dataclass
class {cls}(PythonProfile):
    owner: str = {owner!r}
    repo: str = {name!r}
    commit: str = {repo_version(task)!r}
    org_dh: str = {ORG!r}
    test_cmd: str = {command!r}
    timeout: int = {timeout}
    timeout_ref: int = {max(900, timeout)}

    def _is_repo_private(self) -> bool:
        return False  # not on GitHub: nothing to ask

    def _mirror_exists(self) -> bool:
        return True  # the image holds the branches


registry.register_profile({cls})
"""
        )
    return (
        '"""SWE-smith profiles of repositories exported by corrupt; importing registers them.\n\n'
        "Run SWE-smith's harness with them registered:\n\n"
        "    python swesmith_profiles.py eval -d swesmith.json -p gold --run_id r1\n"
        "    python swesmith_profiles.py valid swesmith.json\n"
        '"""\n\n'
        "import runpy\nimport sys\nfrom dataclasses import dataclass\n\n"
        "from swesmith.profiles import registry\n"
        "from swesmith.profiles.python import PythonProfile\n"
        + "".join(classes)
        + '\n\nif __name__ == "__main__":\n'
        '    if len(sys.argv) < 2 or sys.argv[1] not in ("eval", "valid"):\n'
        '        sys.exit("usage: python swesmith_profiles.py eval|valid ARGS...")\n'
        '    module = f"swesmith.harness.{sys.argv[1]}"\n'
        "    sys.argv = [module, *sys.argv[2:]]\n"
        '    runpy.run_module(module, run_name="__main__")\n'
    )


def testbed_with_branches(tasks: list[Task], images: ExportImages, root: Path) -> Path:
    """The clean repository at ``main``, and per task a branch: Bug Patch, Remove F2P Tests."""
    first = tasks[0]
    clean = first.model_copy(update={"task_id": repo_key(first), "edit_script": {}})
    corrupted = {task.task_id: images.files_for(task) for task in tasks}
    # Every file some task corrupts, written back as the original: each is checked
    # against the pinned tree and made writable for the branches below.
    files = {
        path: (original, original)
        for per_task in corrupted.values()
        for path, (original, _) in per_task.items()
    }
    tree = materialize_task(clean, root / "testbed", tree=images.checkout.path, files=files)
    for name in (PROBLEM_FILE, TASK_FILE, RUNNER_FILE):  # one task's notes, not the repository's
        (tree / name).unlink()
    test_files = set(_test_files(tree))
    for task in tasks:
        run_git(["checkout", "-q", "-b", instance_id(task), "main"], tree, {})
        for path, (_, text) in corrupted[task.task_id].items():
            (tree / path).write_text(text, encoding="utf-8", newline="")
        run_git(["commit", "-q", "-a", "--no-verify", "-m", "Bug Patch"], tree, {})
        # Test modules only: a doctest id names the product module it lives in.
        f2p_files = sorted({t.split("::", 1)[0] for t in task.tests.fail_to_pass} & test_files)
        if f2p_files:
            run_git(["rm", "-q", "--", *f2p_files], tree, {})
        run_git(
            ["commit", "-q", "--allow-empty", "--no-verify", "-m", "Remove F2P Tests"], tree, {}
        )
        run_git(["checkout", "-q", "main"], tree, {})
    return tree


def _test_files(tree: Path) -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=tree, capture_output=True, check=True
    ).stdout.decode("utf-8", "surrogateescape")
    return [path for path in listed.split("\0") if path and is_test_support(path, set())]


def build_swesmith_image(tasks: list[Task], images: ExportImages) -> str:
    """The profile's image: the repository's image with the branched /testbed."""
    from corrupt.outputs.task_image import add_text, repo_image

    sandbox = images.sandbox
    base = repo_image(sandbox, tasks[0], images.checkout)
    tag = image_name(tasks[0])
    recipe = f"FROM {base}\nCOPY testbed/ {WORKDIR}/\nWORKDIR {WORKDIR}\nSTOPSIGNAL SIGKILL\n"
    with tempfile.TemporaryDirectory(prefix="corrupt-swesmith-") as scratch:
        tree = testbed_with_branches(tasks, images, Path(scratch))
        context = io.BytesIO()
        with tarfile.open(fileobj=context, mode="w") as tar:
            add_text(tar, "Dockerfile", recipe)
            add_tree(tar, tree, "testbed", skip=set())
        context.seek(0)
        sandbox.build_image(
            tag,
            context,
            log=sandbox.cache_dir / f"{tag.replace('/', '_')}.log",
            what=f"SWE-smith image of {tasks[0].repo.name}",
            header=f"SWE-smith image {tag} from {base}\n{recipe}\n",
            labels={"corrupt.repo": tasks[0].repo.name},
        )
    return tag


PROFILES_FILE = "swesmith_profiles.py"


def profiles_path(out: Path) -> Path:
    """Beside the instances; with ``--out -``, in the current folder."""
    return (Path.cwd() if str(out) == "-" else out.parent) / PROFILES_FILE


def build_agent_image(task: Task, images: ExportImages) -> str:
    """The per-task image with a branch named as the instance, where SWE-agent checks it out.

    The profile's image is for grading only: its ``main`` is the clean
    repository and every other task's branch holds this task's original, so
    an agent started there could read the answer with ``git diff``.
    """
    from corrupt.outputs.task_image import add_text

    base = images.task_image(task).tag
    tag = base.replace("corrupt/task.", AGENT_PREFIX, 1)
    recipe = f"FROM {base}\nRUN git -C {WORKDIR} branch {shlex.quote(instance_id(task))}\n"
    context = io.BytesIO()
    with tarfile.open(fileobj=context, mode="w") as tar:
        add_text(tar, "Dockerfile", recipe)
    context.seek(0)
    images.sandbox.build_image(
        tag,
        context,
        log=images.sandbox.cache_dir / f"{tag.replace('/', '_').replace(':', '_')}.log",
        what=f"SWE-smith agent image of {task.task_id}",
        header=f"SWE-smith agent image {tag} from {base}\n{recipe}\n",
        labels={"corrupt.task": task.task_id, "corrupt.repo": task.repo.name},
    )
    return tag


def swesmith_instances(tasks: list[Task], images: ExportImages) -> list[dict[str, Any]]:
    """The instances; the profile's image (to grade) and one image per task (to work in) on the engine."""
    if tasks:
        images.on_image(f"SWE-smith image of {tasks[0].repo.name}")
        build_swesmith_image(tasks, images)
    return [swesmith_record(t, build_agent_image(t, images)) for t in tasks]
