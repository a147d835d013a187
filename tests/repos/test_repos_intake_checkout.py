"""checkout(): real git repositories, a bare remote over file://, the cache and its trees."""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import socket
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import git
import pytest
from gitrepos import bare_remote, commit, make_repo, push

from corrupt.cache import cache_root
from corrupt.errors import CloneError, InputError, RepoNotFound, RevisionError
from corrupt.repos.checkout import checkout
from corrupt.repos.models import RepoSpec
from corrupt.repos.specs import parse_spec

FIRST = {
    "src/pkg/__init__.py": "VERSION = 1\n",
    "src/pkg/crlf.py": b"def f():\r\n    return 1\r\n",
    "src/pkg/no_newline.py": b"x = 1",
    "run.sh": "#!/bin/sh\necho hi\n",
    ".gitignore": "*.log\nbuild/\n",
}


def snapshot(root: Path) -> dict[str, str]:
    """Every file and symlink under ``root`` with a hash of its bytes (or link target) and mode."""
    found = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[rel] = "link:" + os.readlink(path)
        elif path.is_file():
            found[rel] = (
                f"{oct(path.stat().st_mode)}:{hashlib.sha256(path.read_bytes()).hexdigest()}"
            )
    return found


@pytest.fixture
def upstream(tmp_path: Path):
    """A work tree with two commits, a tag and a slashed branch, plus its bare remote."""
    repo = make_repo(tmp_path / "work", FIRST)
    (tmp_path / "work" / "run.sh").chmod(0o755)
    os.symlink("src/pkg/__init__.py", tmp_path / "work" / "link.py")
    repo.git.add("--all")
    first = commit(repo, {"README": "v1\n"}, "exec bit and link")
    repo.git.tag("v1.0")
    second = commit(repo, {"src/pkg/__init__.py": "VERSION = 2\n"}, "bump")
    repo.git.branch("feature/x", first)
    remote = bare_remote(repo, tmp_path / "remote.git")
    return repo, remote, first, second


def at(remote: Path, rev: str | None = None) -> RepoSpec:
    return parse_spec(f"file://{remote}" + (f"@{rev}" if rev else ""))


def test_default_branch_tree_is_byte_identical(upstream, tmp_path: Path) -> None:
    repo, remote, first, second = upstream
    pinned = checkout(at(remote), cache_dir=tmp_path / "cache")
    assert pinned.commit == second
    assert (
        pinned.path
        == tmp_path
        / "cache"
        / "repos"
        / "file"
        / Path(*remote.parts[1:-1])
        / "remote"
        / "trees"
        / second
    )
    work = snapshot(Path(repo.working_tree_dir))
    work = {k: v for k, v in work.items() if not k.startswith(".git/")}
    assert snapshot(pinned.path) == work
    assert (pinned.path / "src/pkg/crlf.py").read_bytes() == b"def f():\r\n    return 1\r\n"
    assert os.access(pinned.path / "run.sh", os.X_OK)
    assert not (pinned.path / ".git").exists()
    assert pinned.url == f"file://{remote}" and pinned.name.endswith("/remote")


@pytest.mark.parametrize("rev", ["v1.0", "feature/x", "FIRST_SHORT", "FIRST"])
def test_revisions_resolve_to_the_commit(upstream, tmp_path: Path, rev: str) -> None:
    _, remote, first, _ = upstream
    rev = {"FIRST": first, "FIRST_SHORT": first[:9]}.get(rev, rev)
    pinned = checkout(at(remote, rev), cache_dir=tmp_path / "cache")
    assert pinned.commit == first
    assert (pinned.path / "src/pkg/__init__.py").read_text() == "VERSION = 1\n"


def test_commits_coexist_and_the_cache_is_reused_without_the_remote(
    upstream, tmp_path: Path
) -> None:
    _, remote, first, second = upstream
    cache = tmp_path / "cache"
    new = checkout(at(remote), cache_dir=cache)
    old = checkout(at(remote, "v1.0"), cache_dir=cache)
    assert new.path != old.path and new.path.is_dir() and old.path.is_dir()
    assert (new.path / "src/pkg/__init__.py").read_text() == "VERSION = 2\n"

    remote.rename(tmp_path / "gone.git")  # any clone or fetch would now fail
    again = checkout(at(remote, first), cache_dir=cache)
    assert (again.commit, again.path) == (old.commit, old.path)
    assert checkout(at(remote), cache_dir=cache).commit == second
    with pytest.raises(CloneError, match="cannot fetch"):
        checkout(at(remote, "never-made"), cache_dir=cache)


