"""The sandbox interface: a transport for test commands.

Like httpx's transports, a sandbox is the one pluggable piece between "run this
pytest command in that working tree" and how it actually happens (a local
process in a network namespace, a container). Repository code is untrusted, so
every implementation must: run in the given working copy only, scrub the
environment (no user tokens), cut the network where the platform allows,
enforce :class:`~corrupt.repos.models.Limits`, and kill the whole process tree
on timeout.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path

from corrupt.repos.models import Checkout, Command, CommandResult, Environment


class Sandbox(ABC):
    """Prepares an environment for a checkout and runs commands in working trees."""

    name: str = "abstract"

    @abstractmethod
    def prepare(self, checkout: Checkout, *, progress=None) -> Environment:
        """Create (or reuse from cache) the environment the checkout's tests run in."""

    @abstractmethod
    def run(self, env: Environment, tree: Path, command: Command) -> CommandResult:
        """Run ``command`` with ``tree`` as working directory.

        Files the command writes under ``tree`` at the paths listed in
        ``command.collect`` are on the host under ``tree`` when this returns.
        """

    def close(self) -> None:  # noqa: B027 - optional hook, most sandboxes hold nothing
        """Release engine connections; safe to call twice."""
