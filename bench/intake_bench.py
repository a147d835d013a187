"""Checkout timings: cold clone + tree extraction, warm cache hits, fetch of a new commit, folders.

    python bench/intake_bench.py [SOURCE_FOLDER]

SOURCE_FOLDER (default: the installed networkx package, ~600 files) is copied
into a fresh git repository with a bare remote in a temporary folder, so no
network is needed. Prints seconds per phase and the folder's size.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

import git

from corrupt.repos.checkout import checkout
from corrupt.repos.specs import parse_spec

AUTHOR = {
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@b",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@b",
}


def timed(label: str, action) -> object:
    started = time.perf_counter()
    result = action()
    print(f"{label:<42} {time.perf_counter() - started:8.3f} s")
    return result


def main(source: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        work = root / "work"
        shutil.copytree(source, work, ignore=shutil.ignore_patterns("__pycache__"))
        files = sum(1 for p in work.rglob("*") if p.is_file())
        megabytes = sum(p.stat().st_size for p in work.rglob("*") if p.is_file()) / 1e6
        print(f"source: {source} ({files} files, {megabytes:.1f} MB)")
        repo = git.Repo.init(work, initial_branch="main")
        repo.git.add("--all")
        repo.git.commit("-qm", "one", env=AUTHOR)
        remote = root / "remote.git"
        git.Repo.clone_from(str(work), remote, bare=True)
        cache = root / "cache"
        url = parse_spec(f"file://{remote}")

        timed("git URL, cold (clone + extract)", lambda: checkout(url, cache_dir=cache))
        timed("git URL, warm (cache hit)", lambda: checkout(url, cache_dir=cache))
        (work / "NEW.txt").write_text("new\n")
        repo.git.add("--all")
        repo.git.commit("-qm", "two", env=AUTHOR)
        repo.git.push(str(remote), "main")
        sha = repo.head.commit.hexsha
        timed(
            "git URL @new sha (fetch + extract)",
            lambda: checkout(parse_spec(f"file://{remote}@{sha}"), cache_dir=cache),
        )
        local = parse_spec(str(work))
        timed("local git repo, clean (extract HEAD)", lambda: checkout(local, cache_dir=cache))
        timed("local git repo, clean, warm", lambda: checkout(local, cache_dir=cache))
        (work / "NEW.txt").write_text("edited\n")
        timed("local git repo, dirty (hash + copy)", lambda: checkout(local, cache_dir=cache))
        timed("local git repo, dirty, warm (hash)", lambda: checkout(local, cache_dir=cache))
        shutil.rmtree(work / ".git")
        timed("plain folder, cold (hash + copy)", lambda: checkout(local, cache_dir=cache))
        timed("plain folder, warm (hash)", lambda: checkout(local, cache_dir=cache))


if __name__ == "__main__":
    import networkx

    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(networkx.__file__).parent)
