"""One test command read as the pytest run it is: pytest's, unittest's, nose2's, stestr's,
Django's.

A command line from CI or a runner configuration is a test run when it calls
pytest (also under ``coverage run``), unittest (discovery, named modules, a
test module run as a script) or a runner built on unittest (nose2, stestr,
Django's ``manage.py test``, run through pytest-django).
Each is turned into the pytest options and paths that run the same tests:
the options that choose tests are kept, reporting ones dropped, and
unittest's discovery becomes pytest's unittest support with unittest's file
pattern.
"""

from __future__ import annotations

import ast
import os
import re
from itertools import islice
from pathlib import Path

from corrupt.repos.projectfiles import read_text
from corrupt.repos.pytestconfig import SKIPPED_WITH_VALUE, ini_section
from corrupt.repos.testfiles import DEFAULT_PYTHON_FILES, collected_by_name

MAX_SCANNED = 5000  # Python files looked at for a test module under one named folder

# pytest options that decide *which* tests run or how they are collected: kept.
# The value says whether the option takes an argument.
KEPT_OPTIONS = {
    "-m": True,
    "-k": True,
    "--ignore": True,
    "--ignore-glob": True,
    "--deselect": True,
    "--doctest-modules": False,
    "--doctest-glob": True,
    "--doctest-continue-on-failure": False,
    "--import-mode": True,
    "--pyargs": False,
    "--strict-markers": False,
    "--confcutdir": True,
    "--rootdir": True,
    "-c": True,
    "--config-file": True,
    "--asyncio-mode": True,  # pytest-asyncio's, added to the needs when used
    "--ds": True,  # pytest-django's settings (and django-configurations' class), the same
    "--dc": True,
}


def pytest_args(words: list[str]) -> list[str] | None:
    """The arguments of a pytest run (``pytest``, ``python -m pytest``, ``coverage run -m pytest``)."""
    head = Path(words[0]).name
    if head in ("pytest", "py.test"):
        return words[1:]
    if words[:3] == ["python", "-m", "pytest"]:
        return words[3:]
    coverage = _after_coverage_run(words)
    if coverage is not None and coverage[:2] == ["-m", "pytest"]:
        return coverage[2:]
    return None


# A script that hands its own arguments to pytest (luigi's ``test/runtests.py``).
PYTEST_MAIN_ARGV = re.compile(r"pytest\.main\(\s*(?:args\s*=\s*)?sys\.argv\[1:\]")


def pytest_script_args(root: Path, words: list[str]) -> list[str] | None:
    """The arguments of ``python SCRIPT ARGS`` where the tree's script runs
    ``pytest.main(sys.argv[1:])``: they are pytest's. luigi's tox runs
    ``test/runtests.py -m "not minicluster and ..."``, a pytest run with a warnings filter."""
    if words[:1] != ["python"] or len(words) < 2 or not words[1].endswith(".py"):
        return None
    script = words[1].removeprefix("./")
    if not is_test_path(root, script) or not (root / script).is_file():
        return None
    return words[2:] if PYTEST_MAIN_ARGV.search(read_text(root / script) or "") else None


def unittest_args(words: list[str]) -> list[str] | None:
    if words[:3] == ["python", "-m", "unittest"]:
        return words[3:]
    coverage = _after_coverage_run(words)
    if coverage is not None and coverage[:2] == ["-m", "unittest"]:
        return coverage[2:]
    if words[:3] == ["python", "setup.py", "test"]:
        return []
    script = coverage[:1] if coverage is not None else words[1:2] if words[0] == "python" else []
    if script and TEST_SCRIPT.search(script[0]):
        return script  # a test module run as a script (under coverage too): its unittest.main()
    return None


TEST_SCRIPT = re.compile(r"(^|/)(test_\w*|tests?|\w*_tests?)\.py$")


def as_unittest(root: Path, words: list[str]) -> list[str]:
    """The runners built on unittest as the unittest discovery they do: ``stestr run``
    (OpenStack's, common with pbr) of ``.stestr.conf``'s ``test_path``, and nose2 (under
    coverage too) of its ``-s`` folder. Any other command comes back as it was."""
    if words[:2] == ["stestr", "run"] or words[:4] == ["python", "-m", "stestr", "run"]:
        conf = ini_section(root / ".stestr.conf", "DEFAULT")
        start = str(conf.get("test_path", ".")).strip().removeprefix("./") or "."
        return ["python", "-m", "unittest", "discover", "-s", start]
    nose2 = nose2_args(words)
    if nose2 is None:
        return words
    start = "."
    for i, word in enumerate(nose2):
        if word in ("-s", "--start-dir") and i + 1 < len(nose2):
            start = nose2[i + 1].strip().removeprefix("./") or "."
    return ["python", "-m", "unittest", "discover", "-s", start]


