"""The failures that repeat are the task: a test whose outcome differs between the two
runs of the corrupted tree is in neither FAIL_TO_PASS nor PASS_TO_PASS, in both modes.

The real-suite case uses tests/fixtures/repos_run/ordered (written here): five tests
check ``price`` directly, and ``test_b_plausible`` checks it strictly only after
``test_a_strict_mode`` ran in the same process, so it fails in a whole-suite run of a
corrupted ``price`` and passes in the rerun, which runs it without that test."""

from __future__ import annotations

import pytest
from repos_run_support import fixture_checkout, session_cache

from corrupt.corruptors.models import Corruption, FileChange
from corrupt.repos.models import Baseline, TestReport, TestResult
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.screening.screen import RunBudget, TreeScreener
from corrupt.suites.baseline import compute_baseline
from corrupt.tasks.modes import ScreeningMode, VerifyMode
from corrupt.tasks.verify import Repeats, verify_dynamic

PRICES = "src/ordered/__init__.py"
T = "tests/test_prices.py::"
DIRECT = [f"{T}test_price[{name}]" for name in ["tea", "milk", "bread", "eggs", "jam"]]
ORDERED = T + "test_b_plausible"


@pytest.fixture(scope="module")
def ordered(tmp_path_factory):
    checkout = fixture_checkout("ordered", tmp_path_factory)
    sandbox = LocalSandbox(cache_dir=session_cache(tmp_path_factory))
    env = sandbox.prepare(checkout)
    baseline = compute_baseline(
        checkout, sandbox, env, cache_dir=tmp_path_factory.mktemp("baselines")
    )
    with Workspace(checkout) as workspace:
        yield sandbox, env, workspace, baseline


def corruption_of(workspace: Workspace) -> Corruption:
    source = (workspace.path / PRICES).read_text()
    wrong = source.replace("return len(name) * 10\n", "return len(name) * 10 + 1\n", 1)
    assert wrong != source
    return Corruption(
        kind="adversarial",
        corruptor="procedural:test",
        targets=["ordered.price"],
        files={PRICES: FileChange(source, wrong)},
        bugs=[],
    )


def verified(ordered, mode: VerifyMode, min_failing: int):  # type: ignore[no-untyped-def]
    sandbox, env, workspace, baseline = ordered
    corruption = corruption_of(workspace)
    body = next(
        line
        for line, text in enumerate((workspace.path / PRICES).read_text().splitlines(), 1)
        if text.strip() == "return len(name) * 10"
    )
    covering = baseline.line_coverage[PRICES][body]
    screener = TreeScreener(
        sandbox, env, workspace, RunBudget(60, 5), screening=ScreeningMode.WARM, baseline=baseline
    )
    try:
        return verify_dynamic(
            corruption,
            baseline,
            lambda files: screener.run(files),
            min_failing=min_failing,
            mode=mode,
            run_some=lambda files, tests, trace: screener.run(files, tests=tests, trace=trace),
            covering=covering,
        ), covering
    finally:
        screener.close()


def test_a_failure_that_does_not_repeat_in_the_fast_rerun_is_left_out(ordered):
    verification, covering = verified(ordered, VerifyMode.FAST, min_failing=3)
    assert T + "test_a_strict_mode" not in covering  # so the rerun runs test_b without it
    assert verification.ok, verification.rejection
    assert verification.fail_to_pass == sorted(DIRECT)
    assert verification.unstable == [ORDERED]
    assert verification.pass_to_pass == [T + "test_a_strict_mode"]
    assert ORDERED in verification.report.failing()  # it did fail in the whole-suite run


def test_too_few_repeating_failures_is_no_task(ordered):
    verification, _ = verified(ordered, VerifyMode.FAST, min_failing=6)
    assert not verification.ok and verification.rejection is not None
    assert verification.rejection.detail == (
        "only 5 failures that harnesses can name repeat on the rerun (need 6; 1 changed their"
        " outcome)"
    )


def test_the_full_mode_runs_the_whole_suite_twice_so_the_order_holds(ordered):
    verification, _ = verified(ordered, VerifyMode.FULL, min_failing=3)
    assert verification.ok, verification.rejection
    assert verification.runs == 3
    assert verification.fail_to_pass == sorted([*DIRECT, ORDERED])
    assert verification.unstable == []


# Scripted runs for what a real suite cannot show on demand: a test that fails in one of
# two identical whole-suite runs (random input).
TESTS = [f"tests/test_r.py::test_{i}" for i in range(8)]


def scripted(*failing_per_run: list[str]):  # type: ignore[no-untyped-def]
    runs = iter(failing_per_run)

    def run_full(files: dict[str, str]) -> TestReport:
        failing = next(runs) if files["r.py"] == "x = 2\n" else []
        results = {t: TestResult(t, "failed" if t in failing else "passed") for t in TESTS}
        return TestReport(results=results, duration=0.1, exit_code=1 if failing else 0)

    corruption = Corruption(
        kind="adversarial",
        corruptor="procedural:test",
        targets=["r.f"],
        files={"r.py": FileChange("x = 1\n", "x = 2\n")},
        bugs=[],
    )
    baseline = Baseline(
        commit="c", tests=TESTS, flaky=[], skipped=[], seconds=0.1, durations={},
        line_coverage={},
    )  # fmt: skip
    return verify_dynamic(corruption, baseline, run_full, min_failing=3, mode=VerifyMode.FULL)


def test_a_random_failure_in_either_full_run_is_left_out_of_both_lists():
    stable = TESTS[:4]
    for first, second in [(stable, [*stable, TESTS[7]]), ([*stable, TESTS[7]], stable)]:
        verification = scripted(first, second)
        assert verification.ok, verification.rejection
        assert verification.fail_to_pass == stable
        assert verification.unstable == [TESTS[7]]
        assert verification.pass_to_pass == TESTS[4:7]


def test_more_changed_outcomes_than_repeated_failures_is_no_task():
    verification = scripted(TESTS[:5], [*TESTS[:3], *TESTS[5:7]])
    assert not verification.ok and verification.rejection is not None
    assert verification.rejection.detail == (
        "4 tests change their outcome between the runs, more than the 3 that fail in both"
    )
    assert Repeats.of(TESTS[:5], [*TESTS[:3], *TESTS[5:7]]).unstable == [*TESTS[3:5], *TESTS[5:7]]
