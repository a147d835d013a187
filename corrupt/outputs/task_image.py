"""A per-task image: the repository's image with the corrupted tree in /testbed.

The repository image's venv holds a regular install of the ORIGINAL project,
so an image that merely adds the corrupted tree would hand the answer to
anyone who imports the package or looks in site-packages. A layer that
uninstalls it would not do either: the layer below still carries the files
(``docker save`` shows every layer). So the image is flattened: a first stage
uninstalls every distribution pip installed from a local folder (the build
context, see :mod:`corrupt.sandboxes.docker.images`; pip marks those with a ``file://``
``direct_url.json``), and the final stage is ``FROM scratch`` with that
stage's whole filesystem copied in as one layer, the repository image's
environment repeated, and the corrupted tree on top. The tree's import root is
put on ``PYTHONPATH``, and the variables the test command sets are set, as the
runner does, so the tests import /testbed's code as they ran at baseline.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docker.errors import ImageNotFound

from corrupt.repos.models import WORKDIR, Checkout
from corrupt.repos.suiteargs import test_command
from corrupt.sandboxes.base import anchored_pythonpath
from corrupt.sandboxes.docker.images import PYTHON, add_tree
from corrupt.sandboxes.docker.sandbox import DockerSandbox
from corrupt.tasks.models import Task


@dataclass(frozen=True)
class TaskImage:
    """A built per-task image and the commit /testbed holds in it."""

    tag: str
    base_commit: str


LABEL_TASK = "corrupt.task"
LABEL_COMMIT = "corrupt.testbed-commit"
UNINSTALL_SCRIPT = "corrupt-uninstall-local.py"
# Runs in the first stage with the venv's python, so it sees the venv's distributions.
UNINSTALL_LOCAL = """\
import importlib.metadata as md, json, subprocess, sys
def from_folder(dist):
    text = dist.read_text("direct_url.json")
    return bool(text) and json.loads(text).get("url", "").startswith("file://")
names = sorted({d.metadata["Name"] for d in md.distributions() if from_folder(d)})
if names:
    subprocess.run([sys.executable, "-m", "pip", "uninstall", "-y", "-q", *names], check=True)
print("uninstalled:", *names or ["nothing"])
"""
_SEPARATORS = re.compile(r"[^a-z0-9]+")


def task_image_tag(task_id: str) -> str:
    """``corrupt/task.<id>:latest``, with the id folded into what image names allow."""

    def separator(match: re.Match[str]) -> str:
        run = match.group()
        return run if run in {".", "_", "__"} or set(run) == {"-"} else "-"

    name = _SEPARATORS.sub(separator, task_id.lower()).strip("._-") or "task"
    return f"corrupt/task.{name}:latest"


def task_dockerfile(repo_image: str, config: dict[str, Any], tree: Path) -> str:
    """The two-stage recipe; ``config`` is the repository image's ``Config`` (its ENV and CMD are kept)."""
    env = dict(item.split("=", 1) for item in config.get("Env") or [] if "=" in item)
    env.update(anchored_pythonpath(test_command(tree)[1], WORKDIR))
    lines = [
        f"FROM {repo_image} AS clean",
        f"COPY {UNINSTALL_SCRIPT} /tmp/{UNINSTALL_SCRIPT}",
        f"RUN {PYTHON} /tmp/{UNINSTALL_SCRIPT} && rm /tmp/{UNINSTALL_SCRIPT}",
        "FROM scratch",
        "COPY --from=clean / /",
        *(f"ENV {key}={json.dumps(value)}" for key, value in env.items()),
        f"COPY testbed/ {WORKDIR}/",
        f"WORKDIR {WORKDIR}",
        # Harnesses keep the container alive with ``tail -f /dev/null``, which ignores
        # SIGTERM: every ``docker stop`` would wait out its whole grace period.
        "STOPSIGNAL SIGKILL",
    ]
    if config.get("Cmd"):
        lines.append(f"CMD {json.dumps(config['Cmd'])}")
    return "\n".join(lines) + "\n"


