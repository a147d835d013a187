"""What only containers add to the sandbox contract (tests/test_docker_contract.py).

The working tree goes in and only collected files come out, the network is
loopback only, containers never outlive a run (timeout, Ctrl-C), images are
reused, and engine/image/build problems are clear errors. Real engine
(Podman in CI) throughout.
"""

from __future__ import annotations

import hashlib
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from docker_engine import engine_client, find_engine, folder_checkout, write_files

from corrupt.errors import SandboxError
from corrupt.repos.models import IO_DIR, Command, Limits
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.docker.sandbox import LABEL_TREE, DockerSandbox
from corrupt.suites.runner import run_tests

pytestmark = pytest.mark.docker

ROOT = Path(__file__).resolve().parents[2]
CONTRACT_REPO = {
    "pyproject.toml": textwrap.dedent("""\
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "contractpkg"
        version = "0.1"

        [tool.setuptools.packages.find]
        where = ["src"]
        """),
    "src/contractpkg/__init__.py": "def double(x):\n    return 2 * x\n",
    "tests/test_double.py": textwrap.dedent("""\
        from contractpkg import double

        def test_one():
            assert double(1) == 2

        def test_two():
            assert double(2) == 4

        def test_zero():
            assert double(0) == 0
        """),
}


@pytest.fixture(scope="session")
def engine() -> tuple[str, str]:
    return find_engine()


@pytest.fixture(scope="session")
def sandbox(engine):
    host, base = engine
    box = DockerSandbox(base_image=base, docker_host=host)
    yield box
    box.close()


@pytest.fixture(scope="session")
def contract(sandbox, tmp_path_factory):
    repo = write_files(tmp_path_factory.mktemp("contract") / "contractpkg", CONTRACT_REPO)
    checkout = folder_checkout(repo, "tests/contractpkg")
    return checkout, sandbox.prepare(checkout)


@pytest.fixture
def tree(contract):
    with Workspace(contract[0]) as ws:
        yield ws.path


def python(code: str, **limits) -> Command:
    return Command(argv=["python", "-c", textwrap.dedent(code)], limits=Limits(**limits))


def containers_for(host: str, tree: Path) -> list:
    with engine_client(host) as client:
        return client.containers.list(all=True, filters={"label": f"{LABEL_TREE}={tree.resolve()}"})


def digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        h.update(str(p.relative_to(folder)).encode() + (p.read_bytes() if p.is_file() else b"/"))
    return h.hexdigest()


def test_no_network_only_loopback(sandbox, contract, tree):
    result = sandbox.run(
        contract[1],
        tree,
        python("""
        import socket
        print(sorted(name for _, name in socket.if_nameindex()))
        try:
            socket.create_connection(("1.1.1.1", 80), timeout=3)
            print("connected")
        except OSError as exc:
            print("refused", exc.errno)
        """),
    )
    assert result.exit_code == 0, result.stderr
    interfaces, outcome = result.stdout.splitlines()
    assert interfaces == "['lo']"
    assert outcome.startswith("refused")


def test_timeout_kills_and_removes_the_container(sandbox, engine, contract, tree):
    started = time.monotonic()
    result = sandbox.run(
        contract[1],
        tree,
        python("import time; print('up', flush=True); time.sleep(120)", timeout=3),
    )
    assert result.timed_out and result.killed == "timeout" and result.exit_code is None
    assert time.monotonic() - started < 30
    assert "up" in result.stdout  # output up to the kill is kept
    assert containers_for(engine[0], tree) == []


def test_tree_goes_in_collected_files_come_out_clone_untouched(sandbox, contract, tree):
    checkout, env = contract
    clone_before, tree_before = digest(checkout.path), digest(tree)
    command = python("""
        import os, pathlib, shutil
        names = sorted(str(p) for p in pathlib.Path('.').rglob('*.py'))
        shutil.rmtree('src')
        pathlib.Path('tests/test_double.py').write_text('vandalised')
        io = pathlib.Path(os.environ['IO'])
        (io / 'seen.txt').write_text(io.joinpath('given.txt').read_text() + '\\n'.join(names))
        """)
    command.env["IO"] = IO_DIR
    command.files = {"given.txt": b"given\n"}
    command.collect = ["seen.txt", "never-written.txt"]
    result = sandbox.run(env, tree, command)
    assert result.exit_code == 0, result.stderr
    assert result.files == {"seen.txt": b"given\nsrc/contractpkg/__init__.py\ntests/test_double.py"}
    assert digest(tree) == tree_before  # nothing comes back into the tree
    assert digest(checkout.path) == clone_before


