"""Test-dependency discovery and cached venvs."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from repos_run_support import FIXTURES, fixture_checkout, session_cache
from sandbox_contract import _Listener, unix_listener

from corrupt.errors import InstallError
from corrupt.repos.checkout import checkout as check_out
from corrupt.repos.installplan import discover_test_requirements
from corrupt.repos.models import Command
from corrupt.repos.specs import parse_spec
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.local.environment import (
    MARKER,
    create_environment,
    environment_key,
    recipe_for,
)
from corrupt.sandboxes.local.launch import _user_network_missing
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.suites.baseline import compute_baseline


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_test_extras_and_groups_win_over_dev(tmp_path):
    root = write(
        tmp_path,
        {
            "pyproject.toml": """
[project]
name = "p"
version = "1"
[project.optional-dependencies]
tests = ["hypothesis"]
dev = ["black"]
docs = ["sphinx"]
[dependency-groups]
typing = ["mypy"]
test = ["pytest-mock", {include-group = "typing"}]
"""
        },
    )
    found = discover_test_requirements(root)
    assert found.packages == ["hypothesis", "pytest-mock", "mypy"]
    assert found.files == []


def test_dev_is_the_fallback_and_requirement_files_are_found(tmp_path):
    root = write(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "p"\nversion = "1"\n[project.optional-dependencies]\ndev = ["black"]\n',
            "requirements-test.txt": "pytest-mock\n",
            "requirements-dev.txt": "black\n",
            "requirements.txt": "requests\n",
            "requirements/tests.txt": "freezegun\n",
            "test-requirements.txt": "responses\n",
            "notes.txt": "",
        },
    )
    found = discover_test_requirements(root)
    assert found.packages == ["black"]
    assert sorted(p.relative_to(root).as_posix() for p in found.files) == [
        "requirements-test.txt",
        "requirements/tests.txt",
        "test-requirements.txt",
    ]


def test_tox_deps_skip_conditional_and_substituted_lines(tmp_path):
    root = write(
        tmp_path,
        {
            "tox.ini": "[testenv]\ndeps =\n    pytest-timeout\n    py38: mock\n    -r{toxinidir}/req-tox.txt\n    {env:EXTRA}\n    -e .\n",
            "req-tox.txt": "attrs\n",
        },
    )
    found = discover_test_requirements(root)
    assert found.packages == ["pytest-timeout"]
    assert found.files == [root / "req-tox.txt"]


def test_tox_deps_read_a_file_named_with_tox_4s_path_separator(tmp_path):
    root = write(
        tmp_path,
        {
            "tox.ini": "[testenv]\ndeps =\n  -rdependencies{/}tests.in\n",
            "dependencies/tests.in": "pytest-rerunfailures\n",
        },
    )
    assert discover_test_requirements(root).files == [root / "dependencies" / "tests.in"]


def test_venv_is_cached_and_built_from_a_copy_of_the_clone(tmp_path_factory):
    checkout = fixture_checkout("calc", tmp_path_factory)
    cache = session_cache(tmp_path_factory)
    env = create_environment(checkout, cache_dir=cache)
    marker = Path(env.location) / MARKER
    assert marker.is_file() and Path(env.python).is_file()
    assert "=== test dependencies" in env.log.read_text()
    started = time.monotonic()
    again = create_environment(checkout, cache_dir=cache)
    assert again == env and time.monotonic() - started < 0.5
    assert not list(checkout.path.rglob("*.egg-info")) and not (checkout.path / "build").exists()


def test_a_dependency_that_does_not_exist_is_dropped_and_recorded(tmp_path_factory, tmp_path):
    checkout = fixture_checkout("badinstall", tmp_path_factory)
    env = create_environment(checkout, cache_dir=tmp_path)
    # the project went in without it, then its dependencies one by one
    assert recipe_for(checkout, cache_dir=tmp_path)["dropped"] == [
        "corrupt-no-such-package-anywhere-7f3a==1.0"
    ]
    log = env.log.read_text()
    assert "=== project without its dependencies" in log
    assert "project dependencies: dropped corrupt-no-such-package-anywhere-7f3a==1.0" in log


def hostile_install(tmp_path: Path, isolation: bool) -> dict:
    """Build the hostileinstall fixture; returns what its setup.py found (secrets),
    which host places it changed, and what its traps in the venv achieved."""
    secret = "hunter2-planted"
    source, cache, home, out = (
        tmp_path / name for name in ("hostileinstall", "cache", "home", "out")
    )
    shutil.copytree(FIXTURES / "hostileinstall", source)
    for folder in (home / ".cache" / "uv", out, cache / "graph"):
        folder.mkdir(parents=True)
    (home / ".netrc").write_text(f"machine example.org password {secret}\n")
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched")
    cached = check_out(parse_spec(str(source)), cache_dir=cache)
    report = (
        cache / "envs" / environment_key(cached) / "attack.jsonl"
    )  # the venv: writable in the box
    targets = [home, home / ".cache" / "uv", source, out, cache / "graph", cache / "repos"]
    tcp = _Listener(socket.create_server(("127.0.0.1", 0)))
    abstract = f"corrupt-install-{uuid.uuid4().hex[:8]}"
    unix = unix_listener(abstract)
    plan = {
        "secret": secret,
        "read": [str(home / ".netrc")],
        "write": [str(t) for t in targets],
        "search": str(cache / "repos"),
        "report": str(report),
        "home": str(home),
        "marker_victim": str(victim),
        "port": tcp.port,
        "abstract": abstract,
    }
    (cached.path / "attack.json").write_text(json.dumps(plan))  # as if committed
    holder = subprocess.Popen(["sleep", "60"], env={"GITHUB_TOKEN": secret})
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("CORRUPT_PLANTED_SECRET", secret)
            patch.setenv("UV_PUBLISH_TOKEN", secret)
            patch.setenv(
                "UV_INDEX_URL", f"https://user:{secret}@pypi.org/simple"
            )  # unreachable creds
            box = LocalSandbox(cache_dir=cache, isolation=isolation)
            env = box.prepare(cached)
    finally:
        holder.kill()
        holder.wait()
        tcp.close()
        unix.close()
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    with Workspace(cached) as ws:  # does the venv's pyvenv.cfg open the home to the tests?
        peek = box.run(
            env, ws.path, Command(["python", "-c", f"print(open({str(home / '.netrc')!r}).read())"])
        )
    return {
        "found": [f for line in lines for f in line["found"]],
        "changed": [str(t) for t in targets if (t / "pwned-by-build").exists()],
        "kept": (cached.path / "data" / "hostileinstall-keep.txt").read_text(),
        "victim": victim.read_text(),
        "uv cache kept": [
            line["uv_cache"] for line in lines if Path(line["uv_cache"], "poisoned").exists()
        ],
        "home seen by tests": secret in peek.stdout,
        "host sockets reached": tcp.connections + unix.connections,
    }


def test_build_script_sees_no_secret_and_changes_nothing_on_the_host(tmp_path):
    """setup.py is repository code: its box has network but no secrets and no host folders,
    and nothing it leaves in the venv steers the host or later boxes."""
    got = hostile_install(tmp_path, isolation=True)
    if _user_network_missing():  # the install box shares the host's network here (README says so)
        got.pop("host sockets reached")
    else:
        assert got.pop("host sockets reached") == 0
    assert got == {
        "found": [],
        "changed": [],
        "kept": "keep me\n",
        "victim": "untouched",
        "uv cache kept": [],
        "home seen by tests": False,
    }


def test_control_without_the_box_the_build_script_gets_everything(tmp_path):
    got = hostile_install(tmp_path, isolation=False)
    assert any(f.startswith("/proc/") for f in got["found"]) and any(
        f.endswith(".netrc") for f in got["found"]
    )
    assert len(got["changed"]) == 6 and got["kept"] == "vandalised" and got["home seen by tests"]
    assert got["host sockets reached"] >= 2  # the build backend may run more than once


def test_uv_lock_pins_win_over_the_newest_release(tmp_path_factory):
    """The lock pins six 1.16.0; the group asks for plain ``six`` (newest is 1.17 or later)."""
    found = discover_test_requirements(FIXTURES / "locked")
    assert found.groups == ["tests"] and found.locked == ["six==1.16.0"]
    env = create_environment(
        fixture_checkout("locked", tmp_path_factory), cache_dir=session_cache(tmp_path_factory)
    )
    shown = subprocess.run(
        [env.python, "-c", "import six; print(six.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.strip() == "1.16.0"
    assert "uv.lock (1 pinned)" in env.log.read_text()


def test_no_lock_means_nothing_pinned():
    assert discover_test_requirements(FIXTURES / "calc").locked == []


def test_a_project_whose_build_needs_the_web_is_left_unbuilt(tmp_path_factory, tmp_path):
    """tests/fixtures/repos_run/webbuild (written here): its build backend downloads a
    license text first; its tests import the tree and need what it declares (six, and
    its version and entry point as installed metadata)."""
    checkout = fixture_checkout("webbuild", tmp_path_factory)
    sandbox = LocalSandbox(cache_dir=tmp_path)
    env = sandbox.prepare(checkout)
    (added,) = recipe_for(checkout, cache_dir=tmp_path)["added"]
    assert added.startswith("the project unbuilt: its build needs the web: ")
    assert added.endswith(
        "the tests import its tree, with the metadata pyproject.toml declares"
        " (webbuild-0.1.0.dist-info)"
    )
    baseline = compute_baseline(checkout, sandbox, env, cache_dir=tmp_path / "baselines")
    # test_installed_metadata reads its version and entry point through importlib.metadata
    assert baseline.tests == [
        f"tests/test_shout.py::{name}"
        for name in ("test_installed_metadata", "test_shout", "test_shout_empty")
    ]


def webbuild_whose_backend(tmp_path: Path, does: str):  # type: ignore[no-untyped-def]
    """The webbuild fixture, its backend doing ``does`` before building instead."""
    source = tmp_path / "webbuild"
    shutil.copytree(FIXTURES / "webbuild", source)
    backend = source / "_build" / "licensed_backend.py"
    backend.write_text(
        backend.read_text().replace(
            '    urllib.request.urlopen("https://license-text.invalid/MIT", timeout=20)', does
        )
    )
    return check_out(parse_spec(str(source)), cache_dir=tmp_path / "cache")


@pytest.mark.parametrize(
    "asks",
    [
        '    import subprocess\n    subprocess.check_output(["git", "rev-parse", "HEAD"])',
        '    raise RuntimeError("Unable to detect version control system. Checked: Git.")',
    ],
    ids=["git rev-parse", "dunamai"],
)
def test_a_build_that_asks_git_about_the_tree_is_left_unbuilt(tmp_path, asks):
    """hatch-vcs's URL hook runs ``git rev-parse HEAD``, dunamai (poetry- and
    uv-dynamic-versioning, without their override variable) looks for a VCS: the build
    copy has no .git."""
    checkout = webbuild_whose_backend(tmp_path, asks)
    create_environment(checkout, cache_dir=tmp_path / "cache")
    (added,) = recipe_for(checkout, cache_dir=tmp_path / "cache")["added"]
    assert added.startswith("the project unbuilt: its build needs the repository's git: ")


@pytest.mark.parametrize(
    ("prints", "lacking"),
    [
        # meson-python's build of pipdeptree's Rust part, where no cargo is installed
        ("../meson.build:28:8: ERROR: Program 'cargo' not found or not executable", "a compiler"),
        # sphinx-theme-builder's nodeenv pins a Node.js other than the box's
        (
            "[stb] (nodeenv) $ node --version\nerror: nodeenv-version-mismatch",
            "Node.js packages from the web",
        ),
    ],
    ids=["compiler", "node-assets"],
)
def test_a_build_that_needs_what_the_box_lacks_is_left_unbuilt(tmp_path, prints, lacking):
    checkout = webbuild_whose_backend(tmp_path, f"    print({prints!r})\n    raise SystemExit(1)")
    create_environment(checkout, cache_dir=tmp_path / "cache")
    (added,) = recipe_for(checkout, cache_dir=tmp_path / "cache")["added"]
    assert added.startswith(f"the project unbuilt: its build needs {lacking}")


def test_a_project_whose_build_fails_on_its_own_still_fails(tmp_path):
    checkout = webbuild_whose_backend(tmp_path, '    raise RuntimeError("no license field")')
    with pytest.raises(
        InstallError, match=r"'project without its dependencies' failed.*no license field"
    ):
        create_environment(checkout, cache_dir=tmp_path / "cache")
    assert not (tmp_path / "cache" / "envs" / environment_key(checkout) / MARKER).exists()
