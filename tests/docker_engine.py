"""Finding a real container engine for the docker-sandbox tests.

Where none can be reached the tests skip with the reason — except in CI
(``CI=true``), where scripts/test has started Podman and a missing engine is a
failure, never a silent skip.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import docker
import pytest
import requests
from docker.errors import DockerException, ImageNotFound

from corrupt.repos.models import Checkout, RepoSpec

PODMAN_SOCKET = "unix:///tmp/podman.sock"
BASE_CANDIDATES = ("corrupt/base:bookworm", "python:3.12-slim")
HOW_TO = (
    'run `eval "$(bash scripts/container-engine.sh)"` or set DOCKER_HOST to a Docker/Podman socket'
)


def unavailable(reason: str):
    """Skip locally; fail loudly in CI, where the engine is part of the contract."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI must run the docker tests, but {reason}", pytrace=False)
    pytest.skip(f"no container engine: {reason}; {HOW_TO}")


def find_engine() -> tuple[str, str]:
    """(docker host URL, base image) of a reachable engine, or skip / fail."""
    hosts = [h for h in (os.environ.get("DOCKER_HOST"), PODMAN_SOCKET) if h]
    tried = []
    for host in dict.fromkeys(hosts):
        try:
            client = docker.DockerClient(base_url=host, timeout=30)
            client.ping()
        except (DockerException, requests.RequestException) as exc:
            tried.append(f"{host} ({type(exc).__name__})")
            continue
        wanted = os.environ.get("CORRUPT_BASE_IMAGE")
        try:
            for image in [wanted] if wanted else BASE_CANDIDATES:
                try:
                    client.images.get(image)
                    return host, image
                except ImageNotFound:
                    continue
        finally:
            client.close()
        unavailable(f"the engine at {host} has none of the base images {wanted or BASE_CANDIDATES}")
    unavailable(f"none reachable (tried {', '.join(tried)})")
    raise AssertionError("unreachable")


def folder_checkout(path: Path, name: str) -> Checkout:
    """A plain-folder checkout whose commit is a content hash, so its image is reused across runs."""
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(file.relative_to(path).as_posix().encode() + b"\0" + file.read_bytes())
    return Checkout(
        spec=RepoSpec("local", str(path)),
        name=name,
        url=str(path),
        commit=f"tree:{digest.hexdigest()}",
        path=path,
    )


def write_files(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


@contextmanager
def engine_client(host: str) -> Iterator[docker.DockerClient]:
    client = docker.DockerClient(base_url=host, timeout=60)
    try:
        yield client
    finally:
        client.close()
