"""checkout() fills git submodules as ``git clone --recursive`` would, from cached clones."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import git
import pytest
from gitrepos import AUTHOR, bare_remote, commit, make_repo

from corrupt.errors import CloneError
from corrupt.repos.checkout import _relative_url, _submodule_url, checkout
from corrupt.repos.models import RepoSpec
from corrupt.repos.specs import parse_spec


def library(tmp_path: Path, name: str, versions: list[str]) -> tuple[Path, list[str]]:
    """A bare repository ``<name>.git`` with one commit per version of ``data.txt``."""
    repo = make_repo(tmp_path / "work" / name, {"data.txt": versions[0]})
    shas = [repo.head.commit.hexsha]
    shas += [commit(repo, {"data.txt": text}, text) for text in versions[1:]]
    return bare_remote(repo, tmp_path / f"{name}.git"), shas


def with_submodules(
    tmp_path: Path,
    name: str,
    links: dict[str, tuple[str, str]],
    files: dict[str, str] | None = None,
) -> tuple[Path, str]:
    """A bare repository ``<name>.git`` whose one commit has gitlinks ``{path: (url, sha)}``
    and the ``.gitmodules`` naming them."""
    gitmodules = "".join(
        f'[submodule "{path}"]\n\tpath = {path}\n\turl = {url}\n'
        for path, (url, _) in links.items()
    )
    repo = make_repo(tmp_path / "work" / name, {".gitmodules": gitmodules, **(files or {})})
    for path, (_, sha) in links.items():
        repo.git.update_index("--add", "--cacheinfo", f"160000,{sha},{path}")
    repo.git.commit("-m", "submodules", env=AUTHOR)
    return bare_remote(repo, tmp_path / f"{name}.git"), repo.head.commit.hexsha


def spec(remote: Path) -> RepoSpec:
    return parse_spec(f"file://{remote}")


def test_relative_and_file_urls_are_filled_at_the_pinned_commit(tmp_path: Path) -> None:
    sub, sub_shas = library(tmp_path, "sub", ["sub v1\n", "sub v2\n"])
    other, other_shas = library(tmp_path, "other", ["other v1\n", "other v2\n"])
    remote, _ = with_submodules(
        tmp_path,
        "super",
        {
            "vendor/sub": ("../sub.git", sub_shas[0]),
            "tests/data": (f"file://{other}", other_shas[0]),
        },
        {"main.py": "print('hi')\n"},
    )
    pinned = checkout(spec(remote), cache_dir=tmp_path / "cache")
    assert (pinned.path / "vendor/sub/data.txt").read_text() == "sub v1\n"
    assert (pinned.path / "tests/data/data.txt").read_text() == "other v1\n"
    assert not (pinned.path / "vendor/sub/.git").exists()
    repos = tmp_path / "cache" / "repos" / "file" / Path(*tmp_path.parts[1:])
    assert (repos / "sub" / "repo.git").is_dir() and (repos / "other" / "repo.git").is_dir()
    assert not (repos / "sub" / "trees").exists()  # a submodule has no trees of its own


def test_nested_submodules_are_filled(tmp_path: Path) -> None:
    leaf, leaf_shas = library(tmp_path, "leaf", ["leaf\n"])
    middle, middle_sha = with_submodules(
        tmp_path, "middle", {"deps/leaf": ("../leaf.git", leaf_shas[0])}, {"m.txt": "m\n"}
    )
    remote, _ = with_submodules(tmp_path, "top", {"middle": (f"file://{middle}", middle_sha)})
    pinned = checkout(spec(remote), cache_dir=tmp_path / "cache")
    assert (pinned.path / "middle/m.txt").read_text() == "m\n"
    assert (pinned.path / "middle/deps/leaf/data.txt").read_text() == "leaf\n"


def test_unreachable_submodule_leaves_an_empty_folder_and_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sub, sub_shas = library(tmp_path, "sub", ["sub\n"])
    remote, _ = with_submodules(
        tmp_path,
        "super",
        {
            "gone": (f"file://{tmp_path}/nowhere.git", sub_shas[0]),
            "evil": ("ext::sh -c touch% /tmp/pwned", sub_shas[0]),
            "ok": ("../sub.git", sub_shas[0]),
        },
    )
    with caplog.at_level(logging.WARNING, logger="corrupt.repos.checkout"):
        pinned = checkout(spec(remote), cache_dir=tmp_path / "cache")
    assert (pinned.path / "gone").is_dir() and not any((pinned.path / "gone").iterdir())
    assert (pinned.path / "evil").is_dir() and not any((pinned.path / "evil").iterdir())
    assert (pinned.path / "ok/data.txt").read_text() == "sub\n"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert any(w.startswith("submodule gone left empty: ") for w in warnings)
    assert any(w.startswith("submodule evil left empty: refusing") for w in warnings)


def test_missing_pinned_commit_is_a_warning(tmp_path: Path, caplog) -> None:
    sub, _ = library(tmp_path, "sub", ["sub\n"])
    remote, _ = with_submodules(tmp_path, "super", {"sub": ("../sub.git", "1" * 40)})
    with caplog.at_level(logging.WARNING, logger="corrupt.repos.checkout"):
        pinned = checkout(spec(remote), cache_dir=tmp_path / "cache")
    assert not any((pinned.path / "sub").iterdir())
    assert "submodule sub left empty: commit 111111111111 not found" in caplog.text


def test_insteadof_from_git_config_env_redirects_submodule_urls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mirror, shas = library(tmp_path, "y", ["mirrored\n"])
    remote, _ = with_submodules(tmp_path, "super", {"y": ("https://github.com/x/y", shas[0])})
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", f"url.file://{tmp_path}/.insteadOf")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "https://github.com/x/")
    pinned = checkout(spec(remote), cache_dir=tmp_path / "cache")
    assert (pinned.path / "y/data.txt").read_text() == "mirrored\n"
    assert (tmp_path / "cache/repos/github.com/x/y/repo.git").is_dir()


def test_tree_extracted_before_submodules_is_filled_on_next_checkout(tmp_path: Path) -> None:
    sub, sub_shas = library(tmp_path, "sub", ["sub v1\n", "sub v2\n"])
    remote, _ = with_submodules(tmp_path, "super", {"lib/sub": ("../sub.git", sub_shas[1])})
    cache = tmp_path / "cache"
    first = checkout(spec(remote), cache_dir=cache)
    folder = first.path / "lib/sub"
    shutil.rmtree(folder)
    folder.mkdir()  # what a tree extracted without submodules holds
    again = checkout(spec(remote), cache_dir=cache)
    assert again.path == first.path
    assert (folder / "data.txt").read_text() == "sub v2\n"


def test_local_repository_resolves_relative_urls_against_its_origin(tmp_path: Path) -> None:
    sub, shas = library(tmp_path, "sub", ["sub\n"])
    remote, _ = with_submodules(tmp_path, "super", {"sub": ("../sub.git", shas[0])})
    local = git.Repo.clone_from(f"file://{remote}", tmp_path / "clone")
    pinned = checkout(parse_spec(str(local.working_tree_dir)), cache_dir=tmp_path / "cache")
    assert (pinned.path / "sub/data.txt").read_text() == "sub\n"


@pytest.mark.parametrize(
    ("url", "base", "expected"),
    [
        ("../sub.git", "https://github.com/o/name.git", "https://github.com/o/sub.git"),
        ("../../p/q", "https://github.com/o/name/", "https://github.com/p/q"),
        ("./x", "https://host/a/b", "https://host/a/b/x"),
        ("./../x.git", "file:///srv/git/super.git", "file:///srv/git/x.git"),
        ("../x.git", "git@github.com:o/name.git", "git@github.com:o/x.git"),
        ("../../p/x.git", "git@github.com:o/name.git", "git@github.com:p/x.git"),
    ],
)
def test_relative_urls_resolve_as_git_does(url: str, base: str, expected: str) -> None:
    assert _relative_url(url, base) == expected


@pytest.mark.parametrize(
    "url",
    ["ext::sh -c id", "fd::3", "-uhost:x", "ssh://-oProxyCommand=id/x", "relative/path", "a b"],
)
def test_urls_git_would_refuse_are_refused(url: str) -> None:
    with pytest.raises(CloneError, match="refusing"):
        _submodule_url(url, "https://github.com/o/name.git")


@pytest.mark.parametrize("url", ["file:///home/user/secret.git", "/srv/git/private.git"])
def test_a_remote_repository_cannot_name_a_local_submodule(url: str) -> None:
    with pytest.raises(CloneError, match="local submodule URL"):
        _submodule_url(url, "https://github.com/o/name.git")
    # a local superproject may: its owner put it there
    assert _submodule_url(url, "file:///srv/git/super.git") == url
