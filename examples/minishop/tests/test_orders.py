import datetime

import pytest

from conftest import BOOK, COFFEE, DAY, EBOOK, usd
from minishop import (
    Cart,
    Coupon,
    EventBus,
    InsufficientStockError,
    Inventory,
    Order,
    OrderStatus,
    PercentageDiscount,
    PricingEngine,
    ValidationError,
    cancel_order,
    fulfil_order,
    place_order,
)
from minishop.orders import TRANSITIONS, InvalidTransitionError, OrderLine

D1 = DAY + datetime.timedelta(days=1)
D3 = DAY + datetime.timedelta(days=3)
D6 = DAY + datetime.timedelta(days=6)


def make_order(bus=None, email=None):
    lines = [
        OrderLine(BOOK, "Python Basics", 2, usd("29.99"), usd("6.00"), "books"),
        OrderLine(COFFEE, "Coffee Beans", 1, usd("15.00"), category_path="food"),
    ]
    return Order("A-1", lines, usd("10.00"), usd("5.00"), placed_on=DAY, email=email, bus=bus)


@pytest.fixture
def order():
    return make_order()


@pytest.fixture
def shop_cart(products, categories):
    engine = PricingEngine([PercentageDiscount("Books10", 10, category=categories["books"])],
                           [Coupon("TENOFF", percent=10, max_uses=1)])
    cart = Cart(pricing=engine, on_date=DAY)
    cart.add(products["book"], 2)
    cart.add(products["coffee"])
    return cart


@pytest.fixture
def inventory():
    stock = Inventory()
    stock.receive(BOOK, 5)
    stock.receive(COFFEE, 1)
    return stock


def test_order_line_amounts():
    line = OrderLine(BOOK, "Book", 3, usd(10), usd(1))
    assert line.gross == usd(30)
    assert line.net == usd(29)
    assert line.refundable_quantity == 3
    assert [line.net_for(q) for q in (1, 2, 3)] == [usd("9.67"), usd("19.33"), usd("29.00")]
    assert repr(line) == "OrderLine(BOK-0001-3 x3)"
    assert OrderLine(BOOK, "Book", 1, usd(5)).discount == usd(0)


def test_order_totals(order):
    assert order.subtotal == usd("68.98")
    assert order.total == usd("83.98")
    assert order.item_count == 3
    assert order.refunded_total == usd(0)
    assert order.net_total == usd("83.98")
    assert order.status is OrderStatus.PENDING
    assert order.history == [(OrderStatus.PENDING, DAY)]


def test_order_validation():
    with pytest.raises(ValidationError):
        Order("A-1", [], usd(0), usd(0))
    with pytest.raises(ValidationError):
        Order(" ", [OrderLine(BOOK, "Book", 1, usd(5))], usd(0), usd(0))
    assert make_order(email="Ann@Example.com").email == "Ann@example.com"
    with pytest.raises(ValidationError):
        make_order(email="not-an-email")


def test_transition_table_is_a_proper_lifecycle():
    assert TRANSITIONS[OrderStatus.PENDING] == {OrderStatus.PAID, OrderStatus.CANCELLED}
    assert TRANSITIONS[OrderStatus.CANCELLED] == set()
    assert TRANSITIONS[OrderStatus.REFUNDED] == set()
    assert OrderStatus.CANCELLED not in TRANSITIONS[OrderStatus.SHIPPED]


def test_happy_path(order):
    assert order.pay(D1, usd("83.98")) == usd("83.98")
    assert order.status is OrderStatus.PAID
    assert order.paid_on == D1
    assert order.ship(D3, " 1z999 ") == "1Z999"
    assert order.deliver(D6) == 3
    assert [s.value for s, _ in order.history] == ["pending", "paid", "shipped", "delivered"]
    assert [d for _, d in order.history] == [DAY, D1, D3, D6]


def test_pay_requires_exact_amount(order):
    with pytest.raises(ValidationError, match="expected \\$83.98, got \\$83.97"):
        order.pay(D1, usd("83.97"))
    assert order.status is OrderStatus.PENDING
    assert len(order.history) == 1


