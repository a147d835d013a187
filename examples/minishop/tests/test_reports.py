import datetime
from decimal import Decimal

import pytest

from conftest import BOOK, COFFEE, DAY, KIDS, PHONES, usd
from minishop import Order, OrderStatus
from minishop import reports
from minishop.orders import OrderLine

D1 = DAY + datetime.timedelta(days=1)
D3 = DAY + datetime.timedelta(days=3)


def build(order_id, lines, shipping, tax, placed_on):
    return Order(order_id, [OrderLine(*line) for line in lines], usd(shipping), usd(tax), placed_on=placed_on)


@pytest.fixture
def orders():
    o1 = build("o1", [(BOOK, "Book", 2, usd("29.99"), usd("6.00"), "books"),
                      (COFFEE, "Coffee", 1, usd(15), None, "food")], 10, 5, DAY)
    o1.pay(DAY, o1.total)
    o2 = build("o2", [(PHONES, "Phones", 1, usd("199.99"), None, "electronics/audio")], 0, "14.50", D1)
    o2.pay(D1, o2.total)
    o2.ship(D1, "T")
    o2.deliver(D3)
    o3 = build("o3", [(BOOK, "Book", 1, usd("29.99"), None, "books")], 5, 0, D1)
    o4 = build("o4", [(KIDS, "Kids", 4, usd("12.50"), None, "books/children")], 0, 0, DAY)
    o4.pay(DAY, o4.total)
    o4.refund_line(KIDS, 1, D1)
    o5 = build("o5", [(COFFEE, "Coffee", 3, usd(15), None, "food")], 0, 0, D3)
    o5.cancel(D3)
    return [o1, o2, o3, o4, o5]


def test_counted_orders(orders):
    assert [o.order_id for o in reports.counted_orders(orders)] == ["o1", "o2", "o4"]
    assert [o.order_id for o in reports.counted_orders(orders, start=D1)] == ["o2"]
    assert [o.order_id for o in reports.counted_orders(orders, end=DAY)] == ["o1", "o4"]
    assert reports.counted_orders(orders, start=D3) == []


def test_counted_orders_skips_undated_when_filtering(orders):
    orders[0].placed_on = None
    assert [o.order_id for o in reports.counted_orders(orders)] == ["o1", "o2", "o4"]
    assert [o.order_id for o in reports.counted_orders(orders, start=DAY)] == ["o2", "o4"]
    assert [o.order_id for o in reports.counted_orders(orders, end=D3)] == ["o2", "o4"]


def test_sales_summary(orders):
    assert reports.sales_summary(orders) == {
        "orders": 3,
        "items": 8,
        "gross": usd("348.47"),
        "refunds": usd("12.50"),
        "net": usd("335.97"),
        "average_order": usd("116.16"),
        "shipping": usd("10.00"),
        "tax": usd("19.50"),
    }


@pytest.mark.parametrize(
    "start, end, count, gross, average",
    [(D1, None, 1, "214.49", "214.49"), (None, DAY, 2, "133.98", "66.99"), (D3, None, 0, "0", "0"),
     (DAY, D1, 3, "348.47", "116.16")],
)
def test_sales_summary_windows(orders, start, end, count, gross, average):
    summary = reports.sales_summary(orders, start=start, end=end)
    assert summary["orders"] == count
    assert summary["gross"] == usd(gross)
    assert summary["average_order"] == usd(average)


def test_revenue_by_day(orders):
    result = reports.revenue_by_day(orders)
    assert result == {DAY: usd("121.48"), D1: usd("214.49")}
    assert list(result) == [DAY, D1]


def test_line_totals(orders):
    assert reports.line_totals(orders) == {
        BOOK: (2, usd("53.98")),
        COFFEE: (1, usd("15.00")),
        PHONES: (1, usd("199.99")),
        KIDS: (3, usd("37.50")),
    }


def test_line_totals_skip_fully_refunded_lines(orders):
    orders[3].refund_line(KIDS, 3, D3)
    assert KIDS not in reports.line_totals(orders)


