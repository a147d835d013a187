"""What to install for a repository's tests: a pure reading of the project's files.

Where Python projects declare test dependencies (PEP 621 extras, PEP 735 groups,
Poetry and PDM groups, requirement files, tox ``deps``, what CI, nox and hatch
install, the pins of a ``uv.lock``), read without running any of the project's
code. How it is installed, in a box with the package index, is
:mod:`corrupt.sandboxes.local.environment`'s business.
"""

from __future__ import annotations

import configparser
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corrupt.repos.declared import pdm_groups, poetry_groups, poetry_locked
from corrupt.repos.projectfiles import read_toml, strings, table
from corrupt.repos.runnerconfigs import for_env
from corrupt.repos.testplan import TestPlan, plan_tests
from corrupt.repos.uvtool import find_uv, install_env
from corrupt.scratch import remove_tree, scratch_dir

TEST_NAMES = ("test", "tests", "testing")
DEV_NAMES = ("dev",)
# What corrupt's own plugin needs (coverage contexts arrived in coverage.py 5); installed
# after the project's test dependencies, so a version they pin is kept.
ALWAYS = ("pytest", "coverage>=5")
PACKAGING_FILES = ("pyproject.toml", "setup.py", "setup.cfg")


@dataclass
class TestRequirements:
    """What a repository says its tests need."""

    packages: list[str] = field(default_factory=list)  # PEP 508 strings
    files: list[Path] = field(default_factory=list)  # requirement files (-r)
    sources: list[str] = field(default_factory=list)  # where each came from, for the log
    extras: list[str] = field(default_factory=list)  # the optional-dependency tables chosen
    groups: list[str] = field(default_factory=list)  # the PEP 735 groups chosen
    # The versions the project's uv.lock pins for its dependencies and the chosen
    # extras and groups (else those its poetry.lock pins for its own dependencies):
    # installed first, so tests run against the versions the project itself tests
    # with (the newest release may have broken them).
    locked: list[str] = field(default_factory=list)


def discover_test_requirements(root: Path) -> TestRequirements:
    """Collect test dependencies from the places Python projects declare them.

    Within each source, specific test groups win over a generic ``dev`` group:
    dev groups tend to pull in linters, docs builders and release tooling that
    make installs slow and fragile without helping the tests run.
    """
    found = TestRequirements()
    pyproject = read_toml(root / "pyproject.toml")
    extras = table(pyproject, "project", "optional-dependencies")
    for name in test_groups(extras):
        found.packages.extend(strings(extras[name]))
        found.extras.append(name)
        found.sources.append(f"[project.optional-dependencies] {name}")
    groups = table(pyproject, "dependency-groups")
    for name in test_groups(groups):
        found.packages.extend(_expand_group(groups, name, set()))
        found.groups.append(name)
        found.sources.append(f"[dependency-groups] {name}")
    plan = plan_tests(root)
    named = [g for g in plan.groups if g in groups and g not in found.groups]
    for name in named:  # before the lock is read, so that it pins them too
        found.packages.extend(
            p for p in _expand_group(groups, name, set()) if p not in found.packages
        )
        found.groups.append(name)
    if named:
        found.sources.append(f"tox dependency_groups: {', '.join(named)}")
    for tool, tables in (
        ("tool.poetry", poetry_groups(pyproject)),
        ("tool.pdm", pdm_groups(pyproject)),
    ):
        for name in test_groups(tables):
            found.packages.extend(p for p in tables[name] if p not in found.packages)
            found.sources.append(f"[{tool}] {name} dependencies")
    found.locked = locked_requirements(root, found.extras, found.groups)
    lock = "uv.lock"
    if not found.locked:
        found.locked, lock = poetry_locked(root), "poetry.lock"
    if found.locked:
        found.sources.append(f"{lock} ({len(found.locked)} pinned)")
    files = _requirement_files(root)
    found.files.extend(files)
    found.sources.extend(str(f.relative_to(root)) for f in files)
    _add_plan(found, root, extras, plan)
    tox = _tox_deps(root, "deps", plan.tox_env)
    if tox:
        found.packages.extend(p for p in tox if not p.startswith("-r"))
        found.files.extend(
            root / p[2:].strip()
            for p in tox
            if p.startswith("-r") and (root / p[2:].strip()).is_file()
        )
        found.sources.append("tox.ini [testenv] deps")
    # The extras tox installs the project with (``extras = license``): identify's tests
    # reach a module only its ``license`` extra brings.
    named = [e for e in _tox_deps(root, "extras", plan.tox_env) if e not in found.extras]
    if named:
        found.extras.extend(named)
        found.packages.extend(p for e in named for p in strings(extras.get(e)))
        found.sources.append(f"tox.ini [testenv] extras: {', '.join(named)}")
    return found


def _add_plan(found: TestRequirements, root: Path, extras: dict[str, Any], plan: TestPlan) -> None:
    """What the project's CI, runners and pytest configuration say the tests need."""
    found.packages.extend(p for p in plan.packages if p not in found.packages)
    for name in plan.files:
        if root / name not in found.files and (root / name).is_file():
            found.files.append(root / name)
    for name in plan.extras:
        if name not in found.extras:
            found.extras.append(name)
            found.packages.extend(strings(extras.get(name)))
    if plan.command_source:
        found.sources.append(f"test command from {plan.command_source}")
    found.sources.extend(plan.sources)


