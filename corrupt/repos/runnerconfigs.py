"""The commands tox, nox, hatch and make would run for the tests, read from their configuration.

CI often only says ``tox -e py311``, ``nox``, ``hatch run test`` or ``make
test``, and a project without CI may still keep its test command there. Each
reader answers the command lines (argument lists) of the environment,
session, script or target that runs the tests, with what it installs as a
``pip install`` line where the configuration says it; nothing is run (a
noxfile is read as a syntax tree).
"""

from __future__ import annotations

import ast
import configparser
import posixpath
import re
import shlex
from itertools import takewhile
from pathlib import Path
from typing import Any, NamedTuple

from corrupt.repos.projectfiles import read_text, read_toml, strings, table
from corrupt.repos.shellcommands import shell_commands, unwrap
from corrupt.repos.testcommands import (
    as_unittest,
    django_args,
    module_runner_path,
    pytest_args,
    pytest_script_args,
    unittest_args,
)

MAX_INCLUDE_DEPTH = 4  # scripts naming scripts, commands naming runners: followed this deep


def tox_commands(root: Path, names: list[str] | None = None) -> list[list[str]]:
    """``commands`` of the test environment: of the environments ``names`` when CI names
    them (``tox -e py311-tests``), else ``[testenv]`` or the first env that runs pytest."""
    tox = _tox_envs(root)
    sections = tox.commands
    if names is None:
        ordered = sorted(sections, key=lambda name: (name != "testenv", "test" not in name))
        candidates = [(section, section.partition(":")[2]) for section in ordered]
    else:
        candidates = [
            (f"testenv:{n}" if f"testenv:{n}" in sections else "testenv", n) for n in names
        ]
    for section, env in candidates:
        commands = _env_commands(root, tox, section, env)
        if any(pytest_args(unwrap(c)) is not None
               or pytest_script_args(root, unwrap(c)) is not None
               or unittest_args(as_unittest(root, unwrap(c))) is not None
               or django_args(root, unwrap(c)) is not None
               or module_runner_path(root, unwrap(c)) is not None
               for c in commands if unwrap(c)):  # fmt: skip
            return commands
    return []


def tox_env_names(words: list[str]) -> list[str] | None:
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
    start = _top_level_comma(text, match.start(), -1) + 1
    end = _top_level_comma(text, match.end(), 1)
    head, tail = text[start : match.start()], text[match.end() : end]
    options = [str(n) for option in match.group(1).split(",") for n in _range(option)]
    expanded = ",".join(head + option + tail for option in options)
    return _brace_expand(text[:start] + expanded + text[end:])


def _top_level_comma(text: str, at: int, step: int) -> int:
    """The index of the first comma outside braces from ``at`` on in direction ``step``
    (-1 or len(text) where there is none): the edge of one generative name."""
    depth, i = 0, at if step > 0 else at - 1
    while 0 <= i < len(text):
        depth += {"{": step, "}": -step}.get(text[i], 0)
        if text[i] == "," and depth == 0:
            return i
        i += step
    return i


def _range(option: str) -> list[str] | range:
    """tox's ``{10-13}`` is 10, 11, 12, 13; any other option stands for itself."""
    bounds = re.fullmatch(r"(\d+)-(\d+)", option)
    if bounds is None:
        return [option]
    return range(int(bounds.group(1)), int(bounds.group(2)) + 1)


def tox_setenv(root: Path, argv: list[str]) -> dict[str, str]:
    """The variables tox's ``setenv`` gives the environment one of whose commands is
    ``argv`` (its own ``setenv``, else ``[testenv]``'s), as its tests expect them:
    pre-commit-hooks' tests commit with the ``GIT_AUTHOR_NAME`` it sets. ``[testenv]``
    is read for no factor first, then for each environment of ``env_list``: the first
    that runs ``argv`` gives the variables (authlib's Django folder, its settings). Values
    made of tox substitutions (``{toxinidir}``, ``{env:X}``) and variables the run
    sets itself (:data:`OWN_VARIABLES`) are left out. Environments of a SQLite factor
    come first and those of a database server's last (:func:`_database_order`)."""
    tox = _tox_envs(root)
    found = _running(root, tox, argv)
    return _variables(_inherited(tox.setenv, found[0]), found[1]) if found else {}


def _running(root: Path, tox: _ToxEnvs, argv: list[str]) -> tuple[str, str] | None:
    """The section and environment (no factor first, SQLite's before a database server's)
    one of whose commands is ``argv``."""
    envs = _database_order(["", *_env_list(root)])
    for section in tox.commands:
        own = section.partition(":")[2]
        for env in [own] if own else envs:
            if argv in _env_commands(root, tox, section, env):
                return section, env
    return None


