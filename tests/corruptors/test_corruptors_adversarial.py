"""Adversarial search on the inventory fixture: real operators, real pytest screening."""

from __future__ import annotations

import dataclasses

import pytest
from corrupt_screener import (  # noqa: F401
    CORE,
    core_source,
    def_line,
    inventory,
    replace_once,
    request,
)

from corrupt.corruptors.adversarial import _losing_failures, _Survivor, adversarial_search
from corrupt.corruptors.models import Mutant, Rejection, RejectionKind
from corrupt.corruptors.operators import CATALOGUE
from corrupt.corruptors.screening import (
    SIZE_WEIGHT,
    FrameNames,
    Screening,
    _moved_rows,
    hop_distance,
    resume,
    screen,
    subtlety,
)
from corrupt.corruptors.validate import tells
from corrupt.repos.models import Frame, TestReport, TestResult

SOURCE = core_source()


def covering(passing: set[str], *words: str) -> list[str]:
    return sorted(t for t in passing if any(w in t for w in words))


def search(inventory, name, qualname, words, min_failing=5, seed=0, **options):  # noqa: F811
    screener, passing = inventory
    asked = request(
        SOURCE,
        CORE,
        qualname,
        def_line(SOURCE, name),
        covering(passing, *words),
        passing,
        min_failing=min_failing,
        seed=seed,
    )
    return adversarial_search(asked, screener, **options)


def test_finds_a_qualifying_mutant_within_a_bounded_number_of_runs(inventory):  # noqa: F811
    screener, passing = inventory
    before = screener.runs
    options = dict(min_failing=2, seed=3, max_candidates=8, enough=2, rank_runs=2)
    outcome = search(inventory, "clamp", "inventory.core.clamp", ["clamp", "discount"], **options)
    runs = screener.runs - before
    assert outcome.screened <= 8 and runs <= outcome.screened + 2
    corruption = outcome.corruption
    assert corruption is not None, outcome.rejection
    bug = corruption.bugs[0]
    assert corruption.kind == "adversarial" and corruption.targets == ["inventory.core.clamp"]
    assert corruption.corruptor == f"procedural:{bug.operator}" and bug.operator in CATALOGUE
    operator = CATALOGUE[bug.operator]
    assert (bug.category, bug.subcategory) == (operator.odc_category, operator.odc_subcategory)
    corrupted = corruption.files[CORE].corrupted
    assert corruption.files[CORE].original == SOURCE and corrupted != SOURCE
    assert all(15 <= line <= 19 for line in bug.lines)  # inside clamp's body
    assert not tells(SOURCE, corrupted)

    failing = corruption.stats["failing"]
    assert len(failing) >= 2 and set(failing) <= passing
    assert corruption.stats["exact"]  # re-run without a budget to rank it
    assert bug.effect.exception and bug.effect.manifest_frames

    # The failures it reports are real: the full suite on the corrupted file fails them.
    report = screener({CORE: corrupted}, None, None)
    assert set(failing) <= report.failing()

    # Every survivor it kept is at least as subtle as a runner-up.
    scores = [s["score"] for s in corruption.stats["survivors"]]
    assert all(corruption.stats["score"] <= s for s in scores)
    outcomes = {t["outcome"] for t in outcome.tried}
    assert outcomes <= {"survivor", "too few failing", "rejected", "timeout", "screen error"}


def test_same_seed_same_search(inventory):  # noqa: F811
    options = dict(min_failing=2, seed=11, max_candidates=3, enough=1, rank_runs=0)
    words = ["take"]
    first = search(inventory, "take", "inventory.core.Warehouse.take", words, **options)
    second = search(inventory, "take", "inventory.core.Warehouse.take", words, **options)
    assert first.tried == second.tried
    assert first.rejection == second.rejection
    assert (first.corruption is None) == (second.corruption is None)
    if first.corruption:
        assert first.corruption.files == second.corruption.files


def test_tells_are_rejected_before_any_run(inventory):  # noqa: F811
    """Swapping in a variable assigned later reads an undefined name: pyflakes sees it unrun."""
    screener, passing = inventory
    before = screener.runs
    outcome = search(
        inventory,
        "parse_line",
        "inventory.core.parse_line",
        ["parse"],
        operators=["wrong_variable"],
    )
    assert outcome.candidates == len(outcome.tried) >= 1
    assert all(t["outcome"] == "rejected" for t in outcome.tried)
    assert all("UndefinedName" in t["reason"] for t in outcome.tried)
    assert outcome.rejection == Rejection(
        RejectionKind.NO_VALID_MUTANT, "no valid mutant: every candidate was a no-op or left a tell"
    )
    assert screener.runs == before and outcome.screened == 0


