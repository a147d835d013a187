"""One cached virtual environment per repository + commit.

The venv holds the project's dependencies, its test dependencies, pytest and
coverage.py, plus a regular (non-editable) install of the project itself so
that package metadata and entry points exist. Tests must nevertheless see the
*working tree* (which corruptions modify), not that installed copy: the runner
puts the tree's import root first on ``PYTHONPATH``, which Python searches
before site-packages, so the working tree shadows the installed copy.

The project is built from a temporary copy of the clone, because build
backends write ``build/`` and ``*.egg-info`` into the source folder and the
cached clone must never change. A build backend (``setup.py``, a plugin) is
repository code, so every install step runs in a bubblewrap box like the
tests do, but with network (it needs the package index; slirp4netns gives it
its own, without the host's loopback): it sees the system, the Python, that
copy, the venv being built and its uv cache, and nothing else (not HOME, the
cached clones, the user's repository or output folder). Installer credentials are not passed in. ``uv`` does the work (it
ships as a dependency of corrupt) with a cache that lives only as long as
one environment's build: any install step can run code of the repository's
choosing (its dependencies' build scripts too), so a shared cache would let
one repository poison the packages of every venv built after it, corrupt's
own included. venv + pip is the fallback when uv is missing.

A venv counts as cached only when its completion marker exists; the marker is
written last, so an interrupted or failed install is rebuilt from scratch.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict
from email import message_from_string
from email.message import Message
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement

from corrupt.cache import cache_root
from corrupt.errors import NETWORK_FAILURE, NO_COMPILER, NO_GIT, NODE_BUILD, InstallError
from corrupt.repos.installplan import (
    ALWAYS,
    PACKAGING_FILES,
    declared_dependencies,
    discover_test_requirements,
    test_groups,
)
from corrupt.repos.locales import wanted_locales
from corrupt.repos.missing import (
    LAST_SHIPPED_IN,
    distribution_for,
    imported_by_project,
    imported_in_tests,
    missing_modules,
    named_distribution,
)
from corrupt.repos.models import Checkout, Environment, Limits
from corrupt.repos.requirements import index_fallback, requirement_items
from corrupt.repos.staticmeta import static_dist
from corrupt.repos.suiteargs import LINTERS_OFF, PYTEST_NO_TESTS, python_path, suite_args
from corrupt.repos.uvtool import find_uv, install_env
from corrupt.repos.versions import project_version_env
from corrupt.sandboxes.local.bubblewrap import HOME, Box, interpreter_roots, require_bwrap
from corrupt.sandboxes.local.interpreters import Interpreter, interpreter_hint, which_interpreter
from corrupt.sandboxes.local.launch import network_mode, started, unboxed
from corrupt.sandboxes.local.limits import confined
from corrupt.sandboxes.local.locales import locale_env, provide_locales
from corrupt.scratch import remove_tree, scratch_dir

MARKER = ".corrupt-complete"
RECIPE = ".corrupt-recipe.json"
INSTALL_TIMEOUT = 1800.0
COLLECT_TIMEOUT = 300.0
# What a newer pytest says when it collects a suite written against APIs it has
# removed (hooks taking py.path ``path``, generators to parametrize, ...).
REMOVED_PYTEST_API = re.compile(
    r"PytestRemovedIn\d+Warning|declared in the hookimpl but can not be found in the hookspec"
    r"|docs\.pytest\.org/en/\w+/deprecations\.html"
)
OLDER_PYTESTS = ("pytest<9", "pytest<8", "pytest<7")
# Collections tried while repairing it (missing modules, older pytests): a bound, not a target.
MAX_REPAIR_ROUNDS = 6
# Compilers need room; the limits are there to stop a runaway, not a build.
INSTALL_LIMITS = Limits(timeout=INSTALL_TIMEOUT, memory_mb=8192, max_processes=4096, disk_mb=8192)
# Part of every environment key: bump it when what an install puts in a venv
# changes (v2: uv.lock pins first; v3: built in a box on the base interpreter,
# from a uv cache of its own; v4: what CI installs, item by item when all at
# once fails; v5: an older pytest when collection needs one; v6: extras from the
# built metadata, missing modules repaired, URL requirements from the index), so no
# cache keeps an outdated one. What intake finds to install is part of the key too.
RECIPE_VERSION = "6"
MARKER_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW


def environment_key(checkout: Checkout) -> str:
    """Cache key: readable repository stem + hash of (url, commit, the Python the venv is built
    on, recipe version, what intake finds to install): a corrupt that reads a project better
    builds anew."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", checkout.name).strip("-")[:40] or "repo"
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if checkout.python is not None:  # another interpreter: its exact version and where it is
        interpreter = base_interpreter(checkout)
        python = f"{interpreter.label}\0{interpreter.executable}"
    found = json.dumps(asdict(discover_test_requirements(checkout.path)), default=str)
    key = f"{checkout.url}\0{checkout.commit}\0{python}\0{RECIPE_VERSION}\0{found}"
    if checkout.packages_as_of:
        key += f"\0{checkout.packages_as_of}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return f"{stem}-{digest}"