def repo_image(sandbox: DockerSandbox, task: Task, checkout: Checkout) -> str:
    """The image the task was verified in, if the engine still has it; else the checkout's, built when missing."""
    if task.image_name:
        try:
            sandbox.client.images.get(task.image_name)
            return task.image_name
        except ImageNotFound:
            pass
    return sandbox.prepare(checkout).location


def build_task_image(sandbox: DockerSandbox, task: Task, checkout: Checkout, tree: Path) -> str:
    """Build the per-task image from the materialised ``tree``; return its tag.

    The image is labelled with the commit /testbed holds, so an export can
    reuse it (:func:`task_image`) instead of building it again.
    """
    base = repo_image(sandbox, task, checkout)
    recipe = task_dockerfile(base, sandbox.client.images.get(base).attrs.get("Config") or {}, tree)
    context = io.BytesIO()
    with tarfile.open(fileobj=context, mode="w") as tar:
        add_text(tar, "Dockerfile", recipe)
        add_text(tar, UNINSTALL_SCRIPT, UNINSTALL_LOCAL)
        add_tree(tar, tree, "testbed", skip=set())
    context.seek(0)
    tag = task_image_tag(task.task_id)
    sandbox.build_image(
        tag,
        context,
        log=sandbox.cache_dir / f"{tag.replace('/', '_').replace(':', '_')}.log",
        what=f"task {task.task_id}",
        header=f"task image {tag} from {base}\n{recipe}\n",
        labels={
            LABEL_TASK: task.task_id,
            LABEL_COMMIT: head_commit(tree),
            "corrupt.repo": task.repo.name,
        },
    )
    return tag


def head_commit(tree: Path) -> str:
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=tree, capture_output=True, text=True, check=True
    ).stdout.strip()


def task_image(
    sandbox: DockerSandbox, task: Task, checkout: Checkout, files: dict[str, tuple[str, str]]
) -> TaskImage:
    """The task's image, built from a scratch materialisation unless the engine already has it."""
    from corrupt.outputs.materialize import materialize_task

    tag = task_image_tag(task.task_id)
    try:
        labels = sandbox.client.images.get(tag).labels or {}
        if labels.get(LABEL_TASK) == task.task_id and labels.get(LABEL_COMMIT):
            return TaskImage(tag, labels[LABEL_COMMIT])
    except ImageNotFound:
        pass
    with tempfile.TemporaryDirectory(prefix="corrupt-task-") as scratch:
        tree = materialize_task(task, Path(scratch) / "testbed", tree=checkout.path, files=files)
        return TaskImage(build_task_image(sandbox, task, checkout, tree), head_commit(tree))


def add_text(tar: tarfile.TarFile, name: str, text: str) -> None:
    data = text.encode()
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), 0o644
    tar.addfile(info, io.BytesIO(data))


class ExportImages:
    """The images the container formats name, built on the engine from a build's pinned checkout.

    ``on_image(what)`` is called as each image is looked for (a progress
    bar's hook); images the engine already holds are reused, the rest built.
    """

    def __init__(
        self,
        checkout: Checkout,
        files_for: Callable[[Task], dict[str, tuple[str, str]]],
        *,
        base_image: str | None = None,
        on_image: Callable[[str], None] | None = None,
    ) -> None:
        self.checkout = checkout
        self.files_for = files_for
        self.sandbox = DockerSandbox(base_image=base_image)
        self.sandbox.client  # noqa: B018 -- connects now, or raises SandboxError with how to start one
        self.on_image = on_image or (lambda what: None)

    def task_image(self, task: Task) -> TaskImage:
        self.on_image(task.task_id)
        return task_image(self.sandbox, task, self.checkout, self.files_for(task))

    def close(self) -> None:
        self.sandbox.close()