def test_no_surviving_mutant_is_an_outcome(inventory):  # noqa: F811
    outcome = search(
        inventory,
        "low_stock",
        "inventory.core.low_stock",
        ["low_stock"],
        min_failing=50,
        max_candidates=2,
    )
    assert outcome.corruption is None and outcome.screened == 2
    assert outcome.rejection is not None and outcome.rejection.kind == RejectionKind.NO_SURVIVOR
    assert str(outcome.rejection).startswith("no surviving mutant: 2 screened, the best failed ")
    assert str(outcome.rejection).endswith("previously passing test(s), 50 needed")


def test_bad_targets_are_outcomes(inventory):  # noqa: F811
    screener, passing = inventory
    before = screener.runs
    untested = search(inventory, "clamp", "inventory.core.clamp", ["no-such-test"])
    assert untested.corruption is None
    assert untested.rejection == Rejection(RejectionKind.NO_COVERING_TESTS, "no covering tests")

    def outcome(source, file, qualname, line):
        return adversarial_search(
            request(source, file, qualname, line, sorted(passing), passing), screener
        )

    missing = outcome(SOURCE, CORE, "inventory.core.gone", 3)
    assert missing.rejection == Rejection(
        RejectionKind.NOT_FOUND, f"target inventory.core.gone not found at {CORE}:3"
    )
    nothing = outcome("def idle():\n    pass\n", "idle.py", "idle", 1)
    assert nothing.rejection == Rejection(
        RejectionKind.NO_MUTANTS, "no mutants: no operator applies to this function"
    )
    broken = outcome("def f(:\n", "f.py", "f", 1)
    assert broken.rejection is not None and broken.rejection.kind == RejectionKind.NOT_FOUND
    assert str(broken.rejection).startswith("f.py does not parse")
    assert screener.runs == before


def test_tells():
    source = "def f(a):\n    b = a + 1\n    return b\n"
    assert tells(source, source.replace("return b", "return a")) == [
        "adds pyflakes findings: UnusedVariable('b',)"
    ]
    assert tells(source, source.replace("return b", "return c")) == [
        "adds pyflakes findings: UndefinedName('c',), UnusedVariable('b',)"
    ]
    assert tells(source, source.replace("return b", "return b  # was a")) == ["comment added"]
    assert tells(source, source.replace("a + 1", "a - 1")) == []


def _failure(exc_type: str, frames: list[Frame]) -> TestResult:
    return TestResult("t", "failed", exc_type=exc_type, message="m", frames=frames)


def _screening(results: list[TestResult], ran: int) -> Screening:
    named = {f"t{i}": r for i, r in enumerate(results)}
    report = TestReport(results=named, duration=0.0, exit_code=1)
    return Screening(sorted(named), ran, True, report=report)


def test_subtlety_prefers_fewer_failures_assertions_and_distance():
    names = FrameNames(CORE, SOURCE, "inventory.core.clamp", def_line(SOURCE, "clamp"))
    test_frame = Frame("tests/test_core.py", 10, "test_clamp")
    in_clamp = Frame(CORE, 16, "clamp")
    quiet = _failure("AssertionError", [test_frame])
    crash = _failure("ZeroDivisionError", [test_frame, in_clamp])

    def score(results, ran=10, size=1):
        return subtlety(_screening(results, ran), size, names, None).score

    assert score([quiet] * 2) < score([quiet] * 5)  # fewer of the covering tests fail
    assert score([quiet] * 2) < score([crash] * 2)  # a wrong value beats a crash
    assert score([quiet] * 2) < score([quiet] * 2, size=4)  # a smaller edit breaks ties
    visible = _failure("AssertionError", [test_frame, in_clamp])
    assert score([quiet] * 2) < score([visible] * 2)  # the target is not in the traceback


def test_hop_distance_resolves_frames_to_qualified_names():
    names = FrameNames(CORE, SOURCE, "inventory.core.line_total", def_line(SOURCE, "line_total"))
    assert names.span == (22, 24)
    take = Frame(CORE, def_line(SOURCE, "take") + 3, "take")
    assert names(take) == "inventory.core.Warehouse.take"
    assert names(Frame("src/pkg/mod.py", 3, "helper")) == "pkg.mod.helper"
    total = Frame(CORE, def_line(SOURCE, "total_price") + 4, "total_price")
    test = Frame("tests/test_core.py", 14, "test_total_price_sums_quantities")
    assert hop_distance([test, total], names, {"inventory.core.total_price": 1}) == 1
    seen = []
    assert hop_distance([test, total], names, lambda q: seen.extend(q) or 2) == 2
    assert seen == [
        "tests.test_core.test_total_price_sums_quantities",
        "inventory.core.total_price",
    ]
    inside = Frame(CORE, 24, "line_total")
    assert hop_distance([test, inside], names, None) == 0
    assert hop_distance([test], names, None) is None