def tox_factor_env(root: Path, argv: list[str] | None) -> str:
    """The tox environment whose factor lines (``dj42: Django>=4.2,<5.0``) the tests get:
    the one that runs ``argv``, else the first of ``env_list`` (SQLite's before a database
    server's, then the newest Python's). django-hosts' tox runs ``make test`` and installs
    Django under factors only; with no factor, nothing installed it."""
    found = _running(root, _tox_envs(root), argv) if argv else None
    if found is not None and found[1]:
        return found[1]  # no factor is tox's environment only when there is no env_list
    return next(iter(_database_order(sorted(_env_list(root), key=_newest_python_first))), "")


def _newest_python_first(env: str) -> tuple[int, int]:
    """The newest Python's environment first (a test environment: ``py313-dj52``), those
    of no Python factor (``lint``, ``docs``) last: an old Python's lines pin old tools."""
    versions = [int(m[1]) for f in env.split("-") if (m := re.fullmatch(r"py3(\d+)", f))]
    return (0, -max(versions)) if versions else (1, 0)


def command_variables(argv: list[str]) -> dict[str, str]:
    """The variables a command line sets for itself (``DJANGO_SETTINGS_MODULE=x pytest``, a
    Makefile's exports before each of its commands), read as :func:`tox_setenv` reads them."""
    return _variables(list(takewhile(VARIABLE.match, argv)), "")


def tox_dependency_groups(root: Path, argv: list[str]) -> list[str]:
    """The PEP 735 groups (tox's ``dependency_groups``) the environments one of whose
    commands is ``argv`` install. A line under a factor (``optional: optional``) counts
    when it holds for an environment of ``env_list`` that also runs ``argv``: svcs'
    ``3.1x-tests-optional`` environments install its ``optional`` group, which brings the
    httpx2 that starlette's test client needs."""
    tox = _tox_envs(root)
    groups = _tox_sections(root, key="dependency_groups")
    envs = _env_list(root) or [""]  # no env_list: lines under no factor only
    found: list[str] = []
    for section in tox.commands:
        own = section.partition(":")[2]
        declared = _inherited(groups, section)
        for env in [own] if own else envs:
            if argv in _env_commands(root, tox, section, env):
                found += [g for g in _names(declared, env) if g not in found]
    return found


# Factors naming a database the tests would need a server for: no box runs one.
SERVER_DATABASE = re.compile(r"(postgres(ql)?|pg|psql|mysql|mariadb|oracle|mssql|mongo(db)?)\d*")


def _database_order(envs: list[str]) -> list[str]:
    """``envs`` with those of a SQLite factor first and those of a database server's last:
    django-sortedm2m's settings default to PostgreSQL, and only its ``sqlite3`` factor
    sets ``DB_ENGINE=sqlite3``, the one database a box has."""

    def rank(env: str) -> int:
        factors = env.split("-")
        if any(f.startswith("sqlite") for f in factors):
            return 0
        return 2 if any(SERVER_DATABASE.fullmatch(f) for f in factors) else 1

    return sorted(envs, key=rank)


def _names(lines: list[str], env: str) -> list[str]:
    """The names on tox list lines (``a, b`` or one per line), those under a factor
    condition only where it selects ``env``."""
    names: list[str] = []
    for line in lines:
        line = for_env(line.split("#", 1)[0], env) or ""
        names += [n for n in re.split(r"[,\s]+", line) if n and "{" not in n]
    return names


def for_env(line: str, env: str) -> str | None:
    """A tox line without its factor condition (``py3: ...``); None when the condition
    does not select ``env``."""
    line = line.strip()
    condition = re.match(r"^([\w.,{}!-]+):\s+", line)
    if condition is None:
        return line
    return line[condition.end() :] if _factors_hold(condition.group(1), env) else None


def _env_list(root: Path) -> list[str]:
    """tox's ``env_list`` (or ``envlist``), its generative names expanded."""
    text = read_text(root / "tox.ini") if (root / "tox.ini").is_file() else None
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text or "")
    except configparser.Error:
        return []
    raw = parser.get("tox", "env_list", fallback="") or parser.get("tox", "envlist", fallback="")
    toml = table(read_toml(root / "tox.toml"))
    listed = [line.split("#", 1)[0] for line in raw.splitlines()] + strings(toml.get("env_list"))
    return [env for line in listed for env in re.split(r"[,\s]+", _brace_expand(line)) if env]


# What the sandbox and the runner set, or what would change how corrupt runs pytest
# and coverage, installs, or where Python finds code.
OWN_VARIABLES = re.compile(
    r"PATH|HOME|TMPDIR|TEMP|TMP|USER|SHELL|LOCPATH|VIRTUAL_ENV|(LD|PYTHON(?!WARNINGS|UTF8|DEVMODE"
    r"|IOENCODING)|PYTEST|COVERAGE|COV_CORE|PIP|UV|TOX)_?\w*|LANG|LC_\w+"
)
VARIABLE = re.compile(
    r"^([A-Za-z_]\w*)\s*=\s*(.*)$", re.S
)  # re.S: a CI step's value may span lines