def base_interpreter(checkout: Checkout) -> Interpreter:
    """The interpreter the checkout's venv is created from: corrupt's own, or the one its
    ``python`` record names; an InstallError when that one is not installed here."""
    try:
        return which_interpreter(checkout.python)
    except LookupError:
        raise InstallError(
            f"{checkout.name}'s suite is green on Python {checkout.python}, which is not installed "
            f"on this machine: {interpreter_hint(str(checkout.python))}"
        ) from None


class _Installer:
    """Runs install steps in a box with network, appending every command and its output to one log."""

    def __init__(
        self,
        log: Path,
        venv: Path,
        source: Path,
        *,
        uv_cache: Path,
        isolation: bool,
        interpreter: Interpreter,
        version: str | None = None,
        as_of: str | None = None,
    ) -> None:
        self.log = log
        self.as_of = as_of
        self.version = version
        # What went in other than as declared: URL requirements taken from the index,
        # modules collection missed, extras only the built metadata names.
        self.fallbacks: list[str] = []
        self.venv = venv
        self.source = source
        self.python = venv / "bin" / "python"
        self.interpreter = interpreter
        self.base_python = str(interpreter.executable)
        self.uv = find_uv()
        if as_of and not self.uv:
            raise InstallError(f"installing the packages of {as_of} needs uv (pip install uv)")
        self.uv_cache = uv_cache
        self.bwrap = require_bwrap() if isolation else None
        self.locales: Path | None = None  # compiled locales the steps then see (LOCPATH)
        self.env = install_env()
        if self.uv:
            self.env.update(UV_CACHE_DIR=str(self.uv_cache), UV_LINK_MODE="copy", UV_NO_CONFIG="1")
        self.env.update(VIRTUAL_ENV=str(venv), HOME=HOME if self.bwrap else str(venv))
        if self.bwrap:
            self.env["TMPDIR"] = "/tmp"  # the box's own
        # Cached trees carry no .git, so VCS-versioned builds (setuptools-scm,
        # hatch-vcs, pbr, ...) get the version git describe gives for the pinned commit.
        for name, value in project_version_env(source, version).items():
            self.env.setdefault(name, value)

    def _launch(
        self, argv: list[str]
    ) -> Callable[..., AbstractContextManager[subprocess.Popen[bytes]]]:
        if self.bwrap is None:
            return functools.partial(unboxed, argv, self.source)
        self.venv.mkdir(parents=True, exist_ok=True)
        self.uv_cache.mkdir(parents=True, exist_ok=True)
        tools = [Path(self.uv)] if self.uv else []
        box = Box(
            read_only=(
                *tools,
                *interpreter_roots(self.interpreter),
                *([self.locales] if self.locales else []),
            ),
            writable=(self.venv, self.source, self.uv_cache),
            network=network_mode(self.env),
            tmp_mb=INSTALL_LIMITS.disk_mb,
        )
        return functools.partial(started, self.bwrap, box, argv, self.source)

    def step(
        self,
        name: str,
        argv: list[str],
        *,
        check: bool = True,
        env: dict[str, str] | None = None,
        timeout: float = INSTALL_TIMEOUT,
    ) -> int:
        """Run one step, its output going to the log; with ``check``, a failure raises."""
        with self.log.open("a", encoding="utf-8") as fh:
            fh.write(f"\n=== {name}: {' '.join(argv)}\n")
            fh.flush()
            try:
                with (
                    confined(INSTALL_LIMITS) as preexec,
                    self._launch(argv)(
                        env={**self.env, **locale_env(self.locales), **(env or {})},
                        stdout=fh,
                        stderr=subprocess.STDOUT,
                        preexec_fn=preexec,
                    ) as proc,
                ):
                    try:
                        returncode = proc.wait(timeout=timeout)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()
                        if not check:
                            return proc.returncode
                        raise InstallError(
                            f"install step '{name}' timed out; log: {self.log}"
                        ) from None
            except OSError as exc:
                raise InstallError(
                    f"install step '{name}' could not start ({exc}); log: {self.log}"
                ) from None
        if check and returncode != 0:
            raise InstallError(
                f"install step '{name}' failed (exit {returncode}){_failure(self.log, name)}; "
                f"log: {self.log}"
            )
        return returncode

    def probe(self, name: str, argv: list[str], env: dict[str, str]) -> tuple[int, str]:
        """Run a step that may fail; its exit status and what it printed."""
        start = self.log.stat().st_size
        returncode = self.step(name, argv, check=False, env=env, timeout=COLLECT_TIMEOUT)
        with self.log.open("rb") as fh:
            fh.seek(start)
            return returncode, fh.read().decode("utf-8", "replace")

    def create_venv(self) -> None:
        if self.uv:
            self.step(
                "create venv", [self.uv, "venv", "--python", self.base_python, str(self.venv)]
            )
        else:
            self.step("create venv", [self.base_python, "-m", "venv", str(self.venv)])

    def install(self, name: str, args: list[str], *, dated: bool = True) -> None:
        """``uv pip install args`` (pip's without uv); ``dated`` leaves out releases after ``as_of``."""
        if self.uv:
            argv = [self.uv, "pip", "install", "--python", str(self.python)]
            if dated and self.as_of:
                argv += ["--exclude-newer", self.as_of]
            argv += args
        else:
            argv = [str(self.python), "-m", "pip", "install", "--disable-pip-version-check", *args]
        self.step(name, argv)


