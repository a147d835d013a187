import datetime

import pytest

from conftest import DAY, usd
from minishop import (
    BulkTierDiscount,
    BuyXGetYFree,
    Coupon,
    FixedAmountDiscount,
    MemberDiscount,
    Money,
    PercentageDiscount,
    PricingEngine,
    ValidationError,
)
from minishop.pricing import RULE_TYPES, LineContext, PriceRule, normalize_coupon_code

MARCH_1 = datetime.date(2024, 3, 1)
MARCH_31 = datetime.date(2024, 3, 31)


def line(products, key, quantity=1, tier=None, on_date=None):
    return LineContext(products[key], quantity, tier, on_date)


def test_line_context(products):
    ctx = line(products, "book", 3)
    assert ctx.unit_price == usd("29.99")
    assert ctx.subtotal == usd("89.97")
    assert ctx.currency == "USD"
    with pytest.raises(ValidationError):
        line(products, "book", 0)


def test_price_rule_is_abstract():
    with pytest.raises(TypeError):
        PriceRule("x")


def test_rule_registry():
    assert RULE_TYPES == {
        "percentage": PercentageDiscount,
        "member": MemberDiscount,
        "fixed": FixedAmountDiscount,
        "bulk": BulkTierDiscount,
        "bogo": BuyXGetYFree,
    }
    assert BulkTierDiscount.type_name == "bulk"


@pytest.mark.parametrize(
    "key, quantity, percent, expected",
    [("book", 3, 10, "9.00"), ("book", 1, 10, "3.00"), ("coffee", 10, 10, "15.00"), ("kids", 1, "12.5", "1.56"),
     ("phones", 2, 100, "399.98"), ("ebook", 1, 0, "0")],
)
def test_percentage_discount(products, key, quantity, percent, expected):
    rule = PercentageDiscount("Spring", percent)
    assert rule.discount_for(line(products, key, quantity)) == usd(expected)


@pytest.mark.parametrize(
    "on_date, active",
    [(None, True), (MARCH_1, True), (DAY, True), (MARCH_31, True), (datetime.date(2024, 2, 29), False),
     (datetime.date(2024, 4, 1), False)],
)
def test_rule_date_window(products, on_date, active):
    rule = PercentageDiscount("March", 10, starts=MARCH_1, ends=MARCH_31)
    assert rule.is_active(on_date) is active
    expected = usd("3.00") if active else usd(0)
    assert rule.discount_for(line(products, "book", on_date=on_date)) == expected


def test_open_ended_windows():
    only_start = PercentageDiscount("From", 5, starts=MARCH_1)
    only_end = PercentageDiscount("Until", 5, ends=MARCH_1)
    assert only_start.is_active(datetime.date(2030, 1, 1)) is True
    assert only_start.is_active(datetime.date(2024, 2, 1)) is False
    assert only_end.is_active(datetime.date(2000, 1, 1)) is True
    assert only_end.is_active(datetime.date(2024, 3, 2)) is False


def test_rule_rejects_inverted_window():
    with pytest.raises(ValidationError):
        PercentageDiscount("Bad", 5, starts=MARCH_31, ends=MARCH_1)


@pytest.mark.parametrize(
    "key, expected", [("book", "3.00"), ("kids", "1.25"), ("ebook", "1.00"), ("coffee", "0"), ("phones", "0")]
)
def test_category_restricted_rule(products, categories, key, expected):
    rule = PercentageDiscount("Books", 10, category=categories["books"])
    assert rule.discount_for(line(products, key)) == usd(expected)


def test_category_rule_skips_uncategorised(categories):
    from minishop import PhysicalProduct

    loose = PhysicalProduct("AAA-0000-3", "Loose", usd(10))
    rule = PercentageDiscount("Books", 10, category=categories["books"])
    assert rule.discount_for(LineContext(loose, 1)) == usd(0)


def test_percentage_describe_and_repr():
    rule = PercentageDiscount("Spring", 10)
    assert rule.describe() == "Spring (10% off)"
    assert repr(rule) == "PercentageDiscount('Spring')"
    assert MemberDiscount("Gold", 5, ["gold"]).describe() == "Gold (5% off)"


