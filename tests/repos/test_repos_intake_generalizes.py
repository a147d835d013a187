"""Intake mechanisms that generalize (issue 40), one fixture repository made here for each.

Each integration test is a real git repository through the real checkout, a
venv built with uv from the package index in the box, and real pytest runs; it
checks the outcome (a green baseline with the tests it should have, or the one
error line a user reads), not the code path. The unit tests check the pure
readers on their own: Poetry's version syntax, shell variables in CI scripts,
URL requirements, the module -> distribution rules.
"""

from __future__ import annotations

import json

import pytest
from gitrepos import make_repo
from repos_run_support import folder_baseline, session_cache

from corrupt.errors import InstallError, NoTestsError, RedBaselineError, SuiteTooSlowError
from corrupt.repos.budget import suite_cut
from corrupt.repos.declared import poetry_specifier
from corrupt.repos.installplan import discover_test_requirements
from corrupt.repos.missing import (
    distribution_for,
    imported_by_project,
    imported_in_tests,
    missing_modules,
)
from corrupt.repos.requirements import index_fallback
from corrupt.repos.testplan import plan_tests
from corrupt.repos.versions import version_env
from corrupt.sandboxes.local.environment import recipe_for
from corrupt.sandboxes.local.sandbox import LocalSandbox

SETUPTOOLS = (
    '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n'
)
# A small test-only dependency every fixture below needs and declares somewhere odd: one
# that neither pytest nor coverage.py brings along, so a test passes only when intake found it.
USES_TOMLI_W = (
    "import tomli_w\n\n"
    "def test_writes_toml():\n"
    "    assert tomli_w.dumps({'k': 'v'}) == 'k = \"v\"\\n'\n"
)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    return LocalSandbox(cache_dir=session_cache(tmp_path_factory))


def added(pinned, tmp_path_factory) -> list[str]:
    return recipe_for(pinned, cache_dir=session_cache(tmp_path_factory))["added"]


# -- real repositories ---------------------------------------------------------


