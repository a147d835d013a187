"""How a project runs its tests, read from CI, tox, nox, hatch, make and pytest's config."""

from __future__ import annotations

import functools

import pytest
from tasks_factory import write_repo

from corrupt.repos import suiteargs
from corrupt.repos.installplan import discover_test_requirements
from corrupt.repos.pytestconfig import reporting_free_addopts
from corrupt.repos.requirements import requirement_items
from corrupt.repos.runnerconfigs import _brace_expand
from corrupt.repos.testplan import plan_tests
from corrupt.repos.versions import scm_version, version_files, write_version_files

tree = functools.partial(write_repo, git=False)  # a folder of files, no git


SUITE = {"tests/test_a.py": "", "fuzz/test_fuzz.py": "", "bench/test_speed.py": ""}

WORKFLOW = """
name: tests
on: [push]
jobs:
  docs:
    runs-on: ubuntu-latest
    steps:
      - run: pip install sphinx furo -r docs/requirements.txt
      - run: sphinx-build docs out
  tests:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python: ["3.11", "3.12"]
    steps:
      - uses: actions/checkout@v4
      - run: |
          python -m pip install --upgrade pip
          pip install -e ".[tests]" pytest-mock \\
            -r requirements/ci.txt flake8
      - name: bench
        run: pytest bench/test_speed.py --benchmark-only
      - run: >
          python -m pytest -v --cov=pkg --cov-report=xml -n auto
          -m "not network" tests/
"""


def test_the_ci_workflow_gives_the_command_and_its_job_gives_the_installs(tmp_path):
    root = tree(
        tmp_path,
        {**SUITE, ".github/workflows/ci.yml": WORKFLOW, "requirements/ci.txt": ""},
    )
    plan = plan_tests(root)
    # the benchmark run is not the suite; the reporting options are dropped, the filter kept
    assert plan.paths == ["tests/"] and plan.options == ["-m", "not network"]
    assert plan.command_source is not None and "ci.yml" in plan.command_source
    assert plan.extras == ["tests"] and plan.files == ["requirements/ci.txt"]
    # the test job's tools, not the docs job's, and no linters or pip itself
    assert plan.packages == ["pytest-mock"]
    argv, env = suiteargs.test_command(root)
    assert argv == ["python", "-m", "pytest", "-m", "not network", "tests/"]
    assert env["PYTHONPATH"] == "."


def test_ci_that_runs_tox_reads_tox_testenv_with_posargs_default_and_factors(tmp_path):
    root = tree(
        tmp_path,
        {
            **SUITE,
            ".github/workflows/main.yml": (
                "jobs:\n  t:\n    steps:\n      - run: uvx --with tox-uv tox -e py\n"
            ),
            "tox.ini": (
                "[tox]\nenvlist = py3{11,12}, lint\n"
                "[testenv]\ndeps = pytest\ncommands =\n"
                '    py3: pytest {posargs: "{toxinidir}/tests" --cov=pkg}\n'
                "[testenv:lint]\ncommands = ruff check .\n"
            ),
        },
    )
    plan = plan_tests(root)
    assert plan.paths == ["tests"]
    assert plan.command_source is not None and plan.command_source.startswith(".github")


def test_tox_e_runs_the_named_environment_and_its_factor_lines_only(tmp_path):
    tox_ini = (
        "[testenv]\nextras = tests\ncommands =\n"
        "    tests: pytest {posargs:-m 'not slow' tests}\n"
        "    lint: ruff check .\n"
        "[testenv:mypy]\ncommands = mypy src\n"
    )
    jobs = (
        "jobs:\n"
        "  types:\n    steps:\n      - run: pip install tox mypy-extensions\n"
        "      - run: tox -e mypy\n"
        "  tests:\n    steps:\n      - run: pip install -e '.[tests]' pytest-mock\n"
        "      - run: pytest tests -m 'not network'\n"
    )
    files = {**SUITE, "tox.ini": tox_ini, ".github/workflows/ci.yml": jobs}
    plan = plan_tests(tree(tmp_path / "a", files))
    # `tox -e mypy` type-checks: the tests job is the suite, with that job's installs
    assert plan.options == ["-m", "not network"] and plan.extras == ["tests"]
    assert plan.packages == ["pytest-mock"]
    # `$PYTHON-tests` (a matrix value) selects the `tests:` line, not `lint:`
    jobs = "jobs:\n  t:\n    steps:\n      - run: tox run -e ${{ matrix.py }}-tests\n"
    plan = plan_tests(tree(tmp_path / "b", {**files, ".github/workflows/ci.yml": jobs}))
    assert (plan.options, plan.paths) == (["-m", "not slow"], ["tests"])
    jobs = "jobs:\n  t:\n    steps:\n      - run: tox -e py3{11,12}-lint\n"
    plan = plan_tests(tree(tmp_path / "c", {**files, ".github/workflows/ci.yml": jobs}))
    assert plan.command_source == "tox: pytest -m 'not slow' tests"  # tox's own, not CI's lint