@pytest.mark.parametrize(
    "tier, quantity, expected",
    [(None, 1, "0"), ("silver", 1, "0"), ("gold", 1, "1.50"), ("gold", 4, "6.00"), ("vip", 2, "3.00")],
)
def test_member_discount(products, tier, quantity, expected):
    rule = MemberDiscount("Gold", 5, tiers={"gold", "vip"})
    assert rule.stackable is True
    assert rule.discount_for(line(products, "book", quantity, tier)) == usd(expected)


def test_member_discount_still_checks_dates(products):
    rule = MemberDiscount("Gold", 5, tiers={"gold"}, ends=MARCH_1)
    assert rule.discount_for(line(products, "book", 1, "gold", DAY)) == usd(0)
    with pytest.raises(ValidationError):
        MemberDiscount("Nobody", 5, tiers=[])


@pytest.mark.parametrize(
    "key, quantity, expected",
    [("book", 2, "0"), ("book", 3, "6.00"), ("kids", 5, "10.00"), ("ebook", 4, "8.00")],
)
def test_fixed_amount_discount(products, key, quantity, expected):
    rule = FixedAmountDiscount("Two off", usd(2), min_quantity=3)
    assert rule.discount_for(line(products, key, quantity)) == usd(expected)


def test_fixed_amount_is_clamped_to_subtotal(products):
    rule = FixedAmountDiscount("Huge", usd(15))
    assert rule.discount_for(line(products, "ebook", 2)) == usd("19.98")
    assert rule.discount_for(line(products, "book", 2)) == usd("30.00")


def test_fixed_amount_requires_positive_money():
    with pytest.raises(ValidationError):
        FixedAmountDiscount("Zero", usd(0))
    with pytest.raises(ValidationError):
        FixedAmountDiscount("Number", 5)


@pytest.mark.parametrize(
    "quantity, percent", [(1, 0), (9, 0), (10, 5), (24, 5), (25, 10), (49, 10), (50, 15), (99, 15)]
)
def test_bulk_tier_percent(quantity, percent):
    rule = BulkTierDiscount("Bulk", [(50, 15), (10, 5), (25, 10)])
    assert rule.tier_percent(quantity) == percent


@pytest.mark.parametrize("quantity, expected", [(9, "0"), (10, "7.50"), (25, "37.50"), (60, "135.00")])
def test_bulk_tier_discount(products, quantity, expected):
    rule = BulkTierDiscount("Bulk", [(10, 5), (25, 10), (50, 15)])
    assert rule.discount_for(line(products, "coffee", quantity)) == usd(expected)


@pytest.mark.parametrize("tiers", [[], [(10, 5), (10, 6)], [(0, 5)], [(5, 101)]])
def test_bulk_tier_validation(tiers):
    with pytest.raises(ValidationError):
        BulkTierDiscount("Bulk", tiers)


@pytest.mark.parametrize(
    "buy, free, quantity, expected",
    [(2, 1, 1, 0), (2, 1, 2, 0), (2, 1, 3, 1), (2, 1, 5, 1), (2, 1, 6, 2), (2, 1, 7, 2), (1, 1, 2, 1),
     (1, 1, 3, 1), (1, 1, 4, 2), (3, 2, 4, 1), (3, 2, 5, 2), (3, 2, 9, 3)],
)
def test_buy_x_get_y_free_units(buy, free, quantity, expected):
    assert BuyXGetYFree("Deal", buy, free).free_units(quantity) == expected


@pytest.mark.parametrize("quantity, expected", [(2, "0"), (3, "15.00"), (6, "30.00"), (8, "30.00")])
def test_buy_x_get_y_free_discount(products, quantity, expected):
    rule = BuyXGetYFree("3 for 2", 2, 1)
    assert rule.discount_for(line(products, "coffee", quantity)) == usd(expected)


def test_engine_best_exclusive_wins(products):
    engine = PricingEngine([PercentageDiscount("Ten", 10), BulkTierDiscount("Bulk", [(10, 5), (50, 15)])])
    small = engine.price_line(line(products, "coffee", 10))
    assert small.discounts == [("Ten", usd("15.00"))]
    assert small.net == usd("135.00")
    big = engine.price_line(line(products, "coffee", 50))
    assert big.discounts == [("Bulk", usd("112.50"))]
    assert big.gross == usd("750.00")
    assert big.net == usd("637.50")


