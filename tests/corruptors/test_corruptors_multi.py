"""Multi-function composition checked with real pytest runs on the inventory fixture."""

from __future__ import annotations

import pytest
from corrupt_screener import CORE, core_source, inventory, replace_once  # noqa: F401

from corrupt.corruptors.models import (
    Bug,
    Corruption,
    CorruptionOutcome,
    CorruptionRequest,
    FileChange,
    Rejection,
    RejectionKind,
    TargetSource,
)
from corrupt.corruptors.multi import MultiCorruptor, compose

SOURCE = core_source()


def member(target: str, old: str, new: str, *, failing: list[str] | None = None) -> Corruption:
    corrupted = replace_once(SOURCE, old, new)
    line = SOURCE[: SOURCE.index(old)].count("\n") + 1
    return Corruption(
        kind="adversarial",
        corruptor=f"procedural:{target}",
        targets=[f"inventory.core.{target}"],
        files={CORE: FileChange(original=SOURCE, corrupted=corrupted)},
        bugs=[Bug(f"inventory.core.{target}", CORE, [line], "Checking", "s", "op")],
        stats={"failing": failing} if failing is not None else {},
    )


def clamp_low():
    return member("clamp", "        return low\n", "        return value\n")


def take_more():
    return member(
        "Warehouse.take", "taken = min(available, amount)", "taken = max(available, amount)"
    )


def parse_swap():
    return member(
        "parse_line", "return sku.strip(), int(quantity)", "return sku.strip(), int(quantity) + 1"
    )


def line_doubled():
    return member(
        "line_total", "return item.price * item.quantity", "return item.price * item.quantity * 2"
    )


def total_halved():
    return member("total_price", "total += line_total(item)", "total += line_total(item) / 2")


MEMBERS = {
    "clamp_low": clamp_low,
    "take_more": take_more,
    "parse_swap": parse_swap,
    "line_doubled": line_doubled,
    "total_halved": total_halved,
}


@pytest.fixture(scope="module")
def known(inventory):  # noqa: F811
    """Each member with the failing tests it causes alone, as a build would carry them."""
    screener, passing = inventory

    def with_failing(make) -> Corruption:
        corruption = make()
        report = screener({CORE: corruption.files[CORE].corrupted}, None, None)
        corruption.stats["failing"] = sorted(report.failing() & passing)
        return corruption

    return {name: with_failing(make) for name, make in MEMBERS.items()}


def test_two_members_compose_with_lines_in_composite_numbering(inventory):  # noqa: F811
    screener, passing = inventory
    # A member whose edit adds a line shifts the later member's line numbers.
    grow = member("clamp", "        return low\n", "        low = value\n        return low\n")
    runs = screener.runs
    result = compose([grow, take_more()], screener, passing, min_failing=3)
    assert isinstance(result, Corruption), result
    assert (
        screener.runs - runs == 3
    )  # each member alone, then the composite (k=2: no leave-one-out)
    assert result.kind == "multi"
    assert result.corruptor == "multi:procedural:clamp+procedural:Warehouse.take"
    corrupted = result.files[CORE].corrupted.splitlines()
    lines = [b.lines for b in result.bugs]
    assert [corrupted[n - 1].strip() for n in lines[0]] == ["low = value"]
    assert [corrupted[n - 1].strip() for n in lines[1]] == ["taken = max(available, amount)"]
    assert result.files[CORE].original == SOURCE
    failing = set(result.stats["failing"])
    assert any("clamp" in t for t in failing) and any("take" in t for t in failing)


def test_known_member_failures_are_not_rerun(inventory, known):  # noqa: F811
    screener, passing = inventory
    members = [known["clamp_low"], known["parse_swap"]]
    runs = screener.runs
    result = compose(members, screener, passing, min_failing=3)
    assert isinstance(result, Corruption), result
    assert screener.runs - runs == 1  # only the composite
    assert result.stats["members_failing"] == [m.stats["failing"] for m in members]
    assert set(result.stats["failing"]) == set().union(*result.stats["members_failing"])


def test_three_members_check_every_leave_one_out(inventory, known):  # noqa: F811
    screener, passing = inventory
    members = [known["clamp_low"], known["take_more"], known["parse_swap"]]
    runs = screener.runs
    result = compose(members, screener, passing, min_failing=3)
    assert isinstance(result, Corruption), result
    assert screener.runs - runs == 1 + 3
    assert all(result.stats["leave_one_out_failing"])
    assert len(result.bugs) == 3 and result.targets[2] == "inventory.core.parse_line"