def test_tox_alone_and_a_pytest_config_testpaths_are_both_respected(tmp_path):
    root = tree(tmp_path, {**SUITE, "tox.ini": "[testenv]\ncommands = pytest {posargs:tests}\n"})
    assert plan_tests(root).paths == ["tests"]
    (root / "tox.ini").unlink()
    tree(root, {"pytest.ini": "[pytest]\ntestpaths = tests\n"})
    plan = plan_tests(root)
    # nothing to add: pytest reads its own testpaths when given no paths
    assert plan.paths == [] and plan.command_source is None


def test_nox_hatch_and_make_commands(tmp_path):
    nox = tree(
        tmp_path / "nox",
        {
            **SUITE,
            "noxfile.py": (
                "import nox\n@nox.session\ndef tests(session):\n"
                '    session.install("-r", "requirements/test.txt", "freezegun")\n'
                '    session.run("pytest", "tests", *session.posargs)\n'
            ),
            "requirements/test.txt": "",
        },
    )
    plan = plan_tests(nox)
    assert plan.paths == ["tests"] and plan.packages == ["freezegun"]
    assert plan.files == ["requirements/test.txt"]

    hatch = tree(
        tmp_path / "hatch",
        {
            **SUITE,
            ".github/workflows/t.yml": (
                "jobs:\n  t:\n    steps:\n"
                "      - run: hatch run +py=${{ matrix.python }} test:run --color=yes\n"
            ),
            "pyproject.toml": (
                "[tool.hatch.envs.test]\ndependencies = ['pytest-randomly']\n"
                "[tool.hatch.envs.test.scripts]\nrun = 'pytest {args:tests}'\n"
            ),
        },
    )
    plan = plan_tests(hatch)
    assert plan.paths == ["tests"] and plan.packages == ["pytest-randomly"]

    make = tree(
        tmp_path / "make",
        {**SUITE, "Makefile": "PYTHON ?= python3\ntest:\n\t$(PYTHON) -m pytest -x tests\n"},
    )
    assert plan_tests(make).paths == ["tests"]


def test_a_docker_integration_workflow_is_not_the_suite_when_a_tox_one_runs_it(tmp_path):
    docker = "jobs:\n  d:\n    steps:\n      - run: pytest tests/docker/app/ -v\n"
    tox = "jobs:\n  t:\n    steps:\n      - run: tox -e py\n"
    files = {
        **SUITE,
        "tests/docker/app/test_app.py": "",
        ".github/workflows/docker-integration.yml": docker,
        ".github/workflows/tox.yml": tox,
        "tox.ini": "[testenv]\ncommands = pytest --cov=pkg {posargs}\n",
    }
    plan = plan_tests(tree(tmp_path, files))
    assert plan.command_source == ".github/workflows/tox.yml: pytest --cov=pkg"
    assert plan.paths == []


def test_a_hatch_script_naming_another_and_its_envs_features(tmp_path):
    pyproject = (
        '[project]\nname = "pkg"\n[project.optional-dependencies]\ni18n = ["babel"]\n'
        '[tool.hatch.envs.test]\nfeatures = ["i18n"]\ndependencies = ["pytest-mock"]\n'
        "[tool.hatch.envs.test.scripts]\n"
        "test = 'python -m unittest discover -s pkg -p \"*tests.py\"'\n"
        'with-coverage = "test"\n'
    )
    jobs = "jobs:\n  t:\n    steps:\n      - run: hatch run +py=3.12 test:with-coverage\n"
    files = {"pkg/a_tests.py": "", "pyproject.toml": pyproject, ".github/workflows/ci.yml": jobs}
    plan = plan_tests(tree(tmp_path, files))
    # with-coverage runs the test script; the env's features are the project's extras
    assert plan.runner == "unittest" and plan.paths == ["pkg"]
    assert plan.extras == ["i18n"] and plan.packages == ["pytest-mock"]


def test_hatch_test_in_hatch_toml_installs_its_env_and_imports_its_workspace(tmp_path):
    """hatch's own repository: ``hatch test`` in CI, its ``hatch-test`` environment in
    ``hatch.toml`` with the packages the tests import and a workspace member."""
    files = {
        ".github/workflows/ci.yml": "jobs:\n  t:\n    steps:\n      - run: hatch test --cover\n",
        "pyproject.toml": '[project]\nname = "tool"\n',
        "hatch.toml": (
            '[envs.hatch-test]\nworkspace.members = ["backend/"]\n'
            'extra-dependencies = ["editables"]\n'
        ),
        "backend/pyproject.toml": '[project]\nname = "backend"\n',
        "backend/src/backend/__init__.py": "",
        "src/tool/__init__.py": "",
        "tests/test_tool.py": "",
    }
    root = tree(tmp_path, files)
    plan = plan_tests(root)
    assert plan.command_source == ".github/workflows/ci.yml: pytest"
    # hatch's default dependencies of the environment come along (pytest-mock's mocker)
    assert plan.packages == [
        "pytest", "pytest-mock", "pytest-rerunfailures", "pytest-xdist", "editables"
    ]  # fmt: skip
    assert suiteargs.test_command(root)[1]["PYTHONPATH"] == "src:backend/src"


