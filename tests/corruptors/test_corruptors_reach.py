"""Which covering tests screen a mutant: those that ran the statement it changes."""

from __future__ import annotations

import ast
import dataclasses

import pytest
from corrupt_screener import CORE, core_source, def_line, inventory, replace_once  # noqa: F401

from corrupt.corruptors.adversarial import adversarial_search
from corrupt.corruptors.models import CorruptionRequest, TargetSource
from corrupt.corruptors.operators import generate_mutants
from corrupt.corruptors.reach import ran_outside_tests, reaching_tests
from corrupt.corruptors.screening import screen
from corrupt.repos.coverage import LineTests
from corrupt.source.functions import function_at
from corrupt.suites.baseline import compute_baseline

SOURCE = core_source()
TOTAL = def_line(SOURCE, "total_price")  # body: lines 28-34, the discount on 32-33
COVERING = ("t_plain", "t_empty", "t_half", "t_quarter")
LINES = LineTests(
    tests={
        29: COVERING,
        30: COVERING,
        31: ("t_plain",),
        32: COVERING,
        33: ("t_half", "t_quarter"),
        34: COVERING,
    }
)


def reach(corrupted: str, lines: LineTests | None = LINES, source: str = SOURCE) -> list[str]:
    return reaching_tests(source, corrupted, TOTAL, "inventory.core.total_price", COVERING, lines)


def test_only_the_tests_that_ran_the_changed_statement_screen_it():
    assert reach(replace_once(SOURCE, "(1 - clamp(", "(2 - clamp(")) == ["t_half", "t_quarter"]
    assert reach(replace_once(SOURCE, "total += line_total", "total -= line_total")) == ["t_plain"]
    # the loop's header ran for every covering test
    assert reach(replace_once(SOURCE, "for item in items:", "for item in items[1:]:")) == list(
        COVERING
    )


def test_a_statement_no_test_ran_is_screened_by_none():
    lines = LineTests({n: t for n, t in LINES.tests.items() if n != 33})
    assert reach(replace_once(SOURCE, "(1 - clamp(", "(2 - clamp("), lines) == []


def test_a_line_without_a_record_of_its_own_counts_through_its_statement():
    """``(1 +\\n 2)`` folds into one constant on the first line: only that line runs."""
    source = replace_once(SOURCE, "    total = 0.0\n", "    total = (0.0 +\n             0.0)\n")
    lines = LineTests({29: ("t_empty",)})  # what coverage records: line 30 never runs
    corrupted = replace_once(source, "             0.0)", "             1.0)")
    assert reaching_tests(source, corrupted, TOTAL, "total_price", COVERING, lines) == ["t_empty"]


@pytest.mark.parametrize(
    "old, new, why",
    [
        ("    total = 0.0\n", "    total = 0.0\n    total = 0.0\n", "between two all ran"),
        ("total += line_total(item)", "totals = line_total(item)", "a new local"),
        ("total += line_total(item)", "yield line_total(item)", "now a generator"),
        ("def total_price(items, discount=0.0):", "def total_price(items, discount=0.5):", "def"),
        ('"""Sum of price times', '"""Sum of prices times', "the docstring: no code"),
    ],
)
def test_every_covering_test_screens_what_a_statement_cannot_contain(old, new, why):
    assert reach(replace_once(SOURCE, old, new)) == list(COVERING), why


def test_a_statement_that_ran_outside_any_test_reaches_them_all():
    """Code run at import or collection built what tests that never ran it use."""
    mutant = replace_once(SOURCE, "(1 - clamp(", "(2 - clamp(")
    assert reach(mutant, dataclasses.replace(LINES, outside=frozenset({33}))) == list(COVERING)
    assert reach(mutant, None) == list(COVERING)  # no line coverage at all