def module_runner_path(root: Path, words: list[str]) -> str | None:
    """What pytest runs for ``python -m PKG.test``, when the project runs its tests by a
    module of its own (tornado's ``tornado.test``, whose ``__main__`` drives unittest over
    its ``*_test.py``): the test package (or a module's package) with "test" in its dotted
    name, in the tree or under ``src``: its folder, when it holds files pytest collects by
    name (its ``__main__`` may run them all), else its suite as :func:`package_suite`
    finds it (Fixit's). None otherwise. Under coverage too (aiosqlite's ``python -m
    coverage run -m aiosqlite.tests``)."""
    coverage = _after_coverage_run(words) if words else None
    words = ["python", *coverage] if coverage is not None else words
    if words[:2] != ["python", "-m"] or len(words) < 3 or "test" not in words[2].lower():
        return None
    if words[2].split(".")[0] in ("pytest", "unittest", "nose2", "django", "stestr", "tox"):
        return None
    dotted = words[2].replace(".", "/")
    for base in (".", "src"):
        folder = Path(base, dotted).as_posix().removeprefix("./")
        if not (root / folder / "__init__.py").is_file():
            if not (root / f"{folder}.py").is_file():
                continue
            folder = str(Path(folder).parent)
        patterns = list(DEFAULT_PYTHON_FILES)
        # its __main__ decides what runs: the files pytest collects by name, if any
        if folder != "." and (found := _collected_in(root, folder, patterns)):
            return found
        if folder != "." and (suite := package_suite(root, folder, patterns)):
            return suite
    return None


# A package's ``__init__.py`` that holds its tests: TestCases defined there or imported
# from its modules.
SUITE_IN_INIT = re.compile(r"\bTestCase\b|^from \.\w+ import ", re.M)


def package_suite(root: Path, folder: str, patterns: list[str]) -> str | None:
    """A test package as pytest runs it. Its ``__init__.py`` when the tests are there, as
    unittest loads a package it is named, unless a ``load_tests`` there discovers more
    (pdoc's ``pdoc.test`` defines its TestCases in it, Fixit's ``fixit.tests`` imports
    them from modules named ``config.py``, ``engine.py``); given on the command line,
    pytest collects that file alone. Else the folder, when it holds files named as
    ``patterns`` collect; else None."""
    init = root / folder / "__init__.py"
    text = (read_text(init) if init.is_file() else None) or ""
    if SUITE_IN_INIT.search(text) and "def load_tests" not in text:
        return f"{folder}/__init__.py"
    return _collected_in(root, folder, patterns)


def _collected_in(root: Path, folder: str, patterns: list[str]) -> str | None:
    """``folder``, when it holds files named as ``patterns`` collect."""
    found = (f.relative_to(root).as_posix() for f in (root / folder).rglob("*.py"))
    return (
        folder if any(collected_by_name(f, patterns) for f in islice(found, MAX_SCANNED)) else None
    )


def nose2_args(words: list[str]) -> list[str] | None:
    """The arguments of a nose2 run (``nose2``, ``python -m nose2``, under coverage)."""
    words = _after_coverage_run(words) or words
    if words[:1] == ["nose2"] or (words[:1] == ["python"] and words[1:3] == ["-m", "nose2"]):
        return words[1:] if words[0] == "nose2" else words[3:]
    if words[:2] == ["-m", "nose2"]:
        return words[2:]
    return None


def django_args(root: Path, words: list[str]) -> tuple[list[str], str] | None:
    """The arguments of Django's test command (``python -m django test``, ``django-admin
    test``, ``python manage.py test``, under coverage too) and the script whose default
    ``DJANGO_SETTINGS_MODULE`` applies, or None. A script of the tree that sets that
    default and runs Django's tests itself (django-filter's ``./runtests.py``, which calls
    ``execute_from_command_line`` with ``test`` and its arguments; the ``get_runner``
    scripts of Django's own guide) counts as ``manage.py test``."""
    words = _after_coverage_run(words) or words
    if words[:1] == ["python"]:
        words = words[1:]
    script = "manage.py"
    if words[:2] == ["-m", "django"] or words[:1] == ["django-admin"]:
        rest = words[2:] if words[0] == "-m" else words[1:]
    elif words[:1] and Path(words[0]).name == "manage.py":
        rest, script = words[1:], words[0].removeprefix("./")
    elif words[:1] and words[0].endswith(".py") and _runs_django_tests(root, words[0]):
        return words[1:], words[0].removeprefix("./")
    else:
        return None
    return (rest[1:], script) if rest[:1] == ["test"] else None


