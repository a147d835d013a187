"""A long-lived command in a container: the docker sandbox's warm server transport.

The container is made as a run's is (limits, no network, a scrubbed
environment, the working tree copied into ``/testbed`` once, at start) but
with its stdin open, and is spoken to over the engine's attach stream: what is
written to the socket is the command's stdin; what comes back is its output,
multiplexed into frames (an 8-byte header: the stream, three zero bytes, the
length), of which only stdout is asked for. Because the tree is a copy, the
server never sees files the host writes later (``shares_tree`` is False).
"""

from __future__ import annotations

import contextlib
import json
import select
import struct
from contextlib import ExitStack
from typing import Any

import requests
from docker.errors import DockerException
from docker.models.containers import Container

from corrupt.errors import SandboxError
from corrupt.sandboxes.base import InFlight, JsonLines, Service
from corrupt.sandboxes.docker.containers import IO_PATH, read_out, remove_container

FRAME_HEADER = struct.Struct(">BxxxL")  # the engine's multiplexed-stream header
STDOUT = 1
_LAST_LINES = 5


class DockerService(Service):
    """The command running in ``container`` (created, not yet started), attached to."""

    shares_tree = False  # the container's /testbed is a copy made when it was created

    def __init__(self, container: Container, inflight: InFlight) -> None:
        self.container = container
        self._frames = b""  # attach-stream bytes not yet split into frames
        self._replies = JsonLines(self._ready, self._read, self._last_words)
        self._stack = ExitStack()
        try:
            self._stack.callback(remove_container, container)
            attached = container.attach_socket(
                params={"stdin": 1, "stdout": 1, "stderr": 0, "stream": 1}
            )
            self._stack.callback(attached.close)
            # docker's SocketIO wrapper over a Unix socket; the socket itself otherwise
            self._socket = getattr(attached, "_sock", attached)
            self._stack.enter_context(inflight.tracked(container.kill))
            container.start()
        except BaseException:
            self._stack.close()
            raise

    def send(self, message: dict[str, Any]) -> None:
        try:
            self._socket.sendall(json.dumps(message).encode("utf-8") + b"\n")
        except OSError:
            raise SandboxError(f"the server ended: {self._last_words()}") from None

    def receive(self, timeout: float) -> dict[str, Any]:
        return self._replies.next(timeout)

    def outputs(self, names: list[str]) -> dict[str, bytes]:
        """Read the files out, then remove them inside the container (taken, as from a run)."""
        try:
            found = {
                name: data for name in names if (data := read_out(self.container, name)) is not None
            }
            if names:
                self.container.exec_run(["rm", "-f", "--", *[f"{IO_PATH}/{n}" for n in names]])
        except (DockerException, requests.RequestException) as exc:
            raise SandboxError(f"the server's container is gone: {exc}") from None
        return found

    def close(self) -> None:
        self._stack.close()

    def _ready(self, seconds: float) -> bool:
        pending = getattr(self._socket, "pending", None)  # TLS: bytes already decrypted
        if pending is not None and pending():
            return True
        return bool(select.select([self._socket], [], [], seconds)[0])

    def _read(self) -> bytes | None:
        """The stdout in the frames that arrived; None once the stream has ended."""
        try:
            chunk = self._socket.recv(1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            return None
        self._frames += chunk
        out = b""
        while len(self._frames) >= FRAME_HEADER.size:
            stream, size = FRAME_HEADER.unpack_from(self._frames)
            end = FRAME_HEADER.size + size
            if len(self._frames) < end:
                break
            if stream == STDOUT:
                out += self._frames[FRAME_HEADER.size : end]
            self._frames = self._frames[end:]
        return out

    def _last_words(self) -> str:
        with contextlib.suppress(DockerException, requests.RequestException):
            text = self.container.logs(stdout=False, stderr=True, tail=_LAST_LINES)
            lines = text.decode("utf-8", "replace").strip().splitlines()
            return lines[-1] if lines else "no output"
        return "no output"