def test_the_search_finds_the_same_mutant_running_fewer_tests(inventory):  # noqa: F811
    """On the real baseline's coverage: every mutant's outcome as with all covering tests."""
    screener, passing = inventory
    baseline = compute_baseline(
        screener.workspace.checkout, screener.sandbox, screener.env,
        cache_dir=screener.workspace.path.parent / "baseline-cache",
    )  # fmt: skip
    assert 33 not in baseline.outside_tests[CORE] and TOTAL in baseline.outside_tests[CORE]
    lines = LineTests.of(baseline, CORE, TOTAL, TOTAL + 7)
    covering = tuple(t for t in sorted(passing) if "total_price" in t)
    results = []
    for line_tests in (None, lines):
        target = TargetSource(
            CORE, "inventory.core.total_price", TOTAL, SOURCE, covering, line_tests=line_tests
        )
        request = CorruptionRequest((target,), frozenset(passing), min_failing=2, seed=1)
        outcome = adversarial_search(request, screener, max_candidates=12, enough=3)
        results.append(outcome)
    everything, reached = results
    assert reached.corruption is not None
    assert [{k: v for k, v in e.items() if k != "reached"} for e in everything.tried] == [
        {k: v for k, v in e.items() if k != "reached"} for e in reached.tried
    ]
    assert everything.corruption == reached.corruption
    assert all(e["reached"] == len(covering) for e in everything.tried if "reached" in e)
    assert any(e["reached"] < len(covering) for e in reached.tried if "reached" in e)


def test_a_method_is_checked_on_its_own_lines():
    """A method's text compiles on its own (indented); a new local in it still counts."""
    take = def_line(SOURCE, "take")
    lines = LineTests({n: ("t_take",) for n in range(take + 2, take + 6)})

    def reach_take(old: str, new: str) -> list[str]:
        mutant = replace_once(SOURCE, old, new)
        return reaching_tests(SOURCE, mutant, take, "Warehouse.take", ("t_take", "t_x"), lines)

    assert reach_take("taken = min(available, amount)", "taken = max(available, amount)") == [
        "t_take"
    ]
    assert reach_take("taken = min(available, amount)", "takes = min(available, amount)") == [
        "t_take",
        "t_x",
    ]


def test_what_ran_outside_any_test_is_told_by_statement():
    mutant = replace_once(SOURCE, "(1 - clamp(", "(2 - clamp(")
    assert not ran_outside_tests(SOURCE, mutant, {TOTAL, 1, 3})  # def lines ran at import
    assert ran_outside_tests(SOURCE, mutant, {TOTAL, 33})
    # module-level code may always have
    assert ran_outside_tests(
        SOURCE, replace_once(SOURCE, "quantity: int = 1", "quantity: int = 2"), ()
    )


def test_a_change_that_adds_or_removes_lines_is_told_by_the_statements_around_it():
    split = replace_once(SOURCE, "(1 - clamp(", "(\n1 - clamp(")  # line 33 becomes two
    assert not ran_outside_tests(SOURCE, split, {TOTAL, 32})  # the if's test ran, not its body
    assert ran_outside_tests(SOURCE, split, {TOTAL, 33})
    dropped = replace_once(
        SOURCE, "    if discount:\n        total = total * (1 - clamp(discount, 0.0, 1.0))\n", ""
    )
    assert not ran_outside_tests(SOURCE, dropped, {TOTAL, 29, 30, 31, 34})
    assert ran_outside_tests(SOURCE, dropped, {TOTAL, 33})
    # a statement put between two others runs only if one of them did
    added = replace_once(
        SOURCE, "    return round(total, 2)\n", "    total += 1\n    return round(total, 2)\n"
    )
    assert not ran_outside_tests(SOURCE, added, {TOTAL})
    assert ran_outside_tests(SOURCE, added, {TOTAL, 34})
    assert ran_outside_tests(SOURCE, added, {TOTAL, 33})  # the end of the if's body, before it
    # first in a block: it runs if the block's first statement did, whatever its header did
    opened = replace_once(SOURCE, "    if discount:\n", "    if discount:\n        total += 1\n")
    assert not ran_outside_tests(SOURCE, opened, {TOTAL, 32})
    assert ran_outside_tests(SOURCE, opened, {TOTAL, 33})
    # at the top of a body, the def beside it ran at import: the first statement tells
    first = replace_once(SOURCE, '    """Sum of price', '    total = 1\n    """Sum of price')
    assert not ran_outside_tests(SOURCE, first, {TOTAL})
    assert ran_outside_tests(SOURCE, first, {TOTAL, 28})
    # blank lines and comments removed between statements change nothing that runs
    assert not ran_outside_tests(
        SOURCE, replace_once(SOURCE, "\n\n\ndef parse_line", "\ndef parse_line"), {TOTAL, 1, 3, 29}
    )


