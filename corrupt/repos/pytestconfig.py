"""pytest's own configuration: its ini options, its ``addopts``, the plugins they need.

pytest reads its options from the first of ``pytest.ini``, ``pyproject.toml``,
``tox.ini`` and ``setup.cfg`` that has them. The test plan needs them three
ways: the plugins ``addopts`` and the ini keys name are test requirements; the
collection settings (``python_files``, ``testpaths``) say which files pytest
picks up; and ``addopts`` options that only report (coverage, parallelism)
are what a run overrides ``addopts`` without. Which of pytest's options take a
value is kept here too: reading a test command needs it as well.
"""

from __future__ import annotations

import configparser
import shlex
from pathlib import Path
from typing import Any

from corrupt.repos.projectfiles import read_text, read_toml, strings, table

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
# are off in every run (suiteargs.LINTERS_OFF), so their options go with them.
LINTER_OPTIONS = ("--mypy", "--flake8", "--isort", "--pylint", "--black", "--ruff",
                  "--pycodestyle", "--pydocstyle", "--codestyle")  # fmt: skip


def pytest_ini(root: Path) -> dict[str, Any]:
    """pytest's ini options from the first file pytest itself would read."""
    if (root / "pytest.ini").is_file():
        return ini_section(root / "pytest.ini", "pytest")
    options = table(read_toml(root / "pyproject.toml"), "tool", "pytest", "ini_options")
    if options:
        return options
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        found = ini_section(root / name, section)
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


def plugin_packages(root: Path) -> list[str]:
    """The plugins pytest's configuration needs: those defining its ``addopts`` options
    and ini keys, the ``-p`` plugins it loads, and its ``required_plugins``."""
    ini = pytest_ini(root)
    packages: list[str] = []
    for word in addopts(root):
        name = word.split("=", 1)[0]
        for option, package in PLUGIN_OPTIONS.items():
            if package and (name == option or name.startswith(option + "-")):
                packages.append(package)
    words = addopts(root)
    for i, word in enumerate(words):
        module = words[i + 1] if word == "-p" and i + 1 < len(words) else word[2:].strip()
        if word.startswith("-p") and module and not module.startswith("no:"):
            packages.extend(_plugin_package(module))
    for key, package in PLUGIN_INI_KEYS.items():
        if key in ini:
            packages.append(package)
    required = ini.get("required_plugins")
    packages.extend(required.split() if isinstance(required, str) else strings(required))
    return packages


def _plugin_package(module: str) -> list[str]:
    known = {"xdist": "pytest-xdist", "pytest_cov": "pytest-cov", "cov": "pytest-cov",
             "pytest_mock": "pytest-mock", "anyio": "anyio", "trio": "pytest-trio"}  # fmt: skip
    return [known[module]] if module in known else []


def ini_section(path: Path, section: str) -> dict[str, Any]:
    """One section of an INI file (``DEFAULT``: its defaults), or {} when there is none."""
    text = read_text(path) if path.is_file() else None
    if text is None:
        return {}
    parser = _CasePreserving(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}
    if section == configparser.DEFAULTSECT:
        return dict(parser.defaults())
    return dict(parser[section]) if parser.has_section(section) else {}


class _CasePreserving(configparser.ConfigParser):
    """An INI parser that keeps its keys' case, as pytest's own does: pytest-django's
    ``DJANGO_SETTINGS_MODULE`` in a ``[pytest]`` section names the plugin (configparser
    lowercases keys by default, and django-downloadview's tox.ini went unread)."""

    def optionxform(self, optionstr: str) -> str:
        return optionstr
