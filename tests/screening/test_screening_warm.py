"""Warm screening on a real suite (tests/fixtures/repos_run/warm) in a real venv and box.

Every warm result is checked against a fresh process running the same
candidate: the warm server must be interchangeable with it or decline.
"""

from __future__ import annotations

import dataclasses

import pytest
from repos_run_support import fixture_checkout, session_cache

from corrupt.repos.models import Baseline, TestReport
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.screening.screen import RunBudget, TreeScreener, check_selection
from corrupt.screening.warm import Reimport, WarmRun, WarmServer
from corrupt.suites.baseline import compute_baseline
from corrupt.suites.runner import run_tests
from corrupt.tasks.modes import ScreeningMode

LIB = "src/shapes/geometry.py"
RAISE = '        raise ValueError("cannot scale a negative size")'
G = "tests/test_geometry.py::"
ID = "tests/test_identity.py::"
GEOMETRY_TESTS = [
    G + name
    for name in [
        "test_add",
        "test_copied_add",
        "test_double",
        "test_triple",
        "test_describe",
        "test_sides",
        "test_unit",
        "test_area",
        "test_table",
        "test_scale_rejects_negative",
        "test_clamp",
        "test_twice",
        "test_ranked",
        "test_sizes",
        "test_state_starts_empty",
    ]
]
IDENTITY_TESTS = [f"{ID}test_identity[{n}]" for n in range(1, 6)]


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    checkout = fixture_checkout("warm", tmp_path_factory)
    sandbox = LocalSandbox(cache_dir=session_cache(tmp_path_factory))
    return checkout, sandbox, sandbox.prepare(checkout)


@pytest.fixture(scope="module")
def ws(shapes):
    with Workspace(shapes[0]) as workspace:
        yield workspace


@pytest.fixture(scope="module")
def server(shapes, ws):
    _, sandbox, env = shapes
    warm = WarmServer(sandbox, env, ws.path, startup_timeout=60)
    yield warm
    warm.close()


def original(ws) -> str:
    return (ws.path / LIB).read_text()


def warm_answer(
    server, ws, new, tests, *, timeout=30.0, per_test_timeout=5.0, reimport=Reimport.NEVER,
    quiet=(),
) -> WarmRun:  # fmt: skip
    before = original(ws)
    with ws.patched({LIB: new}):
        return server.run(
            {LIB: new},
            {LIB: before},
            tests,
            max_failures=None,
            timeout=timeout,
            per_test_timeout=per_test_timeout,
            quiet=quiet,
            reimport=reimport,
        )


def warm_run(server, ws, new, tests, **limits) -> TestReport:
    """The report of a candidate the server swapped in."""
    run = warm_answer(server, ws, new, tests, **limits)
    assert run.declined is None and run.report is not None, run
    return run.report


def fresh_run(shapes, ws, new, tests, *, max_failures=None):
    _, sandbox, env = shapes
    with ws.patched({LIB: new}):
        return run_tests(
            sandbox, env, ws.path, select=tests, max_failures=max_failures, per_test_timeout=5
        )


def outcomes(report):
    return {nodeid: result.outcome for nodeid, result in report.results.items()}


BODY_CHANGES = {
    "plain function": (
        "    return a + b\n",
        "    return a - b\n",
        ["test_add", "test_copied_add", "test_double"],  # a copy under other globals too
    ),
    "nested lambdas on one line": ("x * 2)", "x * 3)", ["test_twice"]),
    "definition in an untaken branch": ("return max(x, LIMIT)", "return max(x, 0)", []),
    "functools.wraps decorator": (
        "    return add(x, x)\n",
        "    return add(x, 1)\n",
        ["test_double"],
    ),
    "decorator without wraps": ("    return x * 3\n", "    return x * 4\n", ["test_triple"]),
    "method calling super()": ('"square:" + super()', '"round:" + super()', ["test_describe"]),
    "staticmethod": ("        return 4\n", "        return 5\n", ["test_sides"]),
    "classmethod": ("        return cls()\n", "        return Base()\n", ["test_unit"]),
    "property": ("        return 1\n", "        return 2\n", ["test_area"]),
    "lambda made at import": ("key=lambda item: -item", "key=lambda item: item", ["test_ranked"]),
}