def test_line_totals_accumulate_across_orders(orders):
    orders[2].pay(D1, orders[2].total)
    assert reports.line_totals(orders)[BOOK] == (3, usd("83.97"))


@pytest.mark.parametrize(
    "limit, by, expected",
    [
        (5, "revenue", [PHONES, BOOK, KIDS, COFFEE]),
        (2, "revenue", [PHONES, BOOK]),
        (5, "units", [KIDS, BOOK, PHONES, COFFEE]),
        (1, "units", [KIDS]),
        (0, "units", []),
    ],
)
def test_top_products(orders, limit, by, expected):
    assert [row[0] for row in reports.top_products(orders, limit, by)] == expected


def test_top_products_rows(orders):
    assert reports.top_products(orders, 2) == [(PHONES, 1, usd("199.99")), (BOOK, 2, usd("53.98"))]
    with pytest.raises(ValueError):
        reports.top_products(orders, by="margin")


@pytest.mark.parametrize(
    "depth, expected",
    [
        (1, {"books": "91.48", "electronics": "199.99", "food": "15.00"}),
        (2, {"books": "53.98", "books/children": "37.50", "electronics/audio": "199.99", "food": "15.00"}),
    ],
)
def test_revenue_by_category(orders, depth, expected):
    result = reports.revenue_by_category(orders, depth=depth)
    assert result == {key: usd(value) for key, value in expected.items()}
    assert list(result) == sorted(expected)


def test_revenue_by_category_uncategorised():
    order = build("x", [(BOOK, "Book", 1, usd(10), None, "")], 0, 0, DAY)
    order.pay(DAY, order.total)
    assert reports.revenue_by_category([order]) == {"uncategorised": usd(10)}


def test_refund_rate(orders):
    assert reports.refund_rate(orders) == Decimal("3.59")
    assert reports.refund_rate([]) == Decimal("0.00")
    assert reports.refund_rate(orders[2:3]) == Decimal("0.00")


def test_status_breakdown(orders):
    assert reports.status_breakdown(orders) == {
        "pending": 1,
        "paid": 2,
        "shipped": 0,
        "delivered": 1,
        "cancelled": 1,
        "refunded": 0,
    }


@pytest.mark.parametrize(
    "values, window, expected",
    [
        ([1, 2, 3, 4, 5], 2, ["1.50", "2.50", "3.50", "4.50"]),
        ([1, 2, 3, 4, 5], 3, ["2.00", "3.00", "4.00"]),
        ([1, 2, 3, 4, 5], 5, ["3.00"]),
        ([1, 2, 3], 4, []),
        (["1.5", "2.5"], 1, ["1.50", "2.50"]),
        ([10, 0, 0, 10], 2, ["5.00", "0.00", "5.00"]),
    ],
)
def test_moving_average(values, window, expected):
    assert [str(v) for v in reports.moving_average(values, window)] == expected


def test_moving_average_rejects_zero_window():
    with pytest.raises(ValueError):
        reports.moving_average([1], 0)


@pytest.mark.parametrize(
    "old, new, expected",
    [(100, 110, "10.0"), (usd(80), usd(60), "-25.0"), (0, 5, None), (-50, -25, "50.0"), (3, 4, "33.3"),
     (usd(3), usd(1), "-66.7")],
)
def test_percent_change(old, new, expected):
    result = reports.percent_change(old, new)
    assert (str(result) if result is not None else None) == expected


def test_format_table():
    text = reports.format_table([["Book", 2, "$53.98"], ["Headphones", 10, "$199.99"]], ["Product", "Units", "Revenue"])
    assert text.splitlines() == [
        "Product     Units  Revenue",
        "----------  -----  -------",
        "Book            2   $53.98",
        "Headphones     10  $199.99",
    ]


def test_format_table_header_only():
    assert reports.format_table([], ["A", "Bee"]) == "A  Bee\n-  ---"


