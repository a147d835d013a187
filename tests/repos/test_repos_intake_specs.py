"""parse_spec: the three spec forms, where a revision starts, and one-line refusals."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corrupt.errors import CorruptError, InputError
from corrupt.repos.models import RepoSpec
from corrupt.repos.specs import parse_spec


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("github:pallets/click", RepoSpec("github", "pallets/click")),
        ("github:pallets/click@8.1.7", RepoSpec("github", "pallets/click", "8.1.7")),
        (
            "github:pallets/click.git@release/8.x",
            RepoSpec("github", "pallets/click", "release/8.x"),
        ),
        (
            "https://github.com/pallets/click.git",
            RepoSpec("git", "https://github.com/pallets/click.git"),
        ),
        (
            "https://github.com/pallets/click@v1",
            RepoSpec("git", "https://github.com/pallets/click", "v1"),
        ),
        (
            "http://user@host:8080/team/repo@abc1234",
            RepoSpec("git", "http://user@host:8080/team/repo", "abc1234"),
        ),
        ("ssh://git@host/a/b.git", RepoSpec("git", "ssh://git@host/a/b.git")),
        ("ssh://git@host/a/b.git@main", RepoSpec("git", "ssh://git@host/a/b.git", "main")),
        ("git@github.com:owner/name.git", RepoSpec("git", "git@github.com:owner/name.git")),
        (
            "git@github.com:owner/name.git@feature/x",
            RepoSpec("git", "git@github.com:owner/name.git", "feature/x"),
        ),
        (
            "file:///srv/git/repo.git@" + "a" * 40,
            RepoSpec("git", "file:///srv/git/repo.git", "a" * 40),
        ),
    ],
)
def test_remote_specs(text: str, expected: RepoSpec) -> None:
    assert parse_spec(text) == expected
    assert parse_spec(str(expected)) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "github:",
        "github:owner",
        "github:/name",
        "github:owner/",
        "github:o/n/extra",
        "github:o/n@",
        "github:o/n@-rf",
        "github:o/n@a..b",
        "github:o/n@bad rev",
        "github:o/n@x.lock",
        "ftp://host/repo",
        "https://",
        "https://host",
        "https://host/",
        "https://host/r?x=1",
        "file://@v1",
        "/definitely/not/here",
        "./nope@main",
    ],
)
def test_bad_specs_are_one_line_input_errors(text: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_spec(text)
    assert caught.value.exit_code == 2
    assert "\n" not in caught.value.message and caught.value.message


def test_local_folder_is_absolutised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "proj").mkdir()
    monkeypatch.chdir(tmp_path)
    assert parse_spec("proj") == RepoSpec("local", str(tmp_path / "proj"))
    assert parse_spec("./proj/") == RepoSpec("local", str(tmp_path / "proj"))
    assert parse_spec("proj@v2") == RepoSpec("local", str(tmp_path / "proj"), "v2")


def test_local_folder_whose_name_contains_at(tmp_path: Path) -> None:
    odd = tmp_path / "name@1.0"
    odd.mkdir()
    assert parse_spec(str(odd)) == RepoSpec("local", str(odd))


def test_a_file_is_not_a_repository(tmp_path: Path) -> None:
    (tmp_path / "f.py").write_text("x = 1\n")
    with pytest.raises(InputError, match="not a folder"):
        parse_spec(str(tmp_path / "f.py"))


@given(st.text(max_size=60))
def test_any_text_parses_or_is_refused_cleanly(text: str) -> None:
    try:
        spec = parse_spec(text)
    except CorruptError as exc:
        assert isinstance(exc, InputError)
        return
    assert spec.kind in ("github", "git", "local")
    assert spec.rev is None or not spec.rev.startswith("-")