@pytest.mark.parametrize(
    "steps, action",
    [
        ([], "ship"),
        ([], "deliver"),
        (["pay"], "deliver"),
        (["pay", "ship"], "cancel"),
        (["cancel"], "pay"),
        (["pay", "ship", "deliver"], "ship"),
    ],
)
def test_invalid_transitions(order, steps, action):
    calls = {
        "pay": lambda: order.pay(D1, order.total),
        "ship": lambda: order.ship(D3, "T1"),
        "deliver": lambda: order.deliver(D6),
        "cancel": lambda: order.cancel(D1),
    }
    for step in steps:
        calls[step]()
    before = order.status
    with pytest.raises(InvalidTransitionError) as info:
        calls[action]()
    assert order.status is before
    assert info.value.current is before


def test_invalid_transition_message(order):
    with pytest.raises(InvalidTransitionError, match="cannot go from pending to delivered"):
        order.deliver(D1)


def test_cancel_returns_reason(order):
    assert order.cancel(D1) == "customer request"
    assert order.status is OrderStatus.CANCELLED
    assert order.refundable_amount() == usd(0)


def test_status_on(order):
    order.pay(D1, order.total)
    order.ship(D3, "T1")
    assert order.status_on(DAY) is OrderStatus.PENDING
    assert order.status_on(D1 + datetime.timedelta(days=1)) is OrderStatus.PAID
    assert order.status_on(D3) is OrderStatus.SHIPPED
    assert order.status_on(DAY - datetime.timedelta(days=1)) is None


def test_partial_refund_then_full(order):
    order.pay(D1, order.total)
    assert order.refund(usd("20.00"), "damaged", D3) == usd("63.98")
    assert order.status is OrderStatus.PAID
    assert order.refundable_amount() == usd("63.98")
    assert order.refund(usd("63.98"), "return", D6) == usd(0)
    assert order.status is OrderStatus.REFUNDED
    assert order.net_total == usd(0)
    assert order.history[-1] == (OrderStatus.REFUNDED, D6)


@pytest.mark.parametrize("amount", ["0", "-1", "83.99"])
def test_refund_amount_validation(order, amount):
    order.pay(D1, order.total)
    with pytest.raises(ValidationError):
        order.refund(usd(amount), "x", D3)
    assert order.refunds == []


def test_refund_requires_paid_order(order):
    with pytest.raises(ValidationError, match="order pending cannot be refunded"):
        order.refund(usd(1), "x", D1)


def test_refund_line_includes_tax_share(order):
    order.pay(D1, order.total)
    assert order.refund_line(BOOK, 1, D3) == usd("28.95")
    assert order.lines[0].refunded_quantity == 1
    assert order.refundable_amount() == usd("55.03")
    assert order.refund_line(COFFEE, 1, D3) == usd("16.09")
    assert order.refunded_total == usd("45.04")
    assert [r.reason for r in order.refunds] == ["return", "return"]


def test_refund_line_validation(order):
    order.pay(D1, order.total)
    with pytest.raises(ValidationError):
        order.refund_line(BOOK, 3, D3)
    with pytest.raises(ValidationError):
        order.refund_line("AAA-0000-3", 1, D3)
    order.refund_line(BOOK, 2, D3)
    with pytest.raises(ValidationError):
        order.refund_line(BOOK, 1, D3)


def test_refund_all_lines_closes_order(order):
    order.pay(D1, order.total)
    order.ship(D3, "T1")
    first = order.refund_line(BOOK, 2, D6)
    second = order.refund_line(COFFEE, 1, D6)
    assert first == usd("57.89")
    assert second == usd("16.09")
    # line refunds never include shipping, so the order stays open
    assert order.status is OrderStatus.SHIPPED
    assert order.refundable_amount() == usd("10.00")


def test_order_events():
    bus = EventBus()
    order = make_order(bus=bus)
    order.pay(D1, order.total)
    order.ship(D3, "T1")
    order.refund(order.refundable_amount(), "lost", D6)
    assert [e.name for e in bus.history] == ["order.paid", "order.shipped", "order.refunded"]
    assert bus.history[1]["on_date"] == D3
    assert bus.history[2]["order"] is order