def create_environment(
    checkout: Checkout,
    *,
    cache_dir: Path | None = None,
    progress: Callable[[str], None] | None = None,
    isolation: bool = True,
) -> Environment:
    """Return the checkout's venv, building it (and its install log) if not cached."""
    key = environment_key(checkout)
    interpreter = base_interpreter(checkout)
    envs = Path(cache_dir or cache_root()) / "envs"
    venv = envs / key
    log = envs / f"{key}.log"
    if not (venv / MARKER).is_file():
        envs.mkdir(parents=True, exist_ok=True)
        with open(envs / f"{key}.lock", "w") as lock:
            # concurrent builds of one repo: the first builds, the rest wait
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (venv / MARKER).is_file():
                _build(checkout, venv, log, progress, isolation=isolation, interpreter=interpreter)
    locales = locales_folder(venv)
    return Environment(
        key=key,
        kind="venv",
        python=str(venv / "bin" / "python"),
        location=str(venv),
        log=log,
        interpreter_roots=tuple(interpreter_roots(interpreter)),
        locales=str(locales) if locales.is_dir() else None,
    )


def locales_folder(venv: Path) -> Path:
    """Where the locales the venv's runs need and the host lacks are compiled: next to the
    venv, not in it, because install steps (repository code) may write into the venv."""
    return venv.with_name(f"{venv.name}.locales")