@pytest.mark.parametrize("kind", list(BODY_CHANGES))
def test_a_changed_body_fails_the_same_tests_warm_and_fresh(shapes, ws, server, kind):
    old, new, failing = BODY_CHANGES[kind]
    source = original(ws)
    corrupted = source.replace(old, new, 1)
    assert corrupted != source
    warm = warm_run(server, ws, corrupted, GEOMETRY_TESTS)
    fresh = fresh_run(shapes, ws, corrupted, GEOMETRY_TESTS)
    assert outcomes(warm) == outcomes(fresh)
    assert sorted(warm.failing()) == sorted(G + name for name in failing)


def test_a_change_that_moves_lines_keeps_traceback_lines_right(shapes, ws, server):
    corrupted = original(ws).replace(
        "    return a + b\n", "    total = a + b\n    total += 1\n    return total\n"
    )
    tests = [G + "test_clamp", G + "test_add", G + "test_ranked"]  # ranked's lambda moves too
    warm = warm_run(server, ws, corrupted, tests)
    fresh = fresh_run(shapes, ws, corrupted, tests)
    assert outcomes(warm) == outcomes(fresh)
    assert outcomes(warm) == {
        G + "test_add": "failed",
        G + "test_clamp": "passed",
        G + "test_ranked": "passed",
    }
    frames = [(f.file, f.line) for f in warm.results[G + "test_add"].frames]
    assert frames == [(f.file, f.line) for f in fresh.results[G + "test_add"].frames]


UNSWAPPABLE = pytest.mark.parametrize(
    "old, new, reason",
    [
        ("LIMIT = 10\n", "LIMIT = 11\n", "the change reaches code that runs at import"),
        ("[n * 2 for", "[n * 3 for", "the change reaches code that runs at import"),
        ("def scale(x, factor=2):", "def scale(x, factor=3):", "code that runs at import"),
        ("    return x * factor\n", "    return x + factor\n", "ran while the suite was collected"),
    ],
    ids=["module constant", "comprehension", "default argument", "function run at collection"],
)


@UNSWAPPABLE
def test_what_a_fork_cannot_see_is_declined(shapes, ws, server, old, new, reason):
    corrupted = original(ws).replace(old, new)
    answer = warm_answer(server, ws, corrupted, GEOMETRY_TESTS)
    assert answer.report is None
    assert reason in answer.declined
    # ...and the fresh run it falls back to does see it
    assert fresh_run(shapes, ws, corrupted, GEOMETRY_TESTS).failing()


@UNSWAPPABLE
def test_what_a_fork_cannot_see_a_reimporting_child_sees_as_a_fresh_process(
    shapes, ws, server, old, new, reason
):
    corrupted = original(ws).replace(old, new)
    tests = GEOMETRY_TESTS + IDENTITY_TESTS
    answer = warm_answer(server, ws, corrupted, tests, reimport=Reimport.DECLINED)
    assert reason in answer.declined
    fresh = fresh_run(shapes, ws, corrupted, tests)
    assert fresh.failing()
    assert outcomes(answer.report) == outcomes(fresh)
    assert list(answer.report.results) == list(fresh.results)
    # the server itself still holds the code it imported
    assert outcomes(warm_run(server, ws, original(ws), tests)) == dict.fromkeys(tests, "passed")


def test_a_server_that_records_no_collection_swaps_only_quiet_files(shapes, ws):
    """Told that the coverage knows what ran at collection, the server records nothing
    then: a changed function in a file not named quiet may have run, and is declined."""
    _, sandbox, env = shapes
    server = WarmServer(sandbox, env, ws.path, startup_timeout=60, collection_from_coverage=True)
    try:
        corrupted = original(ws).replace("    return a + b\n", "    return a - b\n")
        declined = warm_answer(server, ws, corrupted, GEOMETRY_TESTS)
        assert declined.report is None
        assert declined.declined == "ran while the suite was collected"
        swapped = warm_run(server, ws, corrupted, GEOMETRY_TESTS, quiet=[LIB])
        fresh = fresh_run(shapes, ws, corrupted, GEOMETRY_TESTS)
        assert G + "test_add" in fresh.failing()
        assert outcomes(swapped) == outcomes(fresh)
    finally:
        server.close()


