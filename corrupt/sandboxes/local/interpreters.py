"""The Python interpreters installed on this machine, and which of them a project supports.

A suite can be red on one interpreter and green on another: a bug of one
patch release (``inspect.signature`` of a slotted ``__call__`` on CPython
3.11.7, fixed in 3.11.9), a standard module a newer release removed
(``imp``, ``distutils``), a behaviour a test pins. A red baseline therefore
gets a chance on the other interpreters the project says it supports, newest
first (:mod:`corrupt.prepare`), and a user can ask for one (``--python``).

Interpreters are found where a user's machine has them, as uv finds them:
uv's own list (``uv python list --only-installed``: its managed Pythons and
those on PATH), every ``python3.X`` on PATH, and pyenv's versions
(``$PYENV_ROOT/versions``, which uv does not look into: pyenv's shims answer
only for the selected version). Each candidate is asked for its version and
its real executable by running it, so a shim, a venv or a link counts once,
as the interpreter it stands for. Only CPython 3.8 and newer counts: the
oldest uv and the test tools corrupt installs still support.

What a project supports comes from ``requires-python`` (``[project]``,
setup.cfg's ``python_requires``, a literal ``python_requires=`` in setup.py,
Poetry's ``python`` dependency) and, where the trove classifiers name minor
versions (``Programming Language :: Python :: 3.12``), those versions.
"""

from __future__ import annotations

import configparser
import functools
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from corrupt.repos.projectfiles import read_toml, strings, table
from corrupt.repos.uvtool import find_uv

OLDEST = (3, 8)
PROBE_TIMEOUT = 30.0
# Asks an interpreter what it is: version, implementation, the real executable
# behind a venv or a shim, its prefix, and the standard modules it has.
_PROBE = (
    "import json, os, sys\n"
    "print(json.dumps({'version': list(sys.version_info[:3]),"
    " 'implementation': sys.implementation.name,"
    " 'executable': os.path.realpath(getattr(sys, '_base_executable', None) or sys.executable),"
    " 'prefix': sys.base_prefix,"
    " 'stdlib': sorted(getattr(sys, 'stdlib_module_names', ()))}))\n"
)
_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?$")
_PYTHON_NAME = re.compile(r"^python3(\.\d+)?$")
_CLASSIFIER = re.compile(r"Programming Language :: Python :: (\d+)\.(\d+)\s*$")
_SETUP_PY_REQUIRES = re.compile(r"""python_requires\s*=\s*(['"])([^'"]+)\1""")
_SETUP_PY_CLASSIFIER = re.compile(r"""['"]Programming Language :: Python :: (\d+)\.(\d+)['"]""")


# When each minor version was released: the Pythons a commit of a date was tested on.
RELEASED = {
    (3, 6): "2016-12-23", (3, 7): "2018-06-27", (3, 8): "2019-10-14", (3, 9): "2020-10-05",
    (3, 10): "2021-10-04", (3, 11): "2022-10-24", (3, 12): "2023-10-02", (3, 13): "2024-10-07",
    (3, 14): "2025-10-07",
}  # fmt: skip


@dataclass(frozen=True)
class Interpreter:
    """One installed Python: its version, real executable and prefix (``sys.base_prefix``)."""

    version: tuple[int, int, int]
    executable: Path
    prefix: Path
    stdlib: frozenset[str] = frozenset()

    @property
    def label(self) -> str:
        """``3.13.0``: how a record names it."""
        return ".".join(map(str, self.version))

    @property
    def minor(self) -> tuple[int, int]:
        return (self.version[0], self.version[1])

    def __str__(self) -> str:
        return f"Python {self.label} ({self.executable})"


@functools.cache
def own_interpreter() -> Interpreter:
    """The interpreter corrupt runs on (its base, when corrupt runs in a venv)."""
    executable = Path(os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable))
    major, minor, micro = sys.version_info[:3]
    return Interpreter(
        (major, minor, micro),
        executable,
        Path(sys.base_prefix),
        frozenset(sys.stdlib_module_names),
    )