def _build(
    checkout: Checkout,
    venv: Path,
    log: Path,
    progress: Callable[[str], None] | None,
    *,
    isolation: bool,
    interpreter: Interpreter,
) -> None:
    remove_tree(venv)
    remove_tree(locales_folder(venv))
    log.write_text(
        f"corrupt environment for {checkout.name} at {checkout.commit} on {interpreter}\n",
        encoding="utf-8",
    )
    started = time.monotonic()
    # Build backends and "-e ." lines write into the source folder: install
    # from a throwaway copy so the cached clone never changes.
    tmp = scratch_dir("build-")
    try:
        source = tmp / "src"
        shutil.copytree(checkout.path, source, symlinks=True)
        installer = _Installer(
            log,
            venv,
            source,
            uv_cache=tmp / "uv-cache",
            isolation=isolation,
            interpreter=interpreter,
            version=checkout.version,
            as_of=checkout.packages_as_of,
        )
        _say(progress, f"creating venv {venv} on Python {interpreter.label}")
        installer.create_venv()
        found = discover_test_requirements(source)
        with log.open("a", encoding="utf-8") as fh:
            fh.write(
                f"\ntest requirements from: {', '.join(found.sources) or 'nothing declared'}\n"
            )
        if found.locked:
            _say(progress, "installing the versions uv.lock pins")
            try:
                installer.install("locked versions (uv.lock)", found.locked)
            except InstallError:  # the lock may not fit this platform: unpinned installs still can
                with log.open("a", encoding="utf-8") as fh:
                    fh.write("\nthe locked versions did not install; going on without the lock\n")
        dropped = _install_project(installer, source, found.extras, progress)
        dropped += _install_built_extras(installer, source, found.extras, progress)
        items = [[p] for p in found.packages] + [["-r", str(req)] for req in found.files]
        _say(progress, "installing test dependencies")
        dropped += _install_items(installer, "test dependencies", items)
        # corrupt's tools, at their newest when the project brought none: a dated index
        # would offer a coverage.py too old for the plugin, or a pytest too old for the Python.
        dropped += _install_items(
            installer, "pytest and coverage.py", [[p] for p in ALWAYS], dated=False
        )
        missing = [p for p in ALWAYS if p in dropped]
        if missing:
            raise InstallError(f"{', '.join(missing)} did not install; log: {log}")
        locales = provide_locales(wanted_locales(source), locales_folder(venv))
        installer.locales = locales.folder
        pytest_pin = _fit_collection(installer, source, progress)
        _install_test_imports(installer, source, progress)
        recipe = {
            "version": checkout.version,
            "packages_as_of": checkout.packages_as_of,
            "python": interpreter.label,
            "python_executable": str(interpreter.executable),
            "pytest": pytest_pin,
            "sources": found.sources,
            "extras": found.extras,
            "dropped": [d.replace(str(source) + "/", "") for d in dropped],
            "added": list(dict.fromkeys(installer.fallbacks)),  # a URL two files name: once
            "locales": locales.made,
            "locales_unmade": locales.unmade,
        }
    finally:
        remove_tree(tmp)
    _write_recipe(venv, recipe)
    # The venv was the build's to write: whatever it left at the marker's name
    # (a link to a host file) is replaced, never followed.
    (venv / MARKER).unlink(missing_ok=True)
    with os.fdopen(os.open(venv / MARKER, MARKER_FLAGS, 0o644), "w") as marker:
        marker.write(f"{time.monotonic() - started:.1f}s\n")


