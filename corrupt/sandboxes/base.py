"""The sandbox interface: a transport for test commands.

Like httpx's transports, a sandbox is the one pluggable piece between "run this
pytest command in that working tree" and how it actually happens (a local
process in a bubblewrap box, a container). Repository code is untrusted, so
every implementation must: run in the given working copy only, scrub the
environment (no user tokens), cut the network, hide the host (home, caches,
other processes, sockets), enforce :class:`~corrupt.repos.models.Limits`, end
every process of a run when the run ends, and hand back only the files named
in ``Command.collect``, read without following links and within a size cap.
``tests/sandbox_contract.py`` checks each of these against every sandbox.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import stat
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from corrupt.errors import SandboxError
from corrupt.repos.models import IO_DIR, Checkout, Command, CommandResult, Environment

# A report of a huge suite is a few MB; anything near this is a test writing
# garbage into the report, which then counts as missing.
MAX_COLLECT_BYTES = 256 * 1024 * 1024


class Sandbox(ABC):
    """Prepares an environment for a checkout and runs commands in working trees."""

    name: str = "abstract"
    # Whether ``prepare`` can install the packages of a past moment
    # (``Checkout.packages_as_of``): the second chance a red baseline gets.
    dates_packages: bool = False
    # Whether ``prepare`` can build on another installed Python (``Checkout.python``): the
    # chance a red baseline gets on the other interpreters the project supports.
    picks_python: bool = False

    @abstractmethod
    def prepare(
        self, checkout: Checkout, *, progress: Callable[[str], None] | None = None
    ) -> Environment:
        """Create (or reuse from cache) the environment the checkout's tests run in."""

    @abstractmethod
    def run(self, env: Environment, tree: Path, command: Command) -> CommandResult:
        """Run ``command`` with ``tree`` as working directory.

        ``command.files`` are placed in the run's I/O folder (``IO_DIR`` in
        argv and env names it) and the ``command.collect`` names found there
        afterwards come back in ``CommandResult.files``.
        """

    def stores_bytecode(self, env: Environment) -> bool:
        """Whether a run with ``Command.stores_bytecode`` would fill a bytecode cache that
        later runs in ``env`` read (sandboxes without one answer False)."""
        return False

    def forgo_bytecode(self, env: Environment) -> bool:
        """Stop using the bytecode cache for ``env`` from now on, for a suite that inspects
        its own bytecode; False when there was none to stop using."""
        return False

    def serve(self, env: Environment, tree: Path, command: Command) -> Service | None:
        """Start ``command`` as a long-lived server in ``tree``, or None where this sandbox
        cannot keep one (callers then run a fresh command each time).

        The server gets the same box, environment and limits as :meth:`run`,
        but no deadline: it lives until :meth:`Service.close`.
        """
        return None

    def cancel(self) -> None:  # noqa: B027 - optional hook: sandboxes that run things end them
        """End every command in flight and refuse new ones: Ctrl-C must stop a build at once,
        not after each worker's test run has finished."""

    def close(self) -> None:  # noqa: B027 - optional hook, most sandboxes hold nothing
        """Release engine connections; safe to call twice."""


