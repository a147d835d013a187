"""`corrupt materialize --image`: a per-task image that holds the corrupted tree and not the original.

The task comes from a real `corrupt build --sandbox docker` of a frozen copy
of examples/minishop; everything is checked on the engine: the image's
flattened filesystem (exported through the Docker API), its layers, and the
task's own test command run in it.
"""

from __future__ import annotations

import difflib
import importlib.util
import io
import json
import marshal
import re
import shlex
import shutil
import subprocess
import tarfile
from collections.abc import Iterable
from pathlib import Path

import pytest
from docker_engine import engine_client, find_engine
from tasks_factory import ADVERSARIAL, ORIGINAL, make_task, write_repo
from typer.testing import CliRunner

from corrupt.cli import app
from corrupt.outputs.task_image import task_image_tag
from corrupt.tasks.store import CandidateRow, CandidateStatus, Store

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "minishop"


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


def removed_text(original: str, corrupted: str) -> str:
    """The longest run of original lines the corruption took out: the answer that must not leak."""
    a, b = original.splitlines(keepends=True), corrupted.splitlines(keepends=True)
    blocks = [
        a[i1:i2]
        for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, a, b).get_opcodes()
        if tag != "equal"
    ]
    return "".join(max(blocks, key=len))


def stream_contains(chunks: Iterable[bytes], needle: bytes) -> bool:
    """Search a stream without holding it: a tar keeps each file's bytes contiguous."""
    carry = b""
    for chunk in chunks:
        window = carry + chunk
        if needle in window:
            return True
        carry = window[-(len(needle) - 1) :]
    return False


def filesystem_contains(client, image: str, needle: bytes) -> bool:
    container = client.containers.create(image, ["true"], network_mode="none")
    try:
        return stream_contains(container.export(), needle)
    finally:
        container.remove(force=True)


def hidden_original(client, tag: str, original: str, module: str) -> str:
    """``tag`` plus a layer holding the original and one deleting it (gone from the file system
    only), and the original's byte-code under a magic number no Python here reads."""
    code = marshal.dumps(compile(original, module, "exec"))
    foreign = bytes([importlib.util.MAGIC_NUMBER[0] ^ 0x55]) + importlib.util.MAGIC_NUMBER[1:]
    pyc = f"{Path(module).stem}.cpython-3x.pyc"
    recipe = (
        f"FROM {tag}\nCOPY answer.py /root/answer.py\nRUN rm /root/answer.py\n"
        f"COPY {pyc} /root/.cache/{pyc}\n"
    )
    context = io.BytesIO()
    with tarfile.open(fileobj=context, mode="w") as tar:
        for name, text in (
            ("Dockerfile", recipe.encode()),
            ("answer.py", original.encode()),
            (pyc, foreign + bytes(12) + code),
        ):
            data = text
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    context.seek(0)
    hidden = f"{tag}-hidden"
    client.images.build(fileobj=context, custom_context=True, tag=hidden, rm=True)
    return hidden


def run_in(client, image: str, script: str) -> tuple[int, str]:
    container = client.containers.create(image, ["sh", "-c", script], network_mode="none")
    try:
        container.start()
        code = container.wait(timeout=300)["StatusCode"]
        return code, container.logs().decode("utf-8", "replace")
    finally:
        container.remove(force=True)


