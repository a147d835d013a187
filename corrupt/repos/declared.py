"""Test dependencies declared in tools' own tables: Poetry's and PDM's.

PEP 621 extras and PEP 735 groups are read by :mod:`installplan`; Poetry
(``[tool.poetry.dev-dependencies]``, ``[tool.poetry.group.<name>.dependencies]``)
and PDM (``[tool.pdm.dev-dependencies]``) keep theirs in tables of their own,
which no build backend turns into metadata, so a suite that needs them dies at
collection with ``ModuleNotFoundError`` unless intake reads them here. Poetry
writes versions in its own syntax (``^1.2``, ``~1.2``, a table with
``version``/``extras``/``markers``): they are turned into PEP 508 requirement
strings; a git or path dependency keeps only its name (the package index is
asked for it, like any other unfetchable URL).

Pure functions of the project's files: nothing here runs or installs anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from packaging.markers import InvalidMarker, Marker, UndefinedComparison, UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from corrupt.repos.projectfiles import read_toml, strings, table

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def poetry_groups(pyproject: dict[str, Any]) -> dict[str, list[str]]:
    """Poetry's dependency groups as PEP 508 strings: ``dev-dependencies`` is group ``dev``."""
    poetry = table(pyproject, "tool", "poetry")
    groups = {
        name: _poetry_requirements(table(group, "dependencies"))
        for name, group in table(poetry, "group").items()
    }
    legacy = _poetry_requirements(table(poetry, "dev-dependencies"))
    if legacy:
        groups["dev"] = [*groups.get("dev", []), *legacy]
    return groups


def pdm_groups(pyproject: dict[str, Any]) -> dict[str, list[str]]:
    """PDM's ``[tool.pdm.dev-dependencies]`` groups (already PEP 508; ``-e`` lines left out)."""
    return {
        name: [s for s in strings(value) if not s.startswith("-")]
        for name, value in table(pyproject, "tool", "pdm", "dev-dependencies").items()
    }


def _poetry_requirements(deps: dict[str, Any]) -> list[str]:
    found = []
    for name, spec in deps.items():
        if name.lower() == "python" or not _NAME.match(name):
            continue
        requirement = _poetry_requirement(name, spec)
        if requirement is not None:
            found.append(requirement)
    return found


def _poetry_requirement(name: str, spec: object) -> str | None:
    """One Poetry dependency as a PEP 508 string; None when it cannot be one."""
    if isinstance(spec, list):  # several constraints by Python version: any is worth a try
        return _poetry_requirement(name, spec[0]) if spec else name
    extras: list[str] = []
    marker = ""
    if isinstance(spec, dict):
        extras = [e for e in strings(spec.get("extras")) if _NAME.match(e)]
        markers = spec.get("markers")
        marker = markers if isinstance(markers, str) else ""
        spec = spec.get("version", "*")
    if not isinstance(spec, str):
        return None
    text = name + (f"[{','.join(extras)}]" if extras else "") + poetry_specifier(spec)
    if marker:
        text += f"; {marker}"
    try:
        return str(Requirement(text))
    except InvalidRequirement:
        return name + (f"[{','.join(extras)}]" if extras else "")


def poetry_specifier(constraint: str) -> str:
    """Poetry's version constraint as a PEP 440 specifier (``""`` for any version).

    ``^1.2.3`` is ``>=1.2.3,<2.0.0`` (the left-most non-zero part may not grow),
    ``~1.2`` is ``>=1.2,<1.3``, ``1.2.*`` and comparisons are PEP 440 already,
    and a bare version is an exact pin. A constraint that is none of these
    (``||`` alternatives) is dropped: any version beats no install.
    """
    parts = [p.strip() for p in constraint.split(",") if p.strip()]
    if not parts or "||" in constraint or "|" in constraint:
        return ""
    out = []
    for part in parts:
        converted = _convert(part)
        if converted is None:
            return ""
        out.extend(converted)
    return ",".join(s for s in out if s)


