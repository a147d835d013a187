import datetime
import json
from decimal import Decimal

import pytest

from conftest import BOOK, COFFEE, DAY, EBOOK, KIDS, KIT, SHIRT, usd
from minishop import Cart, Coupon, Money, OrderStatus, PhysicalProduct, PricingEngine, ValidationError
from minishop import serialization as ser
from minishop.orders import Order, OrderLine


def sample_order():
    lines = [
        OrderLine(BOOK, "Python Basics", 2, usd("29.99"), usd("6.00"), "books"),
        OrderLine(COFFEE, "Coffee Beans", 1, usd("15.00"), category_path="food"),
    ]
    order = Order("A-1", lines, usd("10.00"), usd("5.00"), placed_on=DAY, email="ann@example.com")
    order.pay(DAY, order.total)
    order.refund_line(COFFEE, 1, DAY + datetime.timedelta(days=2))
    return order


@pytest.mark.parametrize(
    "value, expected",
    [
        (None, None),
        (True, True),
        (7, 7),
        ("x", "x"),
        (Decimal("1.50"), "1.50"),
        (usd("12.5"), {"type": "money", "amount": "12.5", "currency": "USD"}),
        (DAY, {"type": "date", "iso": "2024-03-15"}),
        ((1, Decimal("2")), [1, "2"]),
        ({1: Money(3, "EUR")}, {"1": {"type": "money", "amount": "3", "currency": "EUR"}}),
    ],
)
def test_to_dict_values(value, expected):
    assert ser.to_dict(value) == expected


def test_to_dict_unknown_type():
    with pytest.raises(TypeError, match="no encoder for object"):
        ser.to_dict(object())


@pytest.mark.parametrize(
    "data, expected",
    [
        ({"type": "money", "amount": "2.50", "currency": "GBP"}, Money("2.50", "GBP")),
        ({"type": "date", "iso": "2024-02-29"}, datetime.date(2024, 2, 29)),
        ({"plain": 1}, {"plain": 1}),
        ([{"type": "money", "amount": "1", "currency": "USD"}, 5], [usd(1), 5]),
        ("text", "text"),
    ],
)
def test_from_dict_values(data, expected):
    assert ser.from_dict(data) == expected


def test_from_dict_unknown_tag():
    with pytest.raises(ValidationError, match="unknown type tag 'widget'"):
        ser.from_dict({"type": "widget"})


def test_dumps_is_deterministic():
    assert ser.dumps(usd("1.50")) == '{"amount":"1.50","currency":"USD","type":"money"}'
    assert ser.loads(ser.dumps([usd(1), DAY])) == [usd(1), DAY]


def test_encode_physical_product(products):
    data = ser.to_dict(products["kids"])
    assert data == {
        "type": "product",
        "kind": "physical",
        "sku": KIDS,
        "name": "Picture Book",
        "price": {"type": "money", "amount": "12.50", "currency": "USD"},
        "category": {"type": "category", "path": ["Books", "Children"]},
        "weight_grams": 300,
        "tags": ["kids"],
        "active": True,
        "dimensions": [25, 25, 1],
    }


def test_product_round_trip_shares_categories(products):
    registry = {}
    book = ser.from_dict(ser.to_dict(products["book"]), categories=registry)
    kids = ser.from_dict(ser.to_dict(products["kids"]), categories=registry)
    assert (book.code, book.name, book.price, book.weight_grams) == (BOOK, "Python Basics", usd("29.99"), 500)
    assert book.dimensions == (23, 15, 3)
    assert book.tags == ("python", "programming")
    assert kids.category.parent is book.category
    assert sorted(registry) == ["Books", "Books/Children"]
    assert kids.category_path == "books/children"


def test_digital_product_round_trip(products):
    data = ser.to_dict(products["ebook"])
    assert "weight_grams" not in data
    assert data["download_limit"] == 3
    ebook = ser.loads(json.dumps(data))
    assert (ebook.kind, ebook.code, ebook.price, ebook.requires_shipping) == ("digital", EBOOK, usd("9.99"), False)


def test_bundle_round_trip(products):
    data = ser.to_dict(products["kit"])
    assert [(c["sku"], q) for c, q in data["components"]] == [(BOOK, 1), (COFFEE, 2)]
    kit = ser.loads(ser.dumps(products["kit"]))
    assert kit.kind == "bundle"
    assert kit.code == KIT
    assert kit.price == usd("53.99")
    assert kit.weight_grams == 2500
    assert kit.savings() == usd("6.00")


