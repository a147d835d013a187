import pytest

from conftest import BOOK, COFFEE, PHONES, SHIRT, usd

EXTRA = SHIRT
from minishop import EventBus, InsufficientStockError, Inventory, ValidationError
from minishop.events import EventCollector
from minishop.inventory import (
    StockLevel,
    days_of_cover,
    economic_order_quantity,
    reorder_point,
    safety_stock,
)


@pytest.fixture
def stock():
    inventory = Inventory()
    inventory.receive(BOOK, 10)
    inventory.receive(COFFEE, 5)
    inventory.receive(SHIRT, 2)
    return inventory


@pytest.mark.parametrize(
    "on_hand, reserved, point, quantity, needs, suggested",
    [
        (4, 0, 10, 25, True, 25),
        (10, 0, 10, 25, True, 25),
        (11, 0, 10, 25, False, 0),
        (20, 10, 10, 25, True, 25),
        (5, 0, 50, 20, True, 60),
        (0, 0, 0, 5, True, 5),
        (3, 0, 10, 0, False, 0),
        (30, 25, 14, 5, True, 10),
    ],
)
def test_stock_level_reorder(on_hand, reserved, point, quantity, needs, suggested):
    level = StockLevel("X", on_hand, point, quantity)
    level.reserved = reserved
    assert level.available == on_hand - reserved
    assert level.needs_reorder is needs
    assert level.suggested_order() == suggested


def test_stock_level_validation_and_repr():
    with pytest.raises(ValidationError):
        StockLevel("X", -1)
    assert repr(StockLevel("X", 3)) == "StockLevel(X, on_hand=3, reserved=0)"


def test_receive_accumulates_and_logs(stock):
    assert stock.receive(BOOK, 5) == 15
    assert stock.available(BOOK) == 15
    assert stock.ledger[-1] == (BOOK, 5, "receive")
    assert stock.available(PHONES) == 0


@pytest.mark.parametrize("quantity", [0, -3, 1.5])
def test_receive_rejects_bad_quantity(stock, quantity):
    with pytest.raises(ValidationError):
        stock.receive(BOOK, quantity)


def test_adjust(stock):
    assert stock.adjust(BOOK, -3, "damaged") == 7
    assert stock.adjust(BOOK, 2, "found") == 9
    assert stock.ledger[-2:] == [(BOOK, -3, "damaged"), (BOOK, 2, "found")]
    with pytest.raises(ValidationError):
        stock.adjust(BOOK, 0, "noop")


def test_adjust_cannot_drop_below_reserved(stock):
    stock.reserve("o1", {BOOK: 6})
    with pytest.raises(InsufficientStockError) as info:
        stock.adjust(BOOK, -5, "count")
    assert (info.value.sku, info.value.requested, info.value.available) == (BOOK, 5, 4)
    assert stock.adjust(BOOK, -4, "count") == 6


def test_reserve_reduces_availability(stock):
    made = stock.reserve("o1", {BOOK: 3, COFFEE: 5})
    assert [(r.sku, r.quantity) for r in made] == [(BOOK, 3), (COFFEE, 5)]
    assert stock.available(BOOK) == 7
    assert stock.available(COFFEE) == 0
    assert stock.level(BOOK).on_hand == 10
    assert repr(made[0]) == "Reservation(o1, BOK-0001-3 x3)"


def test_reserve_is_all_or_nothing(stock):
    with pytest.raises(InsufficientStockError) as info:
        stock.reserve("o1", {BOOK: 2, SHIRT: 3})
    assert str(info.value) == "CLO-0200-8: requested 3, available 2"
    assert stock.available(BOOK) == 10
    assert stock.reservations("o1") == []


def test_reserve_exactly_available(stock):
    stock.reserve("o1", {SHIRT: 2})
    assert stock.available(SHIRT) == 0
    with pytest.raises(InsufficientStockError):
        stock.reserve("o2", {SHIRT: 1})


def test_reserve_twice_for_same_order_rejected(stock):
    stock.reserve("o1", {BOOK: 1})
    with pytest.raises(ValidationError):
        stock.reserve("o1", {BOOK: 1})


def test_reserve_rejects_bad_quantity(stock):
    with pytest.raises(ValidationError):
        stock.reserve("o1", {BOOK: 0})


def test_release_returns_units(stock):
    stock.reserve("o1", {BOOK: 4, SHIRT: 1})
    assert stock.release("o1") == 5
    assert stock.available(BOOK) == 10
    assert stock.available(SHIRT) == 2
    assert stock.release("o1") == 0