def test_a_reimporting_child_imports_the_tree_again_and_nothing_else(shapes, ws, server):
    """The child imports the working tree's modules again, in its own process; what the
    tree does not hold stays as the server's import left it: logging keeps the handler
    the server's import of ``shapes`` added, so the child's import adds a second one."""
    tests = [ID + "test_same_process_as_import", ID + "test_shapes_was_imported_once"]
    run = warm_answer(server, ws, original(ws), tests, reimport=Reimport.ALWAYS)
    assert run.declined is None and run.report is not None
    assert outcomes(run.report) == {
        ID + "test_same_process_as_import": "passed",  # imported in the child's process
        ID + "test_shapes_was_imported_once": "failed",  # ...and twice in it
    }
    assert run.report.results[tests[1]].frames[-1].file == "tests/test_identity.py"
    assert outcomes(fresh_run(shapes, ws, original(ws), tests)) == dict.fromkeys(tests, "passed")


def test_each_candidate_starts_from_the_imported_state(server, ws):
    for _ in range(2):  # the test appends to a module list; a shared process would fail it
        report = warm_run(server, ws, original(ws), [G + "test_state_starts_empty"])
        assert outcomes(report) == {G + "test_state_starts_empty": "passed"}


def test_output_on_the_real_stdout_cannot_reach_the_channel(server, ws):
    corrupted = original(ws).replace(
        "    return a + b\n",
        '    import os\n    os.write(1, b\'{"id": 0, "exit": 0}\\n\')\n    return a + b\n',
    )
    report = warm_run(server, ws, corrupted, [G + "test_add"])
    assert outcomes(report) == {G + "test_add": "passed"}


def test_a_child_that_dies_fails_its_tests_and_the_server_goes_on(server, ws):
    corrupted = original(ws).replace("    return a + b\n", "    import os\n    os._exit(9)\n")
    report = warm_run(server, ws, corrupted, [G + "test_add", G + "test_clamp"])
    assert report.exit_code == 9
    assert report.results[G + "test_add"].outcome == "error"
    assert outcomes(warm_run(server, ws, original(ws), [G + "test_add"])) == {
        G + "test_add": "passed"
    }


HANG = "    while True:\n        pass\n"


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "fresh"])
def test_a_run_stops_at_its_first_per_test_timeout(shapes, ws, server, warm):
    corrupted = original(ws).replace("    return n\n", HANG)
    if warm:
        report = warm_run(server, ws, corrupted, IDENTITY_TESTS, per_test_timeout=0.5)
    else:
        _, sandbox, env = shapes
        with ws.patched({LIB: corrupted}):
            report = run_tests(sandbox, env, ws.path, select=IDENTITY_TESTS, per_test_timeout=0.5)
    assert report.timed_out
    assert list(report.results) == IDENTITY_TESTS[:1]  # the other four never started
    assert report.results[IDENTITY_TESTS[0]].exc_type == "Timeout"


@pytest.mark.parametrize("mode", [ScreeningMode.WARM, ScreeningMode.FRESH])
def test_screening_times_out_at_ten_times_a_tests_baseline_time(shapes, ws, mode):
    """A hung test's call stops at ten times its own baseline time (0.5 s at least),
    even beside a slow test; the whole test at ten times the slowest selected one."""
    _, sandbox, env = shapes
    baseline = baseline_of(GEOMETRY_TESTS + IDENTITY_TESTS)  # 0.01 s each
    baseline.durations[G + "test_add"] = 0.3
    screener = TreeScreener(sandbox, env, ws, RunBudget(60, 5), screening=mode, baseline=baseline)
    corrupted = original(ws).replace("    return n\n", HANG)
    try:
        quick = screener({LIB: corrupted}, IDENTITY_TESTS, None)
        beside_slow = screener({LIB: corrupted}, [G + "test_add", *IDENTITY_TESTS], None)
        baseline.durations[IDENTITY_TESTS[0]] = 0.3  # the hung test is the slow one itself
        slow = screener({LIB: corrupted}, IDENTITY_TESTS, None)
        full = screener.run({LIB: corrupted}, tests=IDENTITY_TESTS)  # verification's budget
    finally:
        screener.close()
    call = "test exceeded the call timeout of 0.5 s (imports not counted)"
    for report, message in [
        (quick, call),
        (beside_slow, call),
        (slow, "test exceeded the per-test timeout of 3 s"),
        (full, "test exceeded the per-test timeout of 5 s"),
    ]:
        assert report.timed_out
        assert report.results[IDENTITY_TESTS[0]].message == message
    # verification's run of named tests is warm too, with a fresh run's limits
    assert screener.policy.warm_runs == (4 if mode == ScreeningMode.WARM else 0)


