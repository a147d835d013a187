"""A red suite's chance on another installed Python, and ``--python``.

The interpreters are the machine's own, found as a user's machine has them
(uv's list, PATH, pyenv); the repositories are real git repositories whose
venvs uv builds from the package index in the box, and whose suites real
pytest runs. The end-to-end tests need a second CPython (3.8 or newer) beside
corrupt's own and skip, saying so, where there is none.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from gitrepos import make_repo
from repos_run_support import session_xdg

from corrupt.repos.checkout import checkout
from corrupt.repos.original import original_checkout
from corrupt.repos.specs import parse_spec
from corrupt.sandboxes.local.bubblewrap import interpreter_roots
from corrupt.sandboxes.local.environment import environment_key, recipe_for
from corrupt.sandboxes.local.interpreters import (
    RELEASED,
    Interpreter,
    declared_support,
    find_interpreter,
    installed_interpreters,
    other_interpreters,
    own_interpreter,
)
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.suites.baseline import cached_baseline
from corrupt.tasks.store import Store

SETUPTOOLS = (
    '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n'
)


def second_interpreter(*, same_minor_first: bool = False) -> Interpreter:
    """Another installed CPython than corrupt's own, or a skip: the newest one a red suite
    would try (another minor version, or a newer patch release of its own), or with
    ``same_minor_first`` any other patch release of its own minor if there is one."""
    own = own_interpreter()
    tried = [i for i in installed_interpreters() if i.minor != own.minor or i.version > own.version]
    others = [i for i in installed_interpreters() if i != own]
    if same_minor_first:
        tried = [i for i in others if i.minor == own.minor] + others
    if not tried:
        pytest.skip(
            f"no second CPython >= 3.8 is installed beside corrupt's own {own.label} "
            "(looked in uv python list, PATH's python3.X, pyenv's versions)"
        )
    return tried[0]


def corrupt_cli(*args: str, tmp_path_factory) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "corrupt.cli", *args],
        env=dict(os.environ, XDG_CACHE_HOME=str(session_xdg(tmp_path_factory)), COLUMNS="300"),
        capture_output=True,
        text=True,
        timeout=900,
    )


def cache_of(tmp_path_factory) -> Path:
    return session_xdg(tmp_path_factory) / "corrupt"


def version_pinned(target: tuple[int, ...], requires: str) -> dict[str, str]:
    """A project whose one real test passes only on Python ``target`` (its version)."""
    return {
        "pyproject.toml": SETUPTOOLS
        + f'[project]\nname = "pinned"\nversion = "1.0"\nrequires-python = "{requires}"\n',
        "pinned.py": "import sys\n\ndef version():\n    return tuple(sys.version_info[:3])\n",
        "tests/test_pinned.py": (
            "from pinned import version\n\n"
            f"TARGET = {target!r}\n\n"
            "def test_on_the_python_it_was_written_for():\n"
            "    assert version() == TARGET\n\n"
            "def test_anywhere():\n    assert version() >= (3, 8)\n"
        ),
    }


# -- what a project supports, and which interpreters that leaves -------------------


def test_requires_python_and_classifiers_from_every_packaging_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "a"\nrequires-python = ">= 3.10"\nclassifiers = [\n'
        '  "Programming Language :: Python :: 3.10",\n'
        '  "Programming Language :: Python :: 3.12",\n'
        '  "Programming Language :: Python :: 3 :: Only",\n]\n'
    )
    support = declared_support(tmp_path)
    assert support.describe() == "requires-python >= 3.10, classifiers 3.10 to 3.12"
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "setup.cfg").write_text(
        "[metadata]\nclassifiers =\n    Programming Language :: Python :: 3.9\n"
        "[options]\npython_requires = >=3.9, <3.11\n"
    )
    assert declared_support(cfg).describe() == "requires-python >=3.9, <3.11, classifiers 3.9"
    py = tmp_path / "py"
    py.mkdir()
    (py / "setup.py").write_text(
        "setup(python_requires='>=3.7',\n"
        "      classifiers=['Programming Language :: Python :: 3.8'])\n"
    )
    assert declared_support(py).describe() == "requires-python >=3.7, classifiers 3.8"
    poetry = tmp_path / "poetry"
    poetry.mkdir()
    (poetry / "pyproject.toml").write_text('[tool.poetry.dependencies]\npython = "^3.9"\n')
    assert declared_support(poetry).describe() == "requires-python >=3.9,<4"
    assert declared_support(tmp_path / "nothing").describe() == (
        "no supported Python versions declared"
    )


def test_which_interpreters_a_project_allows(tmp_path):
    def made(version: tuple[int, int, int]) -> Interpreter:
        return Interpreter(version, Path(f"/opt/py{version}/bin/python3"), Path("/opt"))

    (tmp_path / "pyproject.toml").write_text(
        '[project]\nrequires-python = ">=3.10"\nclassifiers = [\n'
        '  "Programming Language :: Python :: 3.10",\n'
        '  "Programming Language :: Python :: 3.11",\n]\n'
    )
    support = declared_support(tmp_path)
    assert support.allows(made((3, 10, 1))) and support.allows(made((3, 11, 9)))
    assert not support.allows(made((3, 9, 18)))  # below requires-python
    assert not support.allows(made((3, 12, 1)))  # past what the classifiers name


def test_the_machines_interpreters_are_found_once_each_as_what_they_are():
    found = installed_interpreters()
    own = own_interpreter()
    assert own in found
    assert len({i.executable for i in found}) == len(found)
    assert [i.version for i in found] == sorted((i.version for i in found), reverse=True)
    for interpreter in found:
        assert interpreter.executable.is_file() and interpreter.minor >= (3, 8)
    assert find_interpreter(own.label) == own
    assert find_interpreter(f"{own.version[0]}.{own.version[1]}") == own
    assert find_interpreter("3.99") is None and find_interpreter("three") is None


def test_another_interpreters_box_mounts_its_own_prefix():
    other = second_interpreter()
    roots = interpreter_roots(other)
    assert roots == [] or other.prefix in roots or other.prefix.resolve() in roots
    # under /usr (a system Python) the box shows it already; elsewhere it must be mounted
    if not str(other.prefix).startswith("/usr"):
        assert other.prefix in roots and own_interpreter().prefix not in roots


# -- end to end: a red suite green on another Python --------------------------------


def test_a_suite_red_here_is_green_on_the_other_python_it_supports(tmp_path_factory, tmp_path):
    other = second_interpreter()
    own = own_interpreter()
    folder = tmp_path / "pinned"
    make_repo(folder, version_pinned(other.version, ">=3.8"))
    assert other_interpreters(folder, own)[0] == other  # the newest other one is tried first
    proc = corrupt_cli("baseline", str(folder), "--explain", tmp_path_factory=tmp_path_factory)
    assert proc.returncode == 0, proc.stderr
    err = " ".join(proc.stderr.split())
    assert f"the suite is red on Python {own.label} (red test); trying {other}" in err
    assert "which it supports (requires-python >=3.8)" in err
    assert "tests: 2 passing" in proc.stdout
    out = " ".join(proc.stdout.split())
    assert (
        f"python: {other.label} ({other.executable}), the suite being red on corrupt's own "
        f"{own.label}; the project supports requires-python >=3.8" in out
    )
    # recorded: the baseline, the environment's recipe and its cache key name that Python
    pinned = checkout(parse_spec(str(folder)), cache_dir=cache_of(tmp_path_factory))
    sandbox = LocalSandbox(cache_dir=cache_of(tmp_path_factory))
    baseline = cached_baseline(pinned, sandbox, cache_of(tmp_path_factory))
    assert baseline is not None and baseline.python == other.label
    on_other = replace(pinned, python=other.label)
    assert recipe_for(on_other, cache_dir=cache_of(tmp_path_factory))["python"] == other.label
    assert environment_key(pinned) != environment_key(on_other)
    # a second run starts on the recorded Python: no red run, no note
    again = corrupt_cli("baseline", str(folder), "--explain", tmp_path_factory=tmp_path_factory)
    assert again.returncode == 0, again.stderr
    assert "trying" not in again.stderr
    assert f"python: {other.label} (" in again.stdout

    # a build keeps it, so exports, scoring and materialized tasks install the same venv
    out_dir = tmp_path / "out"
    built = corrupt_cli(
        "build", str(folder), "--mode", "remove", "--n", "1", "--out", str(out_dir),
        "--min-lines", "1", "--min-covering", "1", "--min-failing", "1",
        tmp_path_factory=tmp_path_factory,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    assert len((out_dir / "tasks.jsonl").read_text().splitlines()) == 1
    store = Store.open(out_dir)
    try:
        info = store.checkout_info()
    finally:
        store.close()
    assert info["python"] == other.label
    reopened = original_checkout(info, cache_dir=cache_of(tmp_path_factory))
    assert reopened.python == other.label
    env = sandbox.prepare(reopened)
    assert env.key == environment_key(on_other)
    assert Path(env.python).resolve() == other.executable.resolve()
    assert env.interpreter_roots == tuple(interpreter_roots(other))


def test_an_old_suite_is_green_on_the_python_and_the_packages_of_its_date(
    tmp_path_factory, tmp_path
):
    """Red on corrupt's Python with either set of packages, and on the Python of its date
    with today's: green with both of its date, as its CI had them that day."""
    second_interpreter()
    committed = "2023-06-01T12:00:00Z"
    folder = tmp_path / "ofitsday"
    folder.mkdir()
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(
        SETUPTOOLS + '[project]\nname = "ofitsday"\nversion = "1"\nrequires-python = ">=3.8"\n'
    )
    target = other_interpreters(folder, own_interpreter(), as_of=committed)[0]
    make_repo(
        folder,
        {
            "pyproject.toml": pyproject.read_text(),
            "ofitsday.py": "def day():\n    return 1\n",
            "requirements-test.txt": "six\n",
            "tests/test_day.py": (
                "import sys\n\nimport six\n\n"
                "def test_python_of_its_day():\n"
                f"    assert sys.version_info[:2] == {target.version[:2]!r}\n\n"
                "def test_six_of_its_day():\n    assert six.__version__ == '1.16.0'\n"
            ),
        },
        when=committed,
    )
    proc = corrupt_cli("baseline", str(folder), "--explain", tmp_path_factory=tmp_path_factory)
    assert proc.returncode == 0, proc.stderr
    err = " ".join(proc.stderr.split())
    assert f"trying {target}" in err and f"trying the packages released by {committed} on it" in err
    out = " ".join(proc.stdout.split())
    assert f"python: {target.label} (" in out and "tests: 2 passing" in out
    assert f"packages: as released by {committed} (the commit's date)" in out


