"""Shared set-up for the repos-run tests: fixture suites as real checkouts, one cache per session."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from corrupt.repos.checkout import checkout
from corrupt.repos.models import Checkout
from corrupt.repos.specs import parse_spec
from corrupt.suites.baseline import compute_baseline

FIXTURES = Path(__file__).parent / "fixtures" / "repos_run"


def session_cache(tmp_path_factory) -> Path:
    """One cache folder per test session, so every module reuses the same venvs.

    It is ``$XDG_CACHE_HOME/corrupt`` for ``XDG_CACHE_HOME=session_xdg(...)``,
    so CLI runs share it too.
    """
    path = session_xdg(tmp_path_factory) / "corrupt"
    path.mkdir(parents=True, exist_ok=True)
    return path


def session_xdg(tmp_path_factory) -> Path:
    return tmp_path_factory.getbasetemp() / "repos-run-xdg"


def fixture_checkout(name: str, tmp_path_factory) -> Checkout:
    """Check a fixture suite out through the real intake (a plain folder, pinned by content hash)."""
    source = tmp_path_factory.getbasetemp() / "repos-run-sources" / name
    if not source.exists():
        shutil.copytree(FIXTURES / name, source)
    return checkout(parse_spec(str(source)), cache_dir=session_cache(tmp_path_factory))


def tree_digest(root: Path) -> dict[str, str]:
    """Every file and symlink under ``root`` with its content hash and mode bits."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = "link:" + str(path.readlink())
        elif path.is_file():
            out[rel] = f"{hashlib.sha256(path.read_bytes()).hexdigest()}:{path.stat().st_mode:o}"
        else:
            out[rel] = "dir"
    return out


def folder_baseline(
    folder: Path, sandbox, tmp_path_factory, time_limit: float = 60.0, strict: bool = False
):
    """A repository folder through the real checkout, environment and baseline; its baselines
    cached beside it."""
    pinned = checkout(parse_spec(str(folder)), cache_dir=session_cache(tmp_path_factory))
    env = sandbox.prepare(pinned)
    return pinned, compute_baseline(
        pinned,
        sandbox,
        env,
        time_limit=time_limit,
        cache_dir=folder.parent / "baselines",
        strict=strict,
    )
