"""Whether a repository's code is published on the package index: a release there is the answer.

No scan of a task's files can close this route: an agent with network runs
``pip download NAME==VERSION`` and reads the original. So every task records
what the index holds for its project — the release of this very version, other
releases (whose code is mostly the same), none, or ``unknown`` when the index
cannot be reached — and users know which tasks need the agent's network off.

The project's name and version are read from its metadata files (``[project]``,
Poetry's table, ``setup.cfg``, a literal in ``setup.py``), the version falling
back to what the VCS plugin would compute at the commit. The index is asked
through PyPI's JSON API (``CORRUPT_PYPI_URL`` points elsewhere, e.g. a
mirror); answers are cached a day, an unreachable index is not cached.
"""

from __future__ import annotations

import ast
import configparser
import contextlib
import json
import os
import re
import time
from enum import StrEnum
from pathlib import Path

import requests
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from corrupt.repos.projectfiles import read_toml, table

PYPI_URL = "https://pypi.org"
TIMEOUT = 10.0
CACHE_SECONDS = 24 * 3600


class Published(StrEnum):
    AT_VERSION = "at-version"  # the release of this version is on the index
    OTHER_VERSIONS = "other-versions"  # releases of the project, not this version
    NO = "no"  # the index has no such project
    UNKNOWN = "unknown"  # no name to look up, or the index could not be reached


def project_name_and_version(root: Path, scm_version: str | None) -> tuple[str | None, str | None]:
    """The distribution name and version the project declares (None where it does not)."""
    pyproject = read_toml(root / "pyproject.toml")
    project, poetry = table(pyproject, "project"), table(pyproject, "tool", "poetry")
    cfg = configparser.ConfigParser(interpolation=None)
    with contextlib.suppress(configparser.Error, UnicodeDecodeError):
        cfg.read(root / "setup.cfg", encoding="utf-8")
    setup_py = _setup_literals(root / "setup.py")
    names = [project.get("name"), poetry.get("name"), cfg.get("metadata", "name", fallback=None)]
    versions = [
        project.get("version"),
        poetry.get("version"),
        cfg.get("metadata", "version", fallback=None),
    ]
    name = next((n for n in [*names, setup_py.get("name")] if isinstance(n, str) and n), None)
    version = next(
        (
            v
            for v in [*versions, setup_py.get("version"), scm_version]
            if isinstance(v, str) and _valid(v)
        ),
        None,
    )
    return name, version


def published(
    root: Path, scm_version: str | None, *, cache_dir: Path, index_url: str | None = None
) -> Published:
    name, version = project_name_and_version(root, scm_version)
    if name is None:
        return Published.UNKNOWN
    releases = _releases(
        name, cache_dir, index_url or os.environ.get("CORRUPT_PYPI_URL") or PYPI_URL
    )
    if releases is None:
        return Published.UNKNOWN
    if not releases:
        return Published.NO
    if version is not None and Version(version).public in {_public(r) for r in releases}:
        return Published.AT_VERSION
    return Published.OTHER_VERSIONS


def _releases(name: str, cache_dir: Path, index_url: str) -> list[str] | None:
    """The project's released versions ([] if the index has no such project; None if unreachable)."""
    key = canonicalize_name(name)
    cached = (
        cache_dir / "published" / f"{re.sub(r'[^a-z0-9_.-]', '_', index_url.lower())}--{key}.json"
    )
    try:
        entry = json.loads(cached.read_text(encoding="utf-8"))
        if time.time() - entry["at"] < CACHE_SECONDS:
            return list(entry["releases"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    try:
        answer = requests.get(f"{index_url.rstrip('/')}/pypi/{key}/json", timeout=TIMEOUT)
        if answer.status_code == 404:
            releases: list[str] = []
        else:
            answer.raise_for_status()
            releases = [v for v, files in answer.json().get("releases", {}).items() if files]
    except (requests.RequestException, ValueError, AttributeError):
        return None
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps({"at": time.time(), "releases": releases}), encoding="utf-8")
    return releases


def _setup_literals(path: Path) -> dict[str, str]:
    """``name=`` and ``version=`` given as string literals to a ``setup(...)`` call."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return {}
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", "")) == "setup"
        ):
            for keyword in node.keywords:
                value = keyword.value.value if isinstance(keyword.value, ast.Constant) else None
                if keyword.arg in ("name", "version") and isinstance(value, str):
                    found[keyword.arg] = value
    return found


def _valid(version: str) -> bool:
    try:
        Version(version)
    except InvalidVersion:
        return False
    return True


def _public(version: str) -> str | None:
    try:
        return Version(version).public
    except InvalidVersion:
        return None