def test_workspace_members_outside_the_tree_are_not_on_the_tests_path(tmp_path):
    """Members are globs the repository writes: absolute ones and ``..`` are skipped (an
    absolute glob would stop pathlib), members without a pyproject.toml too."""
    files = {
        "pyproject.toml": (
            '[tool.uv.workspace]\nmembers = ["/etc", "../other", "", "libs/*"]\n'
            'exclude = ["/etc", "libs/old"]\n'
        ),
        "libs/one/pyproject.toml": "",
        "libs/one/one.py": "",
        "libs/old/pyproject.toml": "",
        "libs/notes/README": "",
    }
    assert suiteargs.workspace_roots(tree(tmp_path, files)) == ["libs/one"]


def test_a_unittest_suite_runs_through_pytest_with_unittests_file_pattern(tmp_path):
    root = tree(
        tmp_path,
        {
            "tests/core_test.py": "",
            ".github/workflows/t.yml": (
                "jobs:\n  t:\n    steps:\n"
                "      - run: python -m unittest discover -s tests -p '*_test.py' -v\n"
            ),
        },
    )
    plan = plan_tests(root)
    assert plan.runner == "unittest"
    assert plan.options[:2] == ["-o", "python_files=*_test.py"] and plan.paths == ["tests"]
    assert plan.options[2:] == [
        "-o",
        "python_classes=",
        "-o",
        "python_functions=",
        "--assert=plain",
    ]
    # bare `python -m unittest` means unittest's default pattern, wider than pytest's
    (root / ".github/workflows/t.yml").write_text(
        "jobs:\n  t:\n    steps:\n      - run: coverage run -m unittest\n"
    )
    assert plan_tests(root).options[:2] == ["-o", "python_files=test*.py"]
    # a test module run as a script names the suite
    (root / ".github/workflows/t.yml").write_text(
        "jobs:\n  t:\n    steps:\n      - run: python tests/test.py -v\n"
    )
    tree(root, {"tests/test.py": ""})
    assert plan_tests(root).paths == ["tests/test.py"]


def test_nose2_runs_as_the_unittest_discovery_it_does_packages_only(tmp_path):
    # nose2's own suite keeps sample projects (test_*.py outside any package) that its
    # tests run nose2 on; pytest collecting them fails on duplicate module names
    root = tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/tests/__init__.py": "",
            "pkg/tests/test_core.py": "",
            "pkg/tests/support/scenario/a/test_lib.py": "",
            "pkg/tests/support/scenario/b/test_lib.py": "",
            "docs/test_conf.py": "",
            "tests/test_top.py": "",  # furl's: no package, but named like tests
            "tests/data/test_sample.py": "",
            "tox.ini": "[testenv]\ncommands =\n    !mp: coverage run nose2 -v --pretty-assert {posargs}\n",
        },
    )
    plan = plan_tests(root)
    assert plan.runner == "unittest"
    assert "--ignore=pkg/tests/support" in plan.options and "--ignore=docs" in plan.options
    assert "--ignore=tests" not in plan.options and "--ignore=tests/data" in plan.options
    assert not any("pkg/tests/support/" in o for o in plan.options)  # not descended into
    assert "--ignore=pkg/tests" not in plan.options and "--assert=plain" in plan.options
    (root / "tox.ini").write_text("[testenv]\ncommands = python -m nose2 -s pkg\n")
    assert "--ignore=docs" not in plan_tests(root).options  # outside the start: not looked at


def test_cd_into_the_test_folder_and_a_ci_shell_script(tmp_path):
    root = tree(
        tmp_path,
        {
            **SUITE,
            "ci/run.sh": "#!/bin/sh\nset -e\npip install hypothesis\ncd tests && py.test --cov x\n",
            ".github/workflows/t.yml": "jobs:\n  t:\n    steps:\n      - run: ./ci/run.sh\n",
        },
    )
    plan = plan_tests(root)
    assert plan.paths == ["tests"] and plan.packages == ["hypothesis"]


@pytest.mark.parametrize(
    ("config", "plugins", "kept"),
    [
        (
            '[tool.pytest.ini_options]\naddopts = "--cov=pkg --cov-report term -n auto '
            '--strict-markers --timeout=30"\n',
            ["pytest-cov", "pytest-xdist", "pytest-timeout"],
            ["--strict-markers", "--timeout=30"],
        ),
        (
            '[tool.pytest.ini_options]\naddopts = ["-p", "pytest_mock", "--doctest-modules"]\n'
            'asyncio_mode = "auto"\nrequired_plugins = ["pytest-env>=1"]\n',
            ["pytest-mock", "pytest-asyncio", "pytest-env>=1"],
            None,
        ),
    ],
)
def test_addopts_and_ini_keys_name_the_plugins_and_reporting_options_are_dropped(
    tmp_path, config, plugins, kept
):
    root = tree(tmp_path, {"pyproject.toml": config})
    assert plan_tests(root).packages == plugins
    assert reporting_free_addopts(root) == kept
    argv = suiteargs.test_command(root)[0]
    if kept is not None:  # the run overrides addopts with the kept options only
        assert argv[3:] == ["-o", "addopts=--strict-markers --timeout=30"]