def test_a_red_suite_with_no_other_python_it_supports_says_so(tmp_path_factory, tmp_path):
    own = own_interpreter()
    make_repo(
        tmp_path / "exact",
        version_pinned((2, 7), f"=={own.label}"),  # red anywhere, and only this Python allowed
    )
    proc = corrupt_cli("baseline", str(tmp_path / "exact"), tmp_path_factory=tmp_path_factory)
    assert proc.returncode == 15, proc.stderr
    line = " ".join(proc.stderr.split())
    assert "test_on_the_python_it_was_written_for fails" in line
    assert (
        f"no other Python it supports is installed to try (requires-python =={own.label}; "
        f"installed: {', '.join(i.label for i in installed_interpreters())})" in line
    )
    assert "trying" not in line and "Traceback" not in proc.stderr


def test_a_red_suite_without_network_gets_no_other_python(tmp_path_factory, tmp_path):
    second_interpreter()  # there is one it could try
    files = {
        "pyproject.toml": SETUPTOOLS
        + '[project]\nname = "online"\nversion = "1.0"\nrequires-python = ">=3.8"\n',
        "tests/test_online.py": (
            "import socket\n\ndef test_resolves():\n    socket.getaddrinfo('pypi.org', 443)\n"
        ),
    }
    make_repo(tmp_path / "online", files)
    proc = corrupt_cli("baseline", str(tmp_path / "online"), tmp_path_factory=tmp_path_factory)
    # its one test is left out for want of the network, so none is left: no tests
    assert proc.returncode == 14, proc.stderr
    err = " ".join(proc.stderr.split())
    assert (
        "1 need the network or a service on it, which the box never has" in err
        and "gaierror" in err
    )
    assert "trying" not in proc.stderr and "no other Python" not in proc.stderr


