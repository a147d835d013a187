"""Auditing an image: every file of every layer, as ``docker save`` hands them out.

The running container's file system would hide a file a later layer deleted
or replaced, so the image is saved and each layer read in full; layers are
keyed by their digest and read once per export, since a build's task images
share their large lower layer. Git directories found in a layer are read with
git, and byte-code of another Python than this one is judged by the image's
own interpreter in a container without network.
"""

from __future__ import annotations

import io
import json
import tarfile
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any

import requests
from docker.errors import DockerException, ImageNotFound

from corrupt.audit.audit import AuditResult, Evidence
from corrupt.audit.scan import MAX_BYTES, Hit, Scanner
from corrupt.errors import SandboxError

SCAN_SOURCE = Path(__file__).with_name("scan.py")
INSIDE = "/tmp/corrupt-audit"
# The repository images' venv first: its Python compiled the project's byte-code.
JUDGE = (
    f'p=/opt/venv/bin/python; [ -x "$p" ] || p=python3; '
    f'exec "$p" {INSIDE}/scan.py {INSIDE}/spec.json {INSIDE}/pyc'
)


@dataclass
class _Layer:
    hits: list[Hit] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


class ImageAuditor:
    """Audits images on an engine (a ``docker.DockerClient``) against one export's evidence."""

    def __init__(self, client: Any, evidence: Evidence, task_ids: list[str]) -> None:
        self.client = client
        self.evidence = evidence
        self.all_ids = task_ids
        self.layers: dict[str, _Layer] = {}

    def audit(self, tag: str, task_ids: list[str]) -> AuditResult:
        result = self.evidence.result(f"image {tag}", task_ids)
        result.images.append(tag)
        try:
            image = self.client.images.get(tag)
        except ImageNotFound:
            raise SandboxError(
                f"image {tag} is not on the container engine; export again to build it"
            ) from None
        wanted = set(task_ids)
        with tempfile.TemporaryFile() as saved:
            for chunk in image.save(named=False):
                saved.write(chunk)
            saved.seek(0)
            with tarfile.open(fileobj=saved) as archive:
                for digest, layer in self._layers(archive, image):
                    short = digest.removeprefix("sha256:")[:12]
                    result.add(
                        Hit(h.task_id, h.path, h.route, f"image {tag}: {h.where} (layer {short})")
                        for h in layer.hits
                        if h.task_id in wanted
                    )
                    result.unchecked += [
                        f"image {tag}: {s} (too large to read)" for s in layer.skipped
                    ]
        return result

    def _layers(self, archive: tarfile.TarFile, image: Any) -> list[tuple[str, _Layer]]:
        manifest = json.load(_member(archive, "manifest.json"))[0]
        config = _member(archive, manifest["Config"]).read()
        layers = [("config", self._read_config(config))]
        for digest, name in zip(image.attrs["RootFS"]["Layers"], manifest["Layers"], strict=True):
            if digest not in self.layers:
                self.layers[digest] = self._read_layer(_member(archive, name), image.id)
            layers.append((digest, self.layers[digest]))
        return layers

    def _read_config(self, config: bytes) -> _Layer:
        """The image's configuration: its environment, labels and the history of build commands."""
        return _Layer(
            self.evidence.scanner(self.all_ids).scan_bytes("the image configuration", config)
        )

    def _read_layer(self, stream: IO[bytes], image_id: str) -> _Layer:
        scanner = self.evidence.scanner(self.all_ids)
        layer = _Layer()
        with tarfile.open(fileobj=stream) as tar, tempfile.TemporaryDirectory() as scratch:
            members = [m for m in tar if not PurePosixPath(m.name).name.startswith(".wh.")]
            git_dirs = _git_dirs(members)
            for info in members:
                if not info.isfile() or _inside(info.name, git_dirs):
                    continue
                if info.size > MAX_BYTES:
                    layer.skipped.append(f"/{info.name}")
                    continue
                handle = tar.extractfile(info)
                if handle is not None:
                    layer.hits += scanner.scan_bytes(f"/{info.name}", handle.read())
            for git_dir in git_dirs:
                copied = [m for m in members if _inside(m.name, {git_dir})]
                tar.extractall(scratch, members=copied, filter="data")
                layer.hits += scanner.scan_git(Path(scratch) / git_dir, f"/{git_dir}")
            if scanner.foreign:
                layer.hits += self._judge(scanner, image_id)
        return layer

    def _judge(self, scanner: Scanner, image_id: str) -> list[Hit]:
        """Byte-code another Python compiled, compared by that Python inside the image."""
        spec = {
            "needles": [],
            "compiled": [asdict(c) for c in scanner.originals],
        }
        files = {"scan.py": SCAN_SOURCE.read_bytes(), "spec.json": json.dumps(spec).encode()}
        shown = {}
        for number, (where, data) in enumerate(scanner.foreign):
            name = f"pyc/{number}/{PurePosixPath(where.rsplit('!', 1)[-1]).name}"
            files[name] = data
            shown[f"{INSIDE}/{name}"] = where
        try:
            answer = self._run_judge(image_id, files)
        except (DockerException, requests.RequestException, ValueError, KeyError) as exc:
            # Not judged is not cleared: each such file counts as a copy of the original.
            reason = f"could not be judged in the image: {type(exc).__name__}"
            answer = {"hits": [], "foreign": list(shown), "reason": reason}
        hits = [
            Hit(h["task_id"], h["path"], "compiled", shown.get(h["where"], h["where"]))
            for h in answer["hits"]
        ]
        why = answer.get("reason", "compiled by another Python")
        return hits + [
            Hit(c.task_id, c.path, "compiled", f"{shown[w]} ({why})")
            for w in answer["foreign"]
            for c in scanner.modules_named_as(shown[w])
        ]

    def _run_judge(self, image_id: str, files: dict[str, bytes]) -> dict[str, Any]:
        container = self.client.containers.create(
            image_id, ["sh", "-c", JUDGE], network_disabled=True, user="0"
        )
        try:
            container.put_archive("/tmp", _archive(files))
            container.start()
            container.wait(timeout=300)
            answer = json.loads(container.logs(stdout=True, stderr=False))
        finally:
            container.remove(force=True)
        return {"hits": answer["hits"], "foreign": answer["foreign"]}


def _member(archive: tarfile.TarFile, name: str) -> IO[bytes]:
    handle = archive.extractfile(name)
    if handle is None:
        raise ValueError(f"the saved image has no file {name}")
    return handle


def _git_dirs(members: list[tarfile.TarInfo]) -> set[str]:
    """Folders holding HEAD, objects/ and refs/: a repository, bare or not."""
    dirs = {m.name.rstrip("/") for m in members if m.isdir()}
    return {
        str(PurePosixPath(m.name).parent)
        for m in members
        if PurePosixPath(m.name).name == "HEAD"
        and {f"{PurePosixPath(m.name).parent}/objects", f"{PurePosixPath(m.name).parent}/refs"}
        <= dirs
    }


def _inside(name: str, folders: set[str]) -> bool:
    return any(name == f or name.startswith(f"{f}/") for f in folders)


def _archive(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"corrupt-audit/{name}")
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


class EngineImages:
    """Image auditors on the container engine the docker sandbox reaches (connects on first use)."""

    def __init__(self) -> None:
        from corrupt.sandboxes.docker.sandbox import DockerSandbox

        self.sandbox = DockerSandbox()

    def __call__(self, evidence: Evidence, task_ids: list[str]) -> ImageAuditor:
        return ImageAuditor(self.sandbox.client, evidence, task_ids)

    def close(self) -> None:
        self.sandbox.close()
