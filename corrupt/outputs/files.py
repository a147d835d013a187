"""Writing export files: whole or not at all, with the mode the umask gives, or to stdout."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_output(out: Path, write: Callable[[BinaryIO], object]) -> None:
    """Write to ``out`` through a temporary file (never half-written), or to stdout for ``-``.

    The file gets the mode any new file would (``0o666`` less the umask), not
    ``mkstemp``'s private ``0o600``: exports are meant to be shared.
    """
    if str(out) == "-":
        try:
            write(sys.stdout.buffer)
            sys.stdout.buffer.flush()
        except BrokenPipeError:  # the reader stopped (| head): not an error of ours
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as stream:
            write(stream)
        os.chmod(tmp, 0o666 & ~umask())
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_bytes(out: Path, data: bytes) -> None:
    write_output(out, lambda stream: stream.write(data))
