"""What the docker sandbox and its servers do with one container: read a file out
of it safely, remove it whatever state it is in, and say what the engine said."""

from __future__ import annotations

import contextlib
import io
import tarfile
from typing import Any

import requests
from docker.errors import APIError, NotFound

from corrupt.sandboxes.base import MAX_COLLECT_BYTES

IO_PATH = "/corrupt-io"  # a command's I/O folder inside its container


def read_out(container: Any, name: str) -> bytes | None:
    """``IO_PATH/name`` if it is a regular file within the cap; never extracted to disk."""
    try:
        stream, _ = container.get_archive(f"{IO_PATH}/{name}")
    except NotFound:
        return None
    chunks, size = [], 0
    for chunk in stream:
        size += len(chunk)
        if size > MAX_COLLECT_BYTES + 1024 * 1024:  # the tar's own headers on top of the cap
            return None
        chunks.append(chunk)
    try:
        with tarfile.open(fileobj=io.BytesIO(b"".join(chunks))) as tar:
            member = tar.next()
            if member is None or not member.isreg() or member.size > MAX_COLLECT_BYTES:
                return None
            handle = tar.extractfile(member)
            return handle.read() if handle else None
    except tarfile.TarError:  # the engine sent no archive (a link to /dev/zero, say): unreadable
        return None


def remove_container(container: Any) -> None:
    """Force-remove; a container already gone, or an engine gone with it, leaves nothing to clean."""
    with contextlib.suppress(APIError, requests.RequestException):
        container.remove(force=True)


def short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:300]
