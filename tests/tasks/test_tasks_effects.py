"""Cause and effect per bug, traced on a real suite (tests/fixtures/repos_run/chain, written
here: a test calls order_total -> line_total -> unit_price, or discounted -> discount)."""

from __future__ import annotations

import pytest
from repos_run_support import fixture_checkout, session_cache

from corrupt.repos.models import Baseline, TraceTarget
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.screening.screen import RunBudget, TreeScreener
from corrupt.source.edits import changed_lines, edit_script
from corrupt.suites.runner import run_tests
from corrupt.tasks import effects
from corrupt.tasks.effects import trace_effects
from corrupt.tasks.models import (
    BugRecord,
    Difficulty,
    EffectRecord,
    RepoRef,
    Task,
    TestsRecord,
)
from corrupt.tasks.modes import ScreeningMode

PRICES = "src/chain/prices.py"
T = "tests/test_prices.py::"
UNIT_PRICE = TraceTarget(PRICES, 4, 5)
DISCOUNT = TraceTarget(PRICES, 19, 20)


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    checkout = fixture_checkout("chain", tmp_path_factory)
    sandbox = LocalSandbox(cache_dir=session_cache(tmp_path_factory))
    with Workspace(checkout) as workspace:
        yield sandbox, sandbox.prepare(checkout), workspace


def original(chain) -> str:
    return (chain[2].path / PRICES).read_text()


def traced(chain, source: str, tests: list[str], targets: list[TraceTarget]):
    sandbox, env, workspace = chain
    with workspace.patched({PRICES: source}):
        return run_tests(sandbox, env, workspace.path, select=tests, trace=targets)


def test_a_value_checked_by_the_test_three_calls_away_gives_three(chain):
    wrong = original(chain).replace('return item["price"]', 'return item["price"] + 1')
    report = traced(chain, wrong, [T + "test_order_total", T + "test_unit_price"], [UNIT_PRICE])
    far = report.results[T + "test_order_total"].trace
    assert far is not None and far.effect is not None
    assert (far.effect.file, far.effect.function) == ("tests/test_prices.py", "test_order_total")
    assert far.hops == [3] and far.calls == [2]  # test -> order_total -> line_total -> unit_price
    assert report.results[T + "test_unit_price"].trace.hops == [1]


def test_a_crash_inside_the_target_gives_zero_and_one_in_its_caller_gives_one(chain):
    source = original(chain)
    crash = traced(
        chain,
        source.replace('item["price"]', 'item["cost"]'),
        [T + "test_order_total"],
        [UNIT_PRICE],
    )
    trace = crash.results[T + "test_order_total"].trace
    assert crash.results[T + "test_order_total"].exc_type == "KeyError"
    assert (trace.effect.function, trace.hops) == ("unit_price", [0])
    caller = traced(
        chain,
        source.replace('return item["price"]', "return None"),
        [T + "test_order_total"],
        [UNIT_PRICE],
    )
    trace = caller.results[T + "test_order_total"].trace
    assert (trace.effect.function, trace.effect.line, trace.hops) == ("line_total", 9, [1])


def test_a_failing_doctest_surfaces_at_its_example_which_is_the_root_caller(chain):
    wrong = original(chain).replace('return item["price"]', 'return item["price"] + 1')
    doctest = "tests/test_prices.txt::test_prices.txt"
    trace = traced(chain, wrong, [doctest], [UNIT_PRICE]).results[doctest].trace
    assert (trace.effect.file, trace.effect.line) == ("tests/test_prices.txt", 2)
    assert trace.hops == [3]  # the example -> order_total -> line_total -> unit_price


def test_a_target_the_failing_test_never_calls_has_no_distance(chain):
    wrong = original(chain).replace('return item["price"]', 'return item["price"] + 1')
    report = traced(chain, wrong, [T + "test_unit_price"], [DISCOUNT])
    trace = report.results[T + "test_unit_price"].trace
    assert trace.hops == [None] and trace.calls == [0]
    passing = traced(chain, original(chain), [T + "test_unit_price"], [UNIT_PRICE])
    assert passing.results[T + "test_unit_price"].trace is None  # only failures carry one