SLOW_MODULE = "src/shapes/slow.py"
BUSY_SECOND = (
    "    import time\n\n    began = time.monotonic()\n"
    "    while time.monotonic() - began < 1:\n        pass\n    return n\n"
)


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "fresh"])
def test_the_call_timeout_counts_a_tests_own_work_not_its_imports(shapes, ws, server, warm):
    """A second spent importing passes a 0.5-s call timeout; a second of work does not.

    The fresh runs set the call's limit alone, with no per-test timeout."""
    before = original(ws)
    importing = before.replace("    return n\n", "    from shapes import slow\n\n    return n\n")
    slow_import = {LIB: importing, SLOW_MODULE: "import time\n\ntime.sleep(1)\n"}
    busy = {LIB: before.replace("    return n\n", BUSY_SECOND)}
    _, sandbox, env = shapes
    limits = {"call_timeouts": dict.fromkeys(IDENTITY_TESTS, 0.5), "max_failures": None}
    reports = []
    for files in (slow_import, busy):
        with ws.patched(files):
            if warm:
                run = server.run(
                    files, {LIB: before}, IDENTITY_TESTS, timeout=30, per_test_timeout=5, **limits
                ).report
            else:
                run = run_tests(sandbox, env, ws.path, select=IDENTITY_TESTS, **limits)
        reports.append(run)
    imported, worked = reports
    assert not imported.timed_out
    assert set(outcomes(imported).values()) == {"passed"}
    assert worked.timed_out
    assert worked.results[IDENTITY_TESTS[0]].exc_type == "Timeout"
    assert worked.results[IDENTITY_TESTS[0]].message == (
        "test exceeded the call timeout of 0.5 s (imports not counted)"
    )
    assert list(worked.results) == IDENTITY_TESTS[:1]


def test_the_deadline_kills_a_child_the_per_test_timeout_cannot_stop(server, ws):
    stubborn = "    import signal\n    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n" + HANG
    corrupted = original(ws).replace("    return n\n", stubborn)
    report = warm_run(server, ws, corrupted, IDENTITY_TESTS[:1], timeout=3, per_test_timeout=0.5)
    assert report.timed_out
    assert report.results[IDENTITY_TESTS[0]].message == "killed by the whole-run timeout"
    assert outcomes(warm_run(server, ws, original(ws), IDENTITY_TESTS[:1])) == {
        IDENTITY_TESTS[0]: "passed"
    }


def baseline_of(tests: list[str]) -> Baseline:
    return Baseline(
        commit="fixture", tests=tests, flaky=[], skipped=[], seconds=1.0,
        durations=dict.fromkeys(tests, 0.01), line_coverage={},
    )  # fmt: skip


def warm_screener(shapes, ws, baseline: Baseline, verdicts=None) -> TreeScreener:
    _, sandbox, env = shapes
    return TreeScreener(
        sandbox, env, ws, RunBudget(60, 5), screening=ScreeningMode.WARM, baseline=baseline,
        verdicts=verdicts,
    )  # fmt: skip


def screen_add_bug(shapes, ws, baseline: Baseline, verdicts=None) -> tuple[TreeScreener, int]:
    """A screener's policy after one candidate, and how many requests its server got."""
    screener = warm_screener(shapes, ws, baseline, verdicts)
    try:
        corrupted = original(ws).replace("    return a + b\n", "    return a - b\n")
        report = screener({LIB: corrupted}, GEOMETRY_TESTS, None)
        assert outcomes(report) == outcomes(fresh_run(shapes, ws, corrupted, GEOMETRY_TESTS))
        return screener, screener._server._requests if screener._server else 0
    finally:
        screener.close()


def test_a_test_that_fails_in_the_fork_turns_warm_screening_off(shapes, ws, tmp_path):
    everything = fresh_run(shapes, ws, original(ws), None)
    assert everything.passing() >= {ID + "test_same_process_as_import", *GEOMETRY_TESTS}
    for _ in range(2):  # a check that failed is not kept: the next build checks again
        screener, _ = screen_add_bug(
            shapes, ws, baseline_of(sorted(everything.passing())), verdicts=tmp_path
        )
        policy = screener.policy
        assert not policy.enabled and policy.warm_runs == 0 and not policy.check_reused
        # a forked child has another pid than the process that imported the module
        assert policy.reason == (
            f"{ID}test_same_process_as_import failed in the warm server on the unchanged code"
        )
        assert screener.runs == 1  # the fresh run
    assert not list(tmp_path.iterdir())