def test_engine_tie_keeps_first_rule(products):
    engine = PricingEngine([PercentageDiscount("A", 10), PercentageDiscount("B", 10)])
    assert engine.price_line(line(products, "book")).rule_names == ["A"]


def test_engine_stacks_member_discount(products):
    engine = PricingEngine([PercentageDiscount("Ten", 10), MemberDiscount("Gold", 5, ["gold"])])
    priced = engine.price_line(line(products, "coffee", 10, "gold"))
    assert priced.discounts == [("Ten", usd("15.00")), ("Gold", usd("7.50"))]
    assert priced.discount == usd("22.50")
    assert priced.net == usd("127.50")
    plain = engine.price_line(line(products, "coffee", 10))
    assert plain.discount == usd("15.00")


def test_engine_caps_stackable_at_remaining(products):
    engine = PricingEngine([PercentageDiscount("Ten", 10), MemberDiscount("Staff", 100, ["staff"])])
    priced = engine.price_line(line(products, "book", 1, "staff"))
    assert priced.discounts == [("Ten", usd("3.00")), ("Staff", usd("26.99"))]
    assert priced.net == usd(0)


def test_engine_skips_stackable_once_free(products):
    engine = PricingEngine([FixedAmountDiscount("Free", usd(50)), MemberDiscount("Gold", 5, ["gold"])])
    priced = engine.price_line(line(products, "ebook", 1, "gold"))
    assert priced.rule_names == ["Free"]
    assert priced.net == usd(0)


def test_engine_without_rules(products):
    priced = PricingEngine().price_line(line(products, "shirt", 2))
    assert priced.discounts == []
    assert priced.discount == usd(0)
    assert priced.net == usd("40.00")


def test_engine_price_lines_and_add_rule(products):
    engine = PricingEngine()
    rule = engine.add_rule(PercentageDiscount("Half", 50))
    assert engine.rules == [rule]
    nets = [p.net for p in engine.price_lines([line(products, "book"), line(products, "shirt", 3)])]
    assert nets == [usd("14.99"), usd("30.00")]
    with pytest.raises(TypeError):
        engine.add_rule("not a rule")


@pytest.mark.parametrize(
    "code, expected", [(" save-10 now ", "SAVE10NOW"), ("welcome", "WELCOME"), ("A-B-C", "ABC")]
)
def test_normalize_coupon_code(code, expected):
    assert normalize_coupon_code(code) == expected


@pytest.mark.parametrize(
    "kwargs, subtotal, expected",
    [
        ({"percent": 10}, "80", "8.00"),
        ({"percent": 10}, "0.05", "0.01"),
        ({"percent": "12.5"}, "19.99", "2.50"),
        ({"amount": usd(5)}, "30", "5"),
        ({"amount": usd(5)}, "3", "3"),
        ({"percent": 100}, "42.42", "42.42"),
    ],
)
def test_coupon_discount(kwargs, subtotal, expected):
    assert Coupon("X", **kwargs).discount(usd(subtotal)) == usd(expected)


@pytest.mark.parametrize(
    "kwargs, subtotal, on_date, reason",
    [
        ({"min_subtotal": usd(50)}, "49.99", None, "subtotal below $50.00"),
        ({"min_subtotal": usd(50)}, "50", None, None),
        ({"expires": DAY}, "10", DAY, None),
        ({"expires": DAY}, "10", datetime.date(2024, 3, 16), "expired"),
        ({"expires": DAY}, "10", None, None),
    ],
)
def test_coupon_check(kwargs, subtotal, on_date, reason):
    coupon = Coupon("SAVE10", percent=10, **kwargs)
    assert coupon.check(usd(subtotal), on_date) == reason


def test_coupon_wrong_currency():
    coupon = Coupon("EURO", amount=Money(5, "EUR"))
    assert coupon.check(usd(10)) == "wrong currency"


def test_coupon_redeem_counts_uses():
    coupon = Coupon("twice", percent=10, max_uses=2)
    assert coupon.redeem(usd(100)) == usd("10.00")
    assert coupon.redeem(usd(50)) == usd("5.00")
    assert coupon.uses == 2
    with pytest.raises(ValidationError) as info:
        coupon.redeem(usd(50))
    assert str(info.value) == "coupon: TWICE: used up"
    assert coupon.uses == 2