class InFlight:
    """The commands a sandbox is running, so that :meth:`Sandbox.cancel` can end them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: dict[int, Callable[[], None]] = {}
        self._ids = itertools.count()
        self.cancelled = False

    @contextlib.contextmanager
    def tracked(self, kill: Callable[[], None]) -> Iterator[None]:
        """While the block runs, :meth:`cancel` calls ``kill``; once cancelled, it kills at once."""
        with self._lock:
            key = None if self.cancelled else next(self._ids)
            if key is not None:
                self._live[key] = kill
        if key is None:
            kill()
            raise SandboxError("the build was interrupted")
        try:
            yield
        finally:
            with self._lock:
                self._live.pop(key, None)

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            kills = list(self._live.values())
        for kill in kills:
            with contextlib.suppress(Exception):  # an engine gone, a process already reaped
                kill()


class Service(ABC):
    """A server started by :meth:`Sandbox.serve`: JSON lines in, JSON lines out."""

    # Whether the server works in the caller's tree (a local box binds it) or in a copy
    # of it made at start (a container): then files the caller writes later never reach it.
    shares_tree: bool = True

    @abstractmethod
    def send(self, message: dict[str, Any]) -> None:
        """Write one request; SandboxError when the server is gone."""

    @abstractmethod
    def receive(self, timeout: float) -> dict[str, Any]:
        """The next reply; SandboxError when none comes within ``timeout`` or the server is gone."""

    @abstractmethod
    def outputs(self, names: list[str]) -> dict[str, bytes]:
        """Take the named files out of the server's I/O folder (as ``Command.collect``)."""

    @abstractmethod
    def close(self) -> None:
        """End the server and everything it started; safe to call twice."""


class JsonLines:
    """A server's replies: its output split into lines, each a JSON object, read
    against a deadline. ``ready(seconds)`` waits for output; ``read()`` takes what
    came (None once the server's output has ended); ``last_words()`` says why it ended."""

    def __init__(
        self,
        ready: Callable[[float], bool],
        read: Callable[[], bytes | None],
        last_words: Callable[[], str],
    ) -> None:
        self._ready, self._read, self._last_words = ready, read, last_words
        self._buffer = b""

    def next(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self._ready(left):
                raise SandboxError(f"the server did not answer within {timeout:.0f} s")
            chunk = self._read()
            if chunk is None:
                raise SandboxError(f"the server ended: {self._last_words()}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            message = json.loads(line)
        except ValueError:
            raise SandboxError("the server wrote something that is not a JSON line") from None
        if not isinstance(message, dict):
            raise SandboxError("the server wrote something that is not a JSON object")
        return message


def anchored_pythonpath(env: dict[str, str], workdir: str) -> dict[str, str]:
    """``env`` with each relative ``PYTHONPATH`` entry made absolute under ``workdir``,
    the folder the run starts in. The recorded command says ``PYTHONPATH=src`` (a user
    reruns it in their own checkout), but Python resolves it against each process's
    own folder: a test that starts ``python -m docs_src.example`` in ``tmp_path`` would
    otherwise no longer find the tree."""
    if not env.get("PYTHONPATH"):
        return env
    entries = [
        e if not e or os.path.isabs(e) else os.path.normpath(os.path.join(workdir, e))
        for e in env["PYTHONPATH"].split(":")
    ]
    return {**env, "PYTHONPATH": ":".join(entries)}


def with_io_dir(values: list[str], where: str) -> list[str]:
    """``values`` with :data:`IO_DIR` replaced by the I/O folder's path inside the sandbox."""
    return [value.replace(IO_DIR, where) for value in values]


def io_file_names(command: Command) -> None:
    """Input and output names are plain file names: no folder can be smuggled in."""
    for name in [*command.files, *command.collect]:
        if not name or "/" in name or name in (".", ".."):
            raise SandboxError(f"invalid I/O file name {name!r}")


def write_inputs(folder: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)


def read_outputs(folder: Path, names: list[str], cap: int = MAX_COLLECT_BYTES) -> dict[str, bytes]:
    """The ``names`` in ``folder`` that are regular files of at most ``cap`` bytes.

    Untrusted code may have replaced an output with a symlink (to a secret, to
    ``/dev/zero``), a FIFO (which would block the reader) or a huge file: the
    file is opened without following links and without blocking, checked to
    be a regular file and read no further than the cap.
    """
    found: dict[str, bytes] = {}
    for name in names:
        try:
            fd = os.open(folder / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if stat.S_ISREG(info.st_mode) and info.st_size <= cap:
                data = handle.read(cap + 1)
                if len(data) <= cap:
                    found[name] = data
    return found