# A script that runs Django's test runner itself.
DJANGO_RUNNER = re.compile(
    r"execute_from_command_line|get_runner\(|call_command\(\s*[\"']test[\"']"
)


def _runs_django_tests(root: Path, script: str) -> bool:
    if not is_test_path(root, script) or not (root / script).is_file():
        return False
    text = read_text(root / script) or ""
    return DJANGO_RUNNER.search(text) is not None and SETTINGS_DEFAULT.search(text) is not None


# Django's test options that take a value (``--settings tests.settings``), so that the
# value is not read as a test label.
DJANGO_VALUED = {"--settings", "--pythonpath", "--testrunner", "-t", "--top-level-directory",
                 "--tag", "--exclude-tag", "-k", "-v", "--verbosity"}  # fmt: skip
# ``os.environ.setdefault("DJANGO_SETTINGS_MODULE", "x")`` or ``os.environ[...] = "x"``
SETTINGS_DEFAULT = re.compile(r"""DJANGO_SETTINGS_MODULE["']\s*(?:,|\]\s*=)\s*["']([\w.]+)["']""")


def django_to_pytest(
    root: Path, args: list[str], script: str = "manage.py"
) -> tuple[list[str], list[str]]:
    """Django's test command as the pytest run that runs the same tests: pytest-django
    (:data:`DJANGO_PLUGIN`, installed for it) with the settings the command names, else
    those ``script`` (``manage.py``) defaults to, and unittest's TestCase discovery with Django's
    file pattern (``test*.py``: django-widget-tweaks keeps its tests in ``tests/tests.py``)."""
    settings, pattern, labels = None, "test*.py", []
    i = 0
    while i < len(args):
        word, value = args[i].partition("=")[::2]
        # ``--parallel``'s optional number is read as a label, which names no test file
        if (word in DJANGO_VALUED or word in ("-p", "--pattern")) and not value:
            value, i = (args[i + 1] if i + 1 < len(args) else ""), i + 1
        if word == "--settings":
            settings = value
        elif word in ("-p", "--pattern"):
            pattern = value
        elif not word.startswith("-"):
            labels.append(word)
        i += 1
    defaults = root / script
    if settings is None and defaults.is_file():
        found = SETTINGS_DEFAULT.search(read_text(defaults) or "")
        settings = found.group(1) if found else None
    options, paths = unittest_to_pytest(root, [*labels, "-p", pattern])
    return [*options, *([f"--ds={settings}"] if settings else [])], paths


DJANGO_PLUGIN = "pytest-django"


NOSE2_LIB_DIRS = ("lib", "src")  # nose2's default ``code-directories``


def outside_packages(root: Path, unittest: list[str]) -> list[str]:
    """The folders below a discovery's start that it never looks in: those that are no
    package, unless named like tests or one of its library folders (``lib``, ``src``),
    as nose2's loader walks (furl keeps its tests in a ``tests`` folder without an
    ``__init__.py``). nose2's own tests keep whole sample projects in the others, and
    factory_boy Django projects in ``examples``, where unittest's discovery, which
    enters packages only, never looks either."""
    start = unittest[unittest.index("-s") + 1] if "-s" in unittest else "."
    base = (root / start).resolve()
    if not base.is_dir() or not base.is_relative_to(root.resolve()):
        return []
    skipped = []
    for folder, dirs, _ in os.walk(base):
        for name in list(dirs):
            path = Path(folder, name)
            looked_in = "test" in name.lower() or name in NOSE2_LIB_DIRS
            if name.startswith(".") or not ((path / "__init__.py").is_file() or looked_in):
                dirs.remove(name)
                if not name.startswith("."):
                    skipped.append(path.relative_to(root.resolve()).as_posix())
    return sorted(skipped)


def _after_coverage_run(words: list[str]) -> list[str] | None:
    if Path(words[0]).name == "coverage" and words[1:2] == ["run"]:
        rest = words[2:]
    elif words[:4] == ["python", "-m", "coverage", "run"]:
        rest = words[4:]
    else:
        return None
    while rest and rest[0].startswith("-") and rest[0] != "-m":
        takes = rest[0] in ("--source", "--rcfile", "--omit", "--include", "--concurrency")
        rest = rest[2:] if takes else rest[1:]
    return rest


