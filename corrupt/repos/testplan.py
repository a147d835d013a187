"""Learn how a project runs its own tests, from the project itself.

Plain ``pytest`` from the root is a guess: many projects run ``pytest tests``
(so scripts and fuzz folders beside them are never collected), run their suite
with unittest, or name the plugins their ``addopts`` need only in CI. The
project says what it does in several places; they are read in order of trust:

1. CI workflows (``.github/workflows``): the test command and the install lines;
2. tox (``tox.ini``, ``tox.toml``, ``[tool.tox]``), nox (``noxfile.py``), hatch
   environments and Makefile targets, also when CI only says ``tox``/``make test``;
3. pytest's own configuration: ``addopts`` options that need a plugin,
   ``required_plugins``;
4. requirement files under ``tests/`` and ``requirements*/``.

Everything here only *reads* files of the tree (YAML, TOML, INI, the syntax
tree of a noxfile); no repository code runs. The result is a :class:`TestPlan`:
the pytest arguments (paths, marker and keyword filters, doctest options) that
go after ``python -m pytest``, and what the tests need installed. unittest
suites run through pytest's unittest support, with unittest's file pattern.
"""

from __future__ import annotations

import ast
import configparser
import fnmatch
import os
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from corrupt.repos.projectfiles import read_toml, strings, table

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
}
# Options of pytest or common plugins that take a separate argument but are
# not kept (reporting, parallelism, coverage, output): their value is skipped.
SKIPPED_WITH_VALUE = frozenset(
    {
        "-n", "--numprocesses", "--dist", "--maxprocesses", "--cov", "--cov-report",
        "--cov-config", "--cov-fail-under", "--junitxml", "--junit-xml", "--tb", "-W",
        "--pythonwarnings", "--durations", "--durations-min", "--maxfail", "--timeout",
        "--reruns", "--reruns-delay", "--color", "--log-level", "--basetemp", "-p",
        "--html", "--benchmark-json", "--benchmark-save", "--splits", "--group", "-r",
        "--random-order-seed", "--hypothesis-profile", "--hypothesis-seed", "-o",
        "--override-ini", "--capture", "--report-log", "--log-file", "--json-report-file",
    }
)  # fmt: skip
# addopts options -> the plugin that defines them (installed when named there).
PLUGIN_OPTIONS = {
    "--cov": "pytest-cov",
    "--no-cov": "pytest-cov",
    "-n": "pytest-xdist",
    "--numprocesses": "pytest-xdist",
    "--dist": "pytest-xdist",
    "--timeout": "pytest-timeout",
    "--benchmark": "pytest-benchmark",
    "--reruns": "pytest-rerunfailures",
    "--html": "pytest-html",
    "--doctest-plus": "pytest-doctestplus",
    "--doctest-rst": "pytest-doctestplus",
    "--asyncio-mode": "pytest-asyncio",
    "--random-order": "pytest-random-order",
    "--snapshot-update": "syrupy",
    "--hypothesis": "hypothesis",
    "--mpl": "pytest-mpl",
    "--memray": "pytest-memray",
    "--codspeed": "pytest-codspeed",
    "--forked": "pytest-forked",
    "--json-report": "pytest-json-report",
}
# pytest ini keys -> the plugin that reads them.
PLUGIN_INI_KEYS = {
    "asyncio_mode": "pytest-asyncio",
    "asyncio_default_fixture_loop_scope": "pytest-asyncio",
    "timeout": "pytest-timeout",
    "env": "pytest-env",
    "mock_use_standalone_module": "pytest-mock",
    "trio_mode": "pytest-trio",
    "anyio_mode": "anyio",
    "django_find_project": "pytest-django",
    "DJANGO_SETTINGS_MODULE": "pytest-django",
    "mypy-testing-base": "pytest-mypy-testing",
}
# Options in addopts that only report (coverage, parallelism, output files):
# they slow every run, and coverage.py must not run twice in our coverage run,
# so when addopts carries one the run overrides addopts without them.
REPORTING_PREFIXES = ("--cov", "--no-cov", "-n", "--numprocesses", "--dist", "--junit",
                      "--html", "--benchmark", "--durations", "--report-log",
                      "--json-report", "--codspeed", "--memray")  # fmt: skip
# Options of the plugins that run linters and type checkers as tests: those plugins
# are off in every run (runner.LINTERS_OFF), so their options go with them.
LINTER_OPTIONS = ("--mypy", "--flake8", "--isort", "--pylint", "--black", "--ruff",
                  "--pycodestyle", "--pydocstyle", "--codestyle")  # fmt: skip