def test_python_option_builds_on_the_interpreter_asked_for(tmp_path_factory, tmp_path):
    other = second_interpreter(same_minor_first=True)  # a system Python under /usr, if any
    folder = tmp_path / "asked"
    make_repo(folder, version_pinned(other.version, ">=3.8"))
    proc = corrupt_cli(
        "baseline", str(folder), "--python", other.label, "--explain",
        tmp_path_factory=tmp_path_factory,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "trying" not in proc.stderr  # green at once: no red run on corrupt's own
    assert f"python: {other.label} ({other.executable}), as --python asked" in " ".join(
        proc.stdout.split()
    )
    missing = corrupt_cli(
        "baseline", str(folder), "--python", "3.99", tmp_path_factory=tmp_path_factory
    )
    assert missing.returncode == 2
    assert "no Python 3.99 is installed (found: " in missing.stderr
    assert "uv python install 3.99" in " ".join(missing.stderr.split())


def test_a_project_whose_requires_python_excludes_corrupts_own_builds_on_one_it_allows(
    tmp_path_factory, tmp_path
):
    other = second_interpreter()
    own = own_interpreter()
    if other.minor <= own.minor:
        pytest.skip(f"no CPython newer than corrupt's own {own.label} is installed")
    folder = tmp_path / "newer"
    make_repo(folder, version_pinned(other.version, f">={other.minor[0]}.{other.minor[1]}"))
    proc = corrupt_cli("baseline", str(folder), "--explain", tmp_path_factory=tmp_path_factory)
    assert proc.returncode == 0, proc.stderr
    err, out = " ".join(proc.stderr.split()), " ".join(proc.stdout.split())
    assert (
        f"excludes corrupt's Python {own.label}: the environment is built on Python {other.label}"
        in err
    )
    assert "trying" not in err  # chosen up front, not after a failed install or a red run
    assert "tests: 2 passing" in proc.stdout
    assert f"python: {other.label} (" in out and f"excluded by corrupt's own {own.label}" in out


def test_a_requires_python_no_installed_interpreter_satisfies_is_one_line(
    tmp_path_factory, tmp_path
):
    make_repo(tmp_path / "future", version_pinned((3, 99, 0), ">=3.99"))
    proc = corrupt_cli("baseline", str(tmp_path / "future"), tmp_path_factory=tmp_path_factory)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    line = " ".join(proc.stderr.split())
    assert "requires Python >=3.99, and no installed interpreter satisfies it" in line
    assert "uv python install 3.99" in line


def test_an_old_commit_tries_the_pythons_of_its_date_first(tmp_path):
    """astroid's case: a 2021 commit calls what Python 3.11 removed; of the others it
    supports, those released by the commit's date come first, newest first."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\nversion = "1"\nrequires-python = ">=3.8"\n'
    )
    own = own_interpreter()
    newest_first = other_interpreters(tmp_path, own)
    if len({i.minor for i in newest_first}) < 2:
        pytest.skip("fewer than two other CPython minor versions are installed")
    assert other_interpreters(tmp_path, own, as_of="2999-01-01T00:00:00Z") == newest_first
    oldest = newest_first[-1]
    dated = other_interpreters(tmp_path, own, as_of=RELEASED[oldest.minor] + "T12:00:00Z")
    assert dated[0] == oldest and set(dated) == set(newest_first)
    assert dated[1:] == newest_first[:-1]  # the later ones after it, newest first still
