"""Orders: an explicit state machine with refunds.

::

    pending --pay--> paid --ship--> shipped --deliver--> delivered
       |               |               |                     |
       +--cancel--+    +--cancel--+    +------refund---------+--> refunded
                  v               v
              cancelled       cancelled
"""

import enum
import functools
from decimal import Decimal

from .money import Money, sum_money
from .validation import ValidationError, require, require_email, require_quantity, require_text


class OrderStatus(enum.Enum):
    PENDING = "pending"
    PAID = "paid"
    SHIPPED = "shipped"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"
    REFUNDED = "refunded"


TRANSITIONS = {
    OrderStatus.PENDING: {OrderStatus.PAID, OrderStatus.CANCELLED},
    OrderStatus.PAID: {OrderStatus.SHIPPED, OrderStatus.CANCELLED, OrderStatus.REFUNDED},
    OrderStatus.SHIPPED: {OrderStatus.DELIVERED, OrderStatus.REFUNDED},
    OrderStatus.DELIVERED: {OrderStatus.REFUNDED},
    OrderStatus.CANCELLED: set(),
    OrderStatus.REFUNDED: set(),
}

REFUNDABLE = (OrderStatus.PAID, OrderStatus.SHIPPED, OrderStatus.DELIVERED)


class InvalidTransitionError(Exception):
    """Raised for a state change the lifecycle does not allow."""

    def __init__(self, current, target):
        super().__init__("cannot go from %s to %s" % (current.value, target.value))
        self.current = current
        self.target = target


def transition(target):
    """Method decorator guarding a lifecycle step.

    The wrapped method receives ``on_date`` as its first argument after
    ``self``.  The guard checks the transition is allowed, runs the method and
    then records the new status (with ``on_date``) and publishes
    ``order.<status>`` on the order's bus.
    """

    def decorator(method):
        @functools.wraps(method)
        def wrapper(self, on_date, *args, **kwargs):
            if not self.can_transition(target):
                raise InvalidTransitionError(self.status, target)
            result = method(self, on_date, *args, **kwargs)
            self._set_status(target, on_date)
            return result

        wrapper.target = target
        return wrapper

    return decorator


class OrderLine:
    """A frozen copy of a cart line at the time of ordering."""

    def __init__(self, sku, name, quantity, unit_price, discount=None, category_path=""):
        self.sku = sku
        self.name = name
        self.quantity = require_quantity(quantity)
        self.unit_price = unit_price
        self.discount = discount if discount is not None else Money.zero(unit_price.currency)
        self.category_path = category_path
        self.refunded_quantity = 0

    @property
    def gross(self):
        return self.unit_price * self.quantity

    @property
    def net(self):
        return self.gross - self.discount

    @property
    def refundable_quantity(self):
        return self.quantity - self.refunded_quantity

    def net_for(self, quantity):
        """Net value of ``quantity`` of this line's units, rounded."""
        return (self.net * Decimal(quantity) / Decimal(self.quantity)).rounded()

    def __repr__(self):
        return "OrderLine(%s x%d)" % (self.sku, self.quantity)


class Refund:
    __slots__ = ("amount", "reason", "on_date")

    def __init__(self, amount, reason, on_date):
        self.amount = amount
        self.reason = reason
        self.on_date = on_date