# A requirement named on an install line (not a path, URL, wheel file or glob).
REQUIREMENT = re.compile(r"^[A-Za-z0-9][\w.\-]*(\[[\w,\-]+\])?(\s*[<>=!~;].*)?$")
# Tools CI installs for itself, not for the tests: packaging, runners, linters, docs.
INSTALL_SKIP = re.compile(
    r"^(pip|setuptools|wheel|uv|tox|nox|hatch|build|twine|coveralls|codecov|flake8|codespell"
    r"|mypy|black|ruff|pylint|isort|pre-commit|prek|sphinx|pyright|check-manifest|bandit)\b",
    re.I,
)
WORKFLOW_GLOBS = ("*.yml", "*.yaml")
# Workflow files whose names say they test, tried first; release and docs workflows last.
PREFERRED_WORKFLOWS = re.compile(r"test|ci|main|python|check|build|tox|nox|unit", re.I)
AVOIDED_WORKFLOWS = re.compile(
    r"release|publish|deploy|docs|lint|pre-commit|bench|codeql|docker", re.I
)
MAX_INCLUDE_DEPTH = 4
MAKE_TEST_TARGETS = ("test", "tests", "unittest", "unittests")
# A shell line that only assigns a variable a value with no expansion in it.
SHELL_ASSIGNMENT = re.compile(r"^(?:export\s+)?(?P<name>[A-Za-z_]\w*)=(?P<value>[^$`;&|<>()\s]*)$")
# A whole word that is only a variable the script never assigns a plain value (one set by a
# command substitution, the CI's environment, the script's arguments ``$@``): its value is
# unknowable here, and options passed that way (``coverage run $branch_option -m pytest``)
# are mostly empty or reporting flags, so as an argument it reads as empty.
UNKNOWN_WORD = re.compile(r"\$(?:\{[A-Za-z_]\w*\}|[A-Za-z_]\w*|[@*])")
SHELL_VARIABLE = re.compile(r"\$(?:\{(?P<b>[A-Za-z_]\w*)\}|(?P<a>[A-Za-z_]\w*))")
UV_RUN_OPTIONS_WITH_VALUE = frozenset(
    {"--with", "--extra", "--group", "--only-group", "--python", "-p", "--package",
     "--from", "--with-requirements", "--env-file", "--directory", "--project", "-E"}
)  # fmt: skip


@dataclass
class TestPlan:
    """How to run a project's tests, and what they need, as the project says."""

    __test__ = False  # not a pytest test class

    runner: str = "pytest"  # "pytest", or "unittest" (run through pytest)
    options: list[str] = field(default_factory=list)  # after `python -m pytest`
    paths: list[str] = field(default_factory=list)  # test paths, after the options
    packages: list[str] = field(default_factory=list)  # PEP 508 strings beyond declared ones
    files: list[str] = field(default_factory=list)  # requirement files, relative to the root
    extras: list[str] = field(default_factory=list)  # ".[name]" installs seen
    command_source: str | None = None  # where the test command came from
    sources: list[str] = field(default_factory=list)  # where every other piece came from
    # Files pytest's name pattern picks up that are scripts, not tests (``--ignore``d).
    scripts: list[str] = field(default_factory=list)
    # Test modules that run a linter or type checker over the code (``--ignore``d).
    linter_tests: list[str] = field(default_factory=list)
    # A test command that runs a program of the project's own (``python test/test.py``,
    # ``python -m tests``): named when pytest finds no test there.
    harness: str | None = None

    @property
    def args(self) -> list[str]:
        return [*self.options, *self.paths]


def plan_tests(root: Path) -> TestPlan:
    """Read how ``root``'s project runs its tests (CI, tox, nox, hatch, make, pytest config).

    The install lines read are those of the job (or runner configuration) the
    test command came from: a docs or lint job's tools are not the tests' needs.
    """
    plan = TestPlan()
    runs = [
        run
        for origin, commands in [*_ci_jobs(root), *_runner_configs(root)]
        for run in _runs(root, origin, _expand(root, commands, 0))
    ]
    chosen = _choose(root, runs)
    plan.harness = _harness(root, chosen)
    if chosen is not None:
        plan.runner, plan.options, plan.paths = chosen.runner, chosen.options, chosen.paths
        plan.command_source = f"{chosen.origin}: {shlex.join(chosen.argv)}"
        _take_installs(plan, root, chosen.job, chosen.origin)
        if "--asyncio-mode" in " ".join(chosen.options):
            plan.packages.append("pytest-asyncio")
    _take_pytest_config(plan, root)
    _take_requirement_folders(plan, root)
    _ignore_scripts(plan, root)
    _ignore_linter_tests(plan, root)
    plan.packages = list(dict.fromkeys(plan.packages))
    plan.files = list(dict.fromkeys(plan.files))
    plan.extras = list(dict.fromkeys(plan.extras))
    return plan


# -- where commands come from ------------------------------------------------

Job = tuple[str, list[list[str]]]  # where the commands come from, the commands in order


def _ci_jobs(root: Path) -> Iterator[Job]:
    folder = root / ".github" / "workflows"
    if not folder.is_dir():
        return
    files = sorted({p for glob in WORKFLOW_GLOBS for p in folder.glob(glob) if p.is_file()})
    files.sort(
        key=lambda p: (
            bool(AVOIDED_WORKFLOWS.search(p.name)),
            not PREFERRED_WORKFLOWS.search(p.name),
        )
    )
    for path in files:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        jobs = data.get("jobs") if isinstance(data, dict) else None
        if not isinstance(jobs, dict):
            continue
        for job in jobs.values():
            steps = job.get("steps") if isinstance(job, dict) else None
            scripts = [
                step["run"]
                for step in (steps if isinstance(steps, list) else [])
                if isinstance(step, dict) and isinstance(step.get("run"), str)
            ]
            commands = [c for script in scripts for c in _shell_commands(script)]
            if commands:
                yield f".github/workflows/{path.name}", commands