@pytest.mark.parametrize(
    "refunds, expected",
    [
        ([], "3.59"),
        ([(0, "10")], "6.46"),
        ([(1, "214.49")], "65.14"),
        ([(0, "83.98"), (1, "214.49"), (3, "37.50")], "100.00"),
        ([(3, "1.00")], "3.87"),
    ],
)
def test_refund_rate_cases(orders, refunds, expected):
    for index, amount in refunds:
        orders[index].refund(usd(amount), "x", D3)
    assert reports.refund_rate(orders) == Decimal(expected)


@pytest.mark.parametrize(
    "actions, expected",
    [
        ([], (1, 2, 0, 1, 1, 0)),
        ([("pay", 2)], (0, 3, 0, 1, 1, 0)),
        ([("cancel", 2)], (0, 2, 0, 1, 2, 0)),
        ([("ship", 0)], (1, 1, 1, 1, 1, 0)),
        ([("refund", 3)], (1, 1, 0, 1, 1, 1)),
        ([("refund", 1), ("ship", 0)], (1, 1, 1, 0, 1, 1)),
    ],
)
def test_status_breakdown_cases(orders, actions, expected):
    for action, index in actions:
        order = orders[index]
        if action == "pay":
            order.pay(D3, order.total)
        elif action == "cancel":
            order.cancel(D3)
        elif action == "ship":
            order.ship(D3, "T")
        else:
            order.refund(order.refundable_amount(), "all", D3)
    counts = reports.status_breakdown(orders)
    assert tuple(counts.values()) == expected
    assert list(counts) == ["pending", "paid", "shipped", "delivered", "cancelled", "refunded"]


@pytest.mark.parametrize(
    "rows, headers, expected",
    [
        ([["a", "1"]], ["Name", "N"], ["Name  N", "----  -", "a     1"]),
        ([["x", "-5"], ["yy", "10"]], ["K", "Value"], ["K   Value", "--  -----", "x      -5", "yy     10"]),
        ([["1.5", "b"]], ["Num", "Txt"], ["Num  Txt", "---  ---", "1.5  b"]),
        ([["\u20ac3", "n/a"]], ["Price", "Note"], ["Price  Note", "-----  ----", "   \u20ac3  n/a"]),
        ([["1.2.3", "v"]], ["Ver", "X"], ["Ver    X", "-----  -", "1.2.3  v"]),
        ([[7, 8]], ["A", "B"], ["A  B", "-  -", "7  8"]),
    ],
)
def test_format_table_cases(rows, headers, expected):
    assert reports.format_table(rows, headers).splitlines() == expected


@pytest.mark.parametrize(
    "refund_kids, depth, expected",
    [
        (0, 1, {"books": "91.48", "electronics": "199.99", "food": "15.00"}),
        (1, 1, {"books": "78.98", "electronics": "199.99", "food": "15.00"}),
        (3, 1, {"books": "53.98", "electronics": "199.99", "food": "15.00"}),
        (2, 2, {"books": "53.98", "books/children": "12.50", "electronics/audio": "199.99", "food": "15.00"}),
        (0, 3, {"books": "53.98", "books/children": "37.50", "electronics/audio": "199.99", "food": "15.00"}),
    ],
)
def test_revenue_by_category_cases(orders, refund_kids, depth, expected):
    if refund_kids:
        orders[3].refund_line(KIDS, refund_kids, D3)
    result = reports.revenue_by_category(orders, depth=depth)
    assert result == {key: usd(value) for key, value in expected.items()}


@pytest.mark.parametrize(
    "values, window, expected",
    [
        ([4, 8, 15], 1, ["4.00", "8.00", "15.00"]),
        ([2, 4, 6, 8], 2, ["3.00", "5.00", "7.00"]),
        ([5, 5, 5, 5, 5, 5], 3, ["5.00", "5.00", "5.00", "5.00"]),
        ([1, 1, 1, 9], 2, ["1.00", "1.00", "5.00"]),
        ([3, 0, 3, 0, 3], 2, ["1.50", "1.50", "1.50", "1.50"]),
    ],
)
def test_moving_average_drops_old_values(values, window, expected):
    assert [str(v) for v in reports.moving_average(values, window)] == expected