@pytest.mark.parametrize(
    "name", ["dev-requirements.txt", "requirements-dev.txt", "dev_requirements.txt"]
)
def test_development_requirements_are_read_whichever_side_the_word_is_on(tmp_path, name):
    """fabric's ``dev-requirements.txt`` pins the ``pytest<8`` its pytest-relaxed needs; a
    file of other requirements beside it is not read."""
    (tmp_path / name).write_text("pytest<8\npytest-relaxed\n")
    (tmp_path / "docs-list.txt").write_text("sphinx\n")
    assert discover_test_requirements(tmp_path).files == [tmp_path / name]


def test_requirement_files_of_test_folders_and_their_items(tmp_path):
    root = tree(
        tmp_path,
        {
            "tests/requirements.txt": "-r ../requirements/base.txt\npytest-mock  # mocks\n",
            "tests/data_test.txt": "not requirements",
            "requirements/base.txt": (
                "--index-url https://example.invalid/simple\n"
                "attrs>=22 \\\n    --hash=sha256:00\n"
                "-e git+https://example.invalid/x.git#egg=x\n"
            ),
        },
    )
    assert plan_tests(root).files == ["tests/requirements.txt"]
    assert requirement_items(root / "tests/requirements.txt") == [
        ["attrs>=22"],
        ["-e", "git+https://example.invalid/x.git#egg=x"],
        ["pytest-mock"],
    ]


@pytest.mark.parametrize(
    ("tag", "distance", "expected"),
    [
        ("v1.2.3", 0, "1.2.3"),
        ("1.2.3", 5, "1.2.4.dev5+gabcdef0"),
        ("pkg-v2.0", 1, "2.1.dev1+gabcdef0"),
        ("2.0rc1", 2, "2.0rc1.dev2+gabcdef0"),
        ("not-a-version", 0, None),
    ],
)
def test_scm_versions_follow_setuptools_scm_default_scheme(tag, distance, expected):
    assert scm_version(tag, distance, "abcdef0123") == expected


def test_version_files_come_from_setuptools_scm_hatch_vcs_and_setup_py(tmp_path):
    root = tree(
        tmp_path,
        {
            "pyproject.toml": (
                "[tool.setuptools_scm]\nversion_file = 'src/a/_version.py'\n"
                "[tool.hatch.build.hooks.vcs]\nversion-file = 'src/a/VERSION.txt'\n"
                "template = 'v = {version!r}; t = {version_tuple!r}'\n"
            ),
            "setup.py": "setup(use_scm_version={'write_to': '../escape.py'})",
            "src/a/__init__.py": "",
        },
    )
    assert [p for p, _ in version_files(root)] == [
        "src/a/_version.py",
        "src/a/VERSION.txt",
        "../escape.py",
    ]
    assert write_version_files(root, "1.4.1.dev2+g0abc") == [
        "src/a/_version.py",
        "src/a/VERSION.txt",
    ]
    namespace: dict[str, object] = {}
    exec((root / "src/a/_version.py").read_text(), namespace)
    assert namespace["__version__"] == "1.4.1.dev2+g0abc"
    assert namespace["version_tuple"] == (1, 4, 1, "dev2", "g0abc")
    assert (root / "src/a/VERSION.txt").read_text() == (
        "v = '1.4.1.dev2+g0abc'; t = (1, 4, 1, 'dev2', 'g0abc')"
    )
    assert not (tmp_path.parent / "escape.py").exists()


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pyproject.toml", "[tool]\nhatch = 1\ntox = 3\nsetuptools_scm = 'x'\n"),
        ("pyproject.toml", "[tool.hatch.build]\nhooks = 1\n[tool.hatch.envs]\ntest = 1\n"),
        ("pyproject.toml", "[tool.pytest.ini_options]\nrequired_plugins = 5\naddopts = 7\n"),
        (
            "pyproject.toml",
            "[tool.tox.env_run_base]\ncommands = [[{replace='posargs', default=5}]]\n",
        ),
        ("pyproject.toml", "[project]\noptional-dependencies = 3\ndependencies = [1]\n"),
        ("tox.toml", "env = 3\n"),
        (
            ".github/workflows/t.yml",
            "jobs:\n  a:\n    steps:\n      - run: [1]\n      - run: pytest -m\n",
        ),
        ("tox.ini", "[testenv]\ncommands = pytest {posargs:{{{\n"),
        ("noxfile.py", "def (\n"),
    ],
)
def test_configuration_of_the_wrong_shape_reads_as_nothing(tmp_path, name, text):
    """A number where a table belongs must not stop intake (it once raised AttributeError)."""
    root = tree(tmp_path, {**SUITE, name: text})
    plan = plan_tests(root)
    assert plan.packages == [] and plan.paths == []
    assert version_files(root) == []
    assert discover_test_requirements(root).extras == []