def locked_requirements(root: Path, extras: list[str], groups: list[str]) -> list[str]:
    """Pinned requirements from ``root/uv.lock`` for the project's dependencies plus
    ``extras`` and ``groups``; empty when there is no lock or uv cannot read it.

    ``uv export --frozen`` only reads the lock (no resolution, no network, no
    build of the project), so it is safe on the cached tree.
    """
    uv = find_uv()
    if uv is None or not (root / "uv.lock").is_file():
        return []
    argv = [
        uv,
        "export",
        "--frozen",
        "--no-hashes",
        "--no-header",
        "--no-annotate",
        "--no-emit-project",
        "--no-default-groups",
    ]
    argv += [f"--extra={name}" for name in extras] + [f"--group={name}" for name in groups]
    # It runs on the host: the repository's own uv settings ([tool.uv], uv.toml)
    # must not steer it (a cache-dir there would make it write anywhere).
    cache = scratch_dir("uv-export-")
    env = dict(install_env(), UV_NO_CONFIG="1", UV_OFFLINE="1", UV_CACHE_DIR=str(cache))
    try:
        proc = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return []
    finally:
        remove_tree(cache)
    if proc.returncode != 0:
        return []
    lines = (line.strip() for line in proc.stdout.splitlines())
    return [line for line in lines if line and not line.startswith(("#", "-"))]


def test_groups(table: dict[str, Any]) -> list[str]:
    """The names of ``table`` (extras, groups) that hold test dependencies: those named for
    tests, else ``dev``."""
    tests = [name for name in table if name.lower() in TEST_NAMES]
    return tests or [name for name in table if name.lower() in DEV_NAMES]


def _expand_group(groups: dict[str, Any], name: str, seen: set[str]) -> list[str]:
    """PEP 735 groups may include other groups with ``{include-group = "x"}``."""
    if name in seen:
        return []
    seen.add(name)
    packages: list[str] = []
    entries = groups.get(name)
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, str):
            packages.append(entry)
        elif isinstance(entry, dict) and "include-group" in entry:
            packages.extend(_expand_group(groups, entry["include-group"], seen))
    return packages


def _requirement_files(root: Path) -> list[Path]:
    """The test requirement files (else the development ones) at the root, whatever side
    of ``requirements`` the word is on (``requirements-test.txt``, ``test-requirements.txt``,
    ``dev-requirements.txt``: fabric's pins the pytest its pytest-relaxed needs), and in a
    ``requirements`` folder."""
    candidates: list[Path] = []
    for folder in (root, root / "requirements"):
        if not folder.is_dir():
            continue
        names = sorted(
            p
            for p in folder.glob("*.txt")
            if p.is_file() and (folder != root or "requirements" in p.name.lower())
        )
        tests = [p for p in names if "test" in p.name.lower()]
        devs = [p for p in names if "dev" in p.name.lower()]
        candidates.extend(tests or devs)
    return candidates


def _tox_deps(root: Path, key: str, env: str) -> list[str]:
    """``[testenv] deps`` lines (or those of ``key``: ``extras``, one name or several
    per line); factor-conditional lines where they select ``env``; substituted lines are
    skipped, but for the project's folder and tox 4's path separator
    (``-rdependencies{/}tests.in``)."""
    path = root / "tox.ini"
    if not path.is_file():
        return []
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError):
        return []
    raw = _referenced(parser, parser.get("testenv", key, fallback=""), 0)
    deps: list[str] = []
    for line in raw.splitlines():
        line = for_env(line.split("#", 1)[0], env) or ""
        line = line.replace("{/}", "/")  # tox 4's path separator
        line = line.replace("{toxinidir}/", "").replace("{toxinidir}", ".")
        if not line or "{" in line or line.startswith("-e"):
            continue
        if key == "extras":
            deps.extend(name.strip() for name in line.split(",") if name.strip())
        else:
            deps.append(line)
    return deps


# tox's reference to another section's value: ``{[test-requirements]deps}`` (scrapy's).
TOX_REFERENCE = re.compile(r"\{\[([^\]{}]+)\]([^{}]+)\}")
MAX_REFERENCE_DEPTH = 5


def _referenced(parser: configparser.ConfigParser, raw: str, depth: int) -> str:
    """``raw`` with tox's ``{[section]key}`` references replaced by the lines they name."""
    if depth >= MAX_REFERENCE_DEPTH:
        return raw
    return TOX_REFERENCE.sub(
        lambda m: _referenced(parser, parser.get(m[1], m[2].strip(), fallback=""), depth + 1), raw
    )


def declared_dependencies(root: Path, extras: list[str]) -> list[list[str]]:
    """The dependencies ``pyproject.toml`` declares (setup.py's cannot be read without running it)."""
    project = table(read_toml(root / "pyproject.toml"), "project")
    optional = table(project, "optional-dependencies")
    names = [
        *strings(project.get("dependencies")),
        *(d for e in extras for d in strings(optional.get(e))),
    ]
    return [[str(name)] for name in names]