def _runner_configs(root: Path) -> Iterator[Job]:
    """tox, nox, hatch and make, read for their own sake (CI may say nothing)."""
    yield "tox", _tox_commands(root)
    yield "noxfile.py", _nox_commands(root)
    yield "hatch", _hatch_commands(root)
    for target in MAKE_TEST_TARGETS:
        yield "Makefile", _make_commands(root, target)


def _expand(root: Path, commands: list[list[str]], depth: int) -> list[list[str]]:
    """Replace ``tox``, ``nox``, ``make test`` and ``hatch run x`` by the commands they run."""
    out: list[list[str]] = []
    for argv in commands:
        words = _unwrap(argv)
        inner: list[list[str]] = []
        if depth < MAX_INCLUDE_DEPTH and words:
            head = words[0]
            if head == "tox" or words[:3] == ["python", "-m", "tox"]:
                inner = _tox_commands(root, _tox_env_names(words))
            elif head == "nox" or words[:3] == ["python", "-m", "nox"]:
                inner = _nox_commands(root)
            elif head == "make":
                targets = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
                inner = [c for t in targets or ["test"] for c in _make_commands(root, t)]
            elif head == "hatch" and len(words) > 1 and words[1] in ("run", "test"):
                named = [w for w in words[2:] if not w.startswith(("-", "+"))]
                inner = _hatch_commands(root, named if words[1] == "run" else None)
            elif (script := _script(root, words)) is not None:
                inner = list(_shell_commands(_read(root / script) or ""))
        out.extend(_expand(root, inner, depth + 1) if inner else [argv])
    return out


def _script(root: Path, words: list[str]) -> str | None:
    """The tree's shell script a command runs (``./ci/test.sh``, ``bash scripts/test``)."""
    name = words[1] if words[0] in ("bash", "sh") and len(words) > 1 else words[0]
    if "/" not in name or not _is_test_path(root, name) or not (root / name).is_file():
        return None
    return name.removeprefix("./")


def _shell_commands(script: str) -> Iterator[list[str]]:
    """Simple commands of a shell script: continuation lines joined, split at ; && || |.

    A variable the script assigns a plain value (``REQUIREMENTS="requirements.txt"``,
    ``export PREFIX=""``) is replaced by the last value assigned before its use, so
    ``"$PIP" install -r "$REQUIREMENTS"`` reads as the install it is; any other
    variable standing alone as an argument is dropped (:data:`UNKNOWN_WORD`).
    """
    text = re.sub(r"\\\r?\n", " ", script)
    text = re.sub(r"\$\{\{.*?\}\}", "$GH", text)  # a GitHub expression is one unknown word
    variables: dict[str, str] = {}
    for line in text.splitlines():
        line = _substitute(line.strip(), variables)
        if not line or line.startswith("#"):
            continue
        assigned = SHELL_ASSIGNMENT.match(line)
        if assigned:
            try:
                variables[assigned["name"]] = " ".join(shlex.split(assigned["value"]))
            except ValueError:
                variables.pop(assigned["name"], None)
            continue
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>()")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        try:
            tokens = list(lexer)
        except ValueError:  # an unclosed quote: not a command we can read
            continue
        current: list[str] = []
        for token in tokens:
            if token and set(token) <= set(";&|()"):
                if current:
                    yield current
                current = []
            elif current and UNKNOWN_WORD.fullmatch(token):
                continue  # an argument no file says the value of: read as empty
            else:
                current.append(token)
        if current:
            yield current


def _substitute(line: str, variables: dict[str, str]) -> str:
    """``$NAME`` and ``${NAME}`` of the known variables replaced; others are left as they are."""
    if "$" not in line:
        return line
    return SHELL_VARIABLE.sub(lambda m: variables.get(m["a"] or m["b"], m[0]), line)


def _unwrap(argv: list[str]) -> list[str]:
    """Drop what only wraps the command: env assignments, ``uv run``, ``poetry run``, ``time``..."""
    words = [w for w in argv if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)]
    while words:
        head = Path(words[0]).name
        if head in ("time", "xvfb-run", "sudo", "exec", "env"):
            words = words[1:]
        elif head in ("uv", "poetry", "pdm", "pipenv", "rye", "uvx", "pipx"):
            rest = words[1:]
            if rest[:1] == ["run"]:
                rest = rest[1:]
            elif rest[:2] == ["tool", "run"]:
                rest = rest[2:]
            elif head not in ("uvx", "pipx"):
                break
            while rest and rest[0].startswith("-"):  # uv run --with x, --extra test
                takes = rest[0] in UV_RUN_OPTIONS_WITH_VALUE and "=" not in rest[0]
                rest = rest[2:] if takes else rest[1:]
            words = rest
        elif re.match(r"^(python|pypy)[\d.]*$", head):
            rest = words[1:]
            while rest and re.match(r"^-[BbEIOsSuWX]", rest[0]):  # interpreter flags
                rest = rest[2:] if rest[0] in ("-W", "-X") else rest[1:]
            words = ["python", *rest]
            break
        else:
            break
    return words


# -- reading one test command --------------------------------------------------