def _variables(lines: list[str], env: str) -> dict[str, str]:
    found = {}
    for line in lines:
        match = VARIABLE.match(for_env(line, env) or "")
        if match is not None and match.group(1) == "PYTHONPATH":
            if folders := _tree_folders(match.group(2)):
                found["PYTHONPATH"] = folders
            continue
        if match is None or OWN_VARIABLES.fullmatch(match.group(1)) or "{" in match.group(2):
            continue
        value = match.group(2).strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        found[match.group(1)] = value
    return found


def _tree_folders(value: str) -> str:
    """The folders of the tree a tox ``PYTHONPATH`` names (``{toxinidir}/libs/common`` ->
    ``libs/common``), ``:``-joined; entries elsewhere or made of other substitutions are
    left out. microdot's tests import a library it keeps there, as its tox sets it."""
    folders = []
    for entry in filter(None, (e.strip() for e in value.strip().strip("\"'").split(":"))):
        entry = re.sub(r"^\{(toxinidir|tox_root)\}/?", "", entry) or "."
        relative = posixpath.normpath(entry)
        if "{" not in entry and "$" not in entry and not relative.startswith(("/", "..")):
            folders.append(relative)
    return ":".join(folders)


TOX4_SPELLINGS = {"setenv": "set_env", "changedir": "change_dir"}


def _tox_sections(root: Path, key: str = "commands") -> dict[str, list[str]]:
    """Environment name -> its ``commands`` lines (or those of ``key``: ``setenv``'s
    ``KEY=VALUE``, ``dependency_groups``), from tox.ini, tox.toml or pyproject's [tool.tox]."""
    found: dict[str, list[str]] = {}
    ini_text = None
    if (root / "tox.ini").is_file():
        ini_text = read_text(root / "tox.ini")
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
                raw = parser.get(section, key, fallback="")
                if key in TOX4_SPELLINGS:  # tox 4 reads either spelling
                    raw = raw or parser.get(section, TOX4_SPELLINGS[key], fallback="")
                found[section] = [ln for ln in re.sub(r"\\\n", " ", raw).splitlines() if ln.strip()]
    toml = read_toml(root / "tox.toml") or (pyproject if "legacy_tox_ini" not in pyproject else {})
    envs = {"testenv": table(toml, "env_run_base")}
    envs.update({f"testenv:{k}": table(v) for k, v in table(toml, "env").items()})
    for name, env in envs.items():
        commands = env.get("commands")
        if key == "dependency_groups" and isinstance(env.get(key), list):
            found.setdefault(name, strings(env[key]))
        elif key == "setenv" and isinstance(env.get("set_env"), dict):
            found.setdefault(name, [f"{k}={v}" for k, v in env["set_env"].items()])
        elif key == "changedir" and isinstance(env.get("change_dir"), str):
            found.setdefault(name, [env["change_dir"]])
        elif key == "commands" and isinstance(commands, list):
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


class _ToxEnvs(NamedTuple):
    """Section name -> its lines, for the keys a test command depends on."""

    commands: dict[str, list[str]]
    setenv: dict[str, list[str]]
    changedir: dict[str, list[str]]


def _tox_envs(root: Path) -> _ToxEnvs:
    return _ToxEnvs(*(_tox_sections(root, key) for key in ("commands", "setenv", "changedir")))


def _inherited(lines: dict[str, list[str]], section: str) -> list[str]:
    """A section's lines of one key, else ``[testenv]``'s, as tox inherits them."""
    return lines.get(section) or lines.get("testenv") or []


def _env_commands(root: Path, tox: _ToxEnvs, section: str, env: str) -> list[list[str]]:
    """The command lines of ``section`` as environment ``env`` runs them: its factor
    lines only, ``{env:NAME}`` read from the variables its ``setenv`` gives ``env``.
    authlib's ``pytest {posargs: {env:TESTPATH}}`` runs ``tests/core`` where no factor
    sets another folder (and another ``DJANGO_SETTINGS_MODULE``); without the variable
    it would run every factor's folder as one suite. A ``changedir`` in the tree comes
    first as the ``cd`` it is: django-silk's pytest runs in ``project``, where
    pytest-django finds ``manage.py`` and the settings beside it."""
    variables = _variables(_inherited(tox.setenv, section), env)
    words = [_tox_words(line, env, variables) for line in tox.commands.get(section, [])]
    folder = next(filter(None, (for_env(ln, env) for ln in _inherited(tox.changedir, section))), "")
    folder = _tree_folders(folder) if ":" not in folder else ""
    moved = [["cd", folder]] if folder not in ("", ".") and (root / folder).is_dir() else []
    return moved + [w for w in words if w]


