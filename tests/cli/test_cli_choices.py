"""Options with a fixed set of values are enums: typer refuses others before any work starts."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from corrupt.cli import app
from corrupt.errors import InputError
from corrupt.pipeline.build import Build, BuildOptions


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--mode", "everything"),
        ("--sandbox", "vm"),
        ("--corruptor", "human"),
        ("--deletion-style", "drop"),
        ("--slice", "impossible"),
        ("--complexity-metric", "loc"),
    ],
)
def test_build_refuses_an_unknown_choice_and_names_the_valid_ones(tmp_path, option, value):
    result = CliRunner().invoke(app, ["build", str(tmp_path / "missing"), option, value])
    assert result.exit_code == 2
    assert f"'{value}' is not one of" in result.output
    assert not (tmp_path / "missing").exists() and not (tmp_path / "out").exists()


def test_help_lists_the_choices():
    result = CliRunner().invoke(app, ["build", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for choice in (
        "remove",
        "discovery",
        "multi",
        "procedural",
        "llm",
        "docker",
        "halstead_volume",
    ):
        assert choice in result.output


def test_programmatic_options_are_checked_the_same_way(tmp_path):
    with pytest.raises(InputError, match="unknown sandbox 'vm'; choose one of: local, docker"):
        Build(BuildOptions(repo="x", out=tmp_path, sandbox="vm"))
    with pytest.raises(InputError, match="unknown mode 'all-of-it'"):
        Build(BuildOptions(repo="x", out=tmp_path, mode="all-of-it"))
    options = Build(BuildOptions(repo="x", out=tmp_path, deletion_style="pass")).o
    assert (
        options.deletion_style == "pass"
        and type(options.deletion_style).__name__ == "DeletionStyle"
    )