# a harness's helper named like a test: a program that reads stdin at import
ENCODER = (
    '"""Reads tagged JSON and encodes it."""\n\nimport json\nimport sys\n\n'
    "def convert(v):\n    return v\n\n"
    "j = json.loads(sys.stdin.read())\nprint(convert(j))\n"
)
NAMED_LIKE_TESTS = {
    "tests/encoding_test.py": ENCODER,
    # the same program behind a main guard runs nothing at import: pytest may import it
    "tests/decoding_test.py": "import sys\n\ndef tag(v):\n    return v\n\n"
    "if __name__ == '__main__':\n    print(tag(sys.stdin.read()))\n",
    "tests/test_real.py": "def test_one():\n    assert True\n",
    # tests inside a condition, a TestCase of any name, imported or assigned tests: kept
    "tests/test_platform.py": "import sys, unittest\n\nif sys.platform != 'win32':\n"
    "    class Trigger(unittest.TestCase):\n        def test_it(self):\n            pass\n"
    "setup = print('import-time work')\n",
    "tests/test_reexport.py": "from tests.shared import *\nprint('loaded')\n",
    "tests/test_assigned.py": "import helpers\ntest_made = helpers.make()\n",
    "tests/test_broken.py": "def oops(:\n    print('x')\n",
    "tests/conftest.py": "print('conftest runs code at import')\n",
}


def test_scripts_named_like_tests_are_not_collected(tmp_path):
    root = tree(tmp_path, NAMED_LIKE_TESTS)
    plan = plan_tests(root)
    assert plan.scripts == ["tests/encoding_test.py"]
    assert plan.options == ["--ignore=tests/encoding_test.py"]
    assert suiteargs.test_command(root)[0] == [
        "python", "-m", "pytest", "--ignore=tests/encoding_test.py",
    ]  # fmt: skip


def test_scripts_follow_pytests_own_file_pattern_and_doctest_runs_keep_them(tmp_path):
    files = {"checks/check_one.py": ENCODER, "tests/encoding_test.py": ENCODER}
    root = tree(tmp_path, {**files, "pytest.ini": "[pytest]\npython_files = check_*.py\n"})
    assert plan_tests(root).scripts == ["checks/check_one.py"]
    doctests = tree(
        tmp_path / "doctest", {**files, "pytest.ini": "[pytest]\naddopts = --doctest-modules\n"}
    )
    assert plan_tests(doctests).scripts == []


def test_an_option_whose_value_is_optional_never_takes_the_next_option(tmp_path):
    # pytest-cov's --cov stands alone here; --cov-config's value is no test path
    ci = "jobs:\n  t:\n    steps:\n      - run: pytest -ra --cov --cov-config pyproject.toml -n auto tests\n"
    root = tree(tmp_path, {**SUITE, "pyproject.toml": "", ".github/workflows/ci.yml": ci})
    plan = plan_tests(root)
    assert plan.paths == ["tests"]