def test_subclass_uses_parent_encoder():
    class Fragile(PhysicalProduct):
        pass

    data = ser.to_dict(Fragile(BOOK, "Vase", usd(40), weight_grams=900))
    assert (data["type"], data["kind"], data["weight_grams"], data["category"]) == ("product", "physical", 900, None)
    assert ser.from_dict(data).category is None


def test_order_encoding():
    data = ser.to_dict(sample_order())
    assert data["id"] == "A-1"
    assert data["status"] == "paid"
    assert data["placed_on"] == "2024-03-15"
    assert data["total"] == {"type": "money", "amount": "83.98", "currency": "USD"}
    assert data["refunds"] == [[{"type": "money", "amount": "16.09", "currency": "USD"}, "return", "2024-03-17"]]
    assert [line["refunded_quantity"] for line in data["lines"]] == [0, 1]


def test_order_round_trip():
    original = sample_order()
    restored = ser.loads(ser.dumps(original))
    assert restored.order_id == "A-1"
    assert restored.status is OrderStatus.PAID
    assert restored.total == usd("83.98")
    assert restored.refunded_total == usd("16.09")
    assert restored.net_total == original.net_total == usd("67.89")
    assert restored.email == "ann@example.com"
    assert [(l.sku, l.quantity, l.discount, l.refunded_quantity) for l in restored.lines] == [
        (BOOK, 2, usd("6.00"), 0),
        (COFFEE, 1, usd(0), 1),
    ]
    assert restored.refunds[0].on_date == datetime.date(2024, 3, 17)


def test_order_with_tampered_total_is_rejected():
    data = ser.to_dict(sample_order())
    data["total"]["amount"] = "1.00"
    with pytest.raises(ValidationError, match="does not match"):
        ser.from_dict(data)


def test_order_without_dates_round_trips():
    order = Order("B-1", [OrderLine(BOOK, "Book", 1, usd(5))], usd(0), usd(0))
    restored = ser.loads(ser.dumps(order))
    assert restored.placed_on is None
    assert restored.status is OrderStatus.PENDING
    assert restored.total == usd(5)


def test_cart_round_trip(catalog, products):
    engine = PricingEngine(coupons=[Coupon("TENOFF", percent=10)])
    cart = Cart(pricing=engine, customer_tier="gold")
    cart.add(products["book"], 2)
    cart.add(products["ebook"])
    cart.apply_coupon("TENOFF")
    data = ser.encode_cart(cart)
    assert data == {
        "type": "cart",
        "currency": "USD",
        "lines": [{"sku": BOOK, "quantity": 2}, {"sku": EBOOK, "quantity": 1}],
        "coupon": "TENOFF",
        "customer_tier": "gold",
    }
    restored = ser.restore_cart(json.loads(json.dumps(data)), Cart(pricing=engine), catalog)
    assert restored.item_count == 3
    assert restored.customer_tier == "gold"
    assert restored.coupon_discount() == usd("7.00")
    assert restored.subtotal() == cart.subtotal()


def test_restore_cart_checks(catalog, products):
    data = {"type": "cart", "currency": "USD", "lines": [], "coupon": None}
    full = Cart()
    full.add(products["book"])
    with pytest.raises(ValidationError, match="must be empty"):
        ser.restore_cart(data, full, catalog)
    with pytest.raises(ValidationError, match="cart currency differs"):
        ser.restore_cart(data, Cart("EUR"), catalog)
    assert ser.restore_cart(data, Cart(), catalog).is_empty()


@pytest.mark.parametrize(
    "paths, nodes",
    [
        ([["A"]], ["A"]),
        ([["A", "B"]], ["A", "A/B"]),
        ([["A", "B"], ["A", "C"]], ["A", "A/B", "A/C"]),
        ([["A", "B", "C"], ["A", "B"]], ["A", "A/B", "A/B/C"]),
        ([["X"], ["Y", "Z"]], ["X", "Y", "Y/Z"]),
    ],
)
def test_decode_category_reuses_registry(paths, nodes):
    registry = {}
    decoded = [ser.from_dict({"type": "category", "path": path}, categories=registry) for path in paths]
    assert sorted(registry) == nodes
    for path, category in zip(paths, decoded):
        assert [c.name for c in category.lineage()] == path
        assert category is registry["/".join(path)]


def test_decode_category_without_registry_builds_fresh_tree():
    first = ser.from_dict({"type": "category", "path": ["A", "B"]})
    second = ser.from_dict({"type": "category", "path": ["A", "B"]})
    assert first.path == second.path == "a/b"
    assert first is not second


