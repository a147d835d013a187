"""Conversion between minishop objects and plain dicts / JSON.

Encoders are registered per class with :func:`encoder` and found by walking
the MRO, so subclasses inherit their parent's encoder unless they register
their own.  Decoders are registered per ``"type"`` tag with :func:`decoder`.
"""

import datetime
import json
from decimal import Decimal

from minishop import catalog as cat
from .money import Money
from .orders import Order, OrderLine, OrderStatus, Refund
from .validation import ValidationError, require

_ENCODERS = {}
_DECODERS = {}


def encoder(cls):
    """Register the decorated function as the encoder for ``cls``."""

    def decorator(func):
        _ENCODERS[cls] = func
        return func

    return decorator


def decoder(type_name):
    """Register the decorated function as the decoder for ``type_name``."""

    def decorator(func):
        _DECODERS[type_name] = func
        return func

    return decorator


def to_dict(obj):
    """Encode ``obj`` (recursively for lists and dicts) into plain data."""
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, (list, tuple)):
        return [to_dict(item) for item in obj]
    if isinstance(obj, dict):
        return {str(key): to_dict(value) for key, value in obj.items()}
    for klass in type(obj).__mro__:
        func = _ENCODERS.get(klass)
        if func is not None:
            return func(obj)
    raise TypeError("no encoder for %s" % type(obj).__name__)


def from_dict(data, **context):
    """Decode plain data produced by :func:`to_dict`.

    ``context`` is passed to decoders (e.g. ``categories`` for products).
    """
    if isinstance(data, list):
        return [from_dict(item, **context) for item in data]
    if not isinstance(data, dict) or "type" not in data:
        return data
    func = _DECODERS.get(data["type"])
    if func is None:
        raise ValidationError("type", "unknown type tag %r" % data["type"])
    return func(data, **context)


def dumps(obj):
    """Deterministic JSON text for ``obj``."""
    return json.dumps(to_dict(obj), sort_keys=True, separators=(",", ":"))


def loads(text, **context):
    return from_dict(json.loads(text), **context)


@encoder(Decimal)
def _encode_decimal(value):
    return str(value)


@encoder(datetime.date)
def _encode_date(value):
    return {"type": "date", "iso": value.isoformat()}


@decoder("date")
def _decode_date(data, **context):
    return datetime.date.fromisoformat(data["iso"])


@encoder(Money)
def encode_money(money):
    return {"type": "money", "amount": str(money.amount), "currency": money.currency}


@decoder("money")
def decode_money(data, **context):
    return Money(data["amount"], data["currency"])


@encoder(cat.Category)
def encode_category(category):
    return {"type": "category", "path": [node.name for node in category.lineage()]}


@decoder("category")
def decode_category(data, categories=None, **context):
    """Resolve a category path against ``categories`` (a dict by path)."""
    names = data["path"]
    registry = categories if categories is not None else {}
    parent = None
    for depth in range(1, len(names) + 1):
        key = "/".join(names[:depth])
        node = registry.get(key)
        if node is None:
            node = cat.Category(names[depth - 1], parent)
            registry[key] = node
        parent = node
    return parent


@encoder(cat.Product)
def encode_product(product):
    data = {
        "type": "product",
        "kind": product.kind,
        "sku": product.code,
        "name": product.name,
        "price": encode_money(product.price),
        "category": encode_category(product.category) if product.category else None,
        "weight_grams": product.weight_grams,
        "tags": list(product.tags),
        "active": product.active,
    }
    if isinstance(product, cat.PhysicalProduct):
        data["dimensions"] = list(product.dimensions)
    elif isinstance(product, cat.DigitalProduct):
        data["download_limit"] = product.download_limit
        del data["weight_grams"]
    elif isinstance(product, cat.BundleProduct):
        data["components"] = [[encode_product(p), q] for p, q in product.components]
    return data


@decoder("product")
def decode_product(data, categories=None, **context):
    fields = {
        "sku": data["sku"],
        "name": data["name"],
        "price": decode_money(data["price"]),
        "tags": data.get("tags", ()),
        "active": data.get("active", True),
    }
    if data.get("category"):
        fields["category"] = decode_category(data["category"], categories=categories)
    kind = data.get("kind", "physical")
    if kind == "physical":
        fields["dimensions"] = tuple(data.get("dimensions", (10, 10, 10)))
        fields["weight_grams"] = data.get("weight_grams", 0)
    elif kind == "digital":
        fields["download_limit"] = data.get("download_limit", 3)
    elif kind == "bundle":
        fields["components"] = [(decode_product(p, categories=categories), q) for p, q in data["components"]]
        fields["weight_grams"] = data.get("weight_grams", 0)
    return cat.make_product(kind, **fields)


@encoder(OrderLine)
def encode_order_line(line):
    return {
        "type": "order_line",
        "sku": line.sku,
        "name": line.name,
        "quantity": line.quantity,
        "unit_price": encode_money(line.unit_price),
        "discount": encode_money(line.discount),
        "category_path": line.category_path,
        "refunded_quantity": line.refunded_quantity,
    }


@decoder("order_line")
def decode_order_line(data, **context):
    line = OrderLine(data["sku"], data["name"], data["quantity"], decode_money(data["unit_price"]),
                     decode_money(data["discount"]), data.get("category_path", ""))
    line.refunded_quantity = data.get("refunded_quantity", 0)
    return line


@encoder(Order)
def encode_order(order):
    return {
        "type": "order",
        "id": order.order_id,
        "status": order.status.value,
        "lines": [encode_order_line(line) for line in order.lines],
        "shipping": encode_money(order.shipping),
        "tax": encode_money(order.tax),
        "coupon_discount": encode_money(order.coupon_discount),
        "placed_on": order.placed_on.isoformat() if order.placed_on else None,
        "email": order.email,
        "refunds": [[encode_money(r.amount), r.reason, r.on_date.isoformat() if r.on_date else None]
                    for r in order.refunds],
        "total": encode_money(order.total),
    }


def _parse_date(text):
    return datetime.date.fromisoformat(text) if text else None


@decoder("order")
def decode_order(data, bus=None, **context):
    """Rebuild an order; its stored total must match the recomputed one."""
    order = Order(
        data["id"],
        [decode_order_line(line) for line in data["lines"]],
        decode_money(data["shipping"]),
        decode_money(data["tax"]),
        decode_money(data["coupon_discount"]),
        _parse_date(data.get("placed_on")),
        data.get("email"),
        bus,
    )
    order.status = OrderStatus(data["status"])
    order.refunds = [Refund(decode_money(a), reason, _parse_date(d)) for a, reason, d in data.get("refunds", [])]
    if "total" in data:
        require(decode_money(data["total"]) == order.total, "total", "does not match order lines")
    return order


def encode_cart(cart):
    """Cart contents as data (services such as pricing are not included)."""
    return {
        "type": "cart",
        "currency": cart.currency,
        "lines": [{"sku": line.sku, "quantity": line.quantity} for line in cart.lines],
        "coupon": cart.coupon.code if cart.coupon else None,
        "customer_tier": cart.customer_tier,
    }


def restore_cart(data, cart, catalog):
    """Refill an empty ``cart`` from :func:`encode_cart` output using ``catalog``."""
    require(cart.is_empty(), "cart", "must be empty")
    require(data.get("currency") == cart.currency, "currency", "cart currency differs")
    for line in data["lines"]:
        cart.add(catalog.get(line["sku"]), line["quantity"])
    cart.customer_tier = data.get("customer_tier")
    if data.get("coupon"):
        cart.apply_coupon(data["coupon"])
    return cart
