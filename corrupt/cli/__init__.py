"""The ``corrupt`` command: typer commands (``app``) and their rich rendering, apart from the stages."""

from corrupt.cli.app import app, main

__all__ = ["app", "main"]