def test_masking_members_are_rejected(inventory, known):  # noqa: F811
    """Doubling each line total and halving it in the sum cancel out: undoing clamp passes."""
    screener, passing = inventory
    members = [known["clamp_low"], known["line_doubled"], known["total_halved"]]
    assert all(m.stats["failing"] for m in members)  # each one alone is detected
    result = compose(members, screener, passing, min_failing=2)
    assert result == Rejection(
        RejectionKind.NOT_COMPOSABLE,
        "undoing member 0 alone leaves no failing test: the other members mask each other",
    )


def test_too_few_composite_failures(inventory, known):  # noqa: F811
    screener, passing = inventory
    members = [known["clamp_low"], known["parse_swap"]]
    result = compose(members, screener, passing, min_failing=20)
    assert isinstance(result, Rejection) and result.kind == RejectionKind.NO_SURVIVOR
    assert result.detail.startswith("the composite fails")
    assert result.detail.endswith("previously passing test(s), 20 needed")


def test_member_that_fails_nothing(inventory):  # noqa: F811
    screener, passing = inventory
    harmless = member("clamp", "if value < low:", "if value <= low:")
    result = compose([harmless, parse_swap()], screener, passing)
    assert result == Rejection(
        RejectionKind.NOT_COMPOSABLE,
        "member 0 (inventory.core.clamp) fails no previously passing test alone",
    )


def unfit(detail: str) -> Rejection:
    return Rejection(RejectionKind.NOT_COMPOSABLE, detail)


def test_edits_too_close_and_other_structural_problems(inventory):  # noqa: F811
    screener, passing = inventory
    runs = screener.runs
    # clamp's last line and line_total's body are 5 lines apart.
    late_clamp = member("clamp", "    return value\n", "    return -value\n")
    body = member("line_total", "return item.price * item.quantity", "return item.price")
    assert compose([late_clamp, body], screener, passing, min_stride=6) == unfit(
        f"edits of members 0 and 1 in {CORE} are 5 line(s) apart, 6 needed"
    )
    assert compose([clamp_low()], screener, passing) == unfit(
        "a composition needs at least two members"
    )
    assert compose([clamp_low(), clamp_low()], screener, passing) == unfit(
        "members corrupt the same function twice"
    )
    other = member(
        "parse_line", "return sku.strip(), int(quantity)", "return sku.strip(), int(quantity) + 1"
    )
    other.files[CORE] = FileChange(original=SOURCE + "\n", corrupted=other.files[CORE].corrupted)
    assert compose([clamp_low(), other], screener, passing) == unfit(
        f"members start from different versions of {CORE}"
    )
    assert screener.runs == runs  # structural problems are found without running tests


def test_the_multi_corruptor_asks_for_each_member_then_composes(inventory, known):  # noqa: F811
    screener, passing = inventory
    found = {"inventory.core.clamp": known["clamp_low"], "inventory.core.parse_line": None}
    asked: list[str] = []

    def search(target: TargetSource, _screener) -> CorruptionOutcome:
        asked.append(target.qualname)
        corruption = found[target.qualname]
        if corruption is None:
            why = Rejection(RejectionKind.NO_SURVIVOR, "no surviving mutant")
            return CorruptionOutcome(target.qualname, rejection=why)
        return CorruptionOutcome(target.qualname, corruption=corruption)

    def targets(*names: str) -> tuple[TargetSource, ...]:
        return tuple(TargetSource(CORE, f"inventory.core.{n}", 1, SOURCE) for n in names)

    multi = MultiCorruptor(search)
    refused = multi.corrupt(
        CorruptionRequest(targets("clamp", "parse_line"), frozenset(passing)), screener
    )
    assert refused.corruption is None
    assert refused.rejection == Rejection(
        RejectionKind.MEMBER, "member inventory.core.parse_line: no surviving mutant"
    )
    found["inventory.core.parse_line"] = known["parse_swap"]
    asked.clear()
    request = CorruptionRequest(targets("clamp", "parse_line"), frozenset(passing), min_failing=3)
    composed = multi.corrupt(request, screener)
    assert asked == ["inventory.core.clamp", "inventory.core.parse_line"]
    assert composed.rejection is None and composed.corruption is not None
    assert composed.corruption.kind == "multi"
    assert composed.corruption.targets == ["inventory.core.clamp", "inventory.core.parse_line"]