class Order:
    """A placed order and its history."""

    def __init__(self, order_id, lines, shipping, tax, coupon_discount=None, placed_on=None, email=None, bus=None):
        self.order_id = require_text(order_id, "order_id")
        require(len(lines) > 0, "lines", "an order needs at least one line")
        self.lines = list(lines)
        self.currency = self.lines[0].unit_price.currency
        self.shipping = shipping
        self.tax = tax
        self.coupon_discount = coupon_discount if coupon_discount is not None else Money.zero(self.currency)
        self.placed_on = placed_on
        self.email = require_email(email) if email is not None else None
        self.bus = bus
        self.status = OrderStatus.PENDING
        self.history = [(OrderStatus.PENDING, placed_on)]
        self.refunds = []
        self.tracking = None

    @classmethod
    def from_cart(cls, cart, order_id, country, state=None, method="standard", placed_on=None, email=None, bus=None):
        """Freeze a cart into an order (does not touch stock or coupons)."""
        require(not cart.is_empty(), "cart", "cart is empty")
        lines = [
            OrderLine(p.line.product.code, p.line.product.name, p.line.quantity, p.line.unit_price,
                      p.discount, p.line.product.category_path)
            for p in cart.priced_lines()
        ]
        return cls(order_id, lines, cart.shipping_cost(country, method), cart.tax(country, state),
                   cart.coupon_discount(), placed_on, email, bus)

    @property
    def subtotal(self):
        return sum_money((line.net for line in self.lines), self.currency)

    @property
    def total(self):
        return self.subtotal - self.coupon_discount + self.shipping + self.tax

    @property
    def refunded_total(self):
        return sum_money((r.amount for r in self.refunds), self.currency)

    @property
    def net_total(self):
        return self.total - self.refunded_total

    @property
    def item_count(self):
        return sum(line.quantity for line in self.lines)

    def can_transition(self, target):
        return target in TRANSITIONS[self.status]

    def _set_status(self, status, on_date):
        self.status = status
        self.history.append((status, on_date))
        if self.bus is not None:
            self.bus.publish("order." + status.value, order=self, on_date=on_date)

    def status_on(self, on_date):
        """The status the order had at the end of ``on_date``."""
        current = None
        for status, when in self.history:
            if when is None or when <= on_date:
                current = status
        return current

    @transition(OrderStatus.PAID)
    def pay(self, on_date, amount):
        """Record payment; the amount must match the total exactly."""
        require(amount == self.total, "amount", "expected %s, got %s" % (self.total, amount))
        self.paid_on = on_date
        return amount

    @transition(OrderStatus.SHIPPED)
    def ship(self, on_date, tracking):
        self.tracking = require_text(tracking, "tracking").upper()
        return self.tracking

    @transition(OrderStatus.DELIVERED)
    def deliver(self, on_date):
        shipped_on = self.history[-1][1]
        return (on_date - shipped_on).days if shipped_on is not None else None

    @transition(OrderStatus.CANCELLED)
    def cancel(self, on_date, reason="customer request"):
        return require_text(reason, "reason")

    def refundable_amount(self):
        if self.status not in REFUNDABLE:
            return Money.zero(self.currency)
        return self.total - self.refunded_total

    def refund(self, amount, reason, on_date):
        """Refund part or all of the order; a full refund closes it."""
        require(self.status in REFUNDABLE, "status", "order %s cannot be refunded" % self.status.value)
        require(isinstance(amount, Money) and amount.amount > 0, "amount", "must be positive Money")
        available = self.refundable_amount()
        require(amount <= available, "amount", "at most %s can be refunded" % available)
        self.refunds.append(Refund(amount, require_text(reason, "reason"), on_date))
        if amount == available:
            self._set_status(OrderStatus.REFUNDED, on_date)
        return self.refundable_amount()

    def refund_line(self, sku, quantity, on_date, reason="return"):
        """Refund ``quantity`` units of a line including their share of tax."""
        line = next((l for l in self.lines if l.sku == sku), None)
        require(line is not None, "sku", "%s is not in order %s" % (sku, self.order_id))
        require_quantity(quantity, maximum=line.refundable_quantity)
        amount = line.net_for(quantity)
        subtotal = self.subtotal
        if not subtotal.is_zero:
            amount = amount + (self.tax * amount.amount / subtotal.amount).rounded()
        amount = min(amount, self.refundable_amount())
        self.refund(amount, reason, on_date)
        line.refunded_quantity += quantity
        return amount


def place_order(cart, inventory, order_id, country, state=None, placed_on=None, email=None, bus=None):
    """Reserve stock, redeem the coupon and create the order atomically."""
    order = Order.from_cart(cart, order_id, country, state, placed_on=placed_on, email=email, bus=bus)
    items = {line.sku: line.quantity for line in cart.lines if line.product.requires_shipping}
    if items:
        inventory.reserve(order_id, items)
    if cart.coupon is not None:
        try:
            cart.coupon.redeem(cart.discounted_subtotal(), placed_on)
        except ValidationError:
            inventory.release(order_id)
            raise
    return order


def fulfil_order(order, inventory, on_date, tracking):
    """Commit reserved stock and mark the order shipped."""
    if inventory.reservations(order.order_id):
        inventory.commit(order.order_id)
    return order.ship(on_date, tracking)


def cancel_order(order, inventory, on_date, reason="customer request"):
    """Release reserved stock and cancel; refunds paid money automatically."""
    was_paid = order.status == OrderStatus.PAID
    order.cancel(on_date, reason)
    released = inventory.release(order.order_id)
    if was_paid:
        order.refunds.append(Refund(order.total, "cancellation", on_date))
    return released