def _install_project(
    installer: _Installer, root: Path, extras: list[str], progress: Callable[[str], None] | None
) -> list[str]:
    """Install the project (with the extras its tests use); returns the dependencies dropped.

    When its dependencies cannot all be installed, the project goes in without
    them and they follow one by one: one unreachable dependency must not cost
    the whole environment. When the project's own build needs what the box lacks
    (the web, a compiler, the repository's git), it stays unbuilt: the tests
    import the working tree anyway (first on ``PYTHONPATH``), and the metadata its
    ``[project]`` table declares is written in its place. A project that does not
    build for any other reason still fails.
    """
    if any((root / name).is_file() for name in PACKAGING_FILES):
        _say(progress, "installing the project")
        target = f"{root}[{','.join(extras)}]" if extras else str(root)
        try:
            installer.install("project", [target])
            return []
        except InstallError:
            step = "project without its dependencies"
            try:
                installer.install(step, ["--no-deps", str(root)])
            except InstallError as failed:
                lacking = _lacking(installer.log, step)
                if lacking is None:
                    raise
                _say(progress, f"the project does not build here ({lacking}): left unbuilt")
                declared = _write_static_dist(installer, root)
                installer.fallbacks.append(
                    f"the project unbuilt: its build {lacking}{_failure(installer.log, step)};"
                    f" the tests import its tree{declared}"
                )
                with installer.log.open("a", encoding="utf-8") as fh:
                    fh.write(f"\nleft unbuilt ({failed}); installing what it declares\n")
            return _install_items(
                installer, "project dependencies", declared_dependencies(root, extras)
            )
    if (root / "requirements.txt").is_file():
        return _install_items(
            installer, "requirements.txt", [["-r", str(root / "requirements.txt")]]
        )
    return []


def _fit_collection(
    installer: _Installer, root: Path, progress: Callable[[str], None] | None
) -> str | None:
    """Collect the suite once and repair what stops it, a bounded number of rounds; returns
    the pytest pin kept (None: the newest pytest).

    Two repairs, each tried only while it changes something:
    - a module collection cannot import (``No module named 'x'``) that a file of the
      project imports: the distribution that provides it is installed (see :mod:`missing`);
    - APIs the newest pytest removed: pytest steps back a major version at a time.
      Projects pin no pytest and CI installs the newest, but a suite at an older
      commit was green with the pytest of its day.
    """
    collect = [str(installer.python), "-m", "pytest", *LINTERS_OFF, *suite_args(root)]
    collect += ["--collect-only", "-q", "-o", "cache_dir=/tmp/.pytest_cache"]
    env = {"PYTHONPATH": python_path(root)}
    pin = None
    olders = iter(OLDER_PYTESTS)
    tried: set[str] = set()
    for _ in range(MAX_REPAIR_ROUNDS):
        returncode, output = installer.probe("collect the tests", collect, env)
        if returncode in (0, PYTEST_NO_TESTS):
            return pin
        modules = [m for m in missing_modules(output)
                   if m not in tried and imported_by_project(root, m)]  # fmt: skip
        if modules:
            tried.update(modules)
            for module in modules:
                _install_missing(installer, root, module, progress)
            continue
        older = next(olders, None) if REMOVED_PYTEST_API.search(output) else None
        if older is None:
            return pin
        _say(progress, f"collection needs an older pytest: installing {older}")
        try:
            installer.install(f"older pytest ({older})", [older])
        except InstallError:
            return pin
        pin = older
    return pin


# Prints which of the modules named on its command line the interpreter cannot find.
FIND_MISSING = (
    "import importlib.util, json, sys; "
    "print('lacking: ' + json.dumps([m for m in sys.argv[1:] if importlib.util.find_spec(m) is None]))"
)
MAX_TEST_IMPORTS = 8


def _install_test_imports(
    installer: _Installer, root: Path, progress: Callable[[str], None] | None
) -> None:
    """Modules the test files import where collection does not reach (inside a test
    function), that the environment lacks and a file of the project names a
    distribution for (``extras_require={"extras": ["numpy"]}``): installed and recorded.
    An import no project file names stays out (an optional one the test skips without)."""
    modules = imported_in_tests(root)
    if not modules:
        return
    probe = [str(installer.python), "-c", FIND_MISSING, *modules]
    returncode, output = installer.probe(
        "modules the tests import", probe, {"PYTHONPATH": python_path(root)}
    )
    found = re.search(r"^lacking: (\[.*\])$", output, re.MULTILINE)
    if returncode or found is None:
        return
    lacking = json.loads(found.group(1))
    named = [(m, LAST_SHIPPED_IN.get(m, d)) for m in lacking if (d := named_distribution(root, m))]
    for module, distribution in named[:MAX_TEST_IMPORTS]:
        _add(installer, distribution, f"a test imports {module}", progress)