def _tox_words(line: str, env: str = "", variables: dict[str, str] | None = None) -> list[str]:
    """One tox command line with ``{posargs:default}`` replaced by its default and
    ``{env:NAME:default}`` by ``variables[NAME]`` or its default; nothing when its factor
    condition (``py3: ...``) does not select ``env`` (any env: "")."""
    condition = re.match(r"^([\w.,{}!-]+):\s+", line.strip())
    if condition is not None:
        if env and not _factors_hold(condition.group(1), env):
            return []
        line = line.strip()[condition.end() :]
    line = line.lstrip("-").strip()
    if not line or line.startswith("#"):
        return []
    line = _replace_default(line, "posargs")
    line = re.sub(
        r"\{env:(\w+)(?::([^{}]*))?\}",
        lambda m: (variables or {}).get(m.group(1), m.group(2) or ""),
        line,
    )
    line = line.replace("{envpython}", "python").replace("{toxinidir}", "{tox_root}")
    line = re.sub(r"\{env_?bin_?dir\}/", "", line)  # the environment's programs: on the PATH
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


def nox_commands(root: Path) -> list[list[str]]:
    """``session.run("pytest", ...)`` and ``session.install(...)`` calls with literal arguments."""
    path = root / "noxfile.py"
    text = read_text(path) if path.is_file() else None
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


def hatch_commands(root: Path, run: list[str] | None = None) -> list[list[str]]:
    """Scripts of hatch environments: the one ``hatch run ENV:SCRIPT`` names, else ``test``;
    else ``hatch test``'s pytest, with what its ``hatch-test`` environment installs."""
    envs = hatch_envs(root)
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
        env = {"dependencies": HATCH_TEST_DEPENDENCIES, **table(envs["hatch-test"])}
        commands += [["pytest"], _hatch_installs(env)]
    return [c for c in commands if c]


# What ``hatch test``'s environment installs unless it sets ``dependencies`` (hatch's
# documented defaults, less coverage's and pytest-randomly's: the runs bring their own
# coverage and turn shuffling off). hatch's own tests use pytest-mock's ``mocker``.
HATCH_TEST_DEPENDENCIES = ["pytest", "pytest-mock", "pytest-rerunfailures", "pytest-xdist"]


def hatch_envs(root: Path) -> dict[str, Any]:
    """hatch's environments: ``[envs]`` of ``hatch.toml`` over ``[tool.hatch.envs]`` of
    ``pyproject.toml``, as hatch merges them (hatch's own repository keeps its
    ``hatch-test`` environment, and the ``editables`` its tests import, in ``hatch.toml``)."""
    envs = dict(table(read_toml(root / "pyproject.toml"), "tool", "hatch", "envs"))
    for name, env in table(read_toml(root / "hatch.toml"), "envs").items():
        envs[name] = {**table(envs.get(name)), **table(env)}
    return envs


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


def make_commands(root: Path, target: str) -> list[list[str]]:
    path = next((root / name for name in MAKEFILES if (root / name).is_file()), None)
    text = read_text(path) if path is not None else None
    if text is None:
        return []
    lines = re.sub(r"\\\n", " ", text).splitlines()
    variables, exported = _make_variables(lines)
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
                body = MAKE_REFERENCE.sub(lambda m: variables.get(m[1] or m[2], m[0]), body)
                recipe.extend([*exported, *c] for c in shell_commands(body))
            elif line.strip():
                break
    return recipe


MAKE_ASSIGNMENT = re.compile(r"^(export\s+)?([A-Za-z_][\w.]*)\s*(?::{1,3}=|\?=|=)\s*(.*)$")
MAKE_REFERENCE = re.compile(r"\$\(([A-Za-z_][\w.]*)\)|\$\{([A-Za-z_][\w.]*)\}")
MAKE_HERE = re.compile(r"\$[({](shell pwd|CURDIR|PWD)[)}]")  # the folder make runs in: the root


def _make_variables(lines: list[str]) -> tuple[dict[str, str], list[str]]:
    """The Makefile's plain variables (``PKG := fixit``), for the recipe's ``$(PKG)``, and
    those it exports to the recipes' environment as ``NAME=value`` words: Fixit's
    ``test`` target runs ``python -m $(PKG).tests``, django-formtools' Makefile exports
    ``DJANGO_SETTINGS_MODULE``. Values made of other references or ``$(shell ...)``
    (but the working folder's) are left out: what they expand to needs make itself."""
    found, exported = {}, []
    for line in lines:
        match = MAKE_ASSIGNMENT.match(line)
        value = MAKE_HERE.sub(".", match[3].split("#", 1)[0].strip()) if match else "$"
        if match is not None and "$" not in value:
            found[match[2]] = value
            exported += [f"{match[2]}={value}"] if match[1] else []
    return found, exported