@pytest.mark.parametrize("key", ["book", "kids", "coffee", "shirt", "phones", "ebook", "kit"])
def test_every_product_round_trips(products, key):
    original = products[key]
    restored = ser.loads(ser.dumps(original))
    assert type(restored) is type(original)
    assert (restored.code, restored.name, restored.price) == (original.code, original.name, original.price)
    assert restored.weight_grams == original.weight_grams
    assert restored.tags == original.tags
    assert restored.category_path == original.category_path
    assert restored.requires_shipping == original.requires_shipping
    assert ser.to_dict(restored) == ser.to_dict(original)


@pytest.mark.parametrize(
    "sku, quantity, price, discount, path, refunded",
    [
        (BOOK, 1, "29.99", "0", "books", 0),
        (BOOK, 3, "29.99", "9.00", "books", 2),
        (COFFEE, 2, "15.00", "1.50", "food", 0),
        (KIDS, 10, "12.50", "0.01", "books/children", 10),
        (EBOOK, 1, "9.99", "9.99", "", 1),
    ],
)
def test_order_line_round_trip(sku, quantity, price, discount, path, refunded):
    line = OrderLine(sku, "Item", quantity, usd(price), usd(discount), path)
    line.refunded_quantity = refunded
    restored = ser.loads(ser.dumps(line))
    assert (restored.sku, restored.quantity, restored.unit_price, restored.discount) == (
        sku, quantity, usd(price), usd(discount))
    assert (restored.category_path, restored.refunded_quantity) == (path, refunded)
    assert restored.net == usd(price) * quantity - usd(discount)


@pytest.mark.parametrize(
    "steps, status, refunded",
    [
        ([], "pending", "0"),
        (["pay"], "paid", "0"),
        (["pay", "ship"], "shipped", "0"),
        (["pay", "refund"], "paid", "20.00"),
        (["pay", "ship", "deliver", "refund", "refund"], "refunded", "40.00"),
        (["cancel"], "cancelled", "0"),
    ],
)
def test_order_round_trip_in_every_state(steps, status, refunded):
    order = Order("S-1", [OrderLine(BOOK, "Book", 1, usd("30.00"))], usd("10.00"), usd(0), placed_on=DAY)
    for step in steps:
        if step == "pay":
            order.pay(DAY, order.total)
        elif step == "ship":
            order.ship(DAY, "T")
        elif step == "deliver":
            order.deliver(DAY)
        elif step == "cancel":
            order.cancel(DAY)
        else:
            order.refund(usd(20), "part", DAY)
    restored = ser.loads(ser.dumps(order))
    assert restored.status.value == status
    assert restored.refunded_total == usd(refunded)
    assert restored.total == usd("40.00")
    assert restored.refundable_amount() == order.refundable_amount()


@pytest.mark.parametrize(
    "lines, coupon, tier, items, discount",
    [
        ([(BOOK, 1)], None, None, 1, "0"),
        ([(BOOK, 2)], "TENOFF", None, 2, "6.00"),
        ([(COFFEE, 3), (EBOOK, 1)], "TENOFF", "gold", 4, "5.50"),
        ([(KIDS, 4)], None, "gold", 4, "0"),
        ([(SHIRT, 1), (BOOK, 1)], "TENOFF", None, 2, "5.00"),
    ],
)
def test_restore_cart_cases(catalog, lines, coupon, tier, items, discount):
    engine = PricingEngine(coupons=[Coupon("TENOFF", percent=10)])
    data = {"type": "cart", "currency": "USD", "coupon": coupon, "customer_tier": tier,
            "lines": [{"sku": sku, "quantity": quantity} for sku, quantity in lines]}
    cart = ser.restore_cart(data, Cart(pricing=engine), catalog)
    assert cart.item_count == items
    assert cart.customer_tier == tier
    assert cart.coupon_discount() == usd(discount)
    assert ser.encode_cart(cart) == data


@pytest.mark.parametrize("value", [object(), set(), frozenset([1]), 1.5, complex(1, 1)])
def test_to_dict_unencodable(value):
    with pytest.raises(TypeError, match="no encoder for"):
        ser.to_dict(value)


@pytest.mark.parametrize("tag", ["widget", "cart", "", "Money", "order_lines"])
def test_from_dict_unknown_tags(tag):
    with pytest.raises(ValidationError, match="unknown type tag"):
        ser.from_dict({"type": tag})


@pytest.mark.parametrize("amount", ["0.00", "83.97", "83.99", "100", "-83.98"])
def test_decode_order_checks_total(amount):
    data = ser.to_dict(sample_order())
    data["total"]["amount"] = amount
    with pytest.raises(ValidationError, match="does not match"):
        ser.from_dict(data)