@dataclass
class _Run:
    """One test run found in a job: its command line, runner and pytest arguments."""

    origin: str
    argv: list[str]
    runner: str
    options: list[str]
    paths: list[str]
    job: list[list[str]]
    named: bool = False  # a unittest run naming test modules, not discovering them  # every command of the job it came from (for its install lines)

    def broad(self, root: Path) -> bool:
        """Runs the suite: not a benchmark, a positive marker or keyword selection, or some
        of the test modules beside the ones it names."""
        if any("bench" in word for word in self.argv):
            return False
        words = self.options
        for i, word in enumerate(words[:-1]):
            if word in ("-m", "-k") and not words[i + 1].startswith("not "):
                return False
        if self.runner == "unittest" and self.named:
            return False
        files = [root / a.split("::")[0] for a in self.paths if _is_test_path(root, a)]
        files = [f for f in files if f.is_file()]
        siblings = {t for f in files for t in f.parent.glob("test*.py")} - set(files)
        return not siblings


def _runs(root: Path, origin: str, commands: list[list[str]]) -> Iterator[_Run]:
    folder = ""  # a job's `cd tests && pytest` runs in tests/
    for argv in commands:
        words = _unwrap(argv)
        if words[:1] == ["cd"]:
            target = words[1] if len(words) > 1 else ""
            folder = target.strip("/") if _is_test_path(root, target) else ""
            continue
        found = _pytest_args(words) if words else None
        if found is not None and folder:
            options, paths = _kept_pytest_args(root / folder, found)
            paths = [f"{folder}/{p}" for p in paths] or [folder]
            yield _Run(origin, argv, "pytest", options, paths, commands)
            continue
        if found is not None:
            yield _Run(origin, argv, "pytest", *_kept_pytest_args(root, found), commands)
            continue
        unittest = _unittest_args(_as_unittest(root, words)) if words else None
        if unittest is not None:
            named = bool(unittest) and unittest[0] != "discover" and not unittest[0].endswith(".py")
            named = named and not all(w.startswith("-") for w in unittest)
            options, paths = _unittest_to_pytest(root, unittest)
            if _nose2_args(words) is not None:  # nose2 looks in packages only
                options += [f"--ignore={d}" for d in _outside_packages(root, unittest)]
            yield _Run(origin, argv, "unittest", options, paths, commands, named)


def _choose(root: Path, runs: list[_Run]) -> _Run | None:
    """The first run (in order of trust) of the whole suite; a narrower run is never
    chosen, pytest's own configuration then decides."""
    return next((r for r in runs if r.broad(root)), None)


def _harness(root: Path, chosen: _Run | None) -> str | None:
    """The first command of CI or a runner configuration that runs a test program of the
    project's own rather than pytest or unittest; the chosen run itself when it is a
    test module run as a script (its ``__main__`` may drive a runner of its own)."""
    if chosen is not None:
        words = _unwrap(chosen.argv)
        script = chosen.runner == "unittest" and words[:1] == ["python"] and words[1:2] != ["-m"]
        return f"{chosen.origin}: {shlex.join(chosen.argv)}" if script else None
    for origin, commands in [*_ci_jobs(root), *_runner_configs(root)]:
        for argv in _expand(root, commands, 0):
            words = _unwrap(argv)
            target = words[2:3] if words[1:2] == ["-m"] else words[1:2]
            if words[:1] == ["python"] and target and "test" in target[0].lower():
                return f"{origin}: {shlex.join(argv)}"
    return None


def _pytest_args(words: list[str]) -> list[str] | None:
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


def _unittest_args(words: list[str]) -> list[str] | None:
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


def _as_unittest(root: Path, words: list[str]) -> list[str]:
    """The runners built on unittest as the unittest discovery they do: ``stestr run``
    (OpenStack's, common with pbr) of ``.stestr.conf``'s ``test_path``, and nose2 (under
    coverage too) of its ``-s`` folder. Any other command comes back as it was."""
    if words[:2] == ["stestr", "run"] or words[:4] == ["python", "-m", "stestr", "run"]:
        conf = _ini_section(root / ".stestr.conf", "DEFAULT")
        start = str(conf.get("test_path", ".")).strip().removeprefix("./") or "."
        return ["python", "-m", "unittest", "discover", "-s", start]
    nose2 = _nose2_args(words)
    if nose2 is None:
        return words
    start = "."
    for i, word in enumerate(nose2):
        if word in ("-s", "--start-dir") and i + 1 < len(nose2):
            start = nose2[i + 1].strip().removeprefix("./") or "."
    return ["python", "-m", "unittest", "discover", "-s", start]


def _nose2_args(words: list[str]) -> list[str] | None:
    """The arguments of a nose2 run (``nose2``, ``python -m nose2``, under coverage)."""
    words = _after_coverage_run(words) or words
    if words[:1] == ["nose2"] or (words[:1] == ["python"] and words[1:3] == ["-m", "nose2"]):
        return words[1:] if words[0] == "nose2" else words[3:]
    if words[:2] == ["-m", "nose2"]:
        return words[2:]
    return None


