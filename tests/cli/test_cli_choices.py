"""Options with a fixed set of values are enums: typer refuses others before any work starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from corrupt.cli import app
from corrupt.corruptors.models import CorruptorName, DeletionStyle
from corrupt.errors import CorruptError, InputError
from corrupt.pipeline.options import BuildOptions
from corrupt.selection.models import SliceName


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
        BuildOptions(repo="x", out=tmp_path, sandbox="vm")
    with pytest.raises(InputError, match="unknown mode 'all-of-it'"):
        BuildOptions(repo="x", out=tmp_path, mode="all-of-it")
    options = BuildOptions(repo="x", out=tmp_path, deletion_style="pass")
    assert options.deletion_style == "pass" and type(options.deletion_style) is DeletionStyle


def test_the_command_line_gives_build_the_options_a_caller_would(monkeypatch, tmp_path):
    """Each option reaches its BuildOptions field as spelt there; --no-isolation is isolation=False."""
    seen: list[BuildOptions] = []

    class Stop(CorruptError):
        pass

    def recorded(options, progress=None):
        seen.append(options)
        raise Stop("stopped before any work")

    monkeypatch.setattr("corrupt.pipeline.build.Build", recorded)
    args = ["build", "x", "--n", "3", "--slice", "easy", "--no-isolation", "--out", str(tmp_path)]
    result = CliRunner().invoke(app, [*args, "--corruptor", "llm", "--min-hops", "1"])
    assert result.exit_code == 1, result.output
    assert seen == [
        BuildOptions(
            repo="x", n=3, slice=SliceName.EASY, isolation=False, out=tmp_path,
            corruptor=CorruptorName.LLM, min_hops=1,
        )
    ]  # fmt: skip
    CliRunner().invoke(app, ["build", "x"])
    assert seen[1] == BuildOptions(repo="x") and seen[1].folder == Path("out/x")