def test_a_change_that_adds_or_removes_lines_reaches_the_tests_that_ran_where_it_is():
    # put last in the loop's body: it runs after the statement before it
    looped = replace_once(
        SOURCE, "        total += line_total(item)\n", "        total += line_total(item)\n" * 2
    )
    assert reach(looped) == ["t_plain"]
    discounted = "        total = total * (1 - clamp(discount, 0.0, 1.0))\n"
    assert reach(replace_once(SOURCE, discounted, "        total -= 1\n" + discounted)) == [
        "t_half",
        "t_quarter",
    ]
    guarded = "        if total:\n    " + discounted  # a statement wrapped in a new guard
    assert reach(replace_once(SOURCE, discounted, guarded)) == ["t_half", "t_quarter"]
    split = replace_once(SOURCE, "(1 - clamp(", "(\n            1 - clamp(")
    assert reach(split) == []  # one statement on two lines: nothing else runs
    # the whole if removed: reached through its test, which every covering test ran
    assert reach(replace_once(SOURCE, "    if discount:\n" + discounted, "")) == list(COVERING)
    # taken out of its block, it runs wherever the if ran: as many tests as the if
    moved_out = replace_once(SOURCE, discounted, "        pass\n" + discounted[4:])
    assert reach(moved_out) == list(COVERING)


def test_a_statement_put_between_two_reaches_the_tests_that_ran_both():
    lines = LineTests({**LINES.tests, 32: ("t_plain", "t_half", "t_quarter")})
    before_return = replace_once(SOURCE, "    return round(", "    total += 1\n    return round(")
    assert reach(before_return, lines) == ["t_plain", "t_half", "t_quarter"]
    # a new else: nothing of it ran before, so the if's tests stand for it
    new_else = replace_once(
        SOURCE,
        "clamp(discount, 0.0, 1.0))\n",
        "clamp(discount, 0.0, 1.0))\n    else:\n        total += 1\n",
    )
    assert reach(new_else, lines) == ["t_plain", "t_half", "t_quarter"]
    # a change outside the function, besides one in it: not told
    both = replace_once(
        replace_once(before_return, "(1 - clamp(", "(2 - clamp("), "low, high", "low, top"
    )
    assert reach(both, lines) == list(COVERING)


def test_every_mutant_that_adds_or_removes_lines_fails_the_same_tests_on_those_it_reaches(
    inventory,  # noqa: F811
):
    """On the real baseline's coverage: running only the reached tests loses no failure."""
    screener, passing = inventory
    baseline = compute_baseline(
        screener.workspace.checkout, screener.sandbox, screener.env,
        cache_dir=screener.workspace.path.parent / "baseline-cache",
    )  # fmt: skip
    fewer = 0
    for name in ("total_price", "Warehouse.load", "Warehouse.restock", "clamp", "Warehouse.take"):
        line = def_line(SOURCE, name.rsplit(".", 1)[-1])
        qualname = f"inventory.core.{name}"
        mutants = [
            m
            for m in generate_mutants(SOURCE, CORE, qualname, line, seed=0)
            if m.corrupted.count("\n") != SOURCE.count("\n")
        ]
        assert mutants, name
        function = function_at(ast.parse(SOURCE), line, qualname)
        assert function is not None and function.end_lineno is not None
        lines = LineTests.of(baseline, CORE, line, function.end_lineno)
        covering = sorted({t for tests in lines.tests.values() for t in tests} & passing)
        for mutant in mutants:
            reached = reaching_tests(SOURCE, mutant.corrupted, line, qualname, covering, lines)
            every = screen(screener, {CORE: mutant.corrupted}, covering, passing, None)
            some = screen(screener, {CORE: mutant.corrupted}, reached, passing, None)
            assert some.failing == every.failing, (qualname, mutant.description)
            fewer += len(reached) < len(covering)
    assert fewer >= 3


def test_a_handler_is_compared_inside_while_its_exception_stays():
    source = (
        "def f(x):\n"
        "    try:\n"
        "        y = g(x)\n"
        "        z = 1\n"
        "    except ValueError:\n"
        "        y = 0\n"
        "        z = 2\n"
        "    return y + z\n"
    )
    lines = LineTests(
        {2: ("a", "b"), 3: ("a", "b"), 4: ("a",), 6: ("b",), 7: ("b",), 8: ("a", "b")}
    )

    def reach_f(old: str, new: str) -> list[str]:
        return reaching_tests(source, replace_once(source, old, new), 1, "f", ("a", "b"), lines)

    assert reach_f("        z = 2\n", "") == ["b"]
    assert reach_f("        z = 1\n", "") == ["a"]
    assert reach_f("except ValueError:", "except TypeError:") == ["a", "b"]