def test_unknown_revision_is_fetched_and_branches_stay_pinned(upstream, tmp_path: Path) -> None:
    repo, remote, _, second = upstream
    cache = tmp_path / "cache"
    assert checkout(at(remote), cache_dir=cache).commit == second
    third = commit(repo, {"src/pkg/new.py": "NEW = True\n"}, "third")
    push(repo, remote, "main")

    assert checkout(at(remote), cache_dir=cache).commit == second  # known: no fetch
    pinned = checkout(at(remote, third), cache_dir=cache)  # unknown sha: fetched
    assert pinned.commit == third and (pinned.path / "src/pkg/new.py").is_file()
    assert checkout(at(remote, "main"), cache_dir=cache, refresh=True).commit == third


def test_checkouts_never_modify_the_clone_or_its_trees(upstream, tmp_path: Path) -> None:
    _, remote, first, _ = upstream
    cache = tmp_path / "cache"
    pinned = checkout(at(remote), cache_dir=cache)
    clone = pinned.path.parent.parent / "repo.git"
    before = snapshot(clone), snapshot(pinned.path)
    checkout(at(remote), cache_dir=cache)
    checkout(at(remote, first), cache_dir=cache)  # extracts another tree from the clone
    assert (snapshot(clone), snapshot(pinned.path)) == before
    assert git.Repo(clone).bare and not (clone / "index").exists()


def test_parallel_checkouts_share_one_clone(upstream, tmp_path: Path) -> None:
    _, remote, _, second = upstream
    with ThreadPoolExecutor(4) as pool:
        results = list(
            pool.map(lambda _: checkout(at(remote), cache_dir=tmp_path / "cache"), range(4))
        )
    assert {(r.commit, r.path) for r in results} == {(second, results[0].path)}
    assert [p.name for p in results[0].path.parent.iterdir()] == [second]


def test_bad_revision(upstream, tmp_path: Path) -> None:
    _, remote, _, _ = upstream
    with pytest.raises(RevisionError) as caught:
        checkout(at(remote, "no-such-tag"), cache_dir=tmp_path / "cache")
    assert caught.value.exit_code == 12
    assert caught.value.message == f"revision 'no-such-tag' not found in file://{remote}"
    with pytest.raises(RevisionError):
        checkout(at(remote, "f" * 40), cache_dir=tmp_path / "cache")
    trees = next((tmp_path / "cache").rglob("trees"), None)
    assert trees is None or not any(trees.iterdir())


def test_unknown_repository(tmp_path: Path) -> None:
    with pytest.raises(RepoNotFound) as caught:
        checkout(parse_spec(f"file://{tmp_path}/missing.git"), cache_dir=tmp_path / "cache")
    assert "does not appear to be a git repository" in caught.value.message
    assert "\n" not in caught.value.message
    assert not list((tmp_path / "cache").rglob("repo.git"))