def test_a_suite_that_passes_in_the_fork_is_screened_warm(shapes, ws):
    screener, _ = screen_add_bug(shapes, ws, baseline_of(GEOMETRY_TESTS + IDENTITY_TESTS))
    assert screener.policy.as_dict() == {
        "warm": True, "reason": "", "checked": 20, "check_reused": False, "warm_runs": 1,
        "reimport": None, "reimport_failure": "", "reimports": 0, "reimport_reasons": {},
        "fallbacks": 0, "fallback_reasons": {},
    }  # fmt: skip


def test_a_check_that_held_is_not_run_again_for_the_same_tests(shapes, ws, tmp_path):
    baseline = baseline_of(GEOMETRY_TESTS + IDENTITY_TESTS)
    first, first_requests = screen_add_bug(shapes, ws, baseline, verdicts=tmp_path)
    again, again_requests = screen_add_bug(shapes, ws, baseline, verdicts=tmp_path)
    assert (first_requests, again_requests) == (2, 1)  # the check, then the candidate
    assert not first.policy.check_reused and again.policy.check_reused
    assert again.policy.enabled and again.policy.checked == 20 and again.policy.warm_runs == 1
    other, other_requests = screen_add_bug(shapes, ws, baseline_of(GEOMETRY_TESTS), tmp_path)
    assert other_requests == 2 and not other.policy.check_reused  # other tests: checked anew


def test_a_function_run_at_collection_is_swapped_if_the_change_did_not_run_then(
    shapes, ws, tmp_path
):
    """The baseline's coverage shows which statements ran while the suite was collected."""
    checkout, sandbox, env = shapes
    real = compute_baseline(checkout, sandbox, env, cache_dir=tmp_path)
    lines = original(ws).splitlines()
    raised, returned = (lines.index(text) + 1 for text in (RAISE, "    return x * factor"))
    assert returned in real.outside_tests[LIB] and raised not in real.outside_tests[LIB]
    screener = warm_screener(shapes, ws, dataclasses.replace(real, tests=GEOMETRY_TESTS))
    try:
        branch = original(ws).replace(RAISE, RAISE.replace("ValueError", "TypeError"))
        chosen = [G + "test_scale_rejects_negative", G + "test_table"]
        report = screener({LIB: branch}, chosen, None)
        assert outcomes(report) == outcomes(fresh_run(shapes, ws, branch, chosen))
        assert report.failing() == {chosen[0]}
        assert (screener.policy.warm_runs, screener.policy.fallbacks) == (1, 0)

        ran = original(ws).replace("    return x * factor\n", "    return x + factor\n")
        report = screener({LIB: ran}, GEOMETRY_TESTS, None)
        assert outcomes(report) == outcomes(fresh_run(shapes, ws, ran, GEOMETRY_TESTS))
        assert G + "test_table" in report.failing()
        assert screener.policy.reimport_reasons == {"ran while the suite was collected": 1}
        assert screener.policy.fallbacks == 0
    finally:
        screener.close()


CONSTANT = ("LIMIT = 10\n", "LIMIT = 11\n")  # a change no swap can show


def test_reimporting_is_checked_on_the_first_declined_candidate_and_kept(shapes, ws, tmp_path):
    baseline = baseline_of(GEOMETRY_TESTS + IDENTITY_TESTS)
    constant = original(ws).replace(*CONSTANT)
    for requests_expected in (5, 3):  # a build, then one that finds both checks kept
        screener = warm_screener(shapes, ws, baseline, verdicts=tmp_path)
        try:
            screener({LIB: original(ws).replace("return a + b", "return a - b")}, GEOMETRY_TESTS, 5)
            assert screener.policy.reimport is None  # nothing was declined yet
            report = screener({LIB: constant}, GEOMETRY_TESTS, None)
            requests = screener._server._requests if screener._server else 0
        finally:
            screener.close()
        assert outcomes(report) == outcomes(fresh_run(shapes, ws, constant, GEOMETRY_TESTS))
        policy = screener.policy
        assert policy.reimport and (policy.warm_runs, policy.reimports, policy.fallbacks) == (
            1,
            1,
            0,
        )
        assert policy.reimport_reasons == {"the change reaches code that runs at import": 1}
        # the swap check, two candidates, the re-importing check, the declined one again
        assert requests == requests_expected
        assert screener.runs == 2
    assert len(list(tmp_path.iterdir())) == 2  # a verdict for each way of running