def kept_pytest_args(root: Path, args: list[str]) -> tuple[list[str], list[str]]:
    """Paths that exist in the tree and the options that choose tests; the rest is reporting."""
    kept: list[str] = []
    paths: list[str] = []
    pyargs = "--pyargs" in args
    i = 0
    while i < len(args):
        word = args[i]
        name, has_value, value = word.partition("=")
        if word.startswith("{") or "${{" in word or "$" in word:
            i += 1
        elif name in KEPT_OPTIONS:
            if KEPT_OPTIONS[name] and not has_value:
                kept += args[i : i + 2]
                i += 2
            else:
                kept.append(word)
                i += 1
        elif word.startswith("-"):
            short_joined = (
                len(word) > 2
                and not word.startswith("--")
                and word[:2] in ("-n", "-W", "-p", "-r", "-o")
            )
            # ``--cov`` takes a value only sometimes: an option never eats the next option
            takes = name in SKIPPED_WITH_VALUE and not has_value and not short_joined
            following = args[i + 1] if i + 1 < len(args) else ""
            i += 2 if takes and not following.startswith("-") else 1
        elif is_test_path(root, word) or (pyargs and re.match(r"^[\w.]+$", word)):
            paths.append(word)
            i += 1
        else:
            i += 1
    return kept, paths


def is_test_path(root: Path, word: str) -> bool:
    path = word.split("::", 1)[0].rstrip("/")
    if not path or path.startswith(("/", "..")):
        return False
    try:
        return (root / path).exists() and (root / path).resolve().is_relative_to(root.resolve())
    except OSError:
        return False


def unittest_to_pytest(root: Path, args: list[str]) -> tuple[list[str], list[str]]:
    """``python -m unittest [discover] -s DIR -p PATTERN`` as pytest options and paths.

    pytest runs unittest TestCases itself; unittest's default file pattern is
    ``test*.py``, wider than pytest's ``test_*.py``, so it is passed on.
    """
    start, pattern, names = None, "test*.py", []
    i = 0
    if args[:1] == ["discover"]:
        i = 1
    while i < len(args):
        word = args[i]
        if word in ("-s", "--start-directory", "-p", "--pattern", "-t", "--top-level-directory"):
            value = args[i + 1] if i + 1 < len(args) else ""
            if word in ("-s", "--start-directory"):
                start = value
            elif word in ("-p", "--pattern"):
                pattern = value
            i += 2
        elif word.startswith("-"):
            i += 1
        else:
            names.append(word)
            i += 1
    paths = [_module_path(root, n, pattern) for n in names]
    if args[:1] == ["discover"] and names and start is None:  # discover START [PATTERN]
        start, pattern = names[0], names[1] if len(names) > 1 else pattern
        paths = []
    found = [start] if start and is_test_path(root, start) else []
    found += [m for p in paths if p for m in (gathered_modules(root, p, pattern) or [p])]
    # unittest runs TestCase classes only: pytest-style classes and functions
    # (a helper class named Test*, a module-level test_x) are not part of the suite;
    # and it leaves ``assert`` as Python compiles it, where pytest would rewrite every
    # module named like a test, sample modules a test imports and checks output of too
    options = ["-o", f"python_files={pattern}", "-o", "python_classes=", "-o", "python_functions="]
    options.append("--assert=plain")
    return options, found


def gathered_modules(root: Path, script: str, pattern: str) -> list[str]:
    """The test modules a script gathers its tests from, when it defines none itself: its
    ``from test.test_x import *`` (or named) imports of tree modules named as ``pattern``
    collects. icalevents' CI runs ``test.py``, which imports its ``test`` package's
    modules; collected as ``test.py``, pytest's module ``test`` clashes with that
    package. Empty for anything else."""
    if not script.endswith(".py") or (text := read_text(root / script)) is None:
        return []
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError, RecursionError):
        return []
    if any(isinstance(node, ast.ClassDef) for node in body):
        return []
    modules = [n.module for n in body if isinstance(n, ast.ImportFrom) and n.module and not n.level]
    files = [f"{m.replace('.', '/')}.py" for m in modules]
    return [f for f in files if (root / f).is_file() and collected_by_name(f, [pattern])]


def _module_path(root: Path, name: str, pattern: str) -> str | None:
    """``tests.test_x`` or ``tests/test_x.py`` as a path in the tree, if it is one; a package
    as :func:`package_suite` runs it."""
    for candidate in (name, name.replace(".", "/") + ".py", name.replace(".", "/")):
        if is_test_path(root, candidate):
            if (root / candidate / "__init__.py").is_file():
                return package_suite(root, candidate, [pattern]) or candidate
            return candidate
    return None