def _outside_packages(root: Path, unittest: list[str]) -> list[str]:
    """The folders below a discovery's start that are no package: unittest-style discovery
    never looks in them, and nose2's own tests keep whole sample projects there."""
    start = unittest[unittest.index("-s") + 1] if "-s" in unittest else "."
    base = (root / start).resolve()
    if not base.is_dir() or not base.is_relative_to(root.resolve()):
        return []
    skipped = []
    for folder, dirs, _ in os.walk(base):
        for name in list(dirs):
            path = Path(folder, name)
            if name.startswith(".") or not (path / "__init__.py").is_file():
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


def _kept_pytest_args(root: Path, args: list[str]) -> tuple[list[str], list[str]]:
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
        elif _is_test_path(root, word) or (pyargs and re.match(r"^[\w.]+$", word)):
            paths.append(word)
            i += 1
        else:
            i += 1
    return kept, paths


def _is_test_path(root: Path, word: str) -> bool:
    path = word.split("::", 1)[0].rstrip("/")
    if not path or path.startswith(("/", "..")):
        return False
    try:
        return (root / path).exists() and (root / path).resolve().is_relative_to(root.resolve())
    except OSError:
        return False


def _unittest_to_pytest(root: Path, args: list[str]) -> tuple[list[str], list[str]]:
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
    paths = [_module_path(root, n) for n in names]
    if args[:1] == ["discover"] and names and start is None:  # discover START [PATTERN]
        start, pattern = names[0], names[1] if len(names) > 1 else pattern
        paths = []
    found = [start] if start and _is_test_path(root, start) else []
    found += [p for p in paths if p]
    # unittest runs TestCase classes only: pytest-style classes and functions
    # (a helper class named Test*, a module-level test_x) are not part of the suite;
    # and it leaves ``assert`` as Python compiles it, where pytest would rewrite every
    # module named like a test, sample modules a test imports and checks output of too
    options = ["-o", f"python_files={pattern}", "-o", "python_classes=", "-o", "python_functions="]
    options.append("--assert=plain")
    return options, found


def _module_path(root: Path, name: str) -> str | None:
    """``tests.test_x`` or ``tests/test_x.py`` as a path in the tree, if it is one."""
    for candidate in (name, name.replace(".", "/") + ".py", name.replace(".", "/")):
        if _is_test_path(root, candidate):
            return candidate
    return None


# -- installs ------------------------------------------------------------------


def _take_installs(plan: TestPlan, root: Path, commands: list[list[str]], origin: str) -> None:
    before = (len(plan.packages), len(plan.files), len(plan.extras))
    for argv in commands:
        words = _unwrap(argv)
        args = _pip_install_args(words)
        if args is None:
            continue
        i = 0
        while i < len(args):
            word = args[i]
            if word in ("-r", "--requirement", "-c", "--constraint") and i + 1 < len(args):
                if word in ("-r", "--requirement") and _is_test_path(root, args[i + 1]):
                    plan.files.append(args[i + 1])
                i += 2
                continue
            if word in ("-e", "--editable"):
                i += 1
                continue
            if word.startswith("-") or "$" in word or "{" in word:
                i += (
                    2 if word in ("-i", "--index-url", "--extra-index-url", "-f", "--python") else 1
                )
                continue
            local = re.match(r"^\.(?:/)?\[([\w,.\-\s]+)\]$", word) or re.search(
                r"#egg=[\w.\-]+\[([\w,.\-]+)\]$", word
            )
            if local:
                plan.extras.extend(e.strip() for e in local[1].split(",") if e.strip())
            elif REQUIREMENT.match(word) and not INSTALL_SKIP.match(word):
                plan.packages.append(word)
            i += 1
    if (len(plan.packages), len(plan.files), len(plan.extras)) != before:
        plan.sources.append(f"{origin} install lines")


def _pip_install_args(words: list[str]) -> list[str] | None:
    if words and Path(words[0]).name in ("pip", "pip3"):  # venv/bin/pip install ...
        words = [Path(words[0]).name, *words[1:]]
    for prefix in (["pip", "install"], ["pip3", "install"], ["python", "-m", "pip", "install"],
                   ["uv", "pip", "install"]):  # fmt: skip
        if words[: len(prefix)] == prefix:
            return words[len(prefix) :]
    return None


# -- tox, nox, hatch, make -----------------------------------------------------


def _tox_commands(root: Path, names: list[str] | None = None) -> list[list[str]]:
    """``commands`` of the test environment: of the environments ``names`` when CI names
    them (``tox -e py311-tests``), else ``[testenv]`` or the first env that runs pytest."""
    sections = _tox_sections(root)
    if names is None:
        ordered = sorted(sections, key=lambda name: (name != "testenv", "test" not in name))
        candidates = [(section, section.partition(":")[2]) for section in ordered]
    else:
        candidates = [
            (f"testenv:{n}" if f"testenv:{n}" in sections else "testenv", n) for n in names
        ]
    for section, env in candidates:
        commands = [c for c in (_tox_words(line, env) for line in sections.get(section, [])) if c]
        if any(_pytest_args(_unwrap(c)) is not None
               or _unittest_args(_as_unittest(root, _unwrap(c))) is not None
               for c in commands if _unwrap(c)):  # fmt: skip
            return commands
    return []