def test_a_relative_pythonpath_is_anchored_at_the_tree(sandbox, contract, tree):
    """A process the tests start elsewhere (``cwd=tmp_path``) must still find the tree."""
    command = python("""
        import subprocess, sys
        subprocess.run([sys.executable, "-c", "import contractpkg, os; print(contractpkg.__file__)"],
                       cwd="/tmp", check=True)
        """)
    command.env["PYTHONPATH"] = "src"
    result = sandbox.run(contract[1], tree, command)
    assert result.stdout.strip() == "/testbed/src/contractpkg/__init__.py", result.stderr


def test_runner_reads_the_plugin_report_through_the_container(sandbox, contract):
    checkout, env = contract
    with Workspace(checkout) as ws:
        green = run_tests(sandbox, env, ws.path)
        assert green.passing() == {
            f"tests/test_double.py::test_{n}" for n in ("one", "two", "zero")
        }
        with ws.patched({"src/contractpkg/__init__.py": "def double(x):\n    return x * x\n"}):
            red = run_tests(
                sandbox,
                env,
                ws.path,
                select=["tests/test_double.py::test_one", "tests/test_double.py::test_two"],
            )
    assert set(red.results) == {"tests/test_double.py::test_one", "tests/test_double.py::test_two"}
    assert red.failing() == {"tests/test_double.py::test_one"}
    assert red.results["tests/test_double.py::test_one"].exc_type == "AssertionError"


def test_prepare_reuses_the_image(sandbox, contract, engine):
    checkout, env = contract
    assert env.kind == "image" and env.location.startswith("corrupt/tests__contractpkg:")
    with engine_client(engine[0]) as client:
        before = client.images.get(env.location).id
        again = sandbox.prepare(checkout)
        assert client.images.get(again.location).id == before


def test_ctrl_c_during_a_run_removes_the_container(engine, contract, tree):
    host, base = engine
    # Ctrl-C as in a terminal: a suite started in the background inherits SIGINT ignored,
    # and Python then never turns it into KeyboardInterrupt.
    script = textwrap.dedent(f"""
        import pathlib, signal, sys
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from corrupt.sandboxes.docker.sandbox import DockerSandbox
        from corrupt.repos.models import Command, Environment
        box = DockerSandbox(base_image={base!r}, docker_host={host!r})
        env = Environment(key="", kind="image", python={contract[1].python!r}, location={contract[1].location!r})
        try:
            box.run(env, pathlib.Path({str(tree)!r}), Command(["python", "-c", "import time; time.sleep(120)"]))
        except KeyboardInterrupt:
            sys.exit(42)
        """)
    child = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while not [c for c in containers_for(host, tree) if c.status == "running"]:
            assert time.monotonic() < deadline and child.poll() is None, "container never started"
            time.sleep(0.2)
        child.send_signal(signal.SIGINT)
        assert child.wait(timeout=60) == 42
    finally:
        child.kill()
    assert containers_for(host, tree) == []


def test_missing_base_image_is_a_clear_error(engine, tmp_path):
    repo = write_files(tmp_path / "r", {"requirements.txt": "\n"})
    box = DockerSandbox(
        base_image="corrupt/no-such-base:never", docker_host=engine[0], cache_dir=tmp_path
    )
    with pytest.raises(SandboxError, match=r"base image corrupt/no-such-base:never .*--base-image"):
        box.prepare(folder_checkout(repo, "tests/nobase"))


def test_build_failure_reports_the_log_tail(engine, tmp_path):
    repo = write_files(tmp_path / "r", {"requirements.txt": "--no-such-pip-option-here\n"})
    box = DockerSandbox(base_image=engine[1], docker_host=engine[0], cache_dir=tmp_path)
    with pytest.raises(SandboxError) as info:
        box.prepare(folder_checkout(repo, "tests/badbuild"))
    assert "image build for tests/badbuild failed" in info.value.message
    assert "no-such-pip-option-here" in info.value.message
    assert Path(info.value.message.split("(log: ")[1].split(")")[0]).is_file()
