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

This module finds the commands and chooses the run; the readers it draws on
live beside it: :mod:`shellcommands` (shell scripts as commands),
:mod:`testcommands` (one command as a pytest run), :mod:`runnerconfigs` (tox,
nox, hatch, make), :mod:`pytestconfig` (pytest's ini options) and
:mod:`testfiles` (files named like tests that are none).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice, takewhile
from pathlib import Path
from typing import Any

import yaml

from corrupt.repos.projectfiles import read_text
from corrupt.repos.pytestconfig import plugin_packages
from corrupt.repos.runnerconfigs import (
    MAX_INCLUDE_DEPTH,
    command_variables,
    hatch_commands,
    make_commands,
    nox_commands,
    tox_commands,
    tox_dependency_groups,
    tox_env_names,
    tox_factor_env,
    tox_setenv,
)
from corrupt.repos.shellcommands import shell_commands, unwrap
from corrupt.repos.testcommands import (
    DJANGO_PLUGIN,
    MAX_SCANNED,
    as_unittest,
    django_args,
    django_to_pytest,
    is_test_path,
    kept_pytest_args,
    module_runner_path,
    nose2_args,
    outside_packages,
    pytest_args,
    pytest_script_args,
    unittest_args,
    unittest_to_pytest,
)
from corrupt.repos.testfiles import (
    collected_by_name,
    linter_tests,
    python_files,
    scripts_named_like_tests,
)

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
MAKE_TEST_TARGETS = ("test", "tests", "unittest", "unittests")


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
    # Variables the test command's runner sets for it (tox's ``setenv``).
    env: dict[str, str] = field(default_factory=dict)
    # PEP 735 groups the test command's runner installs (tox's ``dependency_groups``).
    groups: list[str] = field(default_factory=list)
    # The tox environment whose factor lines apply (``dj42: Django<5``); "" for none.
    tox_env: str = ""

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
        plan.command_source = f"{chosen.origin}: {_one_line(chosen.argv)}"
        plan.env = {**command_variables(chosen.argv), **tox_setenv(root, chosen.argv)}
        if chosen.on_path:
            _add_path(plan, chosen.on_path)
        plan.groups = tox_dependency_groups(root, chosen.argv)
        _take_installs(plan, root, chosen.job, chosen.origin)
        if "--asyncio-mode" in " ".join(chosen.options):
            plan.packages.append("pytest-asyncio")
        # Django's runner, or Django settings the runner sets for pytest (django-constance's
        # tox names them in setenv, django-invitations' pytest ``--ds``): pytest-django
        # sets Django up before collection
        if (
            django_args(root, unwrap(chosen.argv)) is not None
            or "DJANGO_SETTINGS_MODULE" in plan.env
            or any(o.startswith("--ds") for o in chosen.options)
        ):
            plan.packages.append(DJANGO_PLUGIN)
    plan.tox_env = tox_factor_env(root, chosen.argv if chosen is not None else None)
    _take_pytest_config(plan, root)
    _take_requirement_folders(plan, root)
    for name in scripts_named_like_tests(root, plan.options, plan.paths):
        _ignore(plan, plan.scripts, name)
    for name in linter_tests(root, plan.options, plan.paths):
        _ignore(plan, plan.linter_tests, name)
    plan.packages = list(dict.fromkeys(plan.packages))
    plan.files = list(dict.fromkeys(plan.files))
    plan.extras = list(dict.fromkeys(plan.extras))
    return plan


# -- where commands come from ------------------------------------------------

# Files a pytest run may name for their doctests (``--doctest-glob``), not for tests.
DOCUMENTS = frozenset({".rst", ".md", ".txt"})

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
            commands = [
                [*_step_env(data, job, step), *c]
                for step in (steps if isinstance(steps, list) else [])
                if isinstance(step, dict) and isinstance(step.get("run"), str)
                for c in shell_commands(step["run"])
            ]
            if commands:
                yield f".github/workflows/{path.name}", commands


def _runner_configs(root: Path) -> Iterator[Job]:
    """tox, nox, hatch and make, read for their own sake (CI may say nothing)."""
    yield "tox", tox_commands(root)
    yield "noxfile.py", nox_commands(root)
    yield "hatch", hatch_commands(root)
    for target in MAKE_TEST_TARGETS:
        yield "Makefile", make_commands(root, target)


def _one_line(argv: list[str]) -> str:
    """A command as one line of text: a variable's value over several lines (a CI step's
    list of URLs) is shown with its line breaks as spaces."""
    return shlex.join(w.replace("\n", " ").strip() for w in argv)


def _step_env(workflow: dict[str, Any], job: dict[str, Any], step: dict[str, Any]) -> list[str]:
    """The variables a workflow, its job and the step set for a step's commands, as
    ``NAME=value`` words; values made of GitHub expressions (``${{ ... }}``) are left out.
    encode/databases' test step names its databases in ``TEST_DATABASE_URLS``."""
    merged: dict[str, str] = {}
    for source in (workflow, job, step):
        env = source.get("env")
        if isinstance(env, dict):
            merged.update({str(k): str(v) for k, v in env.items() if "${{" not in str(v)})
    return [f"{name}={value}" for name, value in merged.items()]


def _expand(root: Path, commands: list[list[str]], depth: int) -> list[list[str]]:
    """Replace ``tox``, ``nox``, ``make test`` and ``hatch run x`` by the commands they run."""
    out: list[list[str]] = []
    for argv in commands:
        words = unwrap(argv)
        inner: list[list[str]] = []
        if depth < MAX_INCLUDE_DEPTH and words:
            head = words[0]
            if head == "tox" or words[:3] == ["python", "-m", "tox"]:
                inner = tox_commands(root, tox_env_names(words))
            elif head == "nox" or words[:3] == ["python", "-m", "nox"]:
                inner = nox_commands(root)
            elif head == "make":
                targets = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
                inner = [c for t in targets or ["test"] for c in make_commands(root, t)]
            elif head == "hatch" and len(words) > 1 and words[1] in ("run", "test"):
                named = [w for w in words[2:] if not w.startswith(("-", "+"))]
                inner = hatch_commands(root, named if words[1] == "run" else None)
            elif (script := _script(root, words)) is not None:
                inner = list(shell_commands(read_text(root / script) or ""))
        # the variables set for the outer command reach the commands it runs
        env = list(takewhile(lambda w: re.match(r"^[A-Za-z_]\w*=", w), argv))
        if inner:
            out.extend([*env, *c] for c in _expand(root, inner, depth + 1))
        else:
            out.append(argv)
    return out


def _script(root: Path, words: list[str]) -> str | None:
    """The tree's shell script a command runs (``./ci/test.sh``, ``bash scripts/test``)."""
    name = words[1] if words[0] in ("bash", "sh") and len(words) > 1 else words[0]
    if "/" not in name or not is_test_path(root, name) or not (root / name).is_file():
        return None
    return name.removeprefix("./")


# -- reading one test command --------------------------------------------------


@dataclass
class _Run:
    """One test run found in a job: its command line, runner and pytest arguments."""

    origin: str
    argv: list[str]
    runner: str
    options: list[str]
    paths: list[str]
    job: list[list[str]]  # every command of the job it came from (for its install lines)
    named: bool = False  # a unittest run naming test modules, not discovering them
    on_path: str = ""  # a folder the run's modules import from (a Django script's own)

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
        pytest_run = self.runner == "pytest"
        if pytest_run and self.paths and not any(self._holds_tests(root, p) for p in self.paths):
            return False  # the doctests of README.rst, the docs or the package, beside the suite
        files = [root / a.split("::")[0] for a in self.paths if is_test_path(root, a)]
        files = [f for f in files if f.is_file()]
        siblings = {t for f in files for t in f.parent.glob("test*.py")} - set(files)
        return not siblings

    def _holds_tests(self, root: Path, path: str) -> bool:
        """Whether ``path`` names test modules: a Python file, or a folder (or a path the
        tree does not have) with a file pytest collects by its name; not a document or a
        package folder named for its doctests (``--doctest-modules natsort``)."""
        target = root / path.split("::")[0]
        if target.suffix in DOCUMENTS:
            return False
        if not target.is_dir():
            return True
        patterns = python_files(root, self.options)
        found = (f.relative_to(root).as_posix() for f in target.rglob("*.py"))
        return any(collected_by_name(f, patterns) for f in islice(found, MAX_SCANNED))


def _runs(root: Path, origin: str, commands: list[list[str]]) -> Iterator[_Run]:
    folder = ""  # a job's `cd tests && pytest` runs in tests/
    for argv in commands:
        words = unwrap(argv)
        if words[:1] == ["cd"]:
            target = words[1] if len(words) > 1 else ""
            folder = target.strip("/") if is_test_path(root, target) else ""
            continue
        found = pytest_args(words) if words else None
        if found is None and words:
            found = pytest_script_args(root, words)
        if found is not None and folder:
            options, paths = kept_pytest_args(root / folder, found)
            paths = [f"{folder}/{p}" for p in paths] or [folder]
            yield _Run(origin, argv, "pytest", options, paths, commands)
            continue
        if found is not None:
            yield _Run(origin, argv, "pytest", *kept_pytest_args(root, found), commands)
            continue
        # django-auditlog's tox runs ``./manage.py test`` in its changedir, django-mptt's
        # ``tests/manage.py test myapp``: the script's folder is where its settings and
        # labels import from (``sys.path[0]``), and pytest-django finds that manage.py
        # from the tests' paths there and puts its folder on the path
        django = django_args(root / folder if folder else root, words) if words else None
        if django is not None:
            args, script = django
            inner = posixpath.normpath(posixpath.join(folder or ".", posixpath.dirname(script)))
            base = root / inner
            options, paths = django_to_pytest(base, args, posixpath.basename(script))
            on_path = ""
            if inner != ".":
                paths = [f"{inner}/{p}" for p in paths]
                # labels of the tree's own packages (django-categories' example/manage.py
                # test categories): the settings import from the script's folder
                paths = paths or django_to_pytest(root, args, script)[1] or [inner]
                on_path = inner
            yield _Run(origin, argv, "unittest", options, paths, commands, on_path=on_path)
            continue
        runner_path = module_runner_path(root, words) if words else None
        if runner_path is not None:
            yield _Run(origin, argv, "pytest", [], [runner_path], commands)
            continue
        unittest = unittest_args(as_unittest(root, words)) if words else None
        if unittest is not None:
            named = bool(unittest) and unittest[0] != "discover" and not unittest[0].endswith(".py")
            named = named and not all(w.startswith("-") for w in unittest)
            options, paths = unittest_to_pytest(root, unittest)
            # a test package whose __init__ holds the suite (pdoc's ``pdoc.test``) is all of it
            named = named and not any(p.endswith("/__init__.py") for p in paths)
            if nose2_args(words) is not None or (not named and not paths):
                # unittest's discovery looks in packages only, nose2's in a few more folders
                options += [f"--ignore={d}" for d in outside_packages(root, unittest)]
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
        words = unwrap(chosen.argv)
        script = chosen.runner == "unittest" and words[:1] == ["python"] and words[1:2] != ["-m"]
        return f"{chosen.origin}: {shlex.join(chosen.argv)}" if script else None
    for origin, commands in [*_ci_jobs(root), *_runner_configs(root)]:
        for argv in _expand(root, commands, 0):
            words = unwrap(argv)
            target = words[2:3] if words[1:2] == ["-m"] else words[1:2]
            if words[:1] == ["python"] and target and "test" in target[0].lower():
                return f"{origin}: {shlex.join(argv)}"
    return None


# -- installs ------------------------------------------------------------------


def _take_installs(plan: TestPlan, root: Path, commands: list[list[str]], origin: str) -> None:
    before = (len(plan.packages), len(plan.files), len(plan.extras))
    for argv in commands:
        words = unwrap(argv)
        args = _pip_install_args(words)
        if args is None:
            continue
        i = 0
        while i < len(args):
            word = args[i]
            if word in ("-r", "--requirement", "-c", "--constraint") and i + 1 < len(args):
                if word in ("-r", "--requirement") and is_test_path(root, args[i + 1]):
                    plan.files.append(args[i + 1])
                i += 2
                continue
            if word in ("-e", "--editable"):
                i += 1
                continue
            if _local_package(root, word):
                _on_path(plan, root, word.rstrip("/").removeprefix("./"))
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


def _local_package(root: Path, word: str) -> bool:
    """Whether an install line's word is a project of the tree's own other than the
    root's (django-downloadview's tox runs ``pip install -e demo``): not a name for the
    index, which may hold another project of that name."""
    folder = word.rstrip("/").removeprefix("./")
    return (
        folder not in ("", ".")
        and is_test_path(root, folder)
        and any((root / folder / name).is_file() for name in ("setup.py", "pyproject.toml"))
    )


def _on_path(plan: TestPlan, root: Path, folder: str) -> None:
    """Put a local project's import root (its ``src``, else itself) on the tests' path: its
    modules import from the tree, as the root project's do."""
    _add_path(plan, f"{folder}/src" if (root / folder / "src").is_dir() else folder)


def _add_path(plan: TestPlan, entry: str) -> None:
    entries = [e for e in plan.env.get("PYTHONPATH", "").split(":") if e]
    plan.env["PYTHONPATH"] = ":".join(dict.fromkeys([*entries, entry]))


def _pip_install_args(words: list[str]) -> list[str] | None:
    if words and Path(words[0]).name in ("pip", "pip3"):  # venv/bin/pip install ...
        words = [Path(words[0]).name, *words[1:]]
    for prefix in (["pip", "install"], ["pip3", "install"], ["python", "-m", "pip", "install"],
                   ["uv", "pip", "install"]):  # fmt: skip
        if words[: len(prefix)] == prefix:
            return words[len(prefix) :]
    return None


# -- pytest configuration, requirement folders, files that are no tests ---------


def _take_pytest_config(plan: TestPlan, root: Path) -> None:
    packages = plugin_packages(root)
    if packages:
        plan.packages.extend(packages)
        plan.sources.append("pytest configuration (addopts, plugin settings)")


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


def _ignore(plan: TestPlan, kept_in: list[str], name: str) -> None:
    """``--ignore`` a file pytest would collect, noted once in ``kept_in``."""
    if name not in kept_in:
        kept_in.append(name)
        plan.options.append(f"--ignore={name}")