def test_commit_removes_from_stock(stock):
    stock.reserve("o1", {BOOK: 4, COFFEE: 1})
    assert stock.commit("o1") == 5
    assert stock.level(BOOK).on_hand == 6
    assert stock.level(BOOK).reserved == 0
    assert stock.level(COFFEE).on_hand == 4
    assert stock.ledger[-1] == (COFFEE, -1, "commit:o1")
    with pytest.raises(ValidationError):
        stock.commit("o1")


def test_reservation_events_are_published():
    bus = EventBus()
    results = bus.subscribe("*", EventCollector("result"))
    inventory = Inventory(bus)
    inventory.receive(BOOK, 5)
    inventory.reserve("o1", {BOOK: 2})
    inventory.commit("o1")
    inventory.reserve("o2", {BOOK: 1})
    inventory.release("o2")
    assert [e.name for e in bus.history] == ["stock.reserved", "stock.committed", "stock.reserved", "stock.released"]
    assert results.seen[1] == 2
    assert results.seen[3] == 1
    assert [(r.order_id, r.quantity) for r in results.seen[2]] == [("o2", 1)]


def test_reorder_suggestions(stock):
    stock.set_policy(BOOK, 5, 20)
    stock.set_policy(COFFEE, 5, 12)
    stock.set_policy(SHIRT, 1, 10)
    assert stock.reorder_suggestions() == [(COFFEE, 12)]
    stock.reserve("o1", {BOOK: 6, SHIRT: 1})
    assert stock.reorder_suggestions() == [(BOOK, 20), (SHIRT, 10), (COFFEE, 12)]


def test_total_units(stock):
    stock.reserve("o1", {BOOK: 4})
    assert stock.total_units() == 17
    assert stock.total_units(include_reserved=False) == 13


def test_stock_value(stock, catalog):
    stock.receive("AAA-0000-3", 100)
    stock.receive(PHONES, 1)
    stock.adjust(PHONES, -1, "lost")
    # 10 * 29.99 + 5 * 15.00 + 2 * 20.00
    assert stock.stock_value(catalog) == usd("414.90")


@pytest.mark.parametrize(
    "sigma, lead, level, expected",
    [(10, 4, "0.95", 33), (5, 9, "0.99", 35), (0, 9, "0.95", 0), ("2.5", 16, "0.90", 13), (10, 4, "0.5", 0),
     (3, 1, "0.80", 3), (4, 25, "0.98", 41)],
)
def test_safety_stock(sigma, lead, level, expected):
    assert safety_stock(sigma, lead, level) == expected


def test_safety_stock_rejects_unknown_level():
    with pytest.raises(ValidationError):
        safety_stock(1, 1, "0.97")


@pytest.mark.parametrize(
    "demand, lead, safety, expected",
    [(12, 5, 10, 70), ("2.5", 3, 0, 8), (0, 10, 4, 4), ("1.2", "2.5", 0, 3), (7, 0, 2, 2)],
)
def test_reorder_point(demand, lead, safety, expected):
    assert reorder_point(demand, lead, safety) == expected


@pytest.mark.parametrize(
    "demand, cost, holding, expected",
    [(1000, 50, 2, 224), (1200, 100, 6, 200), (0, 50, 2, 0), (500, 0, 1, 0), (365, 10, "0.5", 121)],
)
def test_economic_order_quantity(demand, cost, holding, expected):
    assert economic_order_quantity(demand, cost, holding) == expected


def test_economic_order_quantity_requires_positive_holding_cost():
    with pytest.raises(ValidationError):
        economic_order_quantity(100, 10, 0)


@pytest.mark.parametrize(
    "on_hand, demand, expected", [(100, 7, 14), (100, 0, None), (5, "2.5", 2), (0, 3, 0), (99, 33, 3)]
)
def test_days_of_cover(on_hand, demand, expected):
    assert days_of_cover(on_hand, demand) == expected


@pytest.mark.parametrize(
    "policies, reserve, expected",
    [
        ({}, {}, []),
        ({BOOK: (10, 5)}, {}, [(BOOK, 5)]),
        ({SHIRT: (2, 3), COFFEE: (4, 10)}, {}, [(SHIRT, 3)]),
        ({BOOK: (20, 4), COFFEE: (5, 5)}, {}, [(BOOK, 12), (COFFEE, 5)]),
        ({BOOK: (100, 50), SHIRT: (100, 50), COFFEE: (100, 50)}, {}, [(BOOK, 100), (SHIRT, 100), (COFFEE, 100)]),
        ({BOOK: (3, 10)}, {BOOK: 8}, [(BOOK, 10)]),
        ({BOOK: (3, 10)}, {BOOK: 6}, []),
        ({COFFEE: (0, 6)}, {COFFEE: 5}, [(COFFEE, 6)]),
    ],
)
def test_reorder_suggestion_cases(stock, policies, reserve, expected):
    for sku, (point, quantity) in policies.items():
        level = stock.set_policy(sku, point, quantity)
        assert (level.reorder_point, level.reorder_quantity) == (point, quantity)
    if reserve:
        stock.reserve("r", reserve)
    assert stock.reorder_suggestions() == expected