@pytest.mark.parametrize("seed", [0, 1])
def test_round_robin_order_is_seeded(seed):
    from corrupt.corruptors.adversarial import _round_robin
    from corrupt.corruptors.operators import generate_mutants

    mutants = generate_mutants(
        SOURCE, CORE, "inventory.core.clamp", def_line(SOURCE, "clamp"), seed=seed
    )
    first = [(m.operator, m.lines) for m in _round_robin(mutants, seed)]
    again = [(m.operator, m.lines) for m in _round_robin(list(mutants), seed)]
    assert first == again and len(first) == len(mutants)
    operators = {m.operator for m in mutants}
    assert len({op for op, _ in first[: len(operators)]}) == len(operators)  # one of each first


def _survivor(failures: int, ran: int, exact: bool, lines: int = 1) -> _Survivor:
    quiet = _failure("AssertionError", [Frame("tests/test_core.py", 10, "test_clamp")])
    mutant = Mutant("clamp", CORE, "op", "Checking", "", "", SOURCE, SOURCE, list(range(lines)))
    result = dataclasses.replace(_screening([quiet] * failures, ran), exact=exact)
    names = FrameNames(CORE, SOURCE, "inventory.core.clamp", def_line(SOURCE, "clamp"))
    return _Survivor(mutant, result, names, [])


def test_a_rerun_stops_where_its_survivor_can_no_longer_be_chosen():
    """Only against a survivor measured exactly: a truncated score may still fall."""
    measured, top = _survivor(30, 200, exact=True), _survivor(5, 200, exact=False, lines=2)
    assert _losing_failures(top, [top], None) is None
    assert _losing_failures(top, [top, _survivor(9, 200, exact=False)], None) is None
    budget = _losing_failures(top, [top, measured], None)
    assert budget is not None
    best = measured.subtlety(None).score
    # with ``budget`` failures it scores worse however few crash or show the target;
    # with one fewer it might not
    assert budget / 200 + SIZE_WEIGHT * 2 > best >= (budget - 1) / 200 + SIZE_WEIGHT * 2
    assert _survivor(budget, 200, True, 2).subtlety(None).score > best


def test_a_run_cut_short_is_carried_on_with_the_tests_it_did_not_reach(inventory):  # noqa: F811
    screener, passing = inventory
    files = {
        CORE: replace_once(SOURCE, "item.price * item.quantity", "item.price * item.quantity * 2")
    }
    tests = covering(passing, "total_price", "parse_line")
    full = screen(screener, files, tests, passing, None)
    assert full.exact and len(full.failing) >= 4
    cut = screen(screener, files, tests, passing, 2)
    assert not cut.exact and len(cut.failing) == 2

    asked: list[tuple[list[str], int | None]] = []

    class Recording:
        runs = 0

        def __call__(self, files, selected, budget):
            asked.append((list(selected), budget))
            return screener(files, selected, budget)

    carried = resume(Recording(), files, tests, cut, passing, None)
    assert carried.exact and carried.failing == full.failing
    assert carried.report is not None and set(carried.report.results) == set(tests)
    ran, budget = asked[-1]
    assert budget is None and sorted(ran) == sorted(set(tests) - set(cut.report.results))

    # A budget counts the failures of both parts.
    stopped = resume(Recording(), files, tests, cut, passing, 3)
    assert asked[-1][1] == 1 and not stopped.exact and len(stopped.failing) == 3


def test_frame_names_of_a_mutant_agree_with_parsing_it():
    """Told from the original's functions (moved by the lines a mutant adds or removes)."""
    from corrupt.corruptors.operators import generate_mutants

    targets = [("clamp", "inventory.core.clamp"), ("take", "inventory.core.Warehouse.take")]
    variants = []
    for name, qualname in targets:
        line = def_line(SOURCE, name)
        variants += [
            (m.corrupted, qualname, line) for m in generate_mutants(SOURCE, CORE, qualname, line)
        ]
    clamp = def_line(SOURCE, "clamp")
    variants += [
        (
            replace_once(SOURCE, "    if value > high:\n        return high\n", ""),
            "inventory.core.clamp",
            clamp,
        ),
        (
            replace_once(SOURCE, "    return value\n", "    value += 0\n    return value\n"),
            "inventory.core.clamp",
            clamp,
        ),
        (
            replace_once(
                SOURCE, "    return value\n", "    def inner():\n        pass\n    return value\n"
            ),
            "inventory.core.clamp",
            clamp,
        ),
    ]
    assert any(len(v[0].splitlines()) != len(SOURCE.splitlines()) for v in variants)
    for corrupted, qualname, line in variants:
        # the original's table is reused unless the mutant defines a function of its own
        assert (_moved_rows(SOURCE, corrupted, line, qualname) is None) == (
            "def inner" in corrupted
        )
        told = FrameNames(CORE, corrupted, qualname, line, original=SOURCE)
        parsed = FrameNames(CORE, corrupted, qualname, line)
        assert (told.functions, told.span, told.prefix) == (
            parsed.functions,
            parsed.span,
            parsed.prefix,
        )