@pytest.mark.parametrize(
    "refunds, net",
    [([], "335.97"), ([(0, "10")], "325.97"), ([(1, "100")], "235.97"), ([(0, "1"), (1, "2")], "332.97"),
     ([(3, "37.50")], "298.47")],
)
def test_sales_summary_net_after_refunds(orders, refunds, net):
    for index, amount in refunds:
        orders[index].refund(usd(amount), "x", D3)
    summary = reports.sales_summary(orders)
    assert summary["net"] == usd(net)
    assert summary["gross"] - summary["refunds"] == usd(net)


@pytest.mark.parametrize(
    "refund_quantity, book_units, in_categories",
    [(0, 2, True), (1, 1, True), (2, None, False), (1, 1, True), (2, None, False)],
)
def test_fully_refunded_lines_drop_out(orders, refund_quantity, book_units, in_categories):
    o1 = orders[0]
    if refund_quantity:
        o1.refund_line(BOOK, refund_quantity, D3)
    totals = reports.line_totals(orders)
    assert (totals[BOOK][0] if BOOK in totals else None) == book_units
    by_category = reports.revenue_by_category(orders, depth=2)
    assert ("books" in by_category) is in_categories


@pytest.mark.parametrize("values", [[], [1], [1, 2, 3], ["5"], [0, 0]])
def test_moving_average_zero_window(values):
    with pytest.raises(ValueError):
        reports.moving_average(values, 0)


@pytest.mark.parametrize(
    "old, new, expected",
    [(1, 2, "100.0"), (2, 1, "-50.0"), (usd(0), usd(1), None), (usd("0.00"), usd(0), None), (8, 8, "0.0")],
)
def test_percent_change_more(old, new, expected):
    result = reports.percent_change(old, new)
    assert (str(result) if result is not None else None) == expected


@pytest.mark.parametrize("sku, quantity, order_index", [(KIDS, 4, 3), (BOOK, 2, 0), (COFFEE, 1, 0), (PHONES, 1, 1),
                                                         (BOOK, 2, 0)])
def test_fully_refunded_sku_disappears(orders, sku, quantity, order_index):
    order = orders[order_index]
    target = next(l for l in order.lines if l.sku == sku)
    order.refund_line(sku, target.quantity - target.refunded_quantity, D3)
    assert target.refunded_quantity == quantity
    assert sku not in reports.line_totals(orders)
    assert sku not in [row[0] for row in reports.top_products(orders)]
    assert all(not value.is_zero for value in reports.revenue_by_category(orders, depth=2).values())


@pytest.mark.parametrize("skus, expected", [
    (["C-3", "A-1", "B-2"], ["A-1", "B-2", "C-3"]),
    (["B-2", "A-1"], ["A-1", "B-2"]),
    (["Z", "Y", "X", "W"], ["W", "X", "Y", "Z"]),
    (["b", "a"], ["a", "b"]),
    (["M", "K", "L"], ["K", "L", "M"]),
])
def test_top_products_ties_sorted_by_sku(skus, expected):
    orders = []
    for index, sku in enumerate(skus):
        order = Order("t%d" % index, [OrderLine(sku, "Same", 2, usd(5))], usd(0), usd(0), placed_on=DAY)
        order.pay(DAY, order.total)
        orders.append(order)
    assert [row[0] for row in reports.top_products(orders, by="revenue")] == expected
    assert [row[0] for row in reports.top_products(orders, by="units")] == expected


@pytest.mark.parametrize("values", [[1], [1, 2], [5, 6, 7], ["2.5"], [0, 0, 0]])
def test_moving_average_window_one_is_identity(values):
    assert reports.moving_average(values, 1) == [Decimal(str(v)).quantize(Decimal("0.01")) for v in values]


@pytest.mark.parametrize("old, new, expected", [(1, 1, "0.0"), (1, 3, "200.0"), (4, 1, "-75.0"), (-1, 1, "200.0"),
                                                (usd(1), usd("1.5"), "50.0")])
def test_percent_change_from_one(old, new, expected):
    assert str(reports.percent_change(old, new)) == expected
