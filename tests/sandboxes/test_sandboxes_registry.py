"""Sandboxes are found by folder: each package with ``open_sandbox`` is a choice everywhere."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from corrupt.cli.app import app
from corrupt.errors import InputError
from corrupt.sandboxes.registry import get_sandbox, sandbox_names


def test_each_sandbox_folder_is_a_choice_the_default_first() -> None:
    assert sandbox_names() == ("local", "docker")


@pytest.mark.parametrize("command", ["build", "build-many", "baseline", "score", "solve"])
def test_every_command_offers_the_sandboxes_found(command: str) -> None:
    shown = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"}).output
    assert f"<{'|'.join(sandbox_names())}>" in shown


def test_each_sandbox_refuses_what_does_not_apply_to_it() -> None:
    with pytest.raises(InputError, match="--base-image only applies"):
        get_sandbox("local", base_image="python:3.12")
    with pytest.raises(InputError, match="containers are always isolated"):
        get_sandbox("docker", isolation=False)
    with pytest.raises(InputError, match="choose one of: local, docker"):
        get_sandbox("vm")