def test_extras_a_setup_py_computes_are_read_from_the_built_metadata(
    sandbox, tmp_path_factory, tmp_path
):
    make_repo(
        tmp_path / "computed",
        {
            "setup.py": (
                "from setuptools import setup\n\n"
                "extras = {}\n"
                "for name, deps in [('docs', ['corrupt-not-on-any-index-9a1']), ('testing', ['tomli-w'])]:\n"
                "    extras[name] = list(deps)\n\n"
                "setup(name='computed', version='1.0', py_modules=['computed'],"
                " extras_require=extras)\n"
            ),
            "computed.py": "X = 1\n",
            "tests/test_computed.py": USES_TOMLI_W,
        },
    )
    pinned, baseline = folder_baseline(tmp_path / "computed", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_computed.py::test_writes_toml"]
    assert added(pinned, tmp_path_factory) == ["extras testing (from the built metadata)"]


def test_poetry_test_group_is_installed(sandbox, tmp_path_factory, tmp_path):
    make_repo(
        tmp_path / "poetic",
        {
            "pyproject.toml": (
                '[build-system]\nrequires = ["poetry-core>=1.0"]\n'
                'build-backend = "poetry.core.masonry.api"\n'
                '[tool.poetry]\nname = "poetic"\nversion = "0.1.0"\ndescription = ""\n'
                'authors = ["T <t@example.com>"]\n'
                '[tool.poetry.dependencies]\npython = ">=3.8"\n'
                '[tool.poetry.group.test.dependencies]\ntomli-w = "^1.0"\n'
                '[tool.poetry.group.docs.dependencies]\ncorrupt-not-on-any-index-9a1 = "*"\n'
            ),
            "poetic/__init__.py": "X = 1\n",
            "tests/test_poetic.py": USES_TOMLI_W,
        },
    )
    pinned, baseline = folder_baseline(tmp_path / "poetic", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_poetic.py::test_writes_toml"]
    assert recipe_for(pinned, cache_dir=session_cache(tmp_path_factory))["dropped"] == []


def test_a_module_collection_misses_is_installed_once_and_recorded(
    sandbox, tmp_path_factory, tmp_path
):
    make_repo(
        tmp_path / "undeclared",
        {
            "pyproject.toml": SETUPTOOLS + '[project]\nname = "undeclared"\nversion = "1"\n',
            "undeclared.py": "X = 1\n",
            # declared nowhere: only the import says the tests need it
            "tests/test_undeclared.py": USES_TOMLI_W,
        },
    )
    pinned, baseline = folder_baseline(tmp_path / "undeclared", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_undeclared.py::test_writes_toml"]
    assert added(pinned, tmp_path_factory) == ["tomli-w (collection could not import tomli_w)"]


def test_a_module_of_the_project_itself_is_never_installed_from_the_index(
    sandbox, tmp_path_factory, tmp_path
):
    make_repo(
        tmp_path / "selfish",
        {
            "pyproject.toml": SETUPTOOLS + '[project]\nname = "selfish"\nversion = "1"\n',
            "selfish.py": "X = 1\n",
            # a helper module the project keeps (in a folder off the path): not a dependency
            "helpers/six.py": "X = 1\n",
            "tests/test_selfish.py": "import six\n\ndef test_x():\n    assert six.X == 1\n",
        },
    )
    with pytest.raises(RedBaselineError, match="No module named 'six'"):
        folder_baseline(tmp_path / "selfish", sandbox, tmp_path_factory)
    assert not imported_by_project(tmp_path / "selfish", "six")


def test_a_subpackage_named_like_a_dependency_does_not_hide_it(sandbox, tmp_path_factory, tmp_path):
    make_repo(
        tmp_path / "relay",
        {
            "pyproject.toml": SETUPTOOLS + '[project]\nname = "relay"\nversion = "1"\n',
            "relay/__init__.py": "",
            # relay.protocols.tomli_w is the project's; `import tomli_w` is still the index's
            "relay/protocols/__init__.py": "",
            "relay/protocols/tomli_w/__init__.py": "X = 1\n",
            "tests/test_relay.py": USES_TOMLI_W,
        },
    )
    pinned, baseline = folder_baseline(tmp_path / "relay", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_relay.py::test_writes_toml"]
    assert added(pinned, tmp_path_factory) == ["tomli-w (collection could not import tomli_w)"]


def test_a_module_a_test_imports_inside_it_is_installed_when_the_project_names_it(
    sandbox, tmp_path_factory, tmp_path
):
    make_repo(
        tmp_path / "inner",
        {
            # named in an extra no test group is called after: intake does not install it
            "pyproject.toml": SETUPTOOLS + '[project]\nname = "inner"\nversion = "1"\n'
            '[project.optional-dependencies]\nformats = ["tomli-w"]\n',
            "inner.py": "X = 1\n",
            "tests/test_inner.py": (
                "def test_writes_toml():\n    import tomli_w\n\n"
                "    assert tomli_w.dumps({'k': 'v'}) == 'k = \"v\"\\n'\n\n\n"
                "def test_optional():\n    try:\n        import six  # named nowhere: left out\n"
                "    except ImportError:\n        return\n"
            ),
        },
    )
    pinned, baseline = folder_baseline(tmp_path / "inner", sandbox, tmp_path_factory)
    assert len(baseline.tests) == 2
    assert added(pinned, tmp_path_factory) == ["tomli-w (a test imports tomli_w)"]


def test_a_git_url_that_cannot_be_fetched_is_taken_from_the_index(
    sandbox, tmp_path_factory, tmp_path
):
    make_repo(
        tmp_path / "giturl",
        {
            "pyproject.toml": SETUPTOOLS + '[project]\nname = "giturl"\nversion = "1"\n',
            "giturl.py": "X = 1\n",
            "requirements-test.txt": "git+https://example.invalid/hukkin/tomli-w.git#egg=tomli-w\n",
            "tests/test_giturl.py": USES_TOMLI_W,
        },
    )
    pinned, baseline = folder_baseline(tmp_path / "giturl", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_giturl.py::test_writes_toml"]
    assert added(pinned, tmp_path_factory) == [
        "tomli-w from the package index (its URL did not install)"
    ]


# Build backends that read the version from git, each handed it by its own variable.
VCS_VERSIONED = {
    "pbr": {
        "setup.py": "import setuptools\n\nsetuptools.setup(setup_requires=['pbr'], pbr=True)\n",
        "setup.cfg": "[metadata]\nname = vcsish\n\n[files]\npackages = vcsish\n",
    },
    "uv-dynamic-versioning": {
        "pyproject.toml": (
            '[build-system]\nrequires = ["hatchling", "uv-dynamic-versioning"]\n'
            'build-backend = "hatchling.build"\n'
            '[project]\nname = "vcsish"\ndynamic = ["version"]\n'
            '[tool.hatch.version]\nsource = "uv-dynamic-versioning"\n'
        ),
    },
}


@pytest.mark.parametrize("backend", sorted(VCS_VERSIONED))
def test_a_project_versioned_from_git_builds_without_git_in_its_tree(
    sandbox, tmp_path_factory, tmp_path, backend
):
    make_repo(
        tmp_path / "vcsish",
        {
            **VCS_VERSIONED[backend],
            "vcsish/__init__.py": "X = 1\n",
            "tests/test_vcsish.py": (
                "from importlib.metadata import version\n\n"
                "def test_installed_with_a_version():\n"
                "    assert version('vcsish') == '0.0.0'\n"
            ),
        },
    )
    pinned, baseline = folder_baseline(tmp_path / "vcsish", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_vcsish.py::test_installed_with_a_version"]
    assert added(pinned, tmp_path_factory) == []  # built, not left unbuilt


def test_a_plugin_that_needs_pytests_cache_runs(sandbox, tmp_path_factory, tmp_path):
    make_repo(
        tmp_path / "cached",
        {
            "cached.py": "X = 1\n",
            "conftest.py": (
                "def pytest_configure(config):\n"
                "    config.cache.set('cached/runs', config.cache.get('cached/runs', 0) + 1)\n"
            ),
            "tests/test_cached.py": (
                "def test_sees_a_fresh_cache(request):\n"
                "    assert request.config.cache.get('cached/runs', None) == 1\n"
            ),
        },
    )
    pinned, baseline = folder_baseline(tmp_path / "cached", sandbox, tmp_path_factory)
    # a fresh cache in every run (a value carried over would make it 2, 3, ...), none in the tree
    assert baseline.tests == ["tests/test_cached.py::test_sees_a_fresh_cache"]
    assert not (pinned.path / ".pytest_cache").exists()


@pytest.mark.parametrize(
    ("makefile", "recipe"),
    [
        ("Makefile", "$(PYTHON) tests.py"),
        # make reads a lowercase makefile too; coverage.py running the script runs it as well
        ("makefile", "$(PYTHON) -Wd -m coverage run --branch --source=rooted tests.py"),
    ],
)
def test_a_root_tests_py_the_makefile_runs(sandbox, tmp_path_factory, tmp_path, makefile, recipe):
    make_repo(
        tmp_path / "rooted",
        {
            "rooted.py": "def inc(x):\n    return x + 1\n",
            "tests.py": (
                "import unittest\nfrom rooted import inc\n\n"
                "class IncTest(unittest.TestCase):\n"
                "    def test_inc(self):\n        self.assertEqual(inc(1), 2)\n\n"
                "if __name__ == '__main__':\n    unittest.main()\n"
            ),
            makefile: f"PYTHON ?= python3\n\ntests:\n\t{recipe}\n",
        },
    )
    _, baseline = folder_baseline(tmp_path / "rooted", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests.py::IncTest::test_inc"]


TESTED = "def inc(x):\n    return x + 1\n"
INC_TEST = (
    "import unittest\nfrom tested import inc\n\n"
    "class IncTest(unittest.TestCase):\n"
    "    def test_inc(self):\n        self.assertEqual(inc(1), 2)\n"
)


@pytest.mark.parametrize(
    ("files", "test_id"),
    [
        (  # Fixit: make's `python -m $(PKG).tests`; the package imports its TestCases
            {
                "makefile": "PKG := tested\n\ntest:\n\tpython -m $(PKG).tests\n",
                "tested/tests/__init__.py": "from .inc import IncTest\n",
                "tested/tests/inc.py": INC_TEST,
                "tested/tests/__main__.py": "import unittest\nunittest.main('tested.tests')\n",
            },
            "tested/tests/__init__.py::IncTest::test_inc",
        ),
        (  # aiosqlite: the same package run under coverage
            {
                "makefile": "PKG:=tested\n\ntest:\n\tpython -m coverage run -m $(PKG).tests\n",
                "tested/tests/__init__.py": "from .inc import IncTest\n",
                "tested/tests/inc.py": INC_TEST,
            },
            "tested/tests/__init__.py::IncTest::test_inc",
        ),
        (  # pdoc: `python -m unittest pkg.test`, TestCases in the package's __init__
            {
                "tox.ini": "[testenv]\ncommands = python -m unittest -v tested.test\n",
                "tested/test/__init__.py": INC_TEST,
                "tested/test/example/test_sample.py": "raise SystemExit('a sample, no test')\n",
            },
            "tested/test/__init__.py::IncTest::test_inc",
        ),
        (  # icalevents: CI runs test.py, which gathers the `test` package's modules
            {
                ".github/workflows/ci.yml": "jobs:\n  t:\n    steps:\n      - run: python test.py\n",
                "test.py": "import unittest\nfrom test.test_inc import *\n\nunittest.main()\n",
                "test/__init__.py": "",
                "test/test_inc.py": INC_TEST,
            },
            "test/test_inc.py::IncTest::test_inc",
        ),
        (  # factory_boy: unittest's discovery from the root never enters `examples`
            {
                "tox.ini": "[testenv]\ncommands = python -m unittest\n",
                "tests/__init__.py": "",
                "tests/test_inc.py": INC_TEST,
                "examples/demo/tests.py": (
                    "import unittest\n\nclass DemoTest(unittest.TestCase):\n"
                    "    raise RuntimeError('needs settings of its own')\n"
                ),
            },
            "tests/test_inc.py::IncTest::test_inc",
        ),
    ],
    ids=[
        "package-imports-its-testcases",
        "under-coverage",
        "testcases-in-init",
        "gathering-script",
        "discovery",
    ],
)
def test_a_unittest_suite_runs_the_tests_unittest_would_load(
    sandbox, tmp_path_factory, tmp_path, files, test_id
):
    make_repo(tmp_path / "tested", {"tested/__init__.py": TESTED, **files})
    _, baseline = folder_baseline(tmp_path / "tested", sandbox, tmp_path_factory)
    assert baseline.tests == [test_id]


def test_a_uv_workspace_tests_its_members_working_trees(sandbox, tmp_path_factory, tmp_path):
    """setuptools-scm's repository: a root project that depends on its uv workspace's
    members, each in a src layout; the root's tests import the members."""
    member = 'name = "{0}"\nversion = "1"\n'
    make_repo(
        tmp_path / "mono",
        {
            "pyproject.toml": (
                SETUPTOOLS + "[project]\n" + member.format("mono") + 'dependencies = ["inner"]\n'
                "[tool.setuptools]\npy-modules = []\n"
                '[tool.uv.workspace]\nmembers = ["packages/*"]\n'
                "[tool.uv.sources]\ninner = { workspace = true }\n"
            ),
            "packages/inner/pyproject.toml": SETUPTOOLS + "[project]\n" + member.format("inner"),
            "packages/inner/src/inner/__init__.py": TESTED,
            "tests/test_inner.py": "from inner import inc\n\ndef test_inc():\n    assert inc(1) == 2\n",
        },
    )
    checkout, baseline = folder_baseline(tmp_path / "mono", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_inner.py::test_inc"]
    # the member's working tree, where corruptions are made, is what the tests import
    assert "packages/inner/src/inner/__init__.py" in baseline.line_coverage


def test_a_linter_plugin_is_left_out_of_the_suite(sandbox, tmp_path_factory, tmp_path):
    make_repo(
        tmp_path / "linted",
        {
            "pyproject.toml": (
                SETUPTOOLS + '[project]\nname = "linted"\nversion = "1"\n'
                '[project.optional-dependencies]\ntest = ["pytest-isort"]\n'
                '[tool.pytest.ini_options]\naddopts = "--isort"\n'
            ),
            # imports out of order: pytest-isort would add a failing item for this file
            "linted.py": "import sys\nimport os\n\nX = (os.sep, sys.version)\n",
            "tests/test_linted.py": "import linted\n\ndef test_x():\n    assert linted.X\n",
        },
    )
    _, baseline = folder_baseline(tmp_path / "linted", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_linted.py::test_x"]


def test_a_harness_of_its_own_is_named_in_the_error(sandbox, tmp_path_factory, tmp_path):
    make_repo(
        tmp_path / "harness",
        {
            "harness.py": "X = 1\n",
            "test/test.py": (
                "import sys\n\n\ndef main():\n    sys.exit(0 if __import__('harness').X else 1)\n\n\n"
                "if __name__ == '__main__':\n    main()\n"
            ),
            ".github/workflows/ci.yml": "jobs:\n  t:\n    steps:\n      - run: python test/test.py\n",
        },
    )
    with pytest.raises(NoTestsError, match=r"program of its own \(.*python test/test\.py\)"):
        folder_baseline(tmp_path / "harness", sandbox, tmp_path_factory)


def test_a_session_that_stops_before_any_test_is_named_by_its_telling_line(
    sandbox, tmp_path_factory, tmp_path
):
    """django-polymorphic's conftest installs a browser at session start: offline, the
    output ends in the ``}`` of an error object printed after the line that says why."""
    conftest = (
        "import sys\n\n\ndef pytest_sessionstart(session):\n"
        "    print('Error: getaddrinfo EAI_AGAIN cdn.example.invalid', file=sys.stderr)\n"
        "    print('  at lookup (node:dns:1:1) {', file=sys.stderr)\n"
        "    print(\"  code: 'EAI_AGAIN',\", file=sys.stderr)\n"
        "    print('}', file=sys.stderr)\n"
        "    raise RuntimeError('the browser did not install')\n"
    )
    make_repo(
        tmp_path / "browser",
        {
            "browser.py": "X = 1\n",
            "tests/conftest.py": conftest,
            "tests/test_x.py": "def test_x():\n    pass\n",
        },
    )
    with pytest.raises(
        RedBaselineError, match=r"did not run \(exit 3\): Error: getaddrinfo EAI_AGAIN"
    ):
        folder_baseline(tmp_path / "browser", sandbox, tmp_path_factory)


def test_a_build_that_fails_says_why_in_its_one_line(sandbox, tmp_path_factory, tmp_path):
    make_repo(
        tmp_path / "offline_build",
        {
            "setup.py": (
                "raise RuntimeError('the licence text could not be fetched')\n"
                "import setuptools\nsetuptools.setup(name='offline_build', version='1')\n"
            ),
            "offline_build.py": "X = 1\n",
            "tests/test_x.py": "def test_x():\n    assert True\n",
        },
    )
    with pytest.raises(InstallError) as failed:
        folder_baseline(tmp_path / "offline_build", sandbox, tmp_path_factory)
    assert "RuntimeError: the licence text could not be fetched; log: " in failed.value.message


# A suite whose one slow file (8 s) takes it over a 5 s budget; the rest is quick.
SLOW_FILE = "import time\n\ndef test_slowly():\n    time.sleep(8)\n    assert True\n"


def test_a_suite_over_budget_is_cut_to_its_quickest_files(sandbox, tmp_path_factory, tmp_path):
    make_repo(
        tmp_path / "slowish",
        {
            "pyproject.toml": SETUPTOOLS + '[project]\nname = "slowish"\nversion = "1"\n',
            "slowish.py": "def double(x):\n    return 2 * x\n",
            "tests/test_double.py": (
                "from slowish import double\n\n"
                "def test_one():\n    assert double(1) == 2\n\n"
                "def test_two():\n    assert double(2) == 4\n"
            ),
            "tests/test_more.py": "from slowish import double\n\ndef test_zero():\n    assert double(0) == 0\n",
            "tests/test_slow.py": SLOW_FILE,
        },
    )
    folder = tmp_path / "slowish"
    pinned, baseline = folder_baseline(folder, sandbox, tmp_path_factory, time_limit=5)
    assert baseline.subset == ["tests/test_double.py", "tests/test_more.py"]
    assert baseline.tests == [
        "tests/test_double.py::test_one",
        "tests/test_double.py::test_two",
        "tests/test_more.py::test_zero",
    ]
    assert (baseline.suite_files, baseline.cut_at) == (3, 5)
    assert baseline.command[-2:] == baseline.subset  # the command users rerun runs the cut
    assert "tests/test_slow.py" not in {n.split("::")[0] for lines in
        baseline.line_coverage.values() for ids in lines.values() for n in ids}  # fmt: skip
    # a larger budget takes the whole suite again instead of the cut cached for 5 s
    _, whole = folder_baseline(folder, sandbox, tmp_path_factory, time_limit=30)
    assert whole.subset == [] and "tests/test_slow.py::test_slowly" in whole.tests
    # the cut measured for 5 s is kept apart from the baseline (a retry with other packages
    # or another Python reuses it rather than measuring again): narrowed by hand, it is
    # what the next baseline at 5 s runs
    (cut,) = (folder.parent / "baselines").rglob("*.cut.json")
    known = json.loads(cut.read_text())
    assert known == {"time_limit": 5, "subset": baseline.subset, "reached": 3}
    cut.write_text(json.dumps({**known, "subset": ["tests/test_more.py"]}))
    for cached in (folder.parent / "baselines").rglob("*[0-9a-f].json"):
        cached.unlink()
    _, again = folder_baseline(folder, sandbox, tmp_path_factory, time_limit=5)
    assert again.subset == ["tests/test_more.py"]
    assert again.tests == ["tests/test_more.py::test_zero"]
    # a kept cut that no longer fits (measured on other packages or another Python) is
    # measured again, not refused
    cut.write_text(json.dumps({**known, "subset": ["tests/test_slow.py"]}))
    for cached in (folder.parent / "baselines").rglob("*[0-9a-f].json"):
        cached.unlink()
    _, remeasured = folder_baseline(folder, sandbox, tmp_path_factory, time_limit=5)
    assert remeasured.subset == baseline.subset
    assert json.loads(cut.read_text())["subset"] == baseline.subset


def test_a_suite_of_one_slow_file_is_cut_to_its_quickest_tests(sandbox, tmp_path_factory, tmp_path):
    """One test file over the budget (as pytest-cov's is): no whole file fits, so the cut
    keeps the quickest of its tests by node id, in the order they ran, instead of refusing."""
    make_repo(
        tmp_path / "onefile",
        {
            "pyproject.toml": SETUPTOOLS + '[project]\nname = "onefile"\nversion = "1"\n',
            "onefile.py": "def double(x):\n    return 2 * x\n",
            "tests/test_all.py": (
                "import time\nfrom onefile import double\n\n"
                "def test_two():\n    assert double(2) == 4\n\n"
                "def test_slowly():\n    time.sleep(8)\n\n"
                "def test_zero():\n    assert double(0) == 0\n"
            ),
        },
    )
    _, baseline = folder_baseline(tmp_path / "onefile", sandbox, tmp_path_factory, time_limit=5)
    kept = ["tests/test_all.py::test_two", "tests/test_all.py::test_zero"]
    assert baseline.subset == kept and baseline.tests == kept
    assert baseline.suite_files == 1 and baseline.command[-2:] == kept
    assert "cut to the 2 single tests of the 1 test files it ran (2 passing" in suite_cut(baseline)


RUNTESTS = (  # the script of Django's guide to reusable apps, as django-filter has it
    "import os, sys\n\nfrom django.core.management import execute_from_command_line\n\n"
    "if __name__ == '__main__':\n"
    "    os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'tests.settings')\n"
    "    execute_from_command_line(sys.argv[:1] + ['test'] + sys.argv[1:])\n"
)


DJANGO_APP = {  # a reusable app with one test on Django's test database
    "pyproject.toml": SETUPTOOLS
    + '[project]\nname = "djapp"\nversion = "1"\ndependencies = ["django"]\n',
    "djapp/__init__.py": "",
    "djapp/text.py": "def shout(text):\n    return text.upper() + '!'\n",
    "tests/__init__.py": "",
    "tests/settings.py": (
        "SECRET_KEY = 'not secret'\n"
        "INSTALLED_APPS = ['django.contrib.contenttypes', 'django.contrib.auth']\n"
        "DATABASES = {'default': {'ENGINE': 'django.db.backends.sqlite3', "
        "'NAME': ':memory:'}}\nUSE_TZ = True\n"
    ),
    "tests/tests.py": (
        "from django.contrib.auth.models import User\n"
        "from django.test import SimpleTestCase, TestCase\n\n"
        "from djapp.text import shout\n\n\n"
        "class ShoutTest(SimpleTestCase):\n"
        "    def test_shout(self):\n        self.assertEqual(shout('hi'), 'HI!')\n\n\n"
        "class UserTest(TestCase):\n"
        "    def test_a_user_is_saved(self):\n"
        "        User.objects.create(username=shout('a'))\n"
        "        self.assertEqual(User.objects.get().username, 'A!')\n"
    ),
}


@pytest.mark.parametrize(
    "runner",
    [
        {"tox.ini": "[testenv]\ncommands = python -m django test -v2 --settings tests.settings\n"},
        {
            "tox.ini": "[testenv]\ncommands = coverage run ./runtests.py -v2\n",
            "runtests.py": RUNTESTS,
        },
    ],
    ids=["django-test", "runtests-script"],
)
def test_a_django_app_tested_by_django_s_test_command_runs_through_pytest_django(
    sandbox, tmp_path_factory, tmp_path, runner
):
    """django-widget-tweaks' tox runs ``python -m django test --settings=tests.settings``
    over ``tests/tests.py``, a file name pytest would not collect: the same TestCases run
    through pytest-django with those settings, one of them on the test database. So do
    those of a script that sets the settings and runs Django's test command itself
    (django-filter's ``runtests.py``), with the settings it sets."""
    make_repo(tmp_path / "djapp", {**runner, **DJANGO_APP})
    _, baseline = folder_baseline(tmp_path / "djapp", sandbox, tmp_path_factory)
    assert baseline.tests == [
        "tests/tests.py::ShoutTest::test_shout",
        "tests/tests.py::UserTest::test_a_user_is_saved",
    ]
    assert "--ds=tests.settings" in baseline.command


MANAGE_PY = (  # a manage.py beside its settings, which import as a top-level module
    "import os, sys\n\nfrom django.core.management import execute_from_command_line\n\n"
    "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'settings')\n"
    "execute_from_command_line(sys.argv)\n"
)


@pytest.mark.parametrize(
    "runner",
    [
        {  # django-formtools: the settings exported, django-admin looked up with `which`
            "Makefile": (
                "export DJANGO_SETTINGS_MODULE = tests.settings\n"
                "export PYTHONPATH := $(shell pwd)\n\n"
                "test:\n\tpython -W error -m coverage run `which django-admin` test tests\n"
            ),
        },
        {  # django-auditlog: tox's changedir holds manage.py and the settings it names
            "tox.ini": "[testenv]\nchangedir = {toxinidir}/tests\ncommands = ./manage.py test\n",
            "tests/manage.py": MANAGE_PY,
        },
        # django-invitations: pytest-django's own option names the settings
        {"tox.ini": "[testenv]\ncommands = pytest --ds=tests.settings tests/tests.py\n"},
        {  # django-mptt: manage.py in the tests' folder, coverage run by its path
            "tox.ini": (
                "[testenv]\ncommands = python -Wd {envbindir}/coverage run tests/manage.py test\n"
            ),
            "tests/manage.py": MANAGE_PY,
        },
        {  # django-categories: the example's settings, labels of the tree's packages
            "tox.ini": (
                "[testenv]\ncommands = coverage run --source=djapp example/manage.py test "
                "--settings='settings-testing' tests\n"
            ),
            "example/manage.py": MANAGE_PY,
            "example/settings-testing.py": DJANGO_APP["tests/settings.py"],
        },
        {  # django-waffle: its CI exports the settings before Django's tests
            ".github/workflows/ci.yml": (
                "jobs:\n  t:\n    steps:\n      - run: |\n"
                "          export DJANGO_SETTINGS_MODULE='tests.settings'\n"
                "          python -m coverage run $(which django-admin) test tests\n"
            ),
        },
    ],
    ids=[
        "makefile-exports",
        "tox-changedir",
        "pytest-ds",
        "script-in-a-folder",
        "example-settings",
        "ci-exports",
    ],
)
def test_django_settings_a_runner_gives_in_other_ways_set_django_up(
    sandbox, tmp_path_factory, tmp_path, runner
):
    make_repo(tmp_path / "djapp", {**runner, **DJANGO_APP})
    _, baseline = folder_baseline(tmp_path / "djapp", sandbox, tmp_path_factory)
    assert baseline.tests == [
        "tests/tests.py::ShoutTest::test_shout",
        "tests/tests.py::UserTest::test_a_user_is_saved",
    ]


def test_a_suite_over_budget_once_is_not_cut_when_every_file_fits(
    sandbox, tmp_path_factory, tmp_path
):
    """A first run over the budget (slow once: here a test that sleeps on its first run
    only) and a measuring run in which every file fits: the whole suite, no cut."""
    once = (
        "import pathlib, time\n\nMARK = pathlib.Path(__file__).with_name('ran-once')\n\n"
        "def test_slow_the_first_time():\n"
        "    if not MARK.exists():\n        MARK.touch()\n        time.sleep(8)\n"
    )
    make_repo(
        tmp_path / "slowonce",
        {
            "pyproject.toml": SETUPTOOLS + '[project]\nname = "slowonce"\nversion = "1"\n',
            "slowonce.py": "X = 1\n",
            "tests/test_once.py": once,
            "tests/test_x.py": "def test_x():\n    assert True\n",
        },
    )
    _, baseline = folder_baseline(tmp_path / "slowonce", sandbox, tmp_path_factory, time_limit=5)
    assert baseline.subset == [] and baseline.cut_at == 0.0
    assert baseline.tests == [
        "tests/test_once.py::test_slow_the_first_time",
        "tests/test_x.py::test_x",
    ]


def test_a_suite_that_fits_its_budget_once_only_is_cut(sandbox, tmp_path_factory, tmp_path):
    """A first run inside the budget and a second over it (here a test quick on its first
    run and slow after, as on a machine getting busier; icalendar's 18,780 tests took 58 s
    of 60, then more): the suite is cut, as if the first run had been over."""
    later = (
        "import pathlib, time\n\nMARK = pathlib.Path(__file__).with_name('ran-once')\n\n"
        "def test_slow_after_the_first_time():\n"
        "    if MARK.exists():\n        time.sleep(8)\n    MARK.touch()\n"
    )
    make_repo(
        tmp_path / "slowlater",
        {
            "pyproject.toml": SETUPTOOLS + '[project]\nname = "slowlater"\nversion = "1"\n',
            "slowlater.py": "X = 1\n",
            "tests/test_later.py": later,
            "tests/test_x.py": "def test_x():\n    assert True\n",
        },
    )
    _, baseline = folder_baseline(tmp_path / "slowlater", sandbox, tmp_path_factory, time_limit=5)
    assert (baseline.subset, baseline.cut_at) == (["tests/test_x.py"], 5)
    assert baseline.tests == ["tests/test_x.py::test_x"]


def test_a_suite_that_compiles_its_own_bytecode_runs_without_the_cache(tmp_path_factory, tmp_path):
    """alembic's tests compile scripts and load them from ``__pycache__`` (pytest-randomly's
    look for that folder): the bytecode cache's prefix moves the ``.pyc`` elsewhere, so
    the suite is red with it and green without, and every later run goes without."""
    compiles = (
        "import py_compile\n\n"
        "def test_compiled_beside_its_source(tmp_path):\n"
        "    source = tmp_path / 'script.py'\n    source.write_text('X = 1\\n')\n"
        "    py_compile.compile(str(source), doraise=True)\n"
        "    assert [p.name for p in (tmp_path / '__pycache__').glob('script.*.pyc')]\n"
    )
    make_repo(
        tmp_path / "selfcompiled",
        {
            "pyproject.toml": SETUPTOOLS + '[project]\nname = "selfcompiled"\nversion = "1"\n',
            "selfcompiled.py": "X = 1\n",
            "tests/test_compiled.py": compiles,
            "tests/test_x.py": "def test_x():\n    assert True\n",
        },
    )
    sandbox = LocalSandbox(cache_dir=tmp_path / "cache")
    pinned, baseline = folder_baseline(tmp_path / "selfcompiled", sandbox, tmp_path_factory)
    assert baseline.tests == [
        "tests/test_compiled.py::test_compiled_beside_its_source",
        "tests/test_x.py::test_x",
    ]
    env = sandbox.prepare(pinned)
    assert not sandbox.stores_bytecode(env)  # and nothing will fill the cache again
    assert not sandbox.forgo_bytecode(env)
    assert not (tmp_path / "cache" / "bytecode" / env.key).exists()


def test_the_skeleton_plugins_timing_upstream_and_building_metadata_are_left_out(
    sandbox, tmp_path_factory, tmp_path
):
    """jaraco's skeleton declares pytest-perf, which collects ``exercises.py`` as tests that
    pip-install the project's upstream from its git origin, and pytest-checkdocs, whose
    ``.::project`` test builds the package's metadata in an isolated environment that it
    pip-installs from the index: neither can in the box, and neither tests behaviour."""
    make_repo(
        tmp_path / "timed",
        {
            "pyproject.toml": SETUPTOOLS
            + '[project]\nname = "timed"\nversion = "1"\n'
            + '[project.optional-dependencies]\ntest = ["pytest-perf", "pytest-checkdocs"]\n',
            "timed.py": "X = 1\n",
            "exercises.py": (
                "from pytest_perf.deco import extras\n\n\n@extras('test')\n"
                'def import_perf():\n    "import"\n    import timed  # noqa\n'
            ),
            "tests/test_x.py": "def test_x():\n    assert True\n",
        },
    )
    _, baseline = folder_baseline(tmp_path / "timed", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_x.py::test_x"]


def test_a_suite_that_turns_pytest_cov_on_still_gets_its_coverage_mapped(
    sandbox, tmp_path_factory, tmp_path
):
    """jaraco's skeleton installs pytest-cov and pytest-enabler, which adds ``--cov`` to
    every run: pytest-cov's own coverage would leave corrupt's coverage run without data."""
    make_repo(
        tmp_path / "enabled",
        {
            "pyproject.toml": SETUPTOOLS
            + '[project]\nname = "enabled"\nversion = "1"\n'
            + '[project.optional-dependencies]\ntest = ["pytest-cov", "pytest-enabler"]\n'
            + '[tool.pytest-enabler.cov]\naddopts = "--cov"\n',
            "enabled.py": "def double(x):\n    return 2 * x\n",
            "tests/test_x.py": "from enabled import double\n\ndef test_x():\n    assert double(2) == 4\n",
        },
    )
    _, baseline = folder_baseline(tmp_path / "enabled", sandbox, tmp_path_factory)
    assert baseline.line_coverage["enabled.py"][2] == ["tests/test_x.py::test_x"]


def test_the_variables_tox_sets_reach_the_tests(sandbox, tmp_path_factory, tmp_path):
    """pre-commit-hooks' tests commit to repositories they make, as the author its tox
    ``setenv`` names: the box has no git identity, as a CI machine has none."""
    commits = (
        "import subprocess\n\n"
        "def test_commit(tmp_path):\n"
        "    subprocess.run(['git', 'init', '-q', str(tmp_path)], check=True)\n"
        "    (tmp_path / 'f').write_text('x')\n"
        "    subprocess.run(['git', '-C', str(tmp_path), 'add', 'f'], check=True)\n"
        "    subprocess.run(['git', '-C', str(tmp_path), 'commit', '-qm', 'f'], check=True)\n"
    )
    make_repo(
        tmp_path / "committer",
        {
            "pyproject.toml": SETUPTOOLS + '[project]\nname = "committer"\nversion = "1"\n',
            "committer.py": "X = 1\n",
            "tox.ini": (
                "[testenv]\nsetenv =\n    GIT_AUTHOR_NAME = test\n    GIT_COMMITTER_NAME = test\n"
                "    GIT_AUTHOR_EMAIL = test@example.com\n"
                "    GIT_COMMITTER_EMAIL = test@example.com\n"
                "commands = pytest {posargs:tests}\n"
            ),
            "tests/test_commit.py": commits,
        },
    )
    _, baseline = folder_baseline(tmp_path / "committer", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_commit.py::test_commit"]


def test_a_library_the_tox_path_names_is_imported_from_the_tree(
    sandbox, tmp_path_factory, tmp_path
):
    """microdot keeps a library it copied in under ``libs/common`` (a folder of modules,
    no package) and its tox puts that folder on ``PYTHONPATH``; nothing is installed."""
    make_repo(
        tmp_path / "copied",
        {
            "pyproject.toml": SETUPTOOLS + '[project]\nname = "copied"\nversion = "1"\n',
            "src/copied/__init__.py": "from copiedtemplate_lib import render\n",
            "libs/common/copiedtemplate_lib.py": "def render(s):\n    return s.upper()\n",
            "tox.ini": (
                "[testenv]\nsetenv =\n    PYTHONPATH={toxinidir}/libs/common:/opt/elsewhere\n"
                "commands = pytest tests\n"
            ),
            "tests/test_render.py": (
                "from copied import render\n\ndef test_render():\n    assert render('a') == 'A'\n"
            ),
        },
    )
    pinned, baseline = folder_baseline(tmp_path / "copied", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_render.py::test_render"]
    assert added(pinned, tmp_path_factory) == []


def test_pkg_resources_comes_with_a_setuptools_that_still_ships_it(
    sandbox, tmp_path_factory, tmp_path
):
    """dynaconf's package imports ``pkg_resources``, which setuptools 82 dropped: the
    setuptools its requirements name is installed as a release that has it."""
    make_repo(
        tmp_path / "resourceful",
        {
            "pyproject.toml": SETUPTOOLS + '[project]\nname = "resourceful"\nversion = "1"\n',
            "resourceful.py": "import pkg_resources\n\nparse = pkg_resources.parse_version\n",
            "requirements-dev.txt": "pytest\nsetuptools>=38\n",
            "tests/test_parse.py": (
                "from resourceful import parse\n\n"
                "def test_parse():\n    assert parse('1.0') < parse('1.10')\n"
            ),
        },
    )
    pinned, baseline = folder_baseline(tmp_path / "resourceful", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_parse.py::test_parse"]
    assert added(pinned, tmp_path_factory) == [
        "setuptools<82 (collection could not import pkg_resources)"
    ]


def test_a_suite_no_test_of_which_fits_the_budget_is_refused(sandbox, tmp_path_factory, tmp_path):
    make_repo(
        tmp_path / "allslow",
        {
            "pyproject.toml": SETUPTOOLS + '[project]\nname = "allslow"\nversion = "1"\n',
            "allslow.py": "X = 1\n",
            "tests/test_slow.py": SLOW_FILE,
        },
    )
    with pytest.raises(SuiteTooSlowError, match=r"within 5 s, and no test fits in it"):
        folder_baseline(tmp_path / "allslow", sandbox, tmp_path_factory, time_limit=5)


# -- the pure readers ------------------------------------------------------------


@pytest.mark.parametrize(
    ("poetry", "pep440"),
    [
        ("^1.2.3", ">=1.2.3,<2"),
        ("^0.2.3", ">=0.2.3,<0.3"),
        ("^0.0.3", ">=0.0.3,<0.0.4"),
        ("~1.2.3", ">=1.2.3,<1.3"),
        ("~1", ">=1,<2"),
        ("*", ""),
        (">=2.0,<3", ">=2.0,<3"),
        ("1.4.*", "==1.4.*"),
        ("2.1", "==2.1"),
        ("^1 || ^2", ""),
        ("latest", ""),
    ],
)
def test_poetry_constraints_become_pep_440(poetry, pep440):
    assert poetry_specifier(poetry) == pep440


def test_poetry_and_pdm_test_groups_win_over_dev(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.poetry.dev-dependencies]\nblack = '*'\n"
        "[tool.poetry.group.tests.dependencies]\n"
        "hypothesis = {version = '^6.1', extras = ['cli'], markers = \"python_version >= '3.8'\"}\n"
        "mylib = {git = 'https://example.invalid/mylib.git'}\npython = '^3.8'\n"
        "[tool.pdm.dev-dependencies]\ntest = ['pytest-mock>=3', '-e file:///x']\nlint = ['ruff']\n"
    )
    found = discover_test_requirements(tmp_path)
    assert found.packages == [
        'hypothesis[cli]<7,>=6.1; python_version >= "3.8"',
        "mylib",
        "pytest-mock>=3",
    ]
    assert "[tool.poetry] tests dependencies" in found.sources
    assert "[tool.pdm] test dependencies" in found.sources


def test_shell_variables_in_a_ci_script_are_followed(tmp_path):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "install").write_text(
        '#!/bin/sh -e\nREQUIREMENTS="requirements.txt"\nVENV="venv"\n'
        'PIP="$VENV/bin/pip"\n"$PIP" install -r "$REQUIREMENTS"\n'
    )
    (tmp_path / "scripts" / "test").write_text(
        '#!/bin/sh\nexport PREFIX=""\n${PREFIX}pytest "$@"\n'
    )
    (tmp_path / "requirements.txt").write_text("trio\n")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "ci.yml").write_text(
        "jobs:\n  t:\n    steps:\n      - run: scripts/install\n      - run: scripts/test\n"
    )
    assert plan_tests(tmp_path).files == ["requirements.txt"]


def test_a_variable_no_file_assigns_reads_as_an_empty_argument(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("def test_x():\n    pass\n")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "test").write_text(
        '#!/bin/sh\nexport PREFIX=""\nopt=$(python -c \'print("--branch")\')\n'
        "${PREFIX}coverage run $opt -m pytest -x tests ${EXTRA} $@\n"
    )
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "ci.yml").write_text(
        "jobs:\n  t:\n    steps:\n      - run: scripts/test\n"
    )
    plan = plan_tests(tmp_path)
    # what the script exports goes with the command, as its environment
    assert (
        plan.command_source == ".github/workflows/ci.yml: PREFIX= coverage run -m pytest -x tests"
    )
    assert plan.paths == ["tests"]


@pytest.mark.parametrize(
    ("item", "fallback"),
    [
        (["foo @ git+https://example.invalid/y.git"], "foo"),
        (["git+https://example.invalid/a/bar.git@v1#egg=baz[x]"], "baz[x]"),
        (["-e", "git+https://example.invalid/a/qux.git"], "qux"),
        (["https://example.invalid/y.tar.gz"], None),
        (["hypothesis"], None),
    ],
)
def test_url_requirements_name_their_index_fallback(item, fallback):
    assert index_fallback(item) == fallback


def test_a_missing_module_maps_to_the_distribution_the_project_names(tmp_path):
    output = (
        "E   ModuleNotFoundError: No module named 'yaml'\n"
        "E   ModuleNotFoundError: No module named 'pytest_lazyfixture.plugin'\n"
    )
    assert missing_modules(output) == ["yaml", "pytest_lazyfixture"]
    (tmp_path / "tox.ini").write_text("[testenv]\ndeps = pytest-lazy-fixture\n")
    assert distribution_for(tmp_path, "pytest_lazyfixture") == "pytest-lazy-fixture"
    assert distribution_for(tmp_path, "yaml") == "PyYAML"
    (tmp_path / "t.py").write_text("from yaml import safe_load\n")
    assert imported_by_project(tmp_path, "yaml")
    assert not imported_by_project(tmp_path, "toml")


def test_an_extras_name_is_not_the_distribution_a_binding_is(tmp_path):
    """``icu = ["PyICU>=1.0.0"]`` (natsort's extras): the module ``icu`` is PyICU's, not the
    index's unrelated ``icu``; a Poetry table's key still names its dependency."""
    (tmp_path / "pyproject.toml").write_text(
        '[project.optional-dependencies]\nicu = ["PyICU>=1.0.0"]\nfast = ["fastnumbers>=2.0"]\n'
        '[tool.poetry.group.test.dependencies]\nhypothesis = "^6"\n'
    )
    assert distribution_for(tmp_path, "icu") == "PyICU"
    # pydantic-extra-types' extras name python-ulid; the index's ``ulid`` is another project
    (tmp_path / "setup.cfg").write_text("[options.extras_require]\nall = python-ulid>=1,<5\n")
    assert distribution_for(tmp_path, "ulid") == "python-ulid"
    assert distribution_for(tmp_path, "fastnumbers") == "fastnumbers"
    assert distribution_for(tmp_path, "hypothesis") == "hypothesis"


def test_every_vcs_backend_gets_the_version():
    env = version_env("1.2.dev3+gabc")
    assert env["PBR_VERSION"] == env["SETUPTOOLS_SCM_PRETEND_VERSION"] == "1.2.dev3+gabc"
    assert version_env(None)["POETRY_DYNAMIC_VERSIONING_BYPASS"] == "0.0.0"
    assert env["UV_DYNAMIC_VERSIONING_BYPASS"] == "1.2.dev3+gabc"


def test_the_commits_version_goes_to_the_project_not_to_what_it_installs(
    sandbox, tmp_path_factory, tmp_path
):
    """beets: a test dependency built from its sdist with setuptools-scm got beets' own
    version from the pretend-version variable, and uv refused its metadata."""
    scm = (
        '[build-system]\nrequires = ["setuptools>=64", "setuptools-scm>=8"]\n'
        'build-backend = "setuptools.build_meta"\n'
    )
    make_repo(
        tmp_path / "versioned",
        {
            "pyproject.toml": (
                scm + '[project]\nname = "versioned"\ndynamic = ["version"]\n'
                "[tool.setuptools_scm]\n"
            ),
            "requirements-test.txt": "./vendored/helper\n",
            # no git above it once copied: setuptools-scm falls back to its own version
            "vendored/helper/pyproject.toml": (
                scm + '[project]\nname = "helper"\ndynamic = ["version"]\n'
                '[tool.setuptools_scm]\nfallback_version = "2.4.1"\n'
            ),
            "vendored/helper/helper.py": "",
            "versioned.py": TESTED,
            "tests/test_versions.py": (
                "from importlib.metadata import version\n\n"
                "def test_versions():\n"
                "    assert version('helper') == '2.4.1'\n"
                "    assert version('versioned') == '0.0.0'\n"  # no tag: the pretend version
            ),
        },
    )
    _, baseline = folder_baseline(tmp_path / "versioned", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_versions.py::test_versions"]


def test_a_test_module_that_runs_a_linter_is_left_out(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_codestyle.py").write_text(
        "import subprocess\n\ndef test_mypy():\n    subprocess.check_call(['mypy', 'src'])\n"
    )
    # named like one, but it tests the project's own formatting code: kept
    (tmp_path / "tests" / "test_format.py").write_text(
        "from mylib import format\n\ndef test_format():\n    assert format(1) == '1'\n"
    )
    (tmp_path / "tests" / "test_core.py").write_text("def test_core():\n    pass\n")
    plan = plan_tests(tmp_path)
    assert plan.linter_tests == ["tests/test_codestyle.py"]
    assert "--ignore=tests/test_codestyle.py" in plan.options


def test_tests_that_need_the_network_are_left_out_not_red(sandbox, tmp_path_factory, tmp_path):
    make_repo(
        tmp_path / "online",
        {
            "online.py": "X = 1\n",
            "tests/test_online.py": (
                "import socket\n\nimport online\n\n"
                "def test_offline():\n    assert online.X == 1\n\n"
                "def test_resolves_a_name():\n"
                "    assert socket.getaddrinfo('pypi.org', 443)\n\n"
                "def test_really_red():\n    assert online.X == 2\n"
            ),
        },
    )
    with pytest.raises(RedBaselineError):  # not every red test is the network's
        folder_baseline(tmp_path / "online", sandbox, tmp_path_factory)
    make_repo(
        tmp_path / "online2",
        {
            "online2.py": "X = 1\n",
            "tests/test_online2.py": (
                "import socket\n\nimport online2\n\n"
                "def test_offline():\n    assert online2.X == 1\n\n"
                "def test_resolves_a_name():\n"
                "    assert socket.getaddrinfo('pypi.org', 443)\n\n"
                "def test_a_local_service():\n"  # a server CI ran beside the suite
                "    socket.create_connection(('127.0.0.1', 4444), timeout=5).close()\n\n"
                "def test_a_download():\n"  # pip's or git's error is in what it printed
                "    import subprocess, sys\n"
                "    subprocess.run([sys.executable, '-c', 'import socket; "
                'socket.getaddrinfo("pypi.org", 443)\'], check=True)\n\n'
                "def test_a_cloud_service():\n"  # its SDK, finding no credentials in the box
                "    class NoCredentialsError(Exception):\n        pass\n"
                "    raise NoCredentialsError('Unable to locate credentials')\n"
            ),
        },
    )
    _, baseline = folder_baseline(tmp_path / "online2", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_online2.py::test_offline"]
    assert baseline.offline == [
        "tests/test_online2.py::test_a_cloud_service",
        "tests/test_online2.py::test_a_download",
        "tests/test_online2.py::test_a_local_service",
        "tests/test_online2.py::test_resolves_a_name",
    ]


def test_tests_importing_an_optional_dependency_nothing_installed_are_left_out(
    sandbox, tmp_path_factory, tmp_path
):
    """pydantic-settings' docs examples import ``azure`` from an extra no requirement intake
    reads names. A module of the project's own that does not import stays red."""
    tests = (
        "import optional_dep\n\n"
        "def test_plain():\n    assert optional_dep.X == 1\n\n"
        "def test_with_an_extra():\n    import not_installed_anywhere.sub  # noqa: F401\n"
    )
    make_repo(
        tmp_path / "optional_dep",
        {"optional_dep.py": "X = 1\n", "tests/test_optional.py": tests},
    )
    _, baseline = folder_baseline(tmp_path / "optional_dep", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_optional.py::test_plain"]
    assert baseline.lacking_a_module == ["tests/test_optional.py::test_with_an_extra"]
    make_repo(
        tmp_path / "own_module",
        {
            "own_module.py": "X = 1\n",
            "tests/test_own.py": tests.replace("optional_dep", "own_module")
            + "\ndef test_own_part():\n    import helpers_of_ours  # noqa: F401\n",
            "tests/helpers/helpers_of_ours.py": "Y = 2\n",  # not on the path: intake's fault
        },
    )
    with pytest.raises(RedBaselineError, match="test_own_part"):
        folder_baseline(tmp_path / "own_module", sandbox, tmp_path_factory)


def test_a_few_tests_red_for_a_cause_corrupt_cannot_name_are_left_out_and_named(
    sandbox, tmp_path_factory, tmp_path
):
    """flit's test of a classifier it checks against the list it downloads, calendra's of
    the current year's holidays: one red test of many is the environment's, not the suite's.
    More than 5 % red is refused, and ``strict`` refuses any."""
    many = "".join(f"def test_{i}():\n    assert few_red.X == 1\n\n" for i in range(25))
    make_repo(
        tmp_path / "few_red",
        {
            "few_red.py": "X = 1\n",
            "tests/test_few.py": "import few_red\n\n"
            + many
            + "def test_the_year():\n    assert few_red.X == 2, 'no holidays for 2026'\n",
        },
    )
    _, baseline = folder_baseline(tmp_path / "few_red", sandbox, tmp_path_factory)
    assert len(baseline.tests) == 25
    assert list(baseline.red) == ["tests/test_few.py::test_the_year"]
    assert (
        "AssertionError: no holidays for 2026" in baseline.red["tests/test_few.py::test_the_year"]
    )
    with pytest.raises(RedBaselineError, match="test_the_year"):  # not from the cache
        folder_baseline(tmp_path / "few_red", sandbox, tmp_path_factory, strict=True)
    make_repo(
        tmp_path / "more_red",
        {
            "more_red.py": "X = 1\n",
            "tests/test_more.py": "import pytest\n\nimport more_red\n\n"
            + many.replace("few_red", "more_red")
            + "def test_a():\n    assert more_red.X == 2\n\n"
            + "def test_b():\n    assert more_red.X == 3\n\n"
            # skipped tests did not run: 2 red of 27 that ran, not of 47
            + "".join(f"def test_skip_{i}():\n    pytest.skip()\n\n" for i in range(20)),
        },
    )
    with pytest.raises(RedBaselineError, match="2 of 27 tests, more than the 5% left out"):
        folder_baseline(tmp_path / "more_red", sandbox, tmp_path_factory)


def test_tests_that_need_the_project_s_git_checkout_are_left_out(
    sandbox, tmp_path_factory, tmp_path
):
    """pre-commit-hooks' tests run git in the checkout itself; working copies have no .git."""
    make_repo(
        tmp_path / "ingit",
        {
            "ingit.py": "X = 1\n",
            "tests/test_ingit.py": (
                "import subprocess\n\nimport ingit\n\n"
                "def test_plain():\n    assert ingit.X == 1\n\n"
                "def test_in_the_checkout():\n"
                "    run = subprocess.run(['git', 'rev-parse', '--git-dir'], capture_output=True,"
                " text=True)\n    assert run.returncode == 0, run.stderr\n"
            ),
        },
    )
    _, baseline = folder_baseline(tmp_path / "ingit", sandbox, tmp_path_factory)
    assert baseline.tests == ["tests/test_ingit.py::test_plain"]
    assert baseline.without_git == ["tests/test_ingit.py::test_in_the_checkout"]


def test_stestr_runs_as_the_unittest_discovery_it_is(tmp_path):
    (tmp_path / ".stestr.conf").write_text("[DEFAULT]\ntest_path=./tests/unit\ntop_dir=./\n")
    (tmp_path / "tests" / "unit").mkdir(parents=True)
    (tmp_path / "tox.ini").write_text("[testenv]\ncommands =\n    stestr run {posargs}\n")
    plan = plan_tests(tmp_path)
    assert (plan.runner, plan.paths) == ("unittest", ["tests/unit"])


def test_a_poetry_lock_pins_the_projects_own_dependencies(tmp_path):
    """sql-metadata's case: the suite passes with the sqlglot its poetry.lock pins only.
    What the project itself needs is pinned, through the lock's dependency lists; its dev
    tools, extras, another platform's packages and a package pinned per Python are not."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.poetry.dependencies]\npython = "^3.10"\nsqlglot = "^30.12.0"\n'
        'pywin32 = {version = "*", markers = "sys_platform == \'win32\'"}\n'
        '[tool.poetry.group.dev.dependencies]\npytest = "^9.1.1"\n'
    )
    (tmp_path / "poetry.lock").write_text(
        '[[package]]\nname = "sqlglot"\nversion = "30.13.0"\noptional = false\n'
        '[package.dependencies]\nTyping_Extensions = ">=4"\ndocutils = "*"\n'
        'ujson = {version = "*", optional = true}\n\n'
        '[[package]]\nname = "typing-extensions"\nversion = "4.15.0"\noptional = false\n\n'
        '[[package]]\nname = "docutils"\nversion = "0.21.2"\noptional = false\n\n'
        '[[package]]\nname = "docutils"\nversion = "0.22.4"\noptional = false\n\n'
        '[[package]]\nname = "ujson"\nversion = "5.0"\noptional = true\n\n'
        '[[package]]\nname = "pytest"\nversion = "9.1.1"\noptional = false\n\n'
        '[[package]]\nname = "pywin32"\nversion = "311"\noptional = false\n'
        'markers = "sys_platform == \\"win32\\""\n'
    )
    found = discover_test_requirements(tmp_path)
    assert found.locked == ["sqlglot==30.13.0", "typing-extensions==4.15.0"]
    assert "poetry.lock (2 pinned)" in found.sources
    assert found.packages == ["pytest<10,>=9.1.1"]  # the dev group, as declared


def test_a_module_the_tests_importorskip_is_not_installed(tmp_path):
    """urllib3 skips its emscripten tests without pytest-pyodide, which a dependency group
    names: installed, its pytest-asyncio turned the whole suite red."""
    make_repo(
        tmp_path,
        {
            "pyproject.toml": '[dependency-groups]\nemscripten = ["pytest-pyodide"]\n',
            "tests/test_web.py": (
                "import pytest\n\npytest_pyodide = pytest.importorskip('pytest_pyodide')\n"
                "from pytest_pyodide import run_in_pyodide\nimport yaml\n"
            ),
        },
    )
    assert imported_in_tests(tmp_path) == ["pytest", "yaml"]


def test_a_module_the_tests_import_under_an_import_error_guard_is_not_installed(tmp_path):
    """python-ecdsa's tests try unittest2 before unittest; installed, unittest2 stops
    collection on today's Python (``collections.MutableMapping``). A module also imported
    unguarded is still wanted."""
    make_repo(
        tmp_path,
        {
            "tox.ini": "[testenv]\ndeps =\n    py26: unittest2\n    simplejson\n",
            "tests/test_curves.py": (
                "try:\n    import unittest2 as unittest\nexcept ImportError:\n    import unittest\n"
                "try:\n    import simplejson\nexcept (ModuleNotFoundError, OSError):\n    pass\n"
                "try:\n    import toml\nexcept ValueError:\n    toml = None\n"
            ),
            "tests/test_more.py": "import simplejson\n",
        },
    )
    assert sorted(imported_in_tests(tmp_path)) == ["simplejson", "toml", "unittest"]
