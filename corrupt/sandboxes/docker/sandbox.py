"""Run test commands in throwaway containers through the Docker Engine API.

Each repository + commit gets one image (see :mod:`corrupt.sandboxes.docker.images`);
each command gets a fresh container from it, with the working tree copied in
(``put_archive``), no network, memory / CPU / process / file-size limits, a
size-limited ``/tmp`` and a scrubbed environment. The container is removed
whatever happens — normal exit, timeout, error or Ctrl-C — and the files the
caller asked for come back out of its I/O folder (``get_archive``), read
in memory, only as regular files within a size cap. Only the ``docker``
package's API is used, so Docker and
Podman's Docker-compatible socket (``DOCKER_HOST=unix:///...``) both work.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import re
import tarfile
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import docker
import requests
from docker.errors import APIError, BuildError, DockerException, ImageNotFound
from docker.models.containers import Container

from corrupt.cache import cache_root
from corrupt.errors import SandboxError
from corrupt.repos.models import WORKDIR, Checkout, Command, CommandResult, Environment, Limits
from corrupt.sandboxes.base import (
    InFlight,
    Sandbox,
    anchored_pythonpath,
    io_file_names,
    with_io_dir,
)
from corrupt.sandboxes.docker.containers import IO_PATH, read_out, remove_container, short
from corrupt.sandboxes.docker.images import (
    DEFAULT_BASE_IMAGE,
    LABEL_RECIPE,
    PYTHON,
    PipSettings,
    build_context,
    dockerfile,
    host_pip_settings,
    image_tag,
    recipe_digest,
    tree_archive,
)
from corrupt.sandboxes.docker.service import DockerService

BASE_ENV = {
    "PATH": "/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME": "/tmp",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
}
ENGINE_HINT = (
    "start Docker, or Podman with `podman system service --time=0 unix:///tmp/podman.sock &`, "
    "and set DOCKER_HOST (e.g. DOCKER_HOST=unix:///tmp/podman.sock; scripts/container-engine.sh does both)"
)
_LOG_TAIL = 12
_COPY_ATTEMPTS = 3
# Every API call but a build or a run's wait (which carry their own deadlines)
# answers within seconds on a healthy engine; a stuck one must fail the run,
# not hold a whole build for the build timeout.
_API_TIMEOUT = 300
LABEL_SANDBOX = "corrupt.sandbox"
LABEL_TREE = "corrupt.tree"  # lets tests and operators find a run's container
_OPEN_FILES = 8192


class DockerSandbox(Sandbox):
    """A :class:`Sandbox` whose environments are images and whose runs are containers."""

    name = "docker"
    dates_packages = True  # pip's --uploaded-prior-to

    def __init__(
        self,
        *,
        base_image: str | None = None,
        docker_host: str | None = None,
        cpus: float = 2.0,
        cache_dir: Path | None = None,
        build_timeout: int = 1800,
        layer_cache: bool = True,
    ) -> None:
        # CORRUPT_BASE_IMAGE lets machines without a registry (CI) set their local base once.
        self.base_image = base_image or os.environ.get("CORRUPT_BASE_IMAGE") or DEFAULT_BASE_IMAGE
        self.docker_host = docker_host
        self.cpus = cpus
        self.cache_dir = Path(cache_dir or cache_root()) / "images"
        self.build_timeout = build_timeout
        self.layer_cache = layer_cache  # False measures a cold build (bench)
        self._client: docker.DockerClient | None = None
        self.inflight = InFlight()

    def cancel(self) -> None:
        self.inflight.cancel()

    # -- engine ----------------------------------------------------------

    @property
    def client(self) -> docker.DockerClient:
        """Connect on first use, so constructing the sandbox never fails."""
        if self._client is None:
            try:
                if self.docker_host:
                    client = docker.DockerClient(base_url=self.docker_host, timeout=_API_TIMEOUT)
                else:
                    client = docker.from_env(timeout=_API_TIMEOUT)
                client.ping()
            except (DockerException, requests.RequestException) as exc:
                where = self.docker_host or "DOCKER_HOST / the default socket"
                raise SandboxError(
                    f"no container engine reachable at {where} ({short(exc)}); {ENGINE_HINT}"
                ) from None
            self._client = client
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    # -- images ----------------------------------------------------------

    def prepare(
        self, checkout: Checkout, *, progress: Callable[[str], None] | None = None
    ) -> Environment:
        """Return the checkout's image, building it once (serialised across processes by a lock file)."""
        client = self.client  # fail on a missing engine before touching the cache
        tag = image_tag(checkout)
        pip = host_pip_settings()
        recipe = dockerfile(
            checkout.path, self.base_image, pip, checkout.packages_as_of, checkout.version
        )
        digest = recipe_digest(recipe)
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        stem = tag.replace("/", "_").replace(":", "_")
        log = self.cache_dir / f"{stem}.log"
        env = Environment(key=f"docker:{tag}", kind="image", python=PYTHON, location=tag, log=log)
        with (self.cache_dir / f"{stem}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if self._has_image(client, tag, digest):
                return env
            self._require_base_image(progress)
            _say(progress, f"building image {tag} from {self.base_image}")
            self._build(tag, digest, recipe, checkout, pip, log)
        return env

    def _has_image(self, client: docker.DockerClient, tag: str, digest: str) -> bool:
        try:
            image = client.images.get(tag)
        except ImageNotFound:
            return False
        return (image.labels or {}).get(LABEL_RECIPE) == digest

    def _require_base_image(self, progress: Callable[[str], None] | None) -> None:
        try:
            self.client.images.get(self.base_image)
            return
        except ImageNotFound:
            pass
        _say(progress, f"pulling base image {self.base_image}")
        try:
            self.client.images.pull(self.base_image)
        except (DockerException, requests.RequestException) as exc:
            raise SandboxError(
                f"base image {self.base_image} is not on the engine and could not be pulled ({short(exc)}); "
                "pass --base-image with a local image that has python3 and venv "
                "(scripts/container-engine.sh builds corrupt/base:bookworm)"
            ) from None

    def _build(
        self, tag: str, digest: str, recipe: str, checkout: Checkout, pip: PipSettings, log: Path
    ) -> None:
        self.build_image(
            tag,
            build_context(checkout.path, recipe, pip),
            log=log,
            what=checkout.name,
            header=f"image {tag} for {checkout.name} at {checkout.commit}\n{recipe}\n",
            labels={
                LABEL_RECIPE: digest,
                "corrupt.repo": checkout.name,
                "corrupt.commit": checkout.commit,
            },
        )

    def build_image(
        self,
        tag: str,
        context: BinaryIO,
        *,
        log: Path,
        what: str,
        header: str = "",
        labels: dict[str, str] | None = None,
    ) -> None:
        """Build ``context`` (a tar with a Dockerfile) as ``tag``; a failure names the log and its last lines."""
        tail: deque[str] = deque(maxlen=_LOG_TAIL)
        started = time.monotonic()
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("w", encoding="utf-8") as out:
            out.write(header)
            try:
                for chunk in self.client.api.build(
                    fileobj=context,
                    custom_context=True,
                    tag=tag,
                    rm=True,
                    forcerm=True,
                    nocache=not self.layer_cache,
                    labels=labels or {},
                    decode=True,
                    timeout=self.build_timeout,
                ):
                    text = chunk.get("stream") or chunk.get("error") or ""
                    out.write(text)
                    tail.extend(line.strip()[:200] for line in text.splitlines() if line.strip())
                    if "error" in chunk:
                        raise BuildError(chunk["error"].strip(), [])
            except (DockerException, requests.RequestException) as exc:
                out.write(f"\nbuild failed: {exc}\n")
                lines = " | ".join(tail) or short(exc)
                raise SandboxError(
                    f"image build for {what} failed (log: {log}); last lines: {lines}"
                ) from None
            out.write(f"\nbuilt in {time.monotonic() - started:.1f}s\n")

    # -- runs ------------------------------------------------------------

    def run(self, env: Environment, tree: Path, command: Command) -> CommandResult:
        io_file_names(command)
        tree = Path(tree).resolve()
        limits = command.limits
        argv, environment = _in_container(env, tree, command)
        options = self._container_options(limits)
        started = time.monotonic()
        container = None
        try:
            container = self._created(env, argv, environment, tree, command.files, options)
            timed_out = False
            with self.inflight.tracked(container.kill):
                container.start()
                try:
                    # The deadline counts from the call, so container start-up
                    # under load cannot stretch a run past its timeout.
                    remaining = max(0.5, limits.timeout - (time.monotonic() - started))
                    status = container.wait(timeout=remaining)
                    exit_code: int | None = status.get("StatusCode")
                except requests.RequestException:
                    timed_out, exit_code = True, None
                    with contextlib.suppress(APIError):  # it may have exited at the last moment
                        container.kill()
            duration = time.monotonic() - started
            stdout = container.logs(stdout=True, stderr=False).decode("utf-8", "replace")
            stderr = container.logs(stdout=False, stderr=True).decode("utf-8", "replace")
            container.reload()
            # Podman on cgroup v1 does not always set OOMKilled; a SIGKILL
            # nobody but the kernel sent is the memory limit (as in the local sandbox).
            oom = bool(container.attrs.get("State", {}).get("OOMKilled")) or exit_code == 128 + 9
            killed = "timeout" if timed_out else "memory" if oom else None
            files = {
                name: data
                for name in command.collect
                if (data := read_out(container, name)) is not None
            }
            return CommandResult(
                exit_code, stdout, stderr, duration, timed_out=timed_out, killed=killed, files=files
            )
        except (DockerException, requests.RequestException) as exc:
            raise SandboxError(f"container run failed on the engine: {short(exc)}") from None
        finally:
            if container is not None:
                remove_container(container)

    def serve(self, env: Environment, tree: Path, command: Command) -> DockerService:
        """The command in a container of its own, with a copy of ``tree`` made now, spoken
        to over the engine's attach stream (its stdin and stdout)."""
        io_file_names(command)
        tree = Path(tree).resolve()
        argv, environment = _in_container(env, tree, command)
        options = {**self._container_options(command.limits), "stdin_open": True}
        try:
            container = self._created(env, argv, environment, tree, command.files, options)
            try:
                return DockerService(container, self.inflight)
            except BaseException:
                remove_container(container)
                raise
        except (DockerException, requests.RequestException) as exc:
            raise SandboxError(f"container server failed on the engine: {short(exc)}") from None

    def _container_options(self, limits: Limits) -> dict[str, Any]:
        """The engine's limits for one run: memory, CPU, processes, file size, no network
        unless asked, no capabilities."""
        largest_file = limits.disk_mb * 1024 * 1024
        # Podman fills in nofile and nproc (at values over its own limits, which
        # fails the start) as soon as any ulimit is given: set all three.
        ulimits = [
            docker.types.Ulimit(name="fsize", soft=largest_file, hard=largest_file),
            docker.types.Ulimit(name="nofile", soft=_OPEN_FILES, hard=_OPEN_FILES),
            docker.types.Ulimit(name="nproc", soft=limits.max_processes, hard=limits.max_processes),
        ]
        if limits.cpu_seconds:
            ulimits.append(
                docker.types.Ulimit(name="cpu", soft=limits.cpu_seconds, hard=limits.cpu_seconds)
            )
        options: dict[str, Any] = {
            "network_mode": "bridge" if limits.network else "none",
            "mem_limit": f"{limits.memory_mb}m",
            "memswap_limit": f"{limits.memory_mb}m",
            "nano_cpus": int(self.cpus * 1e9),
            "pids_limit": limits.max_processes,
            "tmpfs": {"/tmp": f"size={limits.disk_mb}m"},
            "cap_drop": ["ALL"],
            "security_opt": ["no-new-privileges"],
            "ulimits": ulimits,
        }
        return options

    def _created(
        self,
        env: Environment,
        argv: list[str],
        environment: dict[str, str],
        tree: Path,
        files: dict[str, bytes],
        options: dict[str, Any],
    ) -> Container:
        """A created (not started) container holding the tree in /testbed and the run's
        input files in its I/O folder."""
        archive = tree_archive(tree)
        inputs = _io_archive(files)
        for attempt in range(1, _COPY_ATTEMPTS + 1):
            try:
                container = self.client.containers.create(
                    env.location,
                    argv,
                    working_dir=WORKDIR,
                    environment=environment,
                    detach=True,
                    labels={LABEL_SANDBOX: "docker", LABEL_TREE: str(tree)},
                    **options,
                )
            except ImageNotFound:
                raise SandboxError(
                    f"image {env.location} is gone from the engine; prepare the environment again"
                ) from None
            try:
                container.put_archive(WORKDIR, archive)
                container.put_archive("/", inputs)
                return container
            except APIError as exc:
                remove_container(container)
                # Podman's archive endpoint now and then loses its helper process under
                # load ("broken pipe"). Nothing has run yet, so a fresh container is a
                # clean retry; without one a screening run would count as an error and
                # a docker build would pick other mutants than a local one.
                if not exc.is_server_error() or attempt == _COPY_ATTEMPTS:
                    raise
                time.sleep(0.2 * attempt)
            except BaseException:  # the container is not the caller's yet: remove it here
                remove_container(container)
                raise
        raise AssertionError("the last attempt returns or raises")


def _in_container(
    env: Environment, tree: Path, command: Command
) -> tuple[list[str], dict[str, str]]:
    """The command's argv and environment as the container sees them: the I/O folder
    and the working tree at their container paths, over the scrubbed base."""
    args = with_io_dir(list(command.argv), IO_PATH)
    argv = [
        env.python if i == 0 and arg == "python" else _inside(arg, tree)
        for i, arg in enumerate(args)
    ]
    values = with_io_dir(list(command.env.values()), IO_PATH)
    environment = {
        **BASE_ENV,
        **{k: _inside(v, tree) for k, v in zip(command.env, values, strict=True)},
    }
    return argv, anchored_pythonpath(environment, WORKDIR)


def _inside(value: str, tree: Path) -> str:
    """Host paths into the working tree become the same paths under /testbed."""
    return re.sub(re.escape(str(tree)) + r"(?=/|:|$)", WORKDIR, value)


def _io_archive(files: dict[str, bytes]) -> bytes:
    """The I/O folder with the command's input files, owned by root."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        folder = tarfile.TarInfo(IO_PATH.lstrip("/"))
        folder.type, folder.mode = tarfile.DIRTYPE, 0o777
        tar.addfile(folder)
        for name, data in files.items():
            info = tarfile.TarInfo(f"{folder.name}/{name}")
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _say(progress: Callable[[str], None] | None, message: str) -> None:
    if progress is not None:
        progress(message)