def _install_missing(
    installer: _Installer, root: Path, module: str, progress: Callable[[str], None] | None
) -> None:
    _add(
        installer,
        distribution_for(root, module),
        f"collection could not import {module}",
        progress,
    )


def _add(
    installer: _Installer, distribution: str, why: str, progress: Callable[[str], None] | None
) -> None:
    """Install what the project's files do not declare as a test dependency, and record
    why (``--explain``'s "added beyond the declared"); one that will not install is left out."""
    _say(progress, f"{why}: installing {distribution}")
    try:
        installer.install(f"{distribution} ({why})", [distribution])
    except InstallError:
        return
    installer.fallbacks.append(f"{distribution} ({why})")


def _install_built_extras(
    installer: _Installer, root: Path, chosen: list[str], progress: Callable[[str], None] | None
) -> list[str]:
    """The test extras only the built metadata declares (a ``setup.py`` computing its
    ``extras_require``, Poetry's ``[tool.poetry.extras]``); returns what was dropped.

    The project's own build backend computed its ``METADATA`` when it installed:
    its ``Provides-Extra`` lines are every extra, however declared. The test ones
    (as :func:`_pick` chooses) that intake did not already install are.
    """
    metadata = _installed_metadata(installer.venv, root)
    if metadata is None:
        return []
    provided = dict.fromkeys(metadata.get_all("Provides-Extra") or [])
    extras = [e for e in test_groups(provided) if e not in chosen]
    if not extras:
        return []
    _say(progress, f"installing the extras the built metadata declares: {', '.join(extras)}")
    wanted = []
    for line in metadata.get_all("Requires-Dist") or []:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        marker = requirement.marker
        if marker is None or not any(marker.evaluate({"extra": e}) for e in extras):
            continue
        requirement.marker = None
        wanted.append([str(requirement)])
    installer.fallbacks.append(f"extras {', '.join(extras)} (from the built metadata)")
    return _install_items(installer, f"extras {', '.join(extras)}", wanted)


def _installed_metadata(venv: Path, root: Path) -> Message | None:
    """The core metadata the project was installed with (its dist-info's ``direct_url.json``
    names ``root``), or None."""
    for direct in venv.glob("lib/python*/site-packages/*.dist-info/direct_url.json"):
        try:
            url = json.loads(direct.read_text(encoding="utf-8")).get("url")
            if url != root.as_uri():
                continue
            return message_from_string(direct.with_name("METADATA").read_text(encoding="utf-8"))
        except (OSError, ValueError, AttributeError):
            continue
    return None


def _install_items(
    installer: _Installer, name: str, items: list[list[str]], *, dated: bool = True
) -> list[str]:
    """Install ``items`` at once; if that fails, one by one (requirement files line by line).
    Returns what did not install, each as written."""
    if not items:
        return []
    try:
        installer.install(name, [arg for item in items for arg in item], dated=dated)
        return []
    except InstallError:
        pass
    dropped: list[str] = []
    for item in items:
        try:
            installer.install(f"{name}, alone: {' '.join(item)}", item, dated=dated)
        except InstallError:
            if item[0] == "-r":
                lines = requirement_items(Path(item[1]))
                dropped += _install_items(
                    installer, f"{name}, {Path(item[1]).name}", lines, dated=dated
                )
            elif not _from_index(installer, name, item, dated=dated):
                dropped.append(" ".join(item))
    with installer.log.open("a", encoding="utf-8") as fh:
        fh.write(f"\n{name}: dropped {', '.join(dropped) or 'nothing'}\n")
    return dropped


