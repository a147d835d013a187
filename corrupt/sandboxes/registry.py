"""Sandboxes by name: every package here that can open one is a ``--sandbox`` choice.

A sandbox package (``local/``, ``docker/``) says what it is in its ``__init__``:
a docstring and ``open_sandbox(*, base_image, isolation, **options)``, which
imports its implementation only when called. The registry finds the packages,
so adding a sandbox is adding its folder; listing the names costs no import
of docker or bubblewrap code, and the CLI offers them at start-up.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from corrupt.errors import InputError
from corrupt.sandboxes.base import Sandbox

DEFAULT_SANDBOX = "local"  # a bubblewrap box per command (or, with --no-isolation, none)


@functools.cache
def sandbox_names() -> tuple[str, ...]:
    """The packages beside this module whose ``__init__`` has ``open_sandbox``: the default first."""
    found = []
    for module in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if module.ispkg and hasattr(_package(module.name), "open_sandbox"):
            found.append(module.name)
    return tuple(sorted(found, key=lambda name: (name != DEFAULT_SANDBOX, name)))


def _package(name: str) -> Any:
    return importlib.import_module(f"{__package__}.{name}")


if TYPE_CHECKING:
    SandboxName = str
else:  # typer offers an enum's members as the choices of an option
    SandboxName = StrEnum("SandboxName", {name.upper(): name for name in sandbox_names()})


def checked_sandbox_name(name: str) -> str:
    """``name`` when a sandbox has it, else a one-line error naming the choices."""
    if name not in sandbox_names():
        raise InputError(f"unknown sandbox {name!r}; choose one of: {', '.join(sandbox_names())}")
    return str(name)


def get_sandbox(
    name: str, *, base_image: str | None = None, isolation: bool = True, **options: Any
) -> Sandbox:
    """The sandbox called ``name``, opened with ``options``; each refuses what does not
    apply to it (a base image for the local one, isolation off for a container)."""
    opened: Sandbox = _package(checked_sandbox_name(name)).open_sandbox(
        base_image=base_image, isolation=isolation, **options
    )
    return opened
