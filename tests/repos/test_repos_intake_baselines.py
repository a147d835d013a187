"""Real repositories that plain `pytest` and one-shot installs get wrong, made green by intake.

Each is a real git repository run through the real checkout, a real venv built
with uv from the package index in the box, and real pytest runs: the CI
workflow's test paths, plugins named only by addopts, a unittest suite,
setuptools-scm versions with a generated version file, setuptools-git-versioning
(read from PKG-INFO), a suite that needs an older pytest, and requirement files
holding a pin that does not resolve and a git URL that cannot be fetched.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from gitrepos import AUTHOR, commit, make_repo
from repos_run_support import folder_baseline, session_cache, session_xdg

from corrupt.errors import RedBaselineError
from corrupt.repos.checkout import checkout
from corrupt.repos.original import original_checkout
from corrupt.repos.specs import parse_spec
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.local.environment import recipe_for
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.suites.runner import run_tests
from corrupt.tasks.store import Store

SETUPTOOLS = (
    '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n'
)
MISSING_PIN = "not-a-real-package-for-corrupt-tests==9.9.9"
# a name the package index does not have either, so the index fallback fails too
GIT_URL = "git+https://example.invalid/owner/gone.git#egg=corrupt-gone-for-tests-3b1c"


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    return LocalSandbox(cache_dir=session_cache(tmp_path_factory))


ALPHA = {
    "pyproject.toml": SETUPTOOLS
    + '[project]\nname = "alpha"\nversion = "1.0"\n'
    + '[tool.pytest.ini_options]\naddopts = "--timeout=30 --cov=alpha --cov-report=term"\n',
    "src/alpha/__init__.py": "def double(x):\n    return 2 * x\n",
    "tests/test_alpha.py": (
        "from alpha import double\n\n"
        "def test_double():\n    assert double(2) == 4\n\n"
        "def test_timeout_plugin_reads_addopts(request):\n"
        "    assert request.config.getoption('timeout') == 30\n"
    ),
    # plain `pytest` would collect this and fail: it needs a fuzzing engine
    "fuzz/test_fuzz.py": "import atheris\n\ndef test_fuzz():\n    pass\n",
    ".github/workflows/ci.yml": (
        "jobs:\n  test:\n    steps:\n      - run: pip install -e .\n"
        "      - run: pytest --cov=alpha --cov-report=xml tests\n"
    ),
}


def test_ci_test_paths_and_an_addopts_plugin(sandbox, tmp_path_factory, tmp_path):
    make_repo(tmp_path / "alpha", ALPHA)
    pinned, baseline = folder_baseline(tmp_path / "alpha", sandbox, tmp_path_factory)
    assert baseline.tests == [
        "tests/test_alpha.py::test_double",
        "tests/test_alpha.py::test_timeout_plugin_reads_addopts",
    ]
    # coverage options dropped from addopts (our coverage run must be the only one)
    assert baseline.command == ["python", "-m", "pytest", "-o", "addopts=--timeout=30", "tests"]


def test_a_unittest_suite_with_unittests_own_file_pattern(sandbox, tmp_path_factory, tmp_path):
    make_repo(
        tmp_path / "beta",
        {
            "beta.py": "def inc(x):\n    return x + 1\n",
            # test*.py is unittest's pattern; pytest's own (test_*.py) would find nothing
            "tests/testbeta.py": (
                "import unittest\nfrom beta import inc\n\n"
                "class IncTest(unittest.TestCase):\n"
                "    def test_inc(self):\n        self.assertEqual(inc(1), 2)\n\n"
                "    def test_inc_negative(self):\n        self.assertEqual(inc(-1), 0)\n"
            ),
            ".github/workflows/ci.yml": (
                "jobs:\n  test:\n    steps:\n      - run: python -m unittest discover -s tests -v\n"
            ),
        },
    )
    _, baseline = folder_baseline(tmp_path / "beta", sandbox, tmp_path_factory)
    assert baseline.tests == [
        "tests/testbeta.py::IncTest::test_inc",
        "tests/testbeta.py::IncTest::test_inc_negative",
    ]


def test_setuptools_scm_version_and_its_generated_file(sandbox, tmp_path_factory, tmp_path):
    repo = make_repo(
        tmp_path / "gamma",
        {
            "pyproject.toml": (
                '[build-system]\nrequires = ["setuptools>=64", "setuptools-scm>=8"]\n'
                'build-backend = "setuptools.build_meta"\n'
                '[project]\nname = "gamma"\ndynamic = ["version"]\n'
                '[tool.setuptools_scm]\nversion_file = "src/gamma/_version.py"\n'
            ),
            ".gitignore": "src/gamma/_version.py\n",
            "src/gamma/__init__.py": "from gamma._version import __version__\n",
        },
    )
    repo.git.tag("v1.4.0", env=AUTHOR)
    sha = commit(
        repo,
        {
            "tests/test_version.py": (
                "import importlib.metadata\nimport gamma\n\n"
                "def test_the_package_and_its_metadata_agree():\n"
                "    assert gamma.__version__ == importlib.metadata.version('gamma')\n\n"
                "def test_a_dev_version_after_the_tag():\n"
                "    assert gamma.__version__.startswith('1.4.1.dev1+g')\n"
            )
        },
        "tests",
    )
    pinned, baseline = folder_baseline(tmp_path / "gamma", sandbox, tmp_path_factory)
    assert pinned.version == f"1.4.1.dev1+g{sha[:7]}"
    assert (pinned.path / "src/gamma/_version.py").is_file()
    assert len(baseline.tests) == 2


def test_setuptools_git_versioning_reads_the_version_from_pkg_info(
    sandbox, tmp_path_factory, tmp_path
):
    repo = make_repo(
        tmp_path / "zeta",
        {
            "pyproject.toml": (
                '[build-system]\nrequires = ["setuptools>=64", "setuptools-git-versioning>=2"]\n'
                'build-backend = "setuptools.build_meta"\n'
                '[project]\nname = "zeta"\ndynamic = ["version"]\n'
                "[tool.setuptools-git-versioning]\nenabled = true\n"
            ),
            "src/zeta/__init__.py": "",
        },
    )
    repo.git.tag("2.0.0", env=AUTHOR)
    commit(
        repo,
        {
            "tests/test_version.py": (
                "import importlib.metadata\n\n"
                "def test_installed_from_the_pinned_commits_version():\n"
                "    assert importlib.metadata.version('zeta').startswith('2.0.1.dev1')\n"
            )
        },
        "tests",
    )
    # without git it would build 0.0.1; it trusts an sdist's PKG-INFO instead
    pinned, baseline = folder_baseline(tmp_path / "zeta", sandbox, tmp_path_factory)
    assert "Version: 2.0.1.dev1+g" in (pinned.path / "PKG-INFO").read_text()
    assert baseline.tests == [
        "tests/test_version.py::test_installed_from_the_pinned_commits_version"
    ]


def test_a_suite_written_for_an_older_pytest_gets_one(sandbox, tmp_path_factory, tmp_path):
    make_repo(
        tmp_path / "eta",
        {
            # a hook argument pytest 9 removed: collection fails on the newest pytest
            "conftest.py": (
                "import pytest\n\ndef pytest_collect_file(path, parent):\n    return None\n"
            ),
            "tests/test_eta.py": "def test_one():\n    assert 1 + 1 == 2\n",
        },
    )
    pinned, baseline = folder_baseline(tmp_path / "eta", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_eta.py::test_one"]
    assert recipe_for(pinned, cache_dir=session_cache(tmp_path_factory))["pytest"] == "pytest<9"


def test_a_pin_that_does_not_resolve_and_a_git_url_are_dropped_not_fatal(
    sandbox, tmp_path_factory, tmp_path
):
    make_repo(
        tmp_path / "delta",
        {
            "pyproject.toml": SETUPTOOLS + '[project]\nname = "delta"\nversion = "1"\n',
            "src/delta/__init__.py": "import os\n\ndef cwd():\n    return os.getcwd()\n",
            "requirements-dev.txt": f"pytest-mock\n{MISSING_PIN}\n{GIT_URL}\n",
            "tests/test_delta.py": (
                "import delta\n\n"
                "def test_with_the_mocker_fixture(mocker):\n"
                "    mocker.patch('os.getcwd', return_value='/x')\n"
                "    assert delta.cwd() == '/x'\n"
            ),
        },
    )
    pinned, baseline = folder_baseline(tmp_path / "delta", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_delta.py::test_with_the_mocker_fixture"]
    dropped = recipe_for(pinned, cache_dir=session_cache(tmp_path_factory))["dropped"]
    assert dropped == [MISSING_PIN, GIT_URL]


def test_a_red_suite_names_its_cause_and_keeps_a_log(sandbox, tmp_path_factory, tmp_path):
    make_repo(
        tmp_path / "eps",
        {"tests/test_e.py": "def test_ok():\n    pass\n\ndef test_red():\n    assert 1 == 2\n"},
    )
    with pytest.raises(RedBaselineError) as caught:
        folder_baseline(tmp_path / "eps", sandbox, tmp_path_factory)
    assert caught.value.cause == "red test"
    log = Path(caught.value.message.rsplit("; log: ", 1)[1])
    assert "tests/test_e.py::test_red: failed: AssertionError" in log.read_text()


def test_baseline_explain_prints_the_command_its_source_and_what_was_dropped(
    tmp_path_factory, tmp_path
):
    make_repo(tmp_path / "alpha", {**ALPHA, "requirements-test.txt": MISSING_PIN + "\n"})
    proc = subprocess.run(
        [sys.executable, "-m", "corrupt.cli", "baseline", str(tmp_path / "alpha"), "--explain"],
        env=dict(os.environ, XDG_CACHE_HOME=str(session_xdg(tmp_path_factory)), COLUMNS="300"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "test command: PYTHONHASHSEED=0 PYTHONPATH=src python -m pytest -o " in out
    assert "from: .github/workflows/ci.yml: pytest --cov=alpha --cov-report=xml tests" in out
    assert "requirements-test.txt" in out and "pytest configuration" in out
    assert f"dropped requirements: {MISSING_PIN}" in out
    assert "tests: 2 passing" in out


def test_a_data_driven_suite_is_told_how_to_build(tmp_path_factory, tmp_path):
    make_repo(
        tmp_path / "theta",
        {
            "theta.py": "def slug(text):\n    return text.strip().lower().replace(' ', '-')\n",
            # one test looping over many cases: no function has 5 covering tests
            "tests/test_cases.py": (
                "from theta import slug\n\nCASES = [('A b', 'a-b'), (' X ', 'x'), ('c', 'c')]\n\n"
                "def test_all_cases():\n"
                "    for text, expected in CASES:\n        assert slug(text) == expected\n"
            ),
        },
    )
    proc = subprocess.run(
        [sys.executable, "-m", "corrupt.cli", "baseline", str(tmp_path / "theta")],
        env=dict(os.environ, XDG_CACHE_HOME=str(session_xdg(tmp_path_factory)), COLUMNS="300"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "tests: 1 passing" in proc.stdout
    assert "--min-covering 1 --min-failing 1" in " ".join(proc.stderr.split())


def test_ids_built_from_absolute_paths_are_the_same_in_every_working_copy(
    sandbox, tmp_path_factory, tmp_path
):
    make_repo(
        tmp_path / "iota",
        {
            "tests/data/a.txt": "a\n",
            "tests/data/b.txt": "b\n",
            # ids from absolute paths, as glob over a data folder gives them
            "tests/test_data.py": (
                "import glob, os, pytest\n\n"
                "HERE = os.path.dirname(os.path.abspath(__file__))\n"
                "FILES = sorted(glob.glob(os.path.join(HERE, 'data', '*.txt')))\n\n"
                "@pytest.mark.parametrize('path', FILES)\n"
                "def test_one_line(path):\n"
                "    assert open(path).read().count('\\n') == 1\n"
            ),
        },
    )
    pinned, baseline = folder_baseline(tmp_path / "iota", sandbox, tmp_path_factory)
    ids = [f"tests/test_data.py::test_one_line[/testbed/tests/data/{n}.txt]" for n in "ab"]
    assert baseline.tests == ids
    env = sandbox.prepare(pinned)
    with Workspace(pinned) as ws:  # another copy, at another host path
        assert sorted(run_tests(sandbox, env, ws.path, select=ids).passing()) == ids


# six 1.17.0 came out in December 2024: a suite committed in 2023 was green with 1.16.0
DRIFTED = {
    "kappa.py": (
        "import six\n\ndef shout(text):\n    if not isinstance(text, six.string_types):\n"
        "        raise TypeError(text)\n    words = text.split()\n"
        "    return ' '.join(word.upper() for word in words) + '!'\n"
    ),
    "requirements-test.txt": "six\n",
    "tests/test_kappa.py": (
        "import six\nfrom kappa import shout\n\n"
        "def test_shout():\n    assert shout('a  b') == 'A B!'\n\n"
        "def test_six_of_its_day():\n    assert six.__version__ == '1.16.0'\n"
    ),
}
COMMITTED = "2023-06-01T12:00:00Z"


def corrupt_cli(*args: str, tmp_path_factory) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "corrupt.cli", *args],
        env=dict(os.environ, XDG_CACHE_HOME=str(session_xdg(tmp_path_factory)), COLUMNS="300"),
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_a_suite_red_with_todays_packages_is_green_with_those_of_its_commit_date(
    tmp_path_factory, tmp_path
):
    make_repo(tmp_path / "kappa", DRIFTED, when=COMMITTED)
    proc = corrupt_cli(
        "baseline", str(tmp_path / "kappa"), "--explain", tmp_path_factory=tmp_path_factory
    )
    assert proc.returncode == 0, proc.stderr
    err = " ".join(proc.stderr.split())
    assert "the suite is red with today's packages (red test)" in err
    assert f"trying the packages released by {COMMITTED}, the commit's date" in err
    assert "tests: 2 passing" in proc.stdout
    assert f"packages: as released by {COMMITTED}" in proc.stdout
    pinned = checkout(
        parse_spec(str(tmp_path / "kappa")), cache_dir=session_xdg(tmp_path_factory) / "corrupt"
    )
    assert pinned.committed == COMMITTED and pinned.packages_as_of is None
    # the cached baseline knows its date: no red run, no note, the dated venv again
    again = corrupt_cli(
        "baseline", str(tmp_path / "kappa"), "--explain", tmp_path_factory=tmp_path_factory
    )
    assert again.returncode == 0, again.stderr
    assert "red with today's" not in again.stderr
    assert f"packages: as released by {COMMITTED}" in again.stdout


def test_a_suite_red_with_both_says_so_once(tmp_path_factory, tmp_path):
    red = {**DRIFTED, "tests/test_kappa.py": "def test_never():\n    assert 1 == 2\n"}
    make_repo(tmp_path / "lambda", red, when=COMMITTED)
    proc = corrupt_cli("baseline", str(tmp_path / "lambda"), tmp_path_factory=tmp_path_factory)
    assert proc.returncode == 15
    line = " ".join(proc.stderr.split())
    assert "tests/test_kappa.py::test_never fails" in line
    assert f"with the packages of {COMMITTED} too: baseline is red" in line
    first, dated = re.findall(r"log: (\S+\.log)", line)
    assert dated == first.replace(".log", "-2023-06-01.log")
    assert "test_never" in Path(first).read_text() and "test_never" in Path(dated).read_text()
    assert "Traceback" not in proc.stderr


def test_a_build_keeps_the_date_its_baseline_was_green_with(tmp_path_factory, tmp_path):
    make_repo(tmp_path / "mu", DRIFTED, when=COMMITTED)
    out = tmp_path / "out"
    proc = corrupt_cli(
        "build", str(tmp_path / "mu"), "--mode", "remove", "--n", "1", "--out", str(out),
        "--min-lines", "1", "--min-covering", "1", "--min-failing", "1",
        tmp_path_factory=tmp_path_factory,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    # verified in the dated environment: today's fails test_six_of_its_day as well
    assert len((out / "tasks.jsonl").read_text().splitlines()) == 1
    store = Store.open(out)
    try:
        info = store.checkout_info()
    finally:
        store.close()
    assert info["packages_as_of"] == COMMITTED
    again = original_checkout(info, cache_dir=session_xdg(tmp_path_factory) / "corrupt")
    assert again.packages_as_of == COMMITTED  # scoring and exports install the same packages


def test_a_red_suite_committed_today_gets_no_second_chance(tmp_path_factory, tmp_path):
    # the packages of its date are today's: a second environment would only repeat the run
    make_repo(tmp_path / "nu", {"tests/test_nu.py": "def test_never():\n    assert 1 == 2\n"})
    proc = corrupt_cli("baseline", str(tmp_path / "nu"), tmp_path_factory=tmp_path_factory)
    assert proc.returncode == 15
    assert "test_never fails" in proc.stderr
    assert "trying the packages" not in proc.stderr and "too:" not in proc.stderr


def test_a_script_named_like_a_test_is_not_collected(tmp_path_factory, tmp_path):
    # toml's tests/encoding_test.py: a program for an external test runner, reading stdin
    # at import, which pytest's `*_test.py` pattern would collect (and fail on)
    files = {
        "tomlish.py": "def dumps(d):\n    return '\\n'.join(f'{k} = {v!r}' for k, v in d.items())\n",
        "tests/encoding_test.py": (
            "import json, sys\nfrom tomlish import dumps\n\n"
            "print(dumps(json.loads(sys.stdin.read())))\n"
        ),
        "tests/test_api.py": (
            "from tomlish import dumps\n\ndef test_dumps():\n    assert dumps({'a': 1}) == 'a = 1'\n"
        ),
    }
    make_repo(tmp_path / "xi", files)
    proc = corrupt_cli(
        "baseline", str(tmp_path / "xi"), "--explain", tmp_path_factory=tmp_path_factory
    )
    assert proc.returncode == 0, proc.stderr
    out = " ".join(proc.stdout.split())
    assert (
        "test command: PYTHONHASHSEED=0 PYTHONPATH=. python -m pytest --ignore=tests/encoding_test.py"
        in out
    )
    assert (
        "not collected, scripts named like tests (no test in them, code run at import): tests/encoding_test.py"
        in out
    )
    assert "tests: 1 passing" in out


# flit_core 4 no longer reads [tool.flit.metadata]; the flit_core of 2023 (3.9) does
OLD_FLIT = {
    "pyproject.toml": (
        '[build-system]\nrequires = ["flit_core"]\nbuild-backend = "flit_core.buildapi"\n\n'
        '[tool.flit.metadata]\nmodule = "nu"\nauthor = "a"\nauthor-email = "a@example.invalid"\n'
    ),
    "nu.py": '"""Old-style flit metadata."""\n\n__version__ = "1.0"\n\n\ndef one():\n    return 1\n',
    "tests/test_nu.py": "from nu import one\n\n\ndef test_one():\n    assert one() == 1\n",
}


def test_an_install_that_fails_with_todays_packages_gets_those_of_its_commit_date(
    tmp_path_factory, tmp_path
):
    make_repo(tmp_path / "nu", OLD_FLIT, when=COMMITTED)
    proc = corrupt_cli(
        "baseline", str(tmp_path / "nu"), "--explain", tmp_path_factory=tmp_path_factory
    )
    assert proc.returncode == 0, proc.stderr
    err = " ".join(proc.stderr.split())
    assert "installing failed with today's packages" in err and "tool.flit.metadata" in err
    assert f"trying the packages released by {COMMITTED}, the commit's date" in err
    assert "tests: 1 passing" in proc.stdout
    assert f"packages: as released by {COMMITTED}" in proc.stdout