def test_unreachable_url_caches_nothing(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(CloneError) as caught:
        checkout(
            parse_spec(f"http://127.0.0.1:{port}/owner/repo.git"), cache_dir=tmp_path / "cache"
        )
    assert caught.value.exit_code == 11
    assert caught.value.message.startswith(f"cannot clone http://127.0.0.1:{port}/owner/repo.git: ")
    assert "\n" not in caught.value.message
    assert not list((tmp_path / "cache").rglob("repo.git"))


def test_missing_local_path(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such repository path"):
        checkout(parse_spec(str(tmp_path / "nothing")), cache_dir=tmp_path / "cache")
    with pytest.raises(InputError, match="no such repository folder"):
        checkout(RepoSpec("local", str(tmp_path / "nothing")), cache_dir=tmp_path / "cache")


def test_clean_local_git_repo_is_pinned_at_head(upstream, tmp_path: Path) -> None:
    repo, _, first, second = upstream
    work = Path(repo.working_tree_dir)
    (work / "debug.log").write_text("ignored\n")
    pinned = checkout(parse_spec(str(work)), cache_dir=tmp_path / "cache")
    assert pinned.commit == second and pinned.url == str(work) and pinned.name == "work"
    assert not (pinned.path / "debug.log").exists()
    assert checkout(parse_spec(f"{work}@v1.0"), cache_dir=tmp_path / "cache").commit == first
    assert checkout(parse_spec(f"{work}@main~1"), cache_dir=tmp_path / "cache").commit == first
    assert repo.git.status("--porcelain") == ""  # nothing of ours landed in the user's repo


def test_dirty_local_git_repo_uses_the_files_on_disk(upstream, tmp_path: Path, caplog) -> None:
    repo, _, first, second = upstream
    work = Path(repo.working_tree_dir)
    (work / "src/pkg/__init__.py").write_text("VERSION = 'edited'\n")
    (work / "notes.txt").write_text("untracked, not ignored\n")
    (work / "build").mkdir()
    (work / "build" / "out.py").write_text("ignored\n")
    (work / "README").unlink()
    with caplog.at_level(logging.INFO, logger="corrupt.repos.checkout"):
        pinned = checkout(parse_spec(str(work)), cache_dir=tmp_path / "cache")
    assert pinned.commit.startswith("tree:") and len(pinned.commit) == 5 + 64
    assert "uncommitted changes" in caplog.text
    assert (pinned.path / "src/pkg/__init__.py").read_text() == "VERSION = 'edited'\n"
    assert (pinned.path / "notes.txt").is_file()
    assert not (pinned.path / "build").exists() and not (pinned.path / "README").exists()
    assert os.readlink(pinned.path / "link.py") == "src/pkg/__init__.py"
    # an explicit revision still means that commit
    assert (
        checkout(parse_spec(f"{work}@{first[:10]}"), cache_dir=tmp_path / "cache").commit == first
    )
    assert repo.head.commit.hexsha == second


def test_folder_inside_a_git_repo_is_hashed_with_gitignore(upstream, tmp_path: Path) -> None:
    repo, _, _, _ = upstream
    sub = Path(repo.working_tree_dir) / "src"
    (sub / "trace.log").write_text("ignored\n")
    pinned = checkout(parse_spec(str(sub)), cache_dir=tmp_path / "cache")
    assert pinned.commit.startswith("tree:")
    assert sorted(p.relative_to(pinned.path).as_posix() for p in pinned.path.rglob("*.py")) == [
        "pkg/__init__.py",
        "pkg/crlf.py",
        "pkg/no_newline.py",
    ]
    assert not (pinned.path / "trace.log").exists()


def plain_folder(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_bytes(b"def f():\r\n    return 1\r\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_mod.py").write_text("from pkg.mod import f\n")
    return root


def test_plain_folder_identity_follows_content(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    one = checkout(parse_spec(str(plain_folder(tmp_path / "one"))), cache_dir=cache)
    two = checkout(parse_spec(str(plain_folder(tmp_path / "two"))), cache_dir=cache)
    assert one.commit == two.commit and one.commit.startswith("tree:")
    assert snapshot(one.path) == snapshot(tmp_path / "one")

    # caches and environments are not part of the identity
    (tmp_path / "one" / "pkg" / "__pycache__").mkdir()
    (tmp_path / "one" / "pkg" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / "one" / ".venv").mkdir()
    (tmp_path / "one" / ".venv" / "pyvenv.cfg").write_text("home = /usr\n")
    assert checkout(parse_spec(str(tmp_path / "one")), cache_dir=cache).commit == one.commit

    (tmp_path / "two" / "pkg" / "mod.py").write_bytes(b"def f():\r\n    return 2\r\n")
    changed = checkout(parse_spec(str(tmp_path / "two")), cache_dir=cache)
    assert changed.commit != one.commit
    assert (changed.path / "pkg" / "mod.py").read_bytes() == b"def f():\r\n    return 2\r\n"
    assert (one.path / "pkg" / "mod.py").read_bytes() == b"def f():\r\n    return 1\r\n"

    (tmp_path / "two" / "pkg" / "mod.py").chmod(0o755)
    assert checkout(parse_spec(str(tmp_path / "two")), cache_dir=cache).commit != changed.commit


def test_plain_folder_has_no_revisions(tmp_path: Path) -> None:
    folder = plain_folder(tmp_path / "plain")
    with pytest.raises(RevisionError, match="not the root of a git repository"):
        checkout(parse_spec(f"{folder}@main"), cache_dir=tmp_path / "cache")


def test_default_cache_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "corrupt"
    pinned = checkout(parse_spec(str(plain_folder(tmp_path / "p"))))
    assert pinned.path.is_relative_to(tmp_path / "xdg" / "corrupt" / "repos" / "local")
    shutil.rmtree(tmp_path / "xdg")


def test_a_bare_repository_given_as_a_path_is_cloned_as_its_file_url(
    upstream, tmp_path: Path
) -> None:
    repo, remote, first, second = upstream
    assert parse_spec(str(remote)) == at(remote)
    assert parse_spec(f"{remote}@v1.0") == at(remote, "v1.0")
    pinned = checkout(parse_spec(f"{remote}@v1.0"), cache_dir=tmp_path / "cache")
    assert pinned.commit == first and (pinned.path / "README").read_text() == "v1\n"