@pytest.mark.docker
def test_task_image_runs_the_corrupted_tree_and_hides_the_original(
    tmp_path: Path, monkeypatch
) -> None:
    host, base = find_engine()
    if not EXAMPLE.is_dir():
        pytest.fail("examples/minishop is missing")
    monkeypatch.setenv("DOCKER_HOST", host)
    frozen = tmp_path / "minishop"
    shutil.copytree(EXAMPLE, frozen, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    build = tmp_path / "build"
    result = cli(
        "build",
        str(frozen),
        "--mode",
        "remove",
        "--n",
        "1",
        "--sandbox",
        "docker",
        "--base-image",
        base,
        "--out",
        str(build),
    )
    assert result.exit_code == 0, result.output
    store = Store.open(build)
    try:
        (task,) = store.list_tasks()
        files = store.task_files(task.task_id)
    finally:
        store.close()
    assert task.image_name

    out = tmp_path / "task"
    result = cli("materialize", task.task_id, "--out", str(out), "--build", str(build), "--image")
    assert result.exit_code == 0, result.output
    assert "audit passed" in result.output and "1 images" in result.output, result.output
    tag = json.loads((out / "TASK.json").read_text(encoding="utf-8"))["task_image"]
    assert tag == f"corrupt/task.{task.task_id.lower()}:latest"
    ((path, (original, corrupted)),) = files.items()
    answer = removed_text(original, corrupted).encode()
    assert answer.count(b"\n") >= 3, "the deletion should take out a whole body"

    with engine_client(host) as client:
        image, repo = client.images.get(tag), client.images.get(task.image_name)
        assert image.labels["corrupt.task"] == task.task_id
        # The control: the repository image does hold the original, installed in the venv.
        assert filesystem_contains(client, task.image_name, answer)
        assert not filesystem_contains(client, tag, answer)
        # Flattened: no layer of the repository image (which holds the original) is reused.
        assert not set(image.attrs["RootFS"]["Layers"]) & set(repo.attrs["RootFS"]["Layers"])

        code, output = run_in(
            client,
            tag,
            "python -c 'import minishop; print(minishop.__file__)'; "
            "python -m pip show minishop || echo NOT-INSTALLED",
        )
        assert "/testbed/src/minishop/__init__.py" in output and "NOT-INSTALLED" in output, output
        code, output = run_in(client, tag, f"cat {shlex.quote(path)}")
        assert output == corrupted
        # In the image as in the folder, nothing but the content tells the corrupted file
        # apart: one time for everything in the tree (the engine times /testbed itself), and
        # the mode the file has in the repository.
        code, output = run_in(
            client,
            tag,
            "cd /testbed && find . -mindepth 1 -path ./.git -prune -o -printf '%T@ %m %p\\n'",
        )
        listing = {line.split(" ", 2)[2]: line.split(" ", 2)[:2] for line in output.splitlines()}
        assert code == 0 and f"./{path}" in listing, output
        assert len({when for when, _ in listing.values()}) == 1, output
        assert listing[f"./{path}"][1] == oct((frozen / path).stat().st_mode & 0o777)[2:]

        command = f"{task.tests.command} -q -p no:cacheprovider"
        f2p = shlex.join(task.tests.fail_to_pass)
        code, output = run_in(client, tag, f"{command} {f2p}")
        # A test whose fixture calls the deleted function is reported as an error, not a failure.
        counts = {
            kind: int(n) for n, kind in re.findall(r"(\d+) (failed|passed|errors?)\b", output)
        }
        assert code == 1 and "passed" not in counts, output
        assert counts.get("failed", 0) + counts.get("errors", counts.get("error", 0)) == len(
            task.tests.fail_to_pass
        )
        p2p = shlex.join(task.tests.pass_to_pass[:40])
        code, output = run_in(client, tag, f"{command} {p2p}")
        assert code == 0 and "40 passed" in output, output

        # The audit reads images layer by layer: the repository image fails it (the original is
        # installed there), and so does a task image a later layer hides an original in.
        manifest_path = out / "TASK.json"
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        hidden = hidden_original(client, tag, original, path)
        for image_tag, routes in (
            (task.image_name, ["/opt/venv/lib/"]),
            # the byte-code is judged by the image's own Python, which cannot read it either
            (hidden, ["/root/answer.py (layer", "cpython-3x.pyc (compiled by another Python)"]),
        ):
            manifest_path.write_text(json.dumps({**manifest, "task_image": image_tag}))
            audited = cli("audit", str(build), str(out))
            flat = " ".join(audited.output.split())
            assert audited.exit_code == 26 and all(r in flat for r in routes), audited.output
        client.images.remove(f"{tag}-hidden", force=True)
        client.images.remove(tag, force=True)  # task images are per task: leave none behind


def test_materialize_image_without_an_engine_says_how_to_get_one(
    tmp_path: Path, monkeypatch
) -> None:
    """Checked before anything is written, so the same command works once an engine runs."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    repo = write_repo(tmp_path / "shop", ORIGINAL)
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
    task, files = make_task(ADVERSARIAL)
    store.record_candidate(
        CandidateRow(
            "c",
            task.mode,
            ["shop.pricing.total"],
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
    store.close()
    result = cli(
        "materialize",
        task.task_id,
        "--out",
        str(tmp_path / "task"),
        "--build",
        str(tmp_path / "build"),
        "--image",
    )
    assert result.exit_code != 0
    assert "no container engine reachable" in result.output and "DOCKER_HOST" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "task").exists()


# The reference grammar of the distribution spec: path components joined by '/', then ':tag'.
COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
REFERENCE = re.compile(rf"{COMPONENT}(?:/{COMPONENT})*:[\w][\w.-]{{0,127}}")


@pytest.mark.parametrize(
    "task_id",
    ["minishop.1db6fb550c74", "Acme__Shop.ABC123", "weird name!._-.x", "a..b__c___d--e", "._-"],
)
def test_task_image_tag_is_a_valid_reference(task_id: str) -> None:
    tag = task_image_tag(task_id)
    assert REFERENCE.fullmatch(tag), tag
    assert tag.startswith("corrupt/task.") and tag.endswith(":latest")


def test_task_image_tags_keep_ids_apart() -> None:
    assert task_image_tag("acme__shop.abc123") == "corrupt/task.acme__shop.abc123:latest"
    assert task_image_tag("acme__shop.abc123") != task_image_tag("acme__shop.abc124")