def test_a_tree_that_cannot_be_imported_twice_runs_declined_candidates_fresh(shapes, ws, tmp_path):
    tests = GEOMETRY_TESTS + IDENTITY_TESTS + [ID + "test_shapes_was_imported_once"]
    screener = warm_screener(shapes, ws, baseline_of(tests), verdicts=tmp_path)
    constant = original(ws).replace(*CONSTANT)
    try:
        report = screener({LIB: constant}, GEOMETRY_TESTS, None)
        again = screener({LIB: constant}, GEOMETRY_TESTS, None)
    finally:
        screener.close()
    assert (
        outcomes(report)
        == outcomes(again)
        == outcomes(fresh_run(shapes, ws, constant, GEOMETRY_TESTS))
    )
    policy = screener.policy
    assert policy.enabled and policy.reimport is False
    assert policy.reimport_failure == (
        f"{ID}test_shapes_was_imported_once failed in a re-importing child on the unchanged code"
    )
    assert (policy.reimports, policy.fallbacks) == (0, 2)  # checked once, not kept
    assert len(list(tmp_path.iterdir())) == 1


def test_the_check_covers_the_quickest_files_up_to_its_limit():
    durations = {"a.py::t1": 50.0, "a.py::t2": 20.0, "b.py::t": 1.0, "c.py::t": 30.0}
    baseline = baseline_of(sorted(durations))
    baseline.durations = durations
    assert check_selection(baseline) == ["b.py::t", "c.py::t"]  # a.py would pass 60 s
    assert check_selection(baseline, seconds=0.5) == ["b.py::t"]  # never nothing
    assert len(check_selection(baseline, seconds=1000)) == 4


def test_test_order_plugins_are_off_warm_and_fresh(shapes, ws, server):
    """The fixture installs pytest-randomly; a shuffled order would change which tests
    a failure budget reaches, so the same seed would give other tasks."""
    for _ in range(2):
        fresh = fresh_run(shapes, ws, original(ws), GEOMETRY_TESTS)
        warm = warm_run(server, ws, original(ws), GEOMETRY_TESTS)
        assert list(fresh.results) == list(warm.results) == GEOMETRY_TESTS


@pytest.mark.parametrize("mode", [ScreeningMode.WARM, ScreeningMode.FRESH])
@pytest.mark.parametrize("quick", [G + "test_add", ID + "test_identity[1]"])
def test_screening_runs_the_quickest_files_first(shapes, ws, mode, quick):
    _, sandbox, env = shapes
    baseline = baseline_of(GEOMETRY_TESTS + IDENTITY_TESTS)
    baseline.durations.update({G + "test_add": 2.0, ID + "test_identity[1]": 2.0, quick: 0.1})
    screener = TreeScreener(sandbox, env, ws, RunBudget(60, 5), screening=mode, baseline=baseline)
    corrupted = (
        original(ws)
        .replace("    return a + b\n", "    return a - b\n")
        .replace("return n\n", "return -n\n")
    )
    try:
        report = screener({LIB: corrupted}, [G + "test_add", ID + "test_identity[1]"], 1)
    finally:
        screener.close()
    assert list(report.results) == [quick]  # the failure budget of one stopped the run there
    assert report.stopped_early
    assert screener.policy.warm_runs == (mode == ScreeningMode.WARM)


def test_a_child_writes_no_progress_for_its_tests(server, ws):
    log = server.service.scratch / "stderr"  # the server's stdout and stderr
    before = log.read_bytes()
    report = warm_run(server, ws, original(ws), GEOMETRY_TESTS)
    assert set(outcomes(report).values()) == {"passed"}
    assert len(report.results) == len(GEOMETRY_TESTS)
    assert log.read_bytes() == before


def test_a_server_of_a_cut_suite_collects_the_cut_only(shapes, ws):
    """A suite over budget is cut to files, then single tests by node id; the server
    collects what the cut keeps (the node ids come from a file, as in fresh runs)."""
    _, sandbox, env = shapes
    cut = [G.rstrip(":"), IDENTITY_TESTS[1], IDENTITY_TESTS[3]]
    server = WarmServer(sandbox, env, ws.path, startup_timeout=60, subset=cut)
    try:
        assert server.collected == len(GEOMETRY_TESTS) + 2
        kept = [*GEOMETRY_TESTS, IDENTITY_TESTS[1], IDENTITY_TESTS[3]]
        assert outcomes(warm_run(server, ws, original(ws), kept)) == dict.fromkeys(kept, "passed")
    finally:
        server.close()
