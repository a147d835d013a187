"""What every command prints to, and how its errors reach the user: one line and an exit code.

The commands live in more than one module (``app.py``, ``build.py``); they share
these consoles and :func:`friendly`, which turns every
:class:`~corrupt.errors.CorruptError` into a one-line message on stderr and the
error's exit code, so no traceback reaches the user.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
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


@contextlib.contextmanager
def one_interrupt() -> Iterator[None]:
    """The first Ctrl-C stops the command; later ones are ignored until it has exited.

    A second KeyboardInterrupt raised while the first unwinds (Ctrl-C pressed
    twice, or once under ``timeout``, which passes its own SIGINT on) lands
    inside the clean-up: in a thread pool's shutdown it can leave a lock held and
    the build waiting forever; in an exit handler it leaves scratch folders behind.
    The clean-up ends every run in flight, so it takes a second or two."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread receives signals
        return
    previous = signal.getsignal(signal.SIGINT)

    def first(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, first)
    interrupted = False
    try:
        yield
    except KeyboardInterrupt:
        interrupted = True  # SIGINT stays ignored while the command and the interpreter exit
        raise
    finally:
        if not interrupted and previous is not None:
            signal.signal(signal.SIGINT, previous)


def friendly(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Turn CorruptError (and Ctrl-C) into a one-line message and an exit code."""

    @functools.wraps(fn)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            with one_interrupt():
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