@pytest.mark.parametrize("point, quantity", [(-1, 5), (5, -1), (1.5, 2), (2, "3")])
def test_set_policy_validation(stock, point, quantity):
    with pytest.raises(ValidationError):
        stock.set_policy(BOOK, point, quantity)


@pytest.mark.parametrize(
    "receive, reserve, commit, expected",
    [
        ({}, {}, False, "414.90"),
        ({PHONES: 2}, {}, False, "814.88"),
        ({}, {BOOK: 4}, False, "414.90"),
        ({}, {BOOK: 4}, True, "294.94"),
        ({COFFEE: 3, SHIRT: 1}, {SHIRT: 3}, True, "419.90"),
        ({"AAA-0000-3": 9}, {}, False, "414.90"),
    ],
)
def test_stock_value_cases(stock, catalog, receive, reserve, commit, expected):
    for sku, quantity in receive.items():
        stock.receive(sku, quantity)
    if reserve:
        stock.reserve("o", reserve)
    if commit:
        stock.commit("o")
    assert stock.stock_value(catalog) == usd(expected)


def test_stock_value_of_empty_inventory(catalog):
    assert Inventory().stock_value(catalog) == usd(0)


@pytest.mark.parametrize(
    "reserved, delta, result",
    [(0, -10, 0), (0, -11, None), (4, -6, 4), (4, -7, None), (10, 5, 15), (0, 1, 11)],
)
def test_adjust_cases(stock, reserved, delta, result):
    if reserved:
        stock.reserve("o", {BOOK: reserved})
    if result is None:
        with pytest.raises(InsufficientStockError):
            stock.adjust(BOOK, delta, "count")
        assert stock.level(BOOK).on_hand == 10
        assert len(stock.ledger) == 3
    else:
        assert stock.adjust(BOOK, delta, "count") == result
        assert stock.ledger[-1] == (BOOK, delta, "count")


@pytest.mark.parametrize("delta", [0, 1.0, "2", True])
def test_adjust_rejects_non_integer_delta(stock, delta):
    with pytest.raises(ValidationError):
        stock.adjust(BOOK, delta, "count")


@pytest.mark.parametrize(
    "items, units, on_hand",
    [
        ({BOOK: 1}, 1, {BOOK: 9, COFFEE: 5, SHIRT: 2}),
        ({BOOK: 10}, 10, {BOOK: 0, COFFEE: 5, SHIRT: 2}),
        ({COFFEE: 2, SHIRT: 2}, 4, {BOOK: 10, COFFEE: 3, SHIRT: 0}),
        ({BOOK: 3, COFFEE: 3, SHIRT: 1}, 7, {BOOK: 7, COFFEE: 2, SHIRT: 1}),
        ({SHIRT: 1}, 1, {BOOK: 10, COFFEE: 5, SHIRT: 1}),
    ],
)
def test_commit_cases(stock, items, units, on_hand):
    stock.reserve("o", items)
    assert stock.commit("o") == units
    assert {sku: stock.level(sku).on_hand for sku in on_hand} == on_hand
    assert all(stock.level(sku).reserved == 0 for sku in on_hand)
    assert stock.reservations("o") == []
    assert stock.total_units() == sum(on_hand.values())
    assert [entry[2] for entry in stock.ledger[3:]] == ["commit:o"] * len(items)


@pytest.mark.parametrize(
    "on_hand, point, quantity",
    [(0, 0, 0), (5, 2, 10), (100, 0, 1), (1, 1, 1), (7, 3, 0)],
)
def test_stock_level_init(on_hand, point, quantity):
    level = StockLevel("S", on_hand, point, quantity)
    assert (level.sku, level.on_hand, level.reserved) == ("S", on_hand, 0)
    assert (level.reorder_point, level.reorder_quantity) == (point, quantity)
    assert level.available == on_hand


@pytest.mark.parametrize(
    "point, quantity, on_hand, expected",
    [(10, 5, 5, 10), (10, 5, 10, 5), (20, 10, 0, 30), (6, 3, 3, 6), (12, 4, 0, 16), (9, 3, 6, 6), (7, 7, 0, 14)],
)
def test_suggested_order_climbs_above_reorder_point(point, quantity, on_hand, expected):
    level = StockLevel("S", on_hand, point, quantity)
    assert level.suggested_order() == expected
    assert level.available + expected > point


