"""What every command prints to, and how its errors reach the user: one line and an exit code.

The commands live in more than one module (``app.py``, ``build.py``); they share
these consoles and :func:`friendly`, which turns every
:class:`~corrupt.errors.CorruptError` into a one-line message on stderr and the
error's exit code, so no traceback reaches the user.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from corrupt.errors import CorruptError

_P = ParamSpec("_P")
_R = TypeVar("_R")

# No emoji codes: the output never uses them, so ``:name:`` in a path or a name stays as
# written, and rich's table of emoji (a large module) is never loaded.
console = Console(emoji=False)
err_console = Console(stderr=True, emoji=False)
UNSAFE_WARNING = (
    "[bold yellow]warning:[/] --no-isolation: the repository's code runs unconfined, "
    "with your access to files, network and processes"
)


def friendly(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Turn CorruptError (and Ctrl-C) into a one-line message and an exit code."""

    @functools.wraps(fn)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return fn(*args, **kwargs)
        except CorruptError as exc:
            cause = f"[{exc.cause}] " if exc.cause else ""
            err_console.print(
                f"[bold red]error:[/] {escape(cause + exc.message)}",
                highlight=False,
                soft_wrap=True,
            )
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            err_console.print("interrupted; rerun the same command to resume")
            raise typer.Exit(130) from None
        except Exception as exc:
            if os.environ.get("CORRUPT_DEBUG"):
                raise
            err_console.print(
                f"[bold red]internal error:[/] {escape(type(exc).__name__)}: {escape(str(exc))} "
                "(set CORRUPT_DEBUG=1 for the traceback)",
                highlight=False,
                soft_wrap=True,
            )
            raise typer.Exit(70) from None

    return wrapper