def test_from_cart(shop_cart):
    shop_cart.apply_coupon("TENOFF")
    order = Order.from_cart(shop_cart, "A-2", "US", "CA", placed_on=DAY)
    assert [(l.sku, l.quantity, l.discount, l.category_path) for l in order.lines] == [
        (BOOK, 2, usd("6.00"), "books"),
        (COFFEE, 1, usd(0), "food"),
    ]
    assert order.coupon_discount == usd("6.90")
    assert order.shipping == usd("19.00")
    assert order.tax == usd("3.52")
    assert order.total == shop_cart.totals("US", "CA").total == usd("84.60")


def test_from_empty_cart_fails():
    with pytest.raises(ValidationError, match="cart is empty"):
        Order.from_cart(Cart(), "A-3", "US")


def test_place_order_reserves_and_redeems(shop_cart, inventory):
    shop_cart.apply_coupon("TENOFF")
    order = place_order(shop_cart, inventory, "A-2", "US", "CA", placed_on=DAY)
    assert order.total == usd("84.60")
    assert inventory.available(BOOK) == 3
    assert inventory.available(COFFEE) == 0
    assert shop_cart.coupon.uses == 1


def test_place_order_without_stock_keeps_coupon(shop_cart, inventory):
    shop_cart.apply_coupon("TENOFF")
    shop_cart.add(shop_cart.lines[1].product)
    with pytest.raises(InsufficientStockError):
        place_order(shop_cart, inventory, "A-2", "US")
    assert shop_cart.coupon.uses == 0
    assert inventory.available(BOOK) == 5


def test_place_order_releases_stock_when_coupon_fails(shop_cart, inventory):
    coupon = shop_cart.apply_coupon("TENOFF")
    coupon.uses = 1
    with pytest.raises(ValidationError, match="used up"):
        place_order(shop_cart, inventory, "A-2", "US")
    assert inventory.available(BOOK) == 5
    assert inventory.reservations("A-2") == []


def test_place_digital_order_needs_no_stock(products):
    cart = Cart()
    cart.add(products["ebook"])
    stock = Inventory()
    order = place_order(cart, stock, "D-1", "DE")
    assert [l.sku for l in order.lines] == [EBOOK]
    assert stock.reservations("D-1") == []
    assert order.total == usd("10.69")


def test_fulfil_and_cancel(shop_cart, inventory):
    order = place_order(shop_cart, inventory, "A-2", "US", "CA", placed_on=DAY)
    order.pay(D1, order.total)
    assert fulfil_order(order, inventory, D3, "trk") == "TRK"
    assert inventory.level(BOOK).on_hand == 3
    assert inventory.level(COFFEE).on_hand == 0
    assert order.status is OrderStatus.SHIPPED


def test_cancel_paid_order_refunds_and_releases(shop_cart, inventory):
    order = place_order(shop_cart, inventory, "A-2", "US", "CA", placed_on=DAY)
    order.pay(D1, order.total)
    assert cancel_order(order, inventory, D3) == 3
    assert inventory.available(BOOK) == 5
    assert order.status is OrderStatus.CANCELLED
    assert order.refunded_total == order.total == usd("91.89")


def test_cancel_pending_order_has_no_refund(shop_cart, inventory):
    order = place_order(shop_cart, inventory, "A-2", "US", placed_on=DAY)
    assert cancel_order(order, inventory, D1, "changed mind") == 3
    assert order.refunds == []
    assert order.history[-1] == (OrderStatus.CANCELLED, D1)


@pytest.mark.parametrize(
    "offset, expected",
    [(-1, None), (0, "pending"), (1, "paid"), (2, "paid"), (3, "shipped"), (5, "shipped"), (6, "delivered"),
     (30, "delivered")],
)
def test_status_on_timeline(order, offset, expected):
    order.pay(D1, order.total)
    order.ship(D3, "T1")
    order.deliver(D6)
    status = order.status_on(DAY + datetime.timedelta(days=offset))
    assert (status.value if status else None) == expected


def test_status_on_with_undated_history():
    order = Order("U-1", [OrderLine(BOOK, "Book", 1, usd(5))], usd(0), usd(0))
    assert order.status_on(DAY) is OrderStatus.PENDING
    order.cancel(None)
    assert order.status_on(DAY) is OrderStatus.CANCELLED