def _from_index(installer: _Installer, name: str, item: list[str], *, dated: bool) -> bool:
    """A URL requirement that did not install, tried from the package index by its name;
    whether that worked (recorded in the log and, through ``fallbacks``, the recipe)."""
    fallback = index_fallback(item)
    if fallback is None:
        return False
    try:
        installer.install(f"{name}, {fallback} from the index instead of its URL", [fallback],
                          dated=dated)  # fmt: skip
    except InstallError:
        return False
    installer.fallbacks.append(f"{fallback} from the package index (its URL did not install)")
    return True


def _write_recipe(venv: Path, recipe: dict[str, Any]) -> None:
    """What went into the venv (sources, the version, what was dropped), for ``--explain``."""
    path = venv / RECIPE
    path.unlink(missing_ok=True)
    with os.fdopen(os.open(path, MARKER_FLAGS, 0o644), "w", encoding="utf-8") as fh:
        json.dump(recipe, fh, indent=1)


def recipe_for(checkout: Checkout, *, cache_dir: Path | None = None) -> dict[str, Any]:
    """The recipe the checkout's local venv was built with, or {} (none built, or an older one)."""
    venv = Path(cache_dir or cache_root()) / "envs" / environment_key(checkout)
    try:
        data = json.loads((venv / RECIPE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _say(progress: Callable[[str], None] | None, message: str) -> None:
    if progress is not None:
        progress(message)


# The line of a failed step's output that says why: a Python exception (a build
# backend's), else uv's or pip's own error and its cause.
_EXCEPTION_LINE = re.compile(r"^\s*[|│]?\s*((?:[\w.]+\.)?\w+(?:Error|Exception)(?::.*)?)$")
_INSTALLER_LINE = re.compile(r"^\s*((?:error|cause|ERROR): .+)$")


def _write_static_dist(installer: _Installer, root: Path) -> str:
    """The dist-info ``[project]`` declares, written into the venv's site-packages (so
    ``importlib.metadata`` finds the version and entry points a build would have given);
    how the recipe says so, or "" when the project declares none."""
    dist = static_dist(root, installer.version)
    venv = installer.venv.resolve()
    found = sorted(installer.venv.glob("lib/python*/site-packages"))
    # the venv was the boxed steps' to write: a link there is not followed out of it
    if dist is None or not found or not found[0].resolve().is_relative_to(venv):
        return ""
    folder = found[0].resolve() / dist.folder
    try:
        folder.mkdir()  # a name already taken (a link too) is never written through
        for name, text in dist.files.items():
            fd = os.open(folder / name, MARKER_FLAGS, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
    except OSError as exc:
        with installer.log.open("a", encoding="utf-8") as log:
            log.write(f"\nthe declared metadata was not written: {exc}\n")
        return ""
    return f", with the metadata pyproject.toml declares ({dist.folder})"


def _lacking(log: Path, name: str) -> str | None:
    """What the machine lacks for step ``name``, from its output: "needs the web",
    "needs a compiler", "needs the repository's git", "needs Node.js packages from the
    web", or None (the project's own failure)."""
    output = _step_output(log, name)
    if NO_COMPILER.search(output):
        return "needs a compiler"
    if NETWORK_FAILURE.search(output):
        return "needs the web"
    if NO_GIT.search(output):
        return "needs the repository's git"
    if NODE_BUILD.search(output):
        return "needs Node.js packages from the web"
    return None


def _step_output(log: Path, name: str) -> str:
    """What the last step called ``name`` printed, as the log holds it."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text.split(f"\n=== {name}:")[-1]


def _failure(log: Path, name: str) -> str:
    """``": <why>"`` from the step's output in ``log`` (empty when nothing says)."""
    lines = _step_output(log, name).splitlines()[1:]
    for pattern in (_EXCEPTION_LINE, _INSTALLER_LINE):
        found = [m.group(1).strip() for line in lines if (m := pattern.match(line))]
        if found:
            return f": {found[-1][:200]}"
    return ""