def test_doctest_runs_of_documents_or_the_package_are_not_the_suite(tmp_path):
    """A tox env that runs the README's and the package's doctests before the suite
    (natsort's): the run of the suite is the one read, not the first pytest line."""
    (tmp_path / "README.rst").write_text(">>> 1 + 1\n2\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "examples.rst").write_text(">>> 2\n2\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_pkg.py").write_text("def test_a():\n    pass\n")
    (tmp_path / "tox.ini").write_text(
        "[testenv]\ncommands =\n"
        "    pytest README.rst docs/examples.rst\n"
        "    pytest --doctest-modules {envsitepackagesdir}/pkg\n"
        "    pytest --tb=short tests\n"
    )
    plan = plan_tests(tmp_path)
    assert plan.command_source == "tox: pytest --tb=short tests"
    assert plan.paths == ["tests"]


def test_the_variables_a_tox_environment_sets_go_with_its_command(tmp_path):
    """pre-commit-hooks' tests commit with the author tox's ``setenv`` names."""
    root = tree(
        tmp_path,
        {
            "tox.ini": (
                '[testenv]\nsetenv =\n    GIT_AUTHOR_NAME = "test"\n    PYTHONPATH = {toxinidir}\n'
                "    py38: OLD = yes\n    COVERAGE_FILE = .cov\n    PYTHONWARNINGS = error\n"
                "commands = pytest {posargs:tests}\n\n"
                "[testenv:lint]\nset_env = LINTING=1\ncommands = flake8\n"
            ),
            "tests/test_a.py": "",
        },
    )
    argv, env = suiteargs.test_command(root)
    assert argv[-1] == "tests"
    # {toxinidir} substitutions, the run's own variables and other factors' are left out
    assert env == {
        "GIT_AUTHOR_NAME": "test",
        "PYTHONWARNINGS": "error",
        "PYTHONPATH": ".",
        "PYTHONHASHSEED": "0",
    }


def test_a_test_package_run_as_a_module_is_the_folder_pytest_runs(tmp_path):
    """tornado's tox runs ``python -bb -m tornado.test``, whose ``__main__`` drives
    unittest over ``*_test.py``; pytest over the tree would collect ``maint/test`` too."""
    files = {
        "tox.ini": "[testenv]\ncommands = python -bb -m pkg.test {posargs:}\n",
        ".github/workflows/ci.yml": "jobs:\n  t:\n    steps:\n      - run: tox -e py313\n",
        "pkg/__init__.py": "",
        "pkg/test/__init__.py": "",
        "pkg/test/__main__.py": "from pkg.test.runtests import main\nmain()\n",
        "pkg/test/runtests.py": "def main():\n    pass\n",
        "pkg/test/web_test.py": "",
        "maint/test/cython_test.py": "",
    }
    plan = plan_tests(tree(tmp_path / "runner", files))
    assert plan.paths == ["pkg/test"]
    assert plan.command_source == ".github/workflows/ci.yml: python -bb -m pkg.test"
    assert plan.harness is None
    # a module whose package holds nothing pytest collects is a harness of its own
    files[".github/workflows/ci.yml"] = (
        "jobs:\n  t:\n    steps:\n      - run: python -m pkg.testing.drive\n"
    )
    files = {k: v for k, v in files.items() if not k.startswith("pkg/test/")}
    files.update({"pkg/testing/__init__.py": "", "pkg/testing/drive.py": "", "tests/test_a.py": ""})
    plan = plan_tests(tree(tmp_path / "harness", files))
    assert plan.paths == []
    assert plan.harness == ".github/workflows/ci.yml: python -m pkg.testing.drive"


@pytest.mark.parametrize(
    ("command", "source"),
    [
        (
            "{envbindir}/coverage run {envbindir}/django-admin test -v2",
            "coverage run django-admin test -v2",
        ),
        ("pytest {posargs:tests}", "pytest tests"),
    ],
)
def test_django_settings_tox_sets_bring_pytest_django(tmp_path, command, source):
    """django-constance's tox runs the environment's own ``django-admin`` (``{envbindir}/``)
    with the settings its ``setenv`` names; a pytest run under those settings needs
    pytest-django to set Django up before collection, as Django's runner does."""
    tox_ini = (
        f"[testenv]\nsetenv =\n    DJANGO_SETTINGS_MODULE = tests.settings\ncommands = {command}\n"
    )
    plan = plan_tests(tree(tmp_path, {"tox.ini": tox_ini, "tests/test_a.py": ""}))
    assert plan.command_source == f"tox: {source}"
    assert "pytest-django" in plan.packages
    assert plan.env["DJANGO_SETTINGS_MODULE"] == "tests.settings"


@pytest.mark.parametrize("name", ["tox.ini", "setup.cfg", "pytest.ini"])
def test_django_settings_in_an_ini_pytest_section_bring_pytest_django(tmp_path, name):
    """pytest reads its ini keys with their case; configparser would lowercase them."""
    section = "tool:pytest" if name == "setup.cfg" else "pytest"
    ini = f"[{section}]\nDJANGO_SETTINGS_MODULE = demoproject.settings\n"
    assert "pytest-django" in plan_tests(tree(tmp_path, {name: ini})).packages


def test_a_local_project_an_install_line_names_is_on_the_tests_path_not_the_index(tmp_path):
    """django-downloadview's tox runs ``pip install -e demo`` before pytest, whose
    settings live in ``demo/demoproject``; the index's ``demo`` is another project."""
    tox_ini = "[testenv]\ncommands =\n    pip install -e demo ./tools/ -e .\n    pytest\n"
    files = {
        "tox.ini": tox_ini,
        "demo/setup.py": "",
        "demo/demoproject/__init__.py": "",
        "tools/pyproject.toml": "",
        "tools/src/helpers/__init__.py": "",
        "tests/test_a.py": "",
    }
    root = tree(tmp_path, files)
    plan = plan_tests(root)
    assert not {"demo", "./tools/", "tools"} & set(plan.packages)
    assert suiteargs.test_command(root)[1]["PYTHONPATH"] == ".:demo:tools/src"


def test_a_test_path_tox_reads_from_setenv_is_the_one_the_environment_sets(tmp_path):
    """authlib runs one folder per factor, named by ``setenv``; without a factor, its own."""
    tox_ini = (
        "[tox]\nenv_list = py312, py312-django\n[testenv]\nsetenv =\n    TESTPATH=tests/core\n    django: TESTPATH=tests/django\n"
        "    django: DJANGO_SETTINGS_MODULE=tests.django.settings\n"
        "commands = coverage run -m pytest {posargs: {env:TESTPATH}} {env:MORE:tests/more}\n"
    )
    files = {"tox.ini": tox_ini, "tests/core/test_a.py": "", "tests/django/test_b.py": "",
             "tests/more/test_c.py": ""}  # fmt: skip
    argv, env = suiteargs.test_command(tree(tmp_path, files))
    assert argv[-2:] == ["tests/core", "tests/more"]
    assert "DJANGO_SETTINGS_MODULE" not in env
    workflow = "jobs:\n  t:\n    steps:\n      - run: tox -e py312-django\n"
    files[".github/workflows/ci.yml"] = workflow
    argv, env = suiteargs.test_command(tree(tmp_path / "ci", files))
    assert argv[-2:] == ["tests/django", "tests/more"]
    assert env["DJANGO_SETTINGS_MODULE"] == "tests.django.settings"


def test_a_tox_toml_set_env_goes_with_its_command(tmp_path):
    root = tree(
        tmp_path,
        {
            "tox.toml": (
                '[env_run_base]\nset_env = { TZ_TESTS = "UTC" }\ncommands = [["pytest", "tests"]]\n'
            ),
            "tests/test_a.py": "",
        },
    )
    assert suiteargs.test_command(root)[1]["TZ_TESTS"] == "UTC"


def test_no_variables_when_the_command_is_not_tox_s(tmp_path):
    workflow = "jobs:\n  t:\n    steps:\n      - run: pytest tests\n"
    root = tree(
        tmp_path,
        {
            ".github/workflows/ci.yml": workflow,
            "tox.ini": "[testenv]\nsetenv = A=1\ncommands = pytest -x tests\n",
            "tests/test_a.py": "",
        },
    )
    assert "A" not in suiteargs.test_command(root)[1]


def test_the_extras_tox_installs_the_project_with_are_installed(tmp_path):
    """identify's tox env says ``extras = license``: its tests reach ukkonen through it."""
    root = tree(
        tmp_path,
        {
            "pyproject.toml": (
                '[project]\nname = "x"\nversion = "1"\n'
                '[project.optional-dependencies]\nlicense = ["ukkonen"]\ncli = ["click"]\n'
            ),
            "tox.ini": "[testenv]\nextras =\n    license\n    py38: cli\ncommands = pytest\n",
            "tests/test_a.py": "",
        },
    )
    found = discover_test_requirements(root)
    assert found.extras == ["license"]
    assert "ukkonen" in found.packages and "click" not in found.packages
    assert "tox.ini [testenv] extras: license" in found.sources


def test_the_dependency_groups_tox_installs_for_the_test_command_are_installed(tmp_path):
    """svcs' ``3.1x-tests-optional`` environments install its ``optional`` group (httpx2,
    which starlette's test client needs); its ``mypy`` environments' group is not the
    tests', and the groups are read before the lock, which then pins them too."""
    root = tree(
        tmp_path,
        {
            "pyproject.toml": (
                '[project]\nname = "x"\nversion = "1"\n'
                "[dependency-groups]\n"
                'tests = ["pytest"]\ncov = [{include-group = "tests"}, "coverage"]\n'
                'optional = ["httpx2", "starlette"]\nmypy = ["mypy"]\n'
            ),
            "tox.ini": (
                "[tox]\nenv_list =\n    lint,\n    3.1{0-3}-mypy\n    3.1{0-3}-tests{,-optional}\n"
                "[testenv]\ndependency_groups =\n    mypy: mypy\n    tests: cov\n"
                "    optional: optional\n"
                "commands =\n    tests: coverage run -m pytest {posargs}\n    mypy: mypy src\n"
            ),
            "tests/test_a.py": "",
        },
    )
    found = discover_test_requirements(root)
    assert found.groups == ["tests", "cov", "optional"]
    assert {"httpx2", "starlette", "coverage"} <= set(found.packages)
    assert "mypy" not in found.packages
    assert "tox dependency_groups: cov, optional" in found.sources
    # without an env_list, the lines under no factor
    (root / "tox.ini").write_text(
        "[testenv]\ndependency_groups = optional\n    mypy: mypy\ncommands = pytest\n"
    )
    found = discover_test_requirements(root)
    assert found.groups == ["tests", "optional"] and "mypy" not in found.packages


@pytest.mark.parametrize(
    ("names", "expanded"),
    [
        ("py{38,39}-x", "py38-x,py39-x"),
        (
            "3.1{0-2}-tests{,-optional}",
            "3.10-tests,3.10-tests-optional,3.11-tests,"
            "3.11-tests-optional,3.12-tests,3.12-tests-optional",
        ),  # fmt: skip
        ("a,py{3,4}-{b,c},z", "a,py3-b,py3-c,py4-b,py4-c,z"),
    ],
)
def test_tox_generative_names_expand_with_ranges_and_several_braces(names, expanded):
    assert _brace_expand(names) == expanded


@pytest.mark.parametrize(
    ("command", "files", "options", "paths"),
    [
        ("python -m django test -v 2 --settings tests.settings", {}, ["--ds=tests.settings"], []),
        (
            "coverage run manage.py test app.tests --parallel",
            {
                "manage.py": (
                    "import os\nos.environ.setdefault('DJANGO_SETTINGS_MODULE', 'site.settings')\n"
                )
            },
            ["--ds=site.settings"],
            ["app/tests.py"],
        ),  # fmt: skip
        ("django-admin test -p 'check_*.py'", {}, [], []),
        ("python manage.py test --parallel 4 app.tests", {}, [], ["app/tests.py"]),
    ],
)
def test_django_s_test_command_reads_as_pytest_django_with_its_settings(
    tmp_path, command, files, options, paths
):
    root = tree(
        tmp_path,
        {"tox.ini": f"[testenv]\ncommands = {command}\n", "app/tests.py": "", **files},
    )
    plan = plan_tests(root)
    assert plan.runner == "unittest" and plan.paths == paths
    assert "pytest-django" in plan.packages
    pattern = "check_*.py" if "check_" in command else "test*.py"
    assert plan.options[plan.options.index("-o") + 1] == f"python_files={pattern}"
    assert [o for o in plan.options if o.startswith("--ds")] == options


def test_a_tox_changedir_in_the_tree_is_where_pytest_runs(tmp_path):
    """django-silk's tox runs pytest in ``project``, where pytest-django finds manage.py and
    the settings package beside it; from the root it finds neither."""
    tox_ini = "[testenv]\nchangedir = {toxinidir}/project\ncommands = pytest {posargs}\n"
    files = {"tox.ini": tox_ini, "project/manage.py": "", "project/tests/test_a.py": ""}
    assert plan_tests(tree(tmp_path / "bare", files)).paths == ["project"]
    files["tox.ini"] = tox_ini.replace("{posargs}", "tests -m 'not slow'")
    plan = plan_tests(tree(tmp_path / "named", files))
    assert (plan.paths, plan.options) == (["project/tests"], ["-m", "not slow"])
    # a changedir outside the tree (the environment's temporary folder) changes nothing
    files["tox.ini"] = "[testenv]\nchangedir = {envtmpdir}\ncommands = pytest {toxinidir}/tests\n"
    files["tests/test_b.py"] = ""
    assert plan_tests(tree(tmp_path / "elsewhere", files)).paths == ["tests"]


def test_the_sqlite_environment_gives_the_variables_not_a_database_server_s(tmp_path):
    """django-sortedm2m's settings default to PostgreSQL; its ``sqlite3`` factor sets the
    one database a box has."""
    tox_ini = (
        "[tox]\nenvlist = py312-{postgresql,mysql,sqlite3}\n"
        "[testenv]\nsetenv =\n    DJANGO_SETTINGS_MODULE = settings\n"
        "    postgresql: DB_ENGINE = postgresql\n    mysql: DB_ENGINE = mysql\n"
        "    sqlite3: DB_ENGINE = sqlite3\ncommands = pytest tests\n"
    )
    _, env = suiteargs.test_command(tree(tmp_path, {"tox.ini": tox_ini, "tests/test_a.py": ""}))
    assert (env["DB_ENGINE"], env["DJANGO_SETTINGS_MODULE"]) == ("sqlite3", "settings")


def test_tox_factor_lines_come_from_the_newest_python_s_environment(tmp_path):
    """django-hosts' tox runs ``make test`` and installs Django under factors only."""
    tox_ini = (
        "[tox]\nenvlist =\n    py38-dj32\n    py313-dj52\n    lint\n"
        "[testenv]\ncommands = make test\ndeps =\n    dj32: Django<4\n"
        "    dj52: Django>=5.2,<6\n    lint: ruff\n    pytest-django\n"
    )
    files = {"tox.ini": tox_ini, "Makefile": "test:\n\tpytest\n", "tests/test_a.py": ""}
    packages = discover_test_requirements(tree(tmp_path, files)).packages
    assert "Django>=5.2,<6" in packages and "pytest-django" in packages
    assert not {"Django<4", "ruff"} & set(packages)


def test_tox_deps_naming_another_sections_value_read_it(tmp_path):
    """scrapy's ``deps = {[test-requirements]deps}``: the lines of that section."""
    tox_ini = (
        "[tox]\nenvlist = py313\n[base]\ndeps =\n    pyftpdlib>=2\n"
        "[test-requirements]\ndeps =\n    {[base]deps}\n    sybil\n"
        "[testenv]\ncommands = pytest\ndeps =\n    {[test-requirements]deps}\n    pytest\n"
    )
    files = {"tox.ini": tox_ini, "tests/test_a.py": ""}
    packages = discover_test_requirements(tree(tmp_path, files)).packages
    assert packages[:3] == ["pyftpdlib>=2", "sybil", "pytest"]


def test_the_variables_a_ci_step_sets_reach_the_commands_its_script_runs(tmp_path):
    """encode/databases' test step names its databases in ``env:``; the script it runs
    reads them. The workflow's and the job's variables count too, GitHub's expressions
    do not."""
    workflow = (
        "env:\n  TZ_TESTS: UTC\njobs:\n  t:\n    env:\n      MODE: ci\n    steps:\n"
        "      - run: scripts/test\n        env:\n          DATABASES: |\n"
        "            sqlite:///one,\n            sqlite:///two\n"
        "          TOKEN: ${{ secrets.TOKEN }}\n"
    )
    files = {
        ".github/workflows/ci.yml": workflow,
        "scripts/test": "#!/bin/sh\ncoverage run -m pytest tests\n",
        "tests/test_a.py": "",
    }
    plan = plan_tests(tree(tmp_path, files))
    assert plan.paths == ["tests"]
    assert plan.env == {
        "TZ_TESTS": "UTC",
        "MODE": "ci",
        "DATABASES": "sqlite:///one,\nsqlite:///two",
    }
    assert "\n" not in (plan.command_source or "")


def test_a_script_that_hands_its_arguments_to_pytest_is_a_pytest_run(tmp_path):
    """luigi's tox runs ``test/runtests.py -m "not ..."``, which calls
    ``pytest.main(sys.argv[1:])``; a narrower environment that runs pytest itself is
    not the suite."""
    tox_ini = (
        "[testenv]\ncommands =\n    {envpython} --version\n"
        "    core: {envpython} test/runtests.py -m 'not mysql' {posargs:}\n"
        "    mysql: {envpython} test/runtests.py -m mysql {posargs:}\n"
        "[testenv:visualiser]\ncommands = pytest test/visualiser\n"
    )
    runner = "import sys\nimport pytest\n\nsys.exit(pytest.main(sys.argv[1:]))\n"
    files = {"tox.ini": tox_ini, "test/runtests.py": runner, "test/test_a.py": "",
             "test/visualiser/test_v.py": ""}  # fmt: skip
    plan = plan_tests(tree(tmp_path, files))
    assert (plan.options, plan.paths) == (["-m", "not mysql"], [])