def _tox_env_names(words: list[str]) -> list[str] | None:
    """The environments ``tox [run] -e a,b`` names; None when it names none (tox's default)."""
    for i, word in enumerate(words):
        if word in ("-e", "--env") and i + 1 < len(words):
            value = words[i + 1]
        elif word.startswith("--env="):
            value = word.removeprefix("--env=")
        elif word.startswith("-e") and len(word) > 2 and not word.startswith("--"):
            value = word[2:].lstrip("=")
        else:
            continue
        return [name for name in value.split(",") if name]
    return None


INTERPRETER_FACTOR = re.compile(r"(py|pypy|cpython)?[\d.]*")


def _factors_hold(condition: str, env: str) -> bool:
    """Whether tox's factor condition (``py3,pypy``, ``py311-tests``, ``!mypy``,
    ``py{38,39}``) selects environment ``env``. A factor CI fills in at run time
    (``$PYTHON-tests``) or plain ``py`` is the interpreter at hand, so it matches any
    interpreter factor."""
    factors = set(env.split("-"))
    wildcard = any("$" in factor or factor in ("py", "python") for factor in factors)
    for group in _brace_expand(condition).split(","):
        wanted = [f for f in group.split("-") if f]
        if wanted and all(
            (f[1:] not in factors)
            if f.startswith("!")
            else (f in factors or (wildcard and INTERPRETER_FACTOR.fullmatch(f) is not None))
            for f in wanted
        ):
            return True
    return False


def _brace_expand(text: str) -> str:
    """``py{38,39}-x`` -> ``py38-x,py39-x``: tox's generative names, as one condition."""
    match = re.search(r"\{([^{}]*)\}", text)
    if match is None:
        return text
    head = text[: match.start()]
    start = head.rfind(",") + 1
    end = text.find(",", match.end())
    end = len(text) if end == -1 else end
    word = text[start:end]
    inner = word.replace(match.group(0), "{}", 1)
    expanded = ",".join(inner.format(option) for option in match.group(1).split(","))
    return _brace_expand(text[:start] + expanded + text[end:])


def _tox_sections(root: Path) -> dict[str, list[str]]:
    """Environment name -> command lines, from tox.ini, tox.toml or pyproject's [tool.tox]."""
    found: dict[str, list[str]] = {}
    ini_text = None
    if (root / "tox.ini").is_file():
        ini_text = _read(root / "tox.ini")
    pyproject = table(read_toml(root / "pyproject.toml"), "tool", "tox")
    if isinstance(pyproject.get("legacy_tox_ini"), str):
        ini_text = ini_text or pyproject["legacy_tox_ini"]
    if ini_text:
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(ini_text)
        except configparser.Error:
            parser = configparser.ConfigParser()
        for section in parser.sections():
            if section == "testenv" or section.startswith("testenv:"):
                raw = parser.get(section, "commands", fallback="")
                found[section] = [ln for ln in re.sub(r"\\\n", " ", raw).splitlines() if ln.strip()]
    toml = read_toml(root / "tox.toml") or (pyproject if "legacy_tox_ini" not in pyproject else {})
    envs = {"testenv": table(toml, "env_run_base")}
    envs.update({f"testenv:{k}": table(v) for k, v in table(toml, "env").items()})
    for name, env in envs.items():
        commands = env.get("commands")
        if isinstance(commands, list):
            lines = [shlex.join(_toml_argv(c)) for c in commands if isinstance(c, list)]
            found.setdefault(name, lines)
    return found


def _toml_argv(command: list[Any]) -> list[str]:
    """A tox.toml command: strings, and ``{replace = "posargs", default = [...]}`` tables."""
    out: list[str] = []
    for part in command:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict) and part.get("replace") == "posargs":
            out.extend(strings(part.get("default")))
    return out


def _tox_words(line: str, env: str = "") -> list[str]:
    """One tox command line with ``{posargs:default}`` replaced by its default; nothing
    when its factor condition (``py3: ...``) does not select ``env`` (any env: "")."""
    condition = re.match(r"^([\w.,{}!-]+):\s+", line.strip())
    if condition is not None:
        if env and not _factors_hold(condition.group(1), env):
            return []
        line = line.strip()[condition.end() :]
    line = line.lstrip("-").strip()
    if not line or line.startswith("#"):
        return []
    line = _replace_default(line, "posargs")
    line = line.replace("{envpython}", "python").replace("{toxinidir}", "{tox_root}")
    line = line.replace("{tox_root}/", "").replace("{tox_root}", ".")
    line = line.replace("{envsitepackagesdir}/", "")  # the tree's copy shadows the installed one
    line = re.sub(r"\[\]|\{[^}]*\}", "", line)
    try:
        return shlex.split(line)
    except ValueError:
        return []


def _replace_default(line: str, name: str) -> str:
    """``{posargs:DEFAULT}`` (or ``{args:...}``) replaced by DEFAULT, whose braces may nest."""
    opening = "{" + name
    start = line.find(opening)
    while start != -1:
        depth, end = 0, start
        for end in range(start, len(line)):
            depth += {"{": 1, "}": -1}.get(line[end], 0)
            if depth == 0:
                break
        inner = line[start + len(opening) : end]
        default = inner[1:] if inner.startswith(":") else ""
        line = line[:start] + default + line[end + 1 :]
        start = line.find(opening, start + len(default))
    return line