@functools.cache
def probe(path: str) -> Interpreter | None:
    """What the interpreter at ``path`` is, or None (not a CPython of 3.8 or newer, or broken)."""
    try:
        proc = subprocess.run(
            [path, "-I", "-c", _PROBE],
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT,
            stdin=subprocess.DEVNULL,
            cwd="/",
        )
        data = json.loads(proc.stdout) if proc.returncode == 0 else None
        version = tuple(int(part) for part in data["version"]) if data else ()
        if not data or data["implementation"] != "cpython" or len(version) != 3:
            return None
        found = Interpreter(
            (version[0], version[1], version[2]),
            Path(data["executable"]),
            Path(data["prefix"]),
            frozenset(data["stdlib"]),
        )
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError):
        return None
    return found if found.minor >= OLDEST and found.executable.is_file() else None


def _uv_listed() -> list[str]:
    """The paths ``uv python list --only-installed`` names (uv's managed Pythons, PATH's)."""
    uv = find_uv()
    if uv is None:
        return []
    try:
        proc = subprocess.run(
            [uv, "python", "list", "--only-installed", "--output-format", "json"],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            cwd="/",  # no project's uv settings steer it
            env=dict(os.environ, UV_NO_CONFIG="1", UV_OFFLINE="1"),
        )
        rows = json.loads(proc.stdout) if proc.returncode == 0 else []
    except (OSError, subprocess.SubprocessError, ValueError):
        return []
    return [str(row["path"]) for row in rows if isinstance(row, dict) and row.get("path")]


def _on_path() -> list[str]:
    """Every ``python3`` and ``python3.X`` in the folders of PATH."""
    found = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        try:
            names = sorted(os.listdir(folder or "."))
        except OSError:
            continue
        found += [os.path.join(folder, n) for n in names if _PYTHON_NAME.match(n)]
    return found


def _pyenv_versions() -> list[str]:
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    return [str(path) for path in sorted(root.glob("versions/*/bin/python3"))]


@functools.cache
def installed_interpreters() -> tuple[Interpreter, ...]:
    """Every CPython ≥ 3.8 on this machine, corrupt's own included, newest first; each once."""
    own = own_interpreter()
    found: dict[Path, Interpreter] = {own.executable: own}
    asked = {str(own.executable)}
    for path in [*_uv_listed(), *_on_path(), *_pyenv_versions()]:
        real = os.path.realpath(path)
        if real not in asked:
            asked.add(real)
            interpreter = probe(path)
            if interpreter is not None:
                found.setdefault(interpreter.executable, interpreter)
    return tuple(sorted(found.values(), key=lambda i: (i.version, str(i.executable)), reverse=True))


def find_interpreter(version: str) -> Interpreter | None:
    """The installed interpreter of ``version``: ``3.13.0`` exactly when there is one, else
    (or for ``3.13``) corrupt's own if it is a 3.13, else the newest 3.13."""
    match = _VERSION.match(version.strip())
    if match is None:
        return None
    minor = (int(match.group(1)), int(match.group(2)))
    fits = [i for i in installed_interpreters() if i.minor == minor]
    if match.group(3) is not None:
        exact = [i for i in fits if i.version[2] == int(match.group(3))]
        fits = exact or fits
    own = own_interpreter()
    return own if own in fits else next(iter(fits), None)


def valid_version(version: str) -> bool:
    return _VERSION.match(version.strip()) is not None


@dataclass(frozen=True)
class Support:
    """The Python versions a project says it supports."""

    requires: str | None = None  # requires-python as written
    specifier: SpecifierSet | None = None
    classified: frozenset[tuple[int, int]] = frozenset()  # minor versions the classifiers name

    def allows(self, interpreter: Interpreter) -> bool:
        if self.specifier is not None and not self.specifier.contains(
            interpreter.label, prereleases=True
        ):
            return False
        return not self.classified or interpreter.minor in self.classified

    def describe(self) -> str:
        parts = []
        if self.requires:
            parts.append(f"requires-python {self.requires}")
        if self.classified:
            minors = sorted(self.classified)
            first, last = (".".join(map(str, v)) for v in (minors[0], minors[-1]))
            parts.append(f"classifiers {first}" + (f" to {last}" if last != first else ""))
        return ", ".join(parts) or "no supported Python versions declared"


