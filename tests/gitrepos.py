"""Real git repositories for the intake tests: a work tree with commits and a bare "remote"."""

from __future__ import annotations

from pathlib import Path

import git

AUTHOR = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
}


def make_repo(
    path: Path, files: dict[str, str | bytes], message: str = "initial", *, when: str | None = None
) -> git.Repo:
    """A work tree on branch ``main`` with one commit of ``files`` (committed at ``when``)."""
    repo = git.Repo.init(path, initial_branch="main")
    commit(repo, files, message, when=when)
    return repo


def commit(
    repo: git.Repo, files: dict[str, str | bytes], message: str, *, when: str | None = None
) -> str:
    """Write ``files`` (bytes kept as they are), commit everything (at ``when``, an ISO
    date; else now), return the sha."""
    root = Path(repo.working_tree_dir)
    for name, content in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content if isinstance(content, bytes) else content.encode())
    repo.git.add("--all")
    dates = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when} if when else {}
    repo.git.commit("-m", message, env={**AUTHOR, **dates})
    return repo.head.commit.hexsha


def bare_remote(repo: git.Repo, path: Path) -> Path:
    """A bare clone of ``repo`` to serve as the remote; returns its path."""
    git.Repo.clone_from(repo.working_tree_dir, path, bare=True)
    return path


def push(repo: git.Repo, remote: Path, *refs: str) -> None:
    repo.git.push(str(remote), *(refs or ("--all",)))