def _nox_commands(root: Path) -> list[list[str]]:
    """``session.run("pytest", ...)`` and ``session.install(...)`` calls with literal arguments."""
    path = root / "noxfile.py"
    text = _read(path) if path.is_file() else None
    if text is None:
        return []
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    commands: list[list[str]] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("run", "install")
        ):
            words = [
                a.value
                for a in node.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
            if words:
                commands.append(
                    ["pip", "install", *words] if node.func.attr == "install" else words
                )
    return commands


def _hatch_commands(root: Path, run: list[str] | None = None) -> list[list[str]]:
    """Scripts of hatch environments: the one ``hatch run ENV:SCRIPT`` names, else ``test``."""
    envs = table(read_toml(root / "pyproject.toml"), "tool", "hatch", "envs")
    wanted = run[0] if run else "test"
    env_name, _, script = wanted.rpartition(":")
    commands: list[list[str]] = []
    for name, env in envs.items():
        scripts = table(env, "scripts")
        if env_name and name != env_name:
            continue
        for key in (script, "test", "tests", "cov"):
            lines = _hatch_script(scripts, key, 0)
            if lines:
                for line in lines:
                    words = _tox_words(_replace_default(str(line), "args"))
                    commands.append(words)
                commands.append(_hatch_installs(env))
                break
    if not commands and run is None and "hatch-test" in envs:
        commands.append(["pytest"])
    return [c for c in commands if c]


def _hatch_script(scripts: dict[str, Any], key: str, depth: int) -> list[str]:
    """A hatch script's command lines, with lines naming another script of the env
    (``with-coverage = "test"``) replaced by that script's lines, as hatch does."""
    lines: list[str] = []
    for line in map(str, strings(scripts.get(key))):
        name, _, rest = line.partition(" ")
        if name in scripts and name != key and depth < MAX_INCLUDE_DEPTH:
            lines += [
                f"{inner} {rest}".strip() for inner in _hatch_script(scripts, name, depth + 1)
            ]
        else:
            lines.append(line)
    return lines


def _hatch_installs(env: Any) -> list[str]:
    """What a hatch env installs, as one pip line: its dependencies, and its
    ``features`` (the project's extras) as ``.[a,b]``."""
    deps = [
        *strings(table(env).get("dependencies")),
        *strings(table(env).get("extra-dependencies")),
    ]
    features = [str(f) for f in strings(table(env).get("features"))]
    return ["pip", "install", *map(str, deps), *([f".[{','.join(features)}]"] if features else [])]


MAKEFILES = ("GNUmakefile", "makefile", "Makefile")  # the names make reads, in its order


def _make_commands(root: Path, target: str) -> list[list[str]]:
    path = next((root / name for name in MAKEFILES if (root / name).is_file()), None)
    text = _read(path) if path is not None else None
    if text is None:
        return []
    lines = re.sub(r"\\\n", " ", text).splitlines()
    recipe: list[list[str]] = []
    inside = False
    for line in lines:
        if re.match(rf"^{re.escape(target)}\s*:(?!=)", line):
            inside = True
            continue
        if inside:
            if line.startswith("\t"):
                body = line.strip().lstrip("@-+").strip()
                body = re.sub(r"\$\((PYTHON|PY)\)|\$\{(PYTHON|PY)\}", "python", body)
                recipe.extend(_shell_commands(body))
            elif line.strip():
                break
    return recipe


# -- scripts named like tests ---------------------------------------------------

DEFAULT_PYTHON_FILES = ("test_*.py", "*_test.py")
NOT_SEARCHED = frozenset(
    {".git", ".hg", ".tox", ".nox", ".venv", "venv", "node_modules", "build", "dist",
     "__pycache__", "site-packages"}
)  # fmt: skip
MAX_SCRIPT_SCAN = 5000
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
)  # files matching the pattern: past that, the tree is left as it is


def _ignore_scripts(plan: TestPlan, root: Path) -> None:
    """``--ignore`` the files pytest would collect by name that are scripts, not tests.

    A harness's helper such as ``tests/encoding_test.py`` (a program that reads
    stdin at import, for an external test runner) matches ``*_test.py``; pytest
    imports it, and its import fails or blocks. A file counts as a script only
    when it cannot hold a test: no function named like one, no class at all (a
    TestCase may have any name), nothing imported or assigned under a test's
    name, no star import; and when it runs code at import. Doctest runs collect
    every module, so they keep them all.
    """
    words = [*addopts(root), *plan.options]
    if any(w.startswith("--doctest-modules") for w in words):
        return
    functions = _option_values(words, "python_functions") or _ini_words(root, "python_functions")
    prefixes = tuple(functions) if functions else ("test",)
    for path in _collected_files(plan, root):
        if _is_script(path, prefixes):
            _ignore(plan, plan.scripts, path.relative_to(root).as_posix())


def _ignore_linter_tests(plan: TestPlan, root: Path) -> None:
    """``--ignore`` test modules that run a linter or type checker over the code
    (``tests/test_codestyle.py`` calling ``mypy`` in a subprocess): like the linter
    plugins (runner.LINTERS_OFF) they check style and types, not behaviour, they go
    red when the linter's next release finds something new, and they are slow.
    A module counts only when its name says so and its text runs one."""
    for path in _collected_files(plan, root):
        if LINTER_TEST_NAME.match(path.name) and LINTER_RUN.search(_read(path) or ""):
            _ignore(plan, plan.linter_tests, path.relative_to(root).as_posix())


