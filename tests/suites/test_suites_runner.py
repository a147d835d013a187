"""The runner and workspace on a real suite (tests/fixtures/repos_run/calc) in a real venv."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from repos_run_support import fixture_checkout, session_cache, tree_digest

from corrupt.errors import InputError
from corrupt.repos.coverage import pack_line_coverage, unpack_line_coverage
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.suites.runner import run_tests

T = "tests/test_ops.py::"
FACTORIAL_TESTS = [
    T + "test_factorial[0-1]",
    T + "test_factorial[1-1]",
    T + "test_factorial[5-120]",
    T + "test_factorial_negative",
]


@pytest.fixture(scope="module")
def calc(tmp_path_factory):
    checkout = fixture_checkout("calc", tmp_path_factory)
    sandbox = LocalSandbox(cache_dir=session_cache(tmp_path_factory))
    return checkout, sandbox, sandbox.prepare(checkout)


@pytest.fixture
def ws(calc):
    with Workspace(calc[0]) as workspace:
        yield workspace


def broken_factorial(ws) -> dict[str, str]:
    source = (ws.path / "src/calc/ops.py").read_text()
    return {
        "src/calc/ops.py": source.replace(
            "    result = 1\n", "    raise RuntimeError('corrupted')\n"
        )
    }


def test_one_result_per_test_with_every_outcome(calc, ws):
    _, sandbox, env = calc
    report = run_tests(sandbox, env, ws.path)
    outcomes = {n: r.outcome for n, r in report.results.items()}
    assert outcomes[T + "test_skipped"] == "skipped"
    assert outcomes[T + "test_expected_failure"] == "xfailed"
    assert outcomes[T + "test_six_installed"] == "passed"  # the "test" extra was installed
    assert sorted(report.passing()) == sorted(
        [
            T + "test_add",
            T + "test_divide",
            T + "test_mean",
            T + "test_six_installed",
            *FACTORIAL_TESTS,
        ]
    )
    assert report.collected == 10 and report.exit_code == 0 and not report.failing()
    assert all(r.duration >= 0 for r in report.results.values())


def test_tests_import_the_working_tree_not_the_installed_copy(calc, ws):
    _, sandbox, env = calc
    with ws.patched(broken_factorial(ws)):
        report = run_tests(sandbox, env, ws.path)
    assert report.failing() == {
        T + "test_factorial[0-1]",
        T + "test_factorial[1-1]",
        T + "test_factorial[5-120]",
    }
    # test_factorial_negative still passes: the n < 0 check comes before the corrupted line
    result = report.results[T + "test_factorial[5-120]"]
    assert (result.exc_type, result.message) == ("RuntimeError", "corrupted")
    assert [(f.file, f.function) for f in result.frames] == [
        ("tests/test_ops.py", "test_factorial"),
        ("src/calc/ops.py", "factorial"),
    ]
    assert result.frames[-1].line == 17
    # pytest's own output still says where each failure was raised, one line each
    assert "src/calc/ops.py:17: RuntimeError: corrupted" in report.output_tail
    assert "Traceback" not in report.output_tail and "def factorial" not in report.output_tail


ELSEWHERE = """\
import subprocess, sys

