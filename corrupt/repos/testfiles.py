"""Files pytest would collect by their names that hold no tests: scripts, and linter runs.

pytest imports every file its name pattern matches below the test paths. Some
are programs, not test modules (a harness's helper that reads stdin at
import), and some test modules only run a linter or type checker over the
code. The test plan ``--ignore``s both; this module finds them, reading each
candidate's text and syntax tree without importing it.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from collections.abc import Iterator
from pathlib import Path

from corrupt.repos.projectfiles import read_text, strings
from corrupt.repos.pytestconfig import addopts, pytest_ini

DEFAULT_PYTHON_FILES = ("test_*.py", "*_test.py")
NOT_SEARCHED = frozenset(
    {".git", ".hg", ".tox", ".nox", ".venv", "venv", "node_modules", "build", "dist",
     "__pycache__", "site-packages"}
)  # fmt: skip
MAX_SCRIPT_SCAN = 5000  # files matching the pattern: past that, the tree is left as it is
# A test module named for a style or type check, and a linter it runs (a subprocess
# argument or an API import).
LINTER_TEST_NAME = re.compile(
    r"^test_?(code_?style|style|lint|linting|linters|flake8|mypy|pep8|pycodestyle|pylint"
    r"|typing_check|type_check|typecheck|isort|black|ruff|format|formatting)\.py$"
)
LINTER_RUN = re.compile(
    r"""["'](mypy|flake8|pycodestyle|pylint|ruff|black|isort|pydocstyle)["']"""
    r"|^\s*(?:from|import)\s+(mypy\.api|flake8\.api|pycodestyle|pylint\.lint)\b",
    re.MULTILINE,
)


def scripts_named_like_tests(root: Path, options: list[str], paths: list[str]) -> list[str]:
    """The files pytest would collect by name that are scripts, not tests (to ``--ignore``),
    when it runs with the plan's ``options`` and ``paths``.

    A harness's helper such as ``tests/encoding_test.py`` (a program that reads
    stdin at import, for an external test runner) matches ``*_test.py``; pytest
    imports it, and its import fails or blocks. A file counts as a script only
    when it cannot hold a test: no function named like one, no class at all (a
    TestCase may have any name), nothing imported or assigned under a test's
    name, no star import; and when it runs code at import. Doctest runs collect
    every module, so they keep them all.
    """
    words = [*addopts(root), *options]
    if any(w.startswith("--doctest-modules") for w in words):
        return []
    functions = _option_values(words, "python_functions") or _ini_words(root, "python_functions")
    prefixes = tuple(functions) if functions else ("test",)
    return [
        path.relative_to(root).as_posix()
        for path in _collected_files(root, options, paths)
        if _is_script(path, prefixes)
    ]


def linter_tests(root: Path, options: list[str], paths: list[str]) -> list[str]:
    """The test modules (to ``--ignore``) that run a linter or type checker over the code
    (``tests/test_codestyle.py`` calling ``mypy`` in a subprocess): like the linter
    plugins (suiteargs.LINTERS_OFF) they check style and types, not behaviour, they go
    red when the linter's next release finds something new, and they are slow.
    A module counts only when its name says so and its text runs one."""
    return [
        path.relative_to(root).as_posix()
        for path in _collected_files(root, options, paths)
        if LINTER_TEST_NAME.match(path.name) and LINTER_RUN.search(read_text(path) or "")
    ]


def _collected_files(root: Path, options: list[str], paths: list[str]) -> Iterator[Path]:
    """The files pytest would collect by name (at most MAX_SCRIPT_SCAN of them)."""
    patterns = python_files(root, options)
    starts = [root / p for p in paths if "::" not in p] or [
        root / p for p in _ini_words(root, "testpaths")
    ]
    seen = 0
    for start in starts or [root]:
        for path in _named_like_tests(start, patterns):
            seen += 1
            if seen > MAX_SCRIPT_SCAN:
                return
            yield path


def python_files(root: Path, options: list[str]) -> list[str]:
    """pytest's ``python_files`` patterns for a run with ``options``: theirs, else the ini's,
    else pytest's default."""
    words = [*addopts(root), *options]
    found = _option_values(words, "python_files") or _ini_words(root, "python_files")
    return found or list(DEFAULT_PYTHON_FILES)


