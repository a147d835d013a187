"""The ``corrupt`` command: a thin typer layer over the pipeline stages.

Each command parses options, calls one stage function and renders its result.
Every :class:`~corrupt.errors.CorruptError` becomes a one-line message on
stderr and the error's exit code; no traceback reaches the user.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from corrupt.errors import CorruptError

app = typer.Typer(
    name="corrupt",
    help="Turn real, well-tested Python repositories into verified code-repair tasks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)


def friendly(fn):
    """Turn CorruptError (and Ctrl-C) into a one-line message and an exit code."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except CorruptError as exc:
            err_console.print(f"[bold red]error:[/] {exc.message}", highlight=False, soft_wrap=True)
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            err_console.print("interrupted; rerun the same command to resume")
            raise typer.Exit(130) from None

    return wrapper


def main() -> None:  # pragma: no cover - console entry point
    app(prog_name="corrupt")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