def test_a_subprocess_in_another_folder_imports_the_tree(tmp_path):
    done = subprocess.run([sys.executable, "-m", "calc.only_in_the_tree"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout == "here\\n", done.stderr
"""


@pytest.mark.parametrize("isolation", [True, False], ids=["boxed", "unboxed"])
def test_a_subprocess_started_in_another_folder_still_imports_the_tree(calc, ws, isolation):
    """The command says ``PYTHONPATH=src`` (a relative path, as a user reruns it), which a
    process started in ``tmp_path`` would resolve there: sqlmodel's tests run
    ``coverage run -m docs_src...`` so. The sandbox anchors it at the run's folder (the
    module is in the working tree only, not in the installed copy)."""
    checkout, _, _ = calc
    sandbox = LocalSandbox(cache_dir=calc[1].cache_dir, isolation=isolation)
    env = sandbox.prepare(checkout)
    name = "tests/test_elsewhere.py::test_a_subprocess_in_another_folder_imports_the_tree"
    added = {
        "tests/test_elsewhere.py": ELSEWHERE,
        "src/calc/only_in_the_tree.py": "print('here')\n",
    }
    with ws.patched(added):
        report = run_tests(sandbox, env, ws.path, select=[name])
    assert report.passing() == {name}, report.output_tail


def test_a_deep_traceback_keeps_its_innermost_frames(calc, ws):
    _, sandbox, env = calc
    source = (ws.path / "src/calc/ops.py").read_text()
    recursing = source.replace("    result = 1\n", "    return factorial(n)\n")
    with ws.patched({"src/calc/ops.py": recursing}):
        report = run_tests(sandbox, env, ws.path, select=[T + "test_factorial[5-120]"])
    result = report.results[T + "test_factorial[5-120]"]
    assert result.exc_type == "RecursionError"
    assert len(result.frames) == 60  # of about a thousand
    assert {(f.file, f.function, f.line) for f in result.frames} == {
        ("src/calc/ops.py", "factorial", 17)
    }


def test_subset_and_failure_budget(calc, ws):
    _, sandbox, env = calc
    subset = [T + "test_add", T + "test_factorial[5-120]"]
    report = run_tests(sandbox, env, ws.path, select=subset)
    assert sorted(report.results) == sorted(subset) and report.collected == 2
    with ws.patched(broken_factorial(ws)):
        stopped = run_tests(sandbox, env, ws.path, max_failures=2)
    assert stopped.stopped_early and len(stopped.failing()) == 2
    assert len(stopped.results) < 10


SPACED = """\
import pytest

@pytest.mark.parametrize("query", ["select 1", "select 2", "select 3"])
def test_spaced(query):
    assert False

def test_named_1():
    assert False

def test_named_2():
    assert False

def test_named_3():
    assert False
"""


def test_the_failure_budget_counts_only_failures_harnesses_can_read(calc, ws):
    """A task needs ``min_failing`` failures whose ids a harness can read, so failures of
    ids holding a space do not use up a screening run's budget (sqlparse's parameters
    are SQL; the budget was raised by every such test instead, and no run stopped)."""
    _, sandbox, env = calc
    spaced = [f"tests/test_spaced.py::test_spaced[select {i}]" for i in (1, 2, 3)]
    named = [f"tests/test_spaced.py::test_named_{i}" for i in (1, 2, 3)]
    with ws.patched({"tests/test_spaced.py": SPACED}):
        report = run_tests(sandbox, env, ws.path, select=spaced + named, max_failures=2)
    assert report.stopped_early
    assert list(report.results) == spaced + named[:2]
    assert report.failing() == set(spaced + named[:2])


MANY = """\
import pytest

@pytest.mark.parametrize("i", range(9500))
def test_one_of_many(i):
    assert i >= 0
"""


def test_a_cut_of_thousands_of_single_tests_runs_just_those(calc, ws):
    """mashumaro's suite was cut to files and then to single tests by node id, over 9,000
    of them: bubblewrap takes 9,000 arguments at most, so they go in a file."""
    _, sandbox, env = calc
    many = "tests/test_many.py::test_one_of_many"
    cut = [T.rstrip(":"), *(f"{many}[{i}]" for i in range(9500) if i != 4)]
    with ws.patched({"tests/test_many.py": MANY}):
        report = run_tests(sandbox, env, ws.path, subset=cut)
    assert not report.collect_errors, report.output_tail
    ran = set(report.results)
    assert {n for n in ran if n.startswith(many)} == set(cut[1:])
    assert {n for n in ran if n.startswith(T)} == set(T + t for t in (
        "test_add", "test_divide", "test_mean", "test_six_installed", "test_skipped",
        "test_expected_failure", *(f.removeprefix(T) for f in FACTORIAL_TESTS)))  # fmt: skip


def test_selected_tests_of_a_module_that_cannot_import_are_errors(calc, ws):
    _, sandbox, env = calc
    with ws.patched({"tests/test_ops.py": "import calc\nthis is not python\n"}):
        report = run_tests(sandbox, env, ws.path, select=[T + "test_add", T + "test_mean"])
    assert "tests/test_ops.py" in report.collect_errors
    assert {r.outcome for r in report.results.values()} == {"error"}
    assert report.results[T + "test_add"].exc_type == "CollectionError"


def test_coverage_run_maps_lines_to_the_tests_that_ran_them(calc, ws):
    _, sandbox, env = calc
    report = run_tests(sandbox, env, ws.path, coverage=True)
    ops = report.line_coverage["src/calc/ops.py"]
    assert sorted(ops[19]) == [T + "test_factorial[5-120]"]  # the loop body runs only for n >= 2
    assert sorted(ops[16]) == [T + "test_factorial_negative"]
    assert sorted(ops[9]) == [T + "test_divide", T + "test_mean"]
    assert 31 not in ops  # unused() never runs
    assert not (ws.path / ".corrupt").exists()


MADE_UP = """\
def test_code_under_a_made_up_name():
    code = compile("x = 1", "made_up_name", "exec").replace(co_firstlineno=2**31 - 1)
    exec(code, {})
"""


def test_coverage_measures_python_files_only(calc, ws):
    """Code compiled under a made-up name at a huge line number, as tblib's tests make
    tracebacks: coverage.py would store that name's lines as a 256 MB bitmap."""
    _, sandbox, env = calc
    with ws.patched({"tests/test_made_up.py": MADE_UP}):
        report = run_tests(sandbox, env, ws.path, coverage=True)
    assert report.passing() >= {"tests/test_made_up.py::test_code_under_a_made_up_name"}
    assert "made_up_name" not in report.line_coverage
    assert report.line_coverage["tests/test_made_up.py"]