WARM_TRACED = {
    # the server swaps the new body into the imported function
    "swapped": ('return item["price"]', 'return item["price"] + 1'),
    "swapped, crashing": ('item["price"]', 'item["cost"]'),
    # a default is evaluated at import: the server declines, a re-importing child runs it
    "re-imported": ('def unit_price(item):\n    return item["price"]',
                    'def unit_price(item, extra=1):\n    return item["price"] + extra'),
}  # fmt: skip


def warm_screener(chain) -> TreeScreener:
    sandbox, env, workspace = chain
    suite = run_tests(sandbox, env, workspace.path)
    passing = sorted(suite.passing())
    baseline = Baseline(
        commit="fixture", tests=passing, flaky=[], skipped=[], seconds=suite.duration,
        durations=dict.fromkeys(passing, 0.01), line_coverage={},
    )  # fmt: skip
    return TreeScreener(
        sandbox, env, workspace, RunBudget(60, 5), screening=ScreeningMode.WARM, baseline=baseline
    )


@pytest.mark.parametrize("change", list(WARM_TRACED))
def test_a_warm_traced_rerun_traces_what_a_fresh_one_does(chain, change):
    """Verification's rerun and the effect runs go to the warm server when screening is
    warm: each failing test's trace must be the one a fresh process gives."""
    old, new = WARM_TRACED[change]
    corrupted = original(chain).replace(old, new)
    tests = [T + "test_discounted", T + "test_order_total", T + "test_unit_price",
             "tests/test_prices.txt::test_prices.txt"]  # fmt: skip
    targets = [UNIT_PRICE, DISCOUNT]
    screener = warm_screener(chain)
    try:
        warm = screener.run({PRICES: corrupted}, tests=tests, trace=targets)
        policy = screener.policy
        assert policy.enabled, policy.reason
        assert (policy.warm_runs, policy.reimports) == ((0, 1) if "re-" in change else (1, 0))
        fresh = traced(chain, corrupted, tests, targets)
        assert warm.failing() == fresh.failing() and len(fresh.failing()) >= 3
        for nodeid in tests:
            assert warm.results[nodeid].trace == fresh.results[nodeid].trace, nodeid
        assert all(fresh.results[n].trace.calls[0] for n in fresh.failing())  # traced, warm too
        screener.run({PRICES: corrupted})  # the whole suite: a fresh process, always
        assert screener.suite_runs == 1 and policy.warm_runs + policy.reimports == 1
    finally:
        screener.close()


def test_a_target_naming_its_tests_is_traced_in_those_alone_fresh_and_warm(chain):
    """Verification's rerun names the tests run 1 saw fail: a test that ran the target
    and passed then is rerun untraced (following every call slowed pyramid's rerun
    of 1,240 tests from 4 s to 15 s), and the named ones keep their traces."""
    wrong = original(chain).replace('return item["price"]', 'return item["price"] + 1')
    tests = [T + "test_order_total", T + "test_unit_price"]
    only = [TraceTarget(PRICES, UNIT_PRICE.first, UNIT_PRICE.last, frozenset(tests[:1]))]
    screener = warm_screener(chain)
    try:
        warm = screener.run({PRICES: wrong}, tests=tests, trace=only)
        assert screener.policy.warm_runs == 1
    finally:
        screener.close()
    for report in (traced(chain, wrong, tests, only), warm):
        assert report.failing() == set(tests)
        assert report.results[tests[0]].trace.hops == [3]
        assert report.results[tests[1]].trace is None  # failed, but not named