def collected_by_name(file: str, patterns: list[str]) -> bool:
    """Whether pytest's Python collector takes ``file`` (relative to the tree) for a test
    module by its name, under ``patterns`` (:func:`python_files`).

    Given on the command line, a ``.py`` file is imported as a test module whatever
    its name; found in a folder, only when its name matches. A conftest that
    collects example files as data (pygments' ``tests/examplefiles/*/*.py``,
    Python 2 among them) has tests that a run selecting them by file would break
    on importing them."""
    path = Path(file).as_posix()
    for pattern in patterns:
        if "/" in pattern:  # as pytest's fnmatch_ex: a pattern with a folder matches the path
            if fnmatch.fnmatch(path, f"*/{pattern}") or fnmatch.fnmatch(path, pattern):
                return True
        elif fnmatch.fnmatch(Path(file).name, pattern):
            return True
    return False


def _option_values(words: list[str], key: str) -> list[str]:
    """The values ``-o key=...`` / ``--override-ini=key=...`` give, split on spaces."""
    found: list[str] = []
    for i, word in enumerate(words):
        value = words[i + 1] if word == "-o" and i + 1 < len(words) else None
        if word.startswith("--override-ini="):
            value = word.split("=", 1)[1]
        if value is not None and value.startswith(f"{key}="):
            found = value.split("=", 1)[1].split()
    return found


def _ini_words(root: Path, key: str) -> list[str]:
    value = pytest_ini(root).get(key)
    return value.split() if isinstance(value, str) else strings(value)


def _named_like_tests(start: Path, patterns: list[str]) -> Iterator[Path]:
    if start.is_file():
        if start.suffix == ".py":
            yield start
        return
    if not start.is_dir() or start.is_symlink():
        return
    for entry in sorted(start.iterdir()):
        if entry.is_symlink():
            continue
        if entry.is_dir():
            if entry.name not in NOT_SEARCHED and not entry.name.startswith("."):
                yield from _named_like_tests(entry, patterns)
        elif entry.name not in ("conftest.py", "__init__.py") and any(
            fnmatch.fnmatch(entry.name, p) for p in patterns
        ):
            yield entry


def _is_script(path: Path, prefixes: tuple[str, ...]) -> bool:
    text = read_text(path)
    if text is None:
        return False
    alternatives = "|".join(re.escape(p) for p in prefixes)
    if re.search(rf"^\s*(?:class\s|(?:async\s+)?def\s+(?:{alternatives}))", text, re.MULTILINE):
        return False  # a class or a test function somewhere: quick answer, no parse
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return False  # pytest reports it; a broken test file must stay red
    if _may_define_tests(tree.body, prefixes):
        return False
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Import | ast.ImportFrom):
            continue
        if _is_main_guard(node) or _is_docstring(node):
            continue
        targets = _assigned_names(node)
        if not targets or any(isinstance(n, ast.Call) for n in ast.walk(node)):
            return True  # code that runs at import
    return False


def _may_define_tests(body: list[ast.stmt], prefixes: tuple[str, ...]) -> bool:
    """Whether module-level ``body`` (conditional blocks included) may define a test: a
    function named like one, any class, a test's name imported or assigned, a star import,
    a class imported from its own package (Fixit's ``fixit.tests`` gathers its TestCases so)."""
    for node in body:
        if isinstance(node, ast.ClassDef):
            return True
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name.startswith(prefixes):
                return True
            continue
        if isinstance(node, ast.ImportFrom) and node.level and node.names[0].name[:1].isupper():
            return True  # classes from its own package: TestCases, whatever their names
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.asname or a.name for a in node.names]
        else:
            names = _assigned_names(node)
        if any(n == "*" or n.startswith(prefixes) or n.startswith("Test") for n in names):
            return True
        if _is_main_guard(node):
            continue
        if _may_define_tests(_blocks(node), prefixes):
            return True
    return False


def _blocks(node: ast.stmt) -> list[ast.stmt]:
    """The statements of a compound statement's blocks (``if``, ``try``, ``with``, loops,
    ``match``), not of a function's or class's body."""
    inner: list[ast.stmt] = []
    for name in ("body", "orelse", "finalbody"):
        block = getattr(node, name, None)
        if isinstance(block, list):
            inner += [x for x in block if isinstance(x, ast.stmt)]
    for name in ("handlers", "cases"):  # except clauses, match cases: not statements
        for part in getattr(node, name, None) or []:
            inner += [x for x in getattr(part, "body", []) if isinstance(x, ast.stmt)]
    return inner


def _assigned_names(node: ast.stmt) -> list[str]:
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _is_main_guard(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
    )


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
