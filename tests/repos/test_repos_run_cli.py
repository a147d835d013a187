"""``corrupt baseline`` end to end: the bundled example, and every way a suite can be refused."""

from __future__ import annotations

import os
import re
import shutil

import pytest
from gitrepos import make_repo
from repos_run_support import FIXTURES, session_cache, session_xdg
from typer.testing import CliRunner

from corrupt.cli import app
from corrupt.errors import (
    InputError,
    InstallError,
    NoTestsError,
    RedBaselineError,
    SandboxError,
    SuiteTooSlowError,
)
from corrupt.sandboxes.local.bubblewrap import require_bwrap

MINISHOP = FIXTURES.parents[2] / "examples" / "minishop"


@pytest.fixture
def cli(tmp_path_factory, monkeypatch):
    # Keep uv's package cache where it is: only corrupt's own cache moves.
    uv_cache = os.environ.get("UV_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "uv"
    )
    monkeypatch.setenv("UV_CACHE_DIR", uv_cache)
    monkeypatch.setenv("XDG_CACHE_HOME", str(session_xdg(tmp_path_factory)))
    session_cache(tmp_path_factory)

    def run(*args: str):
        return CliRunner().invoke(app, ["baseline", *args])

    return run


def fixture_copy(name: str, tmp_path) -> str:
    return str(shutil.copytree(FIXTURES / name, tmp_path / name))


def test_baseline_of_the_bundled_example(cli, tmp_path_factory):
    result = cli(str(MINISHOP))
    assert result.exit_code == 0, result.output
    passing = int(re.search(r"tests: (\d+) passing", result.output).group(1))
    functions, one, five = map(
        int,
        re.search(
            r"functions: (\d+); covered by >=1 test: (\d+); by >=5 tests: (\d+)", result.output
        ).groups(),
    )
    assert passing > 100 and "0 flaky" in result.output
    assert functions >= one >= five > 0
    assert len(list((session_cache(tmp_path_factory) / "baselines").glob("*.json"))) >= 1
    again = cli(str(MINISHOP))
    assert again.exit_code == 0 and again.output == result.output


@pytest.mark.parametrize(
    ("fixture", "options", "error", "message"),
    [
        (
            "red",
            [],
            RedBaselineError,
            r"baseline is red: tests/test_red.py::test_broken fails: AssertionError: arithmetic is broken",
        ),
        ("empty", [], NoTestsError, r"pytest collected no tests"),
        ("slow", ["--time-limit", "1"], SuiteTooSlowError, r"did not finish within 1 s"),
        # its one dependency does not exist: dropped, so the environment builds and the suite is judged
        ("badinstall", [], NoTestsError, r"pytest collected no tests"),
    ],
)
def test_refused_suites_exit_with_their_own_code_and_are_not_cached(
    cli, tmp_path, tmp_path_factory, fixture, options, error, message
):
    before = set((session_cache(tmp_path_factory) / "baselines").glob("*.json"))
    result = cli(fixture_copy(fixture, tmp_path), *options)
    assert result.exit_code == error.exit_code, result.output
    assert re.search(message, result.output) and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert set((session_cache(tmp_path_factory) / "baselines").glob("*.json")) == before


def test_missing_path_is_a_one_line_input_error(cli, tmp_path):
    result = cli(str(tmp_path / "nowhere"))
    assert result.exit_code == InputError.exit_code
    assert "no such repository" in result.output and len(result.output.strip().splitlines()) == 1


def test_no_bubblewrap_is_refused_before_any_work_with_how_to_get_it(cli, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap (and no git, uv) on it
    require_bwrap.cache_clear()
    try:
        result = cli(fixture_copy("calc", tmp_path))
    finally:
        require_bwrap.cache_clear()
    assert result.exit_code == SandboxError.exit_code, result.output
    assert "apt-get install bubblewrap" in result.output and "--no-isolation" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_no_isolation_runs_unboxed_and_docker_cannot_be_unboxed(cli, tmp_path):
    unboxed = cli(fixture_copy("calc", tmp_path), "--no-isolation")
    assert unboxed.exit_code == 0 and "warning: --no-isolation" in unboxed.output
    refused = cli(fixture_copy("calc", tmp_path / "again"), "--no-isolation", "--sandbox", "docker")
    assert refused.exit_code == InputError.exit_code and "always isolated" in refused.output


def test_exit_codes_are_distinct():
    codes = [InputError, InstallError, NoTestsError, RedBaselineError, SuiteTooSlowError]
    assert len({c.exit_code for c in codes}) == len(codes)


def test_test_ids_with_brackets_are_printed_as_they_are(cli, tmp_path):
    """falcon's parameters make ids like ``test_route[/ws/yes]``, which rich read as a
    closing markup tag: the baseline stopped with an internal error."""
    make_repo(
        tmp_path / "brackets",
        {
            "routes.py": "def route(path):\n    return path\n",
            "tests/test_routes.py": (
                "import pytest\nfrom routes import route\n\n"
                "@pytest.mark.parametrize('n', range(30))\n"
                "def test_fine(n):\n    assert n >= 0\n\n"
                "@pytest.mark.parametrize('path', ['/ws/yes'])\n"
                "def test_route(path):\n    assert route(path) == '[bold]'\n"
            ),
        },
    )
    result = cli(str(tmp_path / "brackets"))
    assert result.exit_code == 0, result.output
    assert "tests/test_routes.py::test_route[/ws/yes] (AssertionError" in result.output