def two_bug_task(source: str, corrupted: str) -> Task:
    lines = changed_lines(source, corrupted)
    bugs = [
        BugRecord(
            target=f"chain.prices.{name}", file=PRICES, lines=[line], category="Algorithm",
            operator="swap_binop", effect=EffectRecord(graph_distance=7),
        )
        for name, line in zip(["unit_price", "discount"], lines, strict=True)
    ]  # fmt: skip
    return Task(
        task_id="chain.two", repo=RepoRef(name="chain", url="file:///chain", commit="0" * 40),
        mode="multi", kind="multi", corruptor="procedural", targets=[],
        difficulty=Difficulty(centrality_pct=50, complexity_pct=50, n_functions=2),
        corruption_patch="", fix_patch="", edit_script={PRICES: edit_script(source, corrupted)},
        bugs=bugs, tests=TestsRecord(
            command="pytest", fail_to_pass=[T + "test_order_total", T + "test_discounted"],
            pass_to_pass=[T + "test_unit_price"], baseline_seconds=0.1,
        ),
        problem_statement="", seed=0, engine_version="0", created_at="2026-11-28T00:00:00+00:00",
    )  # fmt: skip


def test_each_bug_of_a_two_bug_task_gets_its_own_effect(chain):
    source = original(chain)
    corrupted = source.replace('return item["price"]', 'return item["price"] + 1').replace(
        "return 1 - rate", "return 1 + rate"
    )
    task = two_bug_task(source, corrupted)
    sandbox, env, workspace = chain
    ran: list[str] = []

    def run(files, tests, targets):
        ran.append(files[PRICES])
        with workspace.patched(files):
            return run_tests(sandbox, env, workspace.path, select=list(tests), trace=targets)

    trace_effects(task, {PRICES: corrupted}, run)
    # each run has its bug alone: the other's ground-truth fix applied
    assert "+ 1" in ran[0] and "1 - rate" in ran[0]
    assert "+ 1" not in ran[1] and "1 + rate" in ran[1]
    price, rate = (bug.effect for bug in task.bugs)
    # test_discounted comes first by id and fails with either bug alone
    assert (price.test, price.function, price.hop_distance) == (
        T + "test_discounted",
        "test_discounted",
        4,
    )
    assert (rate.test, rate.function, rate.hop_distance) == (
        T + "test_discounted",
        "test_discounted",
        2,
    )
    assert price.exception == "AssertionError" and "7.5 == 5.5" in (price.message or "")
    assert price.graph_distance == 7 and price.hop_reason is None  # the static figure is kept
    assert task.difficulty.hops == 4


def test_older_records_keep_their_static_distance_as_such():
    old = EffectRecord.model_validate({"exception": "KeyError", "hop_distance": 2})
    assert (old.graph_distance, old.hop_distance) == (2, None)
    assert old.hop_reason == "recorded before effects were traced"
    again = EffectRecord.model_validate(old.model_dump())
    assert again == old


def test_a_bug_whose_first_tests_fail_only_with_another_gets_another_run(chain, monkeypatch):
    source = original(chain)
    corrupted = source.replace('return item["price"]', 'return item["price"] + 1').replace(
        "return 1 - rate", "return 1 + rate"
    )
    task = two_bug_task(source, corrupted)
    task.tests.fail_to_pass.append(T + "test_a_single_item")  # breaks with the price bug only
    monkeypatch.setattr(effects, "MAX_TRACED_TESTS", 1)
    sandbox, env, workspace = chain
    ran: list[list[str]] = []

    def run(files, tests, targets):
        ran.append(list(tests))
        with workspace.patched(files):
            return run_tests(sandbox, env, workspace.path, select=list(tests), trace=targets)

    trace_effects(task, {PRICES: corrupted}, run)
    price, rate = (bug.effect for bug in task.bugs)
    assert (price.test, price.hop_distance) == (T + "test_a_single_item", 3)
    assert (rate.test, rate.hop_distance) == (T + "test_discounted", 2)
    assert ran == [[T + "test_a_single_item"], [T + "test_a_single_item"], [T + "test_discounted"]]