@pytest.mark.parametrize(
    "sigma, lead, level, expected",
    [(10, 9, "0.95", 50), (2, 4, "0.90", 6), (1, 16, "0.99", 10), (6, 2, "0.95", 15), (8, 0, "0.99", 0)],
)
def test_safety_stock_scales_with_root_of_lead_time(sigma, lead, level, expected):
    assert safety_stock(sigma, lead, level) == expected


@pytest.mark.parametrize(
    "demand, cost, holding, expected",
    [(100, 10, 5, 20), (800, 25, 4, 100), (50, 2, "0.25", 29), (10000, 30, 15, 200), (3, 3, 9, 2)],
)
def test_economic_order_quantity_more(demand, cost, holding, expected):
    assert economic_order_quantity(demand, cost, holding) == expected


@pytest.mark.parametrize("holding", [0, -1, "-0.5", "0.00", -100])
def test_economic_order_quantity_rejects_non_positive_holding(holding):
    with pytest.raises(ValidationError):
        economic_order_quantity(100, 10, holding)


@pytest.mark.parametrize(
    "on_hand, demand, expected",
    [(10, "0.5", 20), (7, 2, 3), (1, 4, 0), (365, "1.5", 243), (12, 12, 1)],
)
def test_days_of_cover_more(on_hand, demand, expected):
    assert days_of_cover(on_hand, demand) == expected


@pytest.mark.parametrize(
    "reserved, delta",
    [(1, -9), (2, -8), (5, -5), (9, -1), (10, -1)],
)
def test_adjust_boundary_at_reserved(stock, reserved, delta):
    stock.reserve("o", {BOOK: reserved})
    if 10 + delta < reserved:
        with pytest.raises(InsufficientStockError):
            stock.adjust(BOOK, delta, "count")
    else:
        assert stock.adjust(BOOK, delta, "count") == 10 + delta
        assert stock.available(BOOK) == 10 + delta - reserved


@pytest.mark.parametrize(
    "receive, expected",
    [({PHONES: 1}, "614.89"), ({"BOK-0002-0": 1}, "427.40"), ({EXTRA: 1}, "434.90"), ({PHONES: 1, EXTRA: 1}, "634.89"),
     ({"BOK-0002-0": 1, PHONES: 1}, "627.39")],
)
def test_stock_value_counts_single_units(stock, catalog, receive, expected):
    for sku, quantity in receive.items():
        stock.receive(sku, quantity)
    assert stock.stock_value(catalog) == usd(expected)


@pytest.mark.parametrize("holding", [0, 0.0, "0", "0.000", "-0"])
def test_economic_order_quantity_zero_holding_is_a_validation_error(holding):
    with pytest.raises(ValidationError, match="holding_cost"):
        economic_order_quantity(100, 10, holding)


@pytest.mark.parametrize(
    "demand, cost, holding, expected",
    [(1, 1, 2, 1), (1, 50, 1, 10), (50, 1, 1, 10), (1, 8, 1, 4), (18, 1, 1, 6)],
)
def test_economic_order_quantity_small_inputs(demand, cost, holding, expected):
    assert economic_order_quantity(demand, cost, holding) == expected


@pytest.mark.parametrize("on_hand, expected", [(0, 0), (1, 1), (5, 5), (30, 30), (365, 365)])
def test_days_of_cover_with_unit_demand(on_hand, expected):
    assert days_of_cover(on_hand, 1) == expected


@pytest.mark.parametrize("point, quantity", [(0, 0), (0, 5), (5, 0), (0, 1), (1, 0)])
def test_set_policy_accepts_zero(stock, point, quantity):
    level = stock.set_policy(SHIRT, point, quantity)
    assert (level.reorder_point, level.reorder_quantity) == (point, quantity)


@pytest.mark.parametrize("sku, expected", [(BOOK, 11), (COFFEE, 6), (SHIRT, 3), (PHONES, 1), ("AAA-0000-3", 1)])
def test_adjust_by_one(stock, sku, expected):
    assert stock.adjust(sku, 1, "found") == expected
    assert stock.ledger[-1] == (sku, 1, "found")


@pytest.mark.parametrize("order_id", ["x", "o1", "o2", "", "missing"])
def test_commit_without_reservation(stock, order_id):
    with pytest.raises(ValidationError, match="no reservation for"):
        stock.commit(order_id)


def test_stock_value_with_one_unit_of_each(catalog):
    stock = Inventory()
    for product in catalog:
        stock.receive(product.code, 1)
    # 29.99 + 12.50 + 53.99 + 20.00 + 9.99 + 199.99 + 15.00
    assert stock.stock_value(catalog) == usd("341.46")