def _convert(part: str) -> list[str] | None:
    part = part.replace(" ", "")
    if part in ("*", ""):
        return [""]
    for prefix, bound in (("^", _caret_bound), ("~=", None), ("~", _tilde_bound)):
        if part.startswith(prefix):
            if bound is None:
                return [part]
            return _bounded(part[len(prefix) :], bound)
    if part[0] in "<>=!":
        return [part]
    if part.endswith(".*"):
        return [f"=={part}"]
    return [f"=={part}"] if _is_version(part) else None


def _bounded(text: str, bound: Callable[[list[int]], list[int]]) -> list[str] | None:
    if not _is_version(text):
        return None
    release = list(Version(text).release)
    upper = bound(release)
    return [f">={text}", "<" + ".".join(map(str, upper))]


def _caret_bound(release: list[int]) -> list[int]:
    """``^`` lets every part right of the left-most non-zero one grow."""
    for i, value in enumerate(release):
        if value != 0:
            return [*release[:i], value + 1]
    return [*release[:-1], release[-1] + 1]


def _tilde_bound(release: list[int]) -> list[int]:
    """``~1.2.3`` and ``~1.2`` allow patch releases, ``~1`` minor ones."""
    if len(release) == 1:
        return [release[0] + 1]
    return [release[0], release[1] + 1]


def _is_version(text: str) -> bool:
    try:
        Version(text)
    except InvalidVersion:
        return False
    return True


def poetry_locked(root: Path) -> list[str]:
    """``name==version`` for what ``root/poetry.lock`` pins of the project's own
    dependencies (``[tool.poetry.dependencies]``, ``[project] dependencies``) and theirs,
    followed through the lock's dependency lists: the versions the project tests with, as
    a ``uv.lock``'s are. Test tools come as the test groups declare them (an old pinned
    coverage.py would not serve corrupt's own run). Left out: optional dependencies, a
    package whose ``markers`` this platform does not take, and one the lock pins twice
    (per Python version: which one applies is the resolver's to say). Empty without a
    lock or with one that cannot be read."""
    packages = read_toml(root / "poetry.lock").get("package")
    locked: dict[str, list[dict[str, Any]]] = {}
    for package in packages if isinstance(packages, list) else []:
        if isinstance(package, dict) and isinstance(package.get("name"), str):
            locked.setdefault(canonicalize_name(package["name"]), []).append(package)
    pyproject = read_toml(root / "pyproject.toml")
    wanted: list[str | None] = [
        n for n in table(pyproject, "tool", "poetry", "dependencies") if n != "python"
    ]
    wanted += [
        _requirement_name(r) for r in strings(table(pyproject, "project").get("dependencies"))
    ]
    pins: list[str] = []
    seen: set[str] = set()
    while wanted:
        name = canonicalize_name(wanted.pop(0) or "-")
        if name in seen or len(locked.get(name, ())) != 1:
            continue
        seen.add(name)
        package = locked[name][0]
        pin = _pin(package)
        if pin is None:
            continue
        pins.append(pin)
        needs = table(package, "dependencies")
        wanted += [
            d for d, spec in needs.items() if not (isinstance(spec, dict) and spec.get("optional"))
        ]
    return pins


def _pin(package: dict[str, Any]) -> str | None:
    """``name==version`` for a lock entry this platform installs, else None."""
    name, version, markers = package.get("name"), package.get("version"), package.get("markers")
    if package.get("optional") is True or not isinstance(version, str):
        return None
    try:
        Version(version)
        if isinstance(markers, str) and not Marker(markers).evaluate():
            return None
    except (InvalidVersion, InvalidMarker, UndefinedComparison, UndefinedEnvironmentName):
        return None
    return f"{name}=={version}" if isinstance(name, str) and _NAME.match(name) else None


def _requirement_name(text: str) -> str | None:
    try:
        return Requirement(text).name
    except InvalidRequirement:
        return None
