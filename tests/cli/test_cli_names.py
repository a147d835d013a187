"""One name per concept: every command calls the build folder BUILD, and help shows what a
user types (no ``<bool>`` on a flag, no ``--no-no-…``)."""

from __future__ import annotations

import re

import typer.main
from typer.testing import CliRunner

from corrupt.cli import app

COMMAND = typer.main.get_command(app)


def _commands() -> dict[str, object]:
    return dict(COMMAND.commands)  # type: ignore[attr-defined]


def test_every_parameter_naming_the_build_folder_is_called_build() -> None:
    spellings = set()
    for name, command in _commands().items():
        for param in command.params:  # type: ignore[attr-defined]
            if "build folder" not in (getattr(param, "help", None) or ""):
                continue
            shown = param.metavar or param.name.upper()
            spellings.add(shown)
            if param.param_type_name == "option" and name != "build":
                assert param.opts == ["--build"], (name, param.opts)
            elif param.param_type_name == "argument":
                assert param.name == "build", (name, param.name)
    # build writes the folder with --out; every other command reads it as BUILD
    assert spellings == {"BUILD"}


def test_commands_that_read_tasks_take_a_slice_file() -> None:
    for name in ("score", "solve", "report"):
        opts = [o for p in _commands()[name].params for o in p.opts]  # type: ignore[attr-defined]
        assert "--tasks" in opts, name


def test_help_shows_flags_without_a_type_and_arguments_by_name() -> None:
    runner = CliRunner()
    for name in ["", *_commands()]:
        result = runner.invoke(app, [*name.split(), "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, (name, result.output)
        assert "<bool>" not in result.output, name
        assert "--no-no-" not in result.output, name
        assert not re.search(r"\{[a-z_]+\}", result.output), (name, result.output)
