"""What to install when the suite's collection stops on a module that is not there.

A project can need a test dependency it declares nowhere intake reads (a
``conftest.py`` importing ``hypothesis`` that only a CI image has, a plugin a
developer has installed by hand). Collection then fails with
``ModuleNotFoundError: No module named 'x'``. The environment build reads
those names from the collection output (:func:`missing_modules`) and installs
the distribution that provides each (:func:`distribution_for`), a few rounds at
most. Two rules keep it from installing anything at random: the module must be
imported by a file of the project (:func:`imported_by_project`), and the
distribution is the one a project file names for it when one does; otherwise
the module's own name, or the name it is published under when that differs
(``yaml`` is PyYAML), from a short table of such cases.

Pure functions of text and the project's files: nothing here installs.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from packaging.utils import canonicalize_name

# A word where a file names a dependency, and what follows a key (``=``, ``":``).
NAMED = re.compile(r"(?<![\w.-])([A-Za-z0-9][A-Za-z0-9._-]*)(?![\w.-])")
KEY = re.compile(r"\s*=(?!=)|[\"']?\s*:")
MISSING = re.compile(r"ModuleNotFoundError: No module named '(?P<name>[\w.]+)'")
# Import names published under another distribution name (the common cases).
PUBLISHED_AS = {
    "yaml": "PyYAML",
    "PIL": "Pillow",
    "dateutil": "python-dateutil",
    "bs4": "beautifulsoup4",
    "attr": "attrs",
    "OpenSSL": "pyOpenSSL",
    "jwt": "PyJWT",
    "serial": "pyserial",
    "dotenv": "python-dotenv",
    "multipart": "python-multipart",
    "git": "GitPython",
    "sklearn": "scikit-learn",
    "Crypto": "pycryptodome",
    "pkg_resources": "setuptools",
    "google.protobuf": "protobuf",
    "magic": "python-magic",
    "socks": "PySocks",
    "xdist": "pytest-xdist",
}
# Modules their distribution stopped shipping -> the releases that still have them.
# setuptools 82 (2026-02) dropped ``pkg_resources``, which older suites and packages
# import (dynaconf's Flask extension): the setuptools a project names would not bring it.
LAST_SHIPPED_IN = {"pkg_resources": "setuptools<82"}
# Files where a project names its dependencies (the distribution name is looked up here).
NAMING_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "noxfile.py",
                "Makefile", "environment.yml", "Pipfile")  # fmt: skip
SKIPPED_FOLDERS = frozenset({".git", ".tox", ".nox", ".venv", "venv", "node_modules", "build"})
MAX_FILES = 5000
TEST_FILES = ("test_*.py", "*_test.py", "tests.py", "conftest.py")


def missing_modules(output: str) -> list[str]:
    """The top-level modules collection could not import, in order of first mention."""
    return list(dict.fromkeys(m["name"].split(".")[0] for m in MISSING.finditer(output)))


def imported_by_project(root: Path, module: str) -> bool:
    """A Python file of the project imports ``module``, and the project does not hold it
    itself anywhere (a helper module the tests could not import is no dependency)."""
    if _held(root, module):
        return False
    pattern = re.compile(rf"^\s*(?:from\s+{re.escape(module)}[\s.]|import\s+{re.escape(module)}\b)",
                         re.MULTILINE)  # fmt: skip
    return any(pattern.search(text) for text in _python_texts(root))


def _held(root: Path, module: str) -> bool:
    """The project has a module or package of that name that imports as a top-level name."""
    return module in top_level_names(root)


def top_level_names(root: Path) -> set[str]:
    """Modules and packages of the project that import as top-level names: somewhere in
    its tree, in a folder that is no package itself (pytest puts such folders on the
    path). ``uvicorn/protocols/websockets/`` is ``uvicorn.protocols.websockets`` and
    holds no ``websockets``. One walk of the tree, whatever the number of names asked."""
    names = set()
    for path in _project_paths(root, "*.py"):
        if path.name == "__init__.py":
            path = path.parent  # the package
        if not (path.parent / "__init__.py").is_file():
            names.add(path.stem if path.suffix == ".py" else path.name)
    return names


def distribution_for(root: Path, module: str) -> str:
    """The distribution to install for ``module``: the name a project file gives it
    (``pytest_mock`` -> ``pytest-mock`` when setup.py says so), else the published name;
    a module its distribution no longer ships comes with the releases that have it."""
    return (
        LAST_SHIPPED_IN.get(module)
        or named_distribution(root, module)
        or PUBLISHED_AS.get(module)
        or module.replace("_", "-")
    )


def named_distribution(root: Path, module: str) -> str | None:
    """The distribution providing ``module`` as a file where the project names its
    dependencies spells it; None when none names it.

    In order: the name spelled as a requirement; ``Py`` or ``python-`` and the name
    (the common spellings: PyICU provides ``icu``, python-ulid ``ulid``, where the
    index's ``ulid`` is another project); the name spelled as a key,
    which is a dependency in Poetry's and Pipfile's tables (``hypothesis = "^6"``)
    but only an extra's name in ``icu = ["PyICU"]``, so it comes last."""
    wanted = {_squashed(module), _squashed(PUBLISHED_AS.get(module, module))}
    found: dict[str, str] = {}
    for text in _naming_texts(root):
        for match in NAMED.finditer(text):
            word, squashed = match.group(1), _squashed(match.group(1))
            if squashed in wanted:
                rank = "key" if KEY.match(text, match.end()) else "named"
            else:
                prefixed = squashed in ("py" + _squashed(module), "python" + _squashed(module))
                rank = "prefixed" if prefixed else ""
            if rank:
                found.setdefault(rank, word)
    return next((found[r] for r in ("named", "prefixed", "key") if r in found), None)


def imported_in_tests(root: Path) -> list[str]:
    """Top-level modules the test files import anywhere in them (inside a test function
    too, where collection does not reach), that the project does not hold; stdlib included
    (the caller asks the environment what it lacks). A module a test file loads with
    ``pytest.importorskip`` is left out: the tests say they skip without it (urllib3's
    pytest-pyodide, whose pytest-asyncio would turn the whole suite red). So is one
    imported only under ``try:`` with an ``except ImportError``: the tests say they do
    without it (``try: import unittest2 as unittest`` falls back to ``unittest``, and
    unittest2 does not import on today's Python)."""
    found: dict[str, None] = {}
    optional: set[str] = set()
    for pattern in TEST_FILES:
        for path in _project_paths(root, pattern):
            try:
                tree = ast.parse(_read(path))
            except (SyntaxError, ValueError):
                continue
            guarded = _guarded_imports(tree)
            for node in ast.walk(tree):
                if modules := _imported(node):
                    if id(node) not in guarded:
                        found.update(dict.fromkeys(modules))
                elif (skipped := _importorskip(node)) is not None:
                    optional.add(skipped.split(".")[0])
    held = top_level_names(root)
    return [m for m in found if m not in held and m not in optional]


def _imported(node: ast.AST) -> list[str]:
    """The top-level modules an import statement names (none for anything else)."""
    if isinstance(node, ast.Import):
        return [alias.name.split(".")[0] for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module.split(".")[0]]
    return []


def _guarded_imports(tree: ast.AST) -> set[int]:
    """The ids of the import statements in the body of a ``try:`` whose handlers catch
    ImportError (or ModuleNotFoundError)."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(_catches_import_error(h) for h in node.handlers):
            guarded.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    return guarded


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    caught = handler.type
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return any(
        isinstance(name, ast.Name) and name.id in ("ImportError", "ModuleNotFoundError")
        for name in names
    )


def _importorskip(node: ast.AST) -> str | None:
    """The module ``pytest.importorskip("name")`` (or a bare ``importorskip``) names."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    first = node.args[0]
    if name == "importorskip" and isinstance(first, ast.Constant):
        return first.value if isinstance(first.value, str) else None
    return None


def _squashed(name: str) -> str:
    """A name compared without case or separators: ``pytest_lazyfixture`` is
    ``pytest-lazy-fixture``, as the module and the distribution name it."""
    return canonicalize_name(name).replace("-", "")


def _naming_texts(root: Path) -> list[str]:
    paths = [root / name for name in NAMING_FILES]
    for folder in (root, root / "requirements", root / "tests", root / "test"):
        if folder.is_dir():
            paths += sorted(folder.glob("*.txt"))
    return [text for path in paths if (text := _read(path))]


def _python_texts(root: Path) -> list[str]:
    return [_read(path) for path in _project_paths(root, "*.py")]


def _project_paths(root: Path, pattern: str) -> list[Path]:
    """Files under ``root`` matching ``pattern`` (at any depth), outside tool folders; a bound
    on how many."""
    found: list[Path] = []
    for path in sorted(root.rglob(pattern)):
        if len(found) >= MAX_FILES:
            break
        if SKIPPED_FOLDERS.isdisjoint(path.relative_to(root).parts):
            found.append(path)
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    except OSError:
        return ""