def test_workspace_patching_restores_bytes_exactly(calc):
    checkout = calc[0]
    before = tree_digest(checkout.path)
    with Workspace(checkout) as ws:
        target = ws.path / "src/calc/ops.py"
        original = target.read_bytes()
        target.write_bytes(original.replace(b"\n", b"\r\n"))  # a CRLF file must come back as CRLF
        target.chmod(0o755)  # and an executable one executable
        crlf = target.read_bytes()
        with ws.patched({"src/calc/ops.py": "x = 1", "src/calc/new_module.py": "y = 2\r\n"}):
            assert target.read_bytes() == b"x = 1"
            assert (ws.path / "src/calc/new_module.py").read_bytes() == b"y = 2\r\n"
        assert target.read_bytes() == crlf and target.stat().st_mode & 0o777 == 0o755
        assert not (ws.path / "src/calc/new_module.py").exists()
        with (
            pytest.raises(InputError, match="outside the working copy"),
            ws.patched({"../escape.py": ""}),
        ):
            pass
        root = ws.path
    assert not Path(root).exists()
    assert tree_digest(checkout.path) == before


FORGER = """
import atexit, json, sys

def _forge():
    for arg in sys.argv:
        if arg.startswith("--corrupt-report="):
            with open(arg.split("=", 1)[1], "a") as fh:
                for nodeid in {nodeids!r}:
                    fh.write(json.dumps({{"kind": "test", "nodeid": nodeid, "outcome": "passed",
                                          "duration": 0.0}}) + "\\n")

atexit.register(_forge)
"""


def test_results_written_by_the_code_under_test_are_caught(calc, ws):
    _, sandbox, env = calc
    files = broken_factorial(ws)
    init = (ws.path / "src/calc/__init__.py").read_text()
    files["src/calc/__init__.py"] = init + FORGER.format(nodeids=FACTORIAL_TESTS)
    with ws.patched(files):
        report = run_tests(sandbox, env, ws.path)
    assert report.forged and "second or unannounced result" in report.forged
    with ws.patched(broken_factorial(ws)):  # the control: the same failures, nobody forging
        honest = run_tests(sandbox, env, ws.path)
    assert honest.forged is None and honest.failing() >= {FACTORIAL_TESTS[2]}


def test_a_plugin_named_like_ours_in_the_tree_does_not_replace_ours(calc, ws):
    _, sandbox, env = calc
    silent = "def pytest_configure(config):\n    pass\n"
    with ws.patched({"_corrupt_pytest_plugin.py": silent}):
        report = run_tests(sandbox, env, ws.path)
    assert report.collected == 10 and len(report.results) == 10 and report.forged is None


def test_line_coverage_packs_each_nodeid_once_and_reads_back():
    coverage = {
        "src/a.py": {1: ["t.py::test_x", "t.py::test_y"], 4: ["t.py::test_y"]},
        "src/b.py": {2: ["t.py::test_x"]},
    }
    packed = pack_line_coverage(coverage)
    assert packed["tests"] == ["t.py::test_x", "t.py::test_y"]
    assert packed["lines"]["src/a.py"] == {"1": [0, 1], "4": [1]}
    assert unpack_line_coverage(json.loads(json.dumps(packed))) == coverage
    # what code under test may leave in the coverage file reads as no coverage
    for junk in ({"src/a.py": {"1": ["t.py::x"]}}, {"tests": [], "lines": {"a": {"1": [3]}}}, []):
        assert unpack_line_coverage(junk) == {}


def test_a_selected_example_file_a_conftest_collects_is_not_imported(tmp_path_factory):
    """tests/fixtures/repos_run/exampledata (written here) collects its example ``.py``
    files as data, Python 2 among them, as pygments does. Selected by nodeid, the file
    must not be handed to pytest by name: pytest would import it as a test module."""
    checkout = fixture_checkout("exampledata", tmp_path_factory)
    sandbox = LocalSandbox(cache_dir=session_cache(tmp_path_factory))
    env = sandbox.prepare(checkout)
    chosen = [
        "tests/examples/one_line.txt::",  # named, and its folder too: still run
        "tests/examples/py2_print.py::",
        "tests/test_count.py::test_empty",
    ]
    with Workspace(checkout) as workspace:
        whole = run_tests(sandbox, env, workspace.path)
        some = run_tests(sandbox, env, workspace.path, select=chosen)
    assert sorted(whole.passing()) == sorted([*chosen, "tests/examples/py2_exec.py::"])
    assert not some.collect_errors
    assert {n: r.outcome for n, r in some.results.items()} == dict.fromkeys(chosen, "passed")