def declared_support(root: Path) -> Support:
    """What ``root``'s packaging files say about the Python versions it supports."""
    pyproject = read_toml(root / "pyproject.toml")
    project = table(pyproject, "project")
    requires = next(iter(strings(project.get("requires-python"))), None)
    classifiers = strings(project.get("classifiers"))
    poetry = table(pyproject, "tool", "poetry")
    if requires is None:
        requires = _poetry_range(
            next(iter(strings(table(poetry, "dependencies").get("python"))), "")
        )
    classifiers += strings(poetry.get("classifiers"))
    cfg = configparser.ConfigParser(interpolation=None)
    try:
        cfg.read(root / "setup.cfg", encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError):
        cfg = configparser.ConfigParser(interpolation=None)
    requires = requires or cfg.get("options", "python_requires", fallback="").strip() or None
    classifiers += cfg.get("metadata", "classifiers", fallback="").splitlines()
    minors = {
        (int(m.group(1)), int(m.group(2))) for c in classifiers if (m := _CLASSIFIER.search(c))
    }
    try:
        setup_py = (root / "setup.py").read_text(encoding="utf-8", errors="replace")
    except OSError:
        setup_py = ""
    if requires is None and (found := _SETUP_PY_REQUIRES.search(setup_py)):
        requires = found.group(2)
    minors |= {(int(a), int(b)) for a, b in _SETUP_PY_CLASSIFIER.findall(setup_py)}
    specifier = None
    if requires:
        try:
            specifier = SpecifierSet(requires.replace(" ", ""))
        except InvalidSpecifier:
            requires = None
    return Support(requires, specifier, frozenset(v for v in minors if v[0] == 3))


def _poetry_range(value: str) -> str | None:
    """Poetry's ``^3.8`` and ``~3.8`` as PEP 440 ranges; other forms as they are."""
    value = value.strip()
    match = re.fullmatch(r"([\^~])\s*(\d+)\.(\d+)(?:\.\d+)?", value)
    if match:
        major, minor = int(match.group(2)), int(match.group(3))
        upper = f"{major + 1}" if match.group(1) == "^" else f"{major}.{minor + 1}"
        return f">={major}.{minor},<{upper}"
    return value if value and value != "*" else None


def other_interpreters(
    root: Path, tried: Interpreter, *, needs_module: str | None = None, as_of: str | None = None
) -> list[Interpreter]:
    """The installed interpreters besides ``tried`` that ``root`` supports, newest first, one
    per minor version (its newest patch release; of ``tried``'s minor only a newer one).
    With ``needs_module``, only those whose standard library has that module. With
    ``as_of`` (a commit's date), those released by then come first, newest first: a
    commit of 2021 was tested on the Pythons of 2021 (one may call what 3.11 removed)."""
    support = declared_support(root)
    chosen: list[Interpreter] = []
    for interpreter in installed_interpreters():
        if interpreter.executable == tried.executable or interpreter.version == tried.version:
            continue
        if interpreter.minor == tried.minor and interpreter.version < tried.version:
            continue
        if any(c.minor == interpreter.minor for c in chosen) or not support.allows(interpreter):
            continue
        if needs_module is not None and needs_module not in interpreter.stdlib:
            continue
        chosen.append(interpreter)
    if as_of is not None:
        chosen.sort(key=lambda i: RELEASED.get(i.minor, "9999") > as_of[:10])  # stable
    return chosen


def which_interpreter(python: str | None) -> Interpreter:
    """The interpreter a checkout's ``python`` record names (None: corrupt's own); raises
    ``LookupError`` when it is not installed here."""
    if python is None:
        return own_interpreter()
    found = find_interpreter(python)
    if found is None:
        raise LookupError(python)
    return found


def interpreter_hint(version: str) -> str:
    """How a user installs ``version``."""
    return f"install it (uv python install {version}, pyenv install {version}, or the system's package)"
