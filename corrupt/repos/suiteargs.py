"""The pytest command line a project's suite runs with: a pure reading of its tree.

The options every run takes (ours and the harnesses' alike), the project's own
arguments from its CI, tox or nox (:mod:`corrupt.repos.testplan`) and its import
root. Nothing here runs code, so the sandboxes' install steps, the runner and the
exports all build their commands from it.
"""

from __future__ import annotations

import functools
import posixpath
import shlex
from collections.abc import Sequence
from pathlib import Path

from corrupt.repos.models import IO_DIR
from corrupt.repos.projectfiles import read_toml, strings, table
from corrupt.repos.pytestconfig import reporting_free_addopts
from corrupt.repos.runnerconfigs import MAKEFILES, hatch_envs
from corrupt.repos.testplan import plan_tests


def base_argv(module: str) -> list[str]:
    # --continue-on-collection-errors: a corruption that breaks one test module's
    # import must not hide the results of every other module. Plugins that shuffle
    # the order (pytest-randomly, pytest-random-order) are off: which tests a
    # failure budget reaches must not change between runs, or one seed gives
    # other tasks. pytest's cache stays on, since plugins read ``config.cache``
    # (pytest stops with INTERNALERROR without it), but in the run's private I/O
    # folder: nothing is written into the tree, nothing carries over between runs.
    return ["python", "-m", "pytest", "-p", module, *run_flags(f"{IO_DIR}/.pytest_cache")]


def run_flags(cache_dir: str) -> list[str]:
    """The pytest options every run of a suite takes, ours and the harnesses' alike (see
    :func:`base_argv` for why): pytest's cache in ``cache_dir``, no shuffling, no linters,
    collection errors local to their module."""
    return [
        "-o", f"cache_dir={cache_dir}", "-p", "no:randomly", "-p", "no:random_order",
        *LINTERS_OFF, "--continue-on-collection-errors",
    ]  # fmt: skip


# pytest plugins that run a linter or type checker as tests (by their entry-point
# names): they test the code's style and types, not its behaviour, no corruption is
# caught by them that a behaviour test does not catch, and they can take most of a
# suite's time (mypy per test case). Off in every run; their addopts options are
# dropped with them (pytestconfig.LINTER_OPTIONS).
LINTERS_OFF = [
    arg
    for name in (
        "mypy",
        "pytest-mypy-plugins",
        "mypy-testing",
        "flake8",
        "isort",
        "pylint",
        "black",
        "ruff",
        "pycodestyle",
        "pydocstyle",
    )  # fmt: skip
    for arg in ("-p", f"no:{name}")
]
# pytest-perf (entry point ``perf``, in jaraco's project skeleton) collects
# ``exercises.py`` as tests that time the tree against the project's upstream, which
# they pip-install from its git origin: no network and no ``.git`` in the box, and
# speed, not behaviour. Its plugin also imports keyring, which on Python < 3.12 loads
# the importlib_metadata backport into pytest (importlib_metadata's own suite then
# cannot find pluggy's metadata). Off in every run, as the linters are.
LINTERS_OFF += ["-p", "no:perf"]
# pytest-checkdocs (``checkdocs``, the same skeleton's) adds a ``.::project`` test that
# builds the package's metadata to check its long description renders: an isolated
# build that pip-installs the backend from the index (no network in the box), and a
# check of the documentation, not of behaviour.
LINTERS_OFF += ["-p", "no:checkdocs"]


PYTEST_NO_TESTS = 5  # pytest's exit status when it collected nothing


def import_root(tree: Path) -> str:
    """``src`` for a src layout (a ``src`` folder holding Python code), else ``.``."""
    src = tree / "src"
    if src.is_dir() and any(
        p.suffix == ".py" or (p / "__init__.py").is_file() for p in src.iterdir()
    ):
        return "src"
    return "."