@pytest.mark.parametrize("kwargs", [{}, {"percent": 5, "amount": usd(5)}, {"percent": 150}, {"percent": 5, "max_uses": 0}])
def test_coupon_validation(kwargs):
    with pytest.raises(ValidationError):
        Coupon("BAD", **kwargs)


def test_engine_coupons():
    save = Coupon("save-10", percent=10)
    engine = PricingEngine(coupons=[save])
    assert engine.find_coupon("Save 10") is save
    assert engine.find_coupon("SAVE20") is None
    with pytest.raises(ValidationError):
        engine.register_coupon(Coupon("SAVE10", percent=5))


@pytest.mark.parametrize(
    "kwargs, subtotals, results",
    [
        ({"percent": 10}, ["100", "50"], ["10.00", "5.00"]),
        ({"percent": 10, "max_uses": 1}, ["100", "50"], ["10.00", None]),
        ({"amount": usd(5), "min_subtotal": usd(20)}, ["19.99", "20"], [None, "5"]),
        ({"amount": usd(5), "max_uses": 3}, ["4", "4", "4", "4"], ["4", "4", "4", None]),
        ({"percent": 25, "expires": DAY}, ["80", "80"], ["20.00", "20.00"]),
    ],
)
def test_coupon_redeem_sequences(kwargs, subtotals, results):
    coupon = Coupon("SEQ", **kwargs)
    uses = 0
    for subtotal, expected in zip(subtotals, results):
        if expected is None:
            with pytest.raises(ValidationError):
                coupon.redeem(usd(subtotal), DAY)
        else:
            assert coupon.redeem(usd(subtotal), DAY) == usd(expected)
            uses += 1
        assert coupon.uses == uses


@pytest.mark.parametrize(
    "rules, expected_net",
    [
        ([], "29.99"),
        ([PercentageDiscount("A", 10)], "26.99"),
        ([PercentageDiscount("A", 10), PercentageDiscount("B", 20)], "23.99"),
        ([FixedAmountDiscount("F", usd(1)), PercentageDiscount("A", 1)], "28.99"),
        ([MemberDiscount("M", 10, ["gold"]), PercentageDiscount("A", 10)], "23.99"),
    ],
)
def test_add_rule_sequence(products, rules, expected_net):
    engine = PricingEngine()
    for rule in rules:
        assert engine.add_rule(rule) is rule
    assert engine.rules == rules
    assert engine.price_line(line(products, "book", 1, "gold")).net == usd(expected_net)


@pytest.mark.parametrize("quantity", [1, 2, 3, 4, 9])
def test_below_first_tier_has_no_bulk_discount(products, quantity):
    rule = BulkTierDiscount("Bulk", [(10, 5), (25, 10)])
    assert rule.tier_percent(quantity) == 0
    assert rule.applies_to(line(products, "coffee", quantity)) is False
    assert rule.discount_for(line(products, "coffee", quantity)) == usd(0)


@pytest.mark.parametrize(
    "exclusive, member, expected",
    [
        (10, 50, [("Excl", "3.00"), ("Member", "15.00")]),
        (60, 50, [("Excl", "17.99"), ("Member", "12.00")]),
        (90, 20, [("Excl", "26.99"), ("Member", "3.00")]),
        (99, 5, [("Excl", "29.69"), ("Member", "0.30")]),
        (50, 100, [("Excl", "15.00"), ("Member", "14.99")]),
    ],
)
def test_stackable_capped_by_remaining_after_exclusive(products, exclusive, member, expected):
    engine = PricingEngine([PercentageDiscount("Excl", exclusive), MemberDiscount("Member", member, ["gold"])])
    priced = engine.price_line(line(products, "book", 1, "gold"))
    assert priced.discounts == [(name, usd(amount)) for name, amount in expected]
    assert priced.net >= usd(0)


@pytest.mark.parametrize(
    "percents, winner",
    [([5, 10, 15], "R2"), ([15, 10, 5], "R0"), ([5, 15, 10], "R1"), ([10, 10, 20], "R2"), ([20, 10, 20], "R0")],
)
def test_best_exclusive_picks_largest(products, percents, winner):
    engine = PricingEngine([PercentageDiscount("R%d" % i, p) for i, p in enumerate(percents)])
    rule, amount = engine.best_exclusive(line(products, "shirt", 5))
    assert rule.name == winner
    assert amount == usd(100).percentage(max(percents))
