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

import os
import stat
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path

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

    def close(self) -> None:  # noqa: B027 - optional hook, most sandboxes hold nothing
        """Release engine connections; safe to call twice."""


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