def workspace_roots(tree: Path) -> list[str]:
    """The import roots of a workspace's members: uv's (``[tool.uv.workspace] members``,
    globs, less its ``exclude``) and those of hatch's ``hatch-test`` environment
    (``workspace.members``, paths or ``{path = ...}``). setuptools-scm's repository holds
    ``vcs-versioning/src`` and ``setuptools-scm/src``, which its root's tests import;
    hatch's, ``backend/src`` (hatchling). uv installs members editable from the build's
    copy, which is gone when the tests run, and the tests must import the working
    tree's members, where corruptions are made."""
    workspace = table(read_toml(tree / "pyproject.toml"), "tool", "uv", "workspace")
    hatch = table(hatch_envs(tree).get("hatch-test"), "workspace").get("members")
    globs = [
        *strings(workspace.get("members")),
        *(m if isinstance(m, str) else str(table(m).get("path", "")) for m in _list(hatch)),
    ]
    excluded = {
        p for glob in strings(workspace.get("exclude")) if glob and not glob.startswith("/")
        for p in tree.glob(glob)
    }  # fmt: skip
    inside = [g for g in globs if g and not g.startswith("/") and ".." not in g.split("/")]
    members = (
        p
        for glob in inside
        for p in sorted(tree.glob(glob))
        if p not in excluded and p != tree and (p / "pyproject.toml").is_file()
    )
    return list(dict.fromkeys(
        posixpath.normpath(posixpath.join(p.relative_to(tree).as_posix(), import_root(p)))
        for p in members
    ))  # fmt: skip


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def test_command(tree: Path, subset: Sequence[str] = ()) -> tuple[list[str], dict[str, str]]:
    """The pytest command and environment additions, as users can rerun them: the
    arguments the project's own CI (or tox, nox, ...) passes and the variables its
    tox environment sets, see :mod:`testplan`;
    ``subset``, the test files a suite over budget is cut to (:attr:`Baseline.subset`)."""
    argv = ["python", "-m", "pytest", *suite_args(tree, subset=subset)]
    _, _, variables, members = _suite_args(str(tree), _config_stamp(tree))
    env = dict(variables)
    folders = [import_root(tree), *members, *env.pop("PYTHONPATH", "").split(":")]
    own = {"PYTHONPATH": ":".join(dict.fromkeys(f for f in folders if f)), "PYTHONHASHSEED": "0"}
    return argv, {**env, **own}


def python_path(tree: Path) -> str:
    """Where the tests import from: the import root, then the tree's folders the
    project's tox puts on ``PYTHONPATH``."""
    return test_command(tree)[1]["PYTHONPATH"]


def anchored_command(command: str, root: str) -> str:
    """``command`` (a task's ``tests.command``) as a shell line for a tree at ``root``,
    which is written as given (``/testbed``, or ``"$PWD"`` for the shell to expand): its
    relative ``PYTHONPATH`` entries made absolute there. A process a test starts in
    another folder (sqlmodel's ``coverage run -m docs_src...`` in ``tmp_path``) still
    imports the tree, as in corrupt's own runs."""
    parts, assigning = [], True
    for word in shlex.split(command):
        name, equals, value = word.partition("=")
        assigning = assigning and bool(equals) and name.isidentifier()
        if assigning and name == "PYTHONPATH":
            entries = [_anchored(entry, root) for entry in value.split(":")]
            parts.append("PYTHONPATH=" + ":".join(entries))
        else:
            parts.append(shlex.quote(word))
    return " ".join(parts)


def _anchored(entry: str, root: str) -> str:
    if not entry or entry.startswith("/"):
        return shlex.quote(entry)
    relative = posixpath.normpath(entry)
    return root if relative == "." else f"{root}/{shlex.quote(relative)}"


def suite_args(tree: Path, *, paths: bool = True, subset: Sequence[str] = ()) -> list[str]:
    """pytest arguments the project runs its suite with (without its test paths when
    ``paths`` is false: a selected run names its own files; ``subset`` instead of them
    when given), and ``addopts`` without reporting options (coverage must not run
    twice, parallel workers hide results)."""
    options, test_paths, _, _ = _suite_args(str(tree), _config_stamp(tree))
    if not paths:
        return list(options)
    return [*options, *(subset or test_paths)]


# Screening runs the suite of one working copy hundreds of times; reading its
# CI and tox files (tens of ms) is done once per copy and configuration state.
CONFIG_FILES = ("pyproject.toml", "setup.cfg", "pytest.ini", "tox.ini", "tox.toml",
                "noxfile.py", "hatch.toml", *MAKEFILES, ".github/workflows")  # fmt: skip


def _config_stamp(tree: Path) -> tuple[tuple[str, int, int], ...]:
    stamp = []
    for name in CONFIG_FILES:
        try:
            info = (tree / name).stat()
        except OSError:
            continue
        stamp.append((name, info.st_mtime_ns, info.st_size))
    return tuple(stamp)


@functools.lru_cache(maxsize=64)
def _suite_args(
    tree: str, stamp: tuple[tuple[str, int, int], ...]
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...], tuple[str, ...]]:
    """The options, test paths and variables of the project's run, and its workspace
    members' import roots: read once per tree and configuration state."""
    root = Path(tree)
    plan = plan_tests(root)
    options = plan.options
    addopts = reporting_free_addopts(root)
    if addopts is not None:
        options = ["-o", f"addopts={shlex.join(addopts)}", *options]
    return (
        tuple(options), tuple(plan.paths), tuple(sorted(plan.env.items())),
        tuple(workspace_roots(root)),
    )  # fmt: skip