@pytest.mark.parametrize(
    "quantities, pay, released, refunded",
    [
        ({BOOK: 1}, False, 1, "0"),
        ({BOOK: 1}, True, 1, "45.16"),
        ({BOOK: 3, COFFEE: 1}, False, 4, "0"),
        ({BOOK: 3, COFFEE: 1}, True, 4, "111.49"),
        ({COFFEE: 1}, True, 1, "21.00"),
    ],
)
def test_cancel_order_cases(products, inventory, quantities, pay, released, refunded):
    cart = Cart()
    for sku, quantity in quantities.items():
        cart.add(products["book" if sku == BOOK else "coffee"], quantity)
    order = place_order(cart, inventory, "C-1", "US", "CA", placed_on=DAY)
    if pay:
        order.pay(D1, order.total)
    assert cancel_order(order, inventory, D3) == released
    assert order.refunded_total == usd(refunded)
    assert inventory.available(BOOK) == 5
    assert inventory.available(COFFEE) == 1
    assert order.status is OrderStatus.CANCELLED


@pytest.mark.parametrize(
    "quantities, book_left, coffee_left",
    [({BOOK: 1}, 4, 1), ({BOOK: 5}, 0, 1), ({COFFEE: 1}, 5, 0), ({BOOK: 2, COFFEE: 1}, 3, 0), ({BOOK: 4}, 1, 1)],
)
def test_fulfil_order_cases(products, inventory, quantities, book_left, coffee_left):
    cart = Cart()
    for sku, quantity in quantities.items():
        cart.add(products["book" if sku == BOOK else "coffee"], quantity)
    order = place_order(cart, inventory, "F-1", "US", placed_on=DAY)
    order.pay(D1, order.total)
    assert fulfil_order(order, inventory, D3, "abc") == "ABC"
    assert (inventory.level(BOOK).on_hand, inventory.level(COFFEE).on_hand) == (book_left, coffee_left)
    assert inventory.total_units(include_reserved=False) == book_left + coffee_left
    assert order.history[-1] == (OrderStatus.SHIPPED, D3)


def test_fulfil_digital_order_without_reservation(products):
    cart = Cart()
    cart.add(products["ebook"])
    stock = Inventory()
    order = place_order(cart, stock, "D-2", "US")
    order.pay(D1, order.total)
    assert fulfil_order(order, stock, D1, "email") == "EMAIL"
    assert stock.ledger == []


@pytest.mark.parametrize("amount, left", [("0.01", "83.97"), ("0.50", "83.48"), ("0.99", "82.99"), ("1.00", "82.98"),
                                         ("83.97", "0.01")])
def test_small_partial_refunds(order, amount, left):
    order.pay(D1, order.total)
    assert order.refund(usd(amount), "goodwill", D3) == usd(left)
    assert order.status is OrderStatus.PAID
    assert order.refunded_total == usd(amount)


@pytest.mark.parametrize(
    "sku, quantity, expected",
    [(BOOK, 1, "28.95"), (BOOK, 2, "57.89"), (COFFEE, 1, "16.09"), (BOOK, 1, "28.95"), (COFFEE, 1, "16.09")],
)
def test_refund_line_amounts(order, sku, quantity, expected):
    order.pay(D1, order.total)
    assert order.refund_line(sku, quantity, D3, reason="damaged") == usd(expected)
    assert order.refunds[-1].reason == "damaged"
    assert order.refundable_amount() == usd("83.98") - usd(expected)


@pytest.mark.parametrize("tax", ["0", "1.00", "5.00", "13.80", "0.07"])
def test_refund_line_tax_share_scales_with_tax(tax):
    lines = [OrderLine(BOOK, "Book", 2, usd("25.00")), OrderLine(COFFEE, "Coffee", 2, usd("25.00"))]
    order = Order("T-1", lines, usd(0), usd(tax))
    order.pay(D1, order.total)
    share = (usd(tax) / 4).rounded()
    assert order.refund_line(BOOK, 1, D3) == usd("25.00") + share