def _ignore(plan: TestPlan, kept_in: list[str], name: str) -> None:
    if name not in kept_in:
        kept_in.append(name)
        plan.options.append(f"--ignore={name}")


def _collected_files(plan: TestPlan, root: Path) -> Iterator[Path]:
    """The files pytest would collect by name (at most MAX_SCRIPT_SCAN of them)."""
    words = [*addopts(root), *plan.options]
    files = _option_values(words, "python_files") or _ini_words(root, "python_files")
    patterns = files or list(DEFAULT_PYTHON_FILES)
    starts = [root / p for p in plan.paths if "::" not in p] or [
        root / p for p in _ini_words(root, "testpaths")
    ]
    seen = 0
    for start in starts or [root]:
        for path in _named_like_tests(start, patterns):
            seen += 1
            if seen > MAX_SCRIPT_SCAN:
                return
            yield path


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
    text = _read(path)
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
    function named like one, any class, a test's name imported or assigned, a star import."""
    for node in body:
        if isinstance(node, ast.ClassDef):
            return True
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name.startswith(prefixes):
                return True
            continue
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


# -- pytest configuration and requirement folders -------------------------------


def pytest_ini(root: Path) -> dict[str, Any]:
    """pytest's ini options from the first file pytest itself would read."""
    if (root / "pytest.ini").is_file():
        return _ini_section(root / "pytest.ini", "pytest")
    options = table(read_toml(root / "pyproject.toml"), "tool", "pytest", "ini_options")
    if options:
        return options
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        found = _ini_section(root / name, section)
        if found:
            return found
    return {}


def addopts(root: Path) -> list[str]:
    value = pytest_ini(root).get("addopts", "")
    if isinstance(value, list):
        return [str(v) for v in value]
    try:
        return shlex.split(str(value))
    except ValueError:
        return []


def reporting_free_addopts(root: Path) -> list[str] | None:
    """``addopts`` without its reporting options, or None when it holds none to remove."""
    words = addopts(root)
    kept: list[str] = []
    removed = False
    i = 0
    while i < len(words):
        word = words[i]
        name = word.split("=", 1)[0]
        if word.startswith(REPORTING_PREFIXES + LINTER_OPTIONS) or (
            word == "-p" and words[i + 1 : i + 2] == ["xdist"]
        ):
            removed = True
            joined = "=" in word or (word[:2] == "-n" and len(word) > 2)
            optional_value = name in ("--cov", "--no-cov")
            nxt = words[i + 1] if i + 1 < len(words) else ""
            takes = (
                not joined
                and name in SKIPPED_WITH_VALUE
                and not (optional_value and (nxt.startswith("-") or not nxt))
            )
            i += 2 if takes else 1
        else:
            kept.append(word)
            i += 1
    return kept if removed else None


def _take_pytest_config(plan: TestPlan, root: Path) -> None:
    ini = pytest_ini(root)
    before = len(plan.packages)
    for word in addopts(root):
        name = word.split("=", 1)[0]
        for option, package in PLUGIN_OPTIONS.items():
            if package and (name == option or name.startswith(option + "-")):
                plan.packages.append(package)
    words = addopts(root)
    for i, word in enumerate(words):
        module = words[i + 1] if word == "-p" and i + 1 < len(words) else word[2:].strip()
        if word.startswith("-p") and module and not module.startswith("no:"):
            plan.packages.extend(_plugin_package(module))
    for key, package in PLUGIN_INI_KEYS.items():
        if key in ini:
            plan.packages.append(package)
    required = ini.get("required_plugins")
    plan.packages.extend(required.split() if isinstance(required, str) else strings(required))
    if len(plan.packages) != before:
        plan.sources.append("pytest configuration (addopts, plugin settings)")


def _plugin_package(module: str) -> list[str]:
    known = {"xdist": "pytest-xdist", "pytest_cov": "pytest-cov", "cov": "pytest-cov",
             "pytest_mock": "pytest-mock", "anyio": "anyio", "trio": "pytest-trio"}  # fmt: skip
    return [known[module]] if module in known else []


def _take_requirement_folders(plan: TestPlan, root: Path) -> None:
    """Requirement files in ``tests/``, ``test/`` and ``requirements*/`` folders that name tests."""
    before = len(plan.files)
    for folder in sorted(root.glob("requirements*")) + [root / "tests", root / "test"]:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.txt")) + sorted(folder.glob("*.in")):
            name = path.name.lower()
            in_tests = folder.name in ("tests", "test")
            wanted = "req" in name if in_tests else "test" in name
            if path.is_file() and wanted:
                plan.files.append(str(path.relative_to(root)))
    if len(plan.files) != before:
        plan.sources.append("requirement files in test and requirements folders")


def _ini_section(path: Path, section: str) -> dict[str, Any]:
    text = _read(path) if path.is_file() else None
    if text is None:
        return {}
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}
    if section == configparser.DEFAULTSECT:
        return dict(parser.defaults())
    return dict(parser[section]) if parser.has_section(section) else {}


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
