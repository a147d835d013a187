"""Stock levels, reservations and reorder planning."""

import math
from decimal import Decimal

from .events import emits
from .money import Money
from .utils import to_decimal
from .validation import ValidationError, require, require_non_negative, require_quantity, validated

# One-sided z-scores for common cycle service levels.
SERVICE_LEVEL_Z = {
    Decimal("0.50"): Decimal("0"),
    Decimal("0.80"): Decimal("0.84"),
    Decimal("0.90"): Decimal("1.28"),
    Decimal("0.95"): Decimal("1.65"),
    Decimal("0.98"): Decimal("2.05"),
    Decimal("0.99"): Decimal("2.33"),
}


class InsufficientStockError(Exception):
    """Raised when a reservation asks for more than is available."""

    def __init__(self, sku, requested, available):
        super().__init__("%s: requested %d, available %d" % (sku, requested, available))
        self.sku = sku
        self.requested = requested
        self.available = available


class StockLevel:
    """On-hand and reserved units for one SKU plus its reorder policy."""

    def __init__(self, sku, on_hand=0, reorder_point=0, reorder_quantity=0):
        self.sku = sku
        self.on_hand = require_quantity(on_hand, "on_hand", minimum=0)
        self.reserved = 0
        self.reorder_point = require_quantity(reorder_point, "reorder_point", minimum=0)
        self.reorder_quantity = require_quantity(reorder_quantity, "reorder_quantity", minimum=0)

    @property
    def available(self):
        """Units that can still be promised to new orders."""
        return self.on_hand - self.reserved

    @property
    def needs_reorder(self):
        return self.reorder_quantity > 0 and self.available <= self.reorder_point

    def suggested_order(self):
        """Units to order so availability climbs above the reorder point.

        Orders come in multiples of ``reorder_quantity``.
        """
        if not self.needs_reorder:
            return 0
        shortfall = self.reorder_point - self.available + 1
        batches = max(1, math.ceil(shortfall / self.reorder_quantity))
        return batches * self.reorder_quantity

    def __repr__(self):
        return "StockLevel(%s, on_hand=%d, reserved=%d)" % (self.sku, self.on_hand, self.reserved)


class Reservation:
    """Units held for an order until it is committed or released."""

    __slots__ = ("order_id", "sku", "quantity")

    def __init__(self, order_id, sku, quantity):
        self.order_id = order_id
        self.sku = sku
        self.quantity = quantity

    def __repr__(self):
        return "Reservation(%s, %s x%d)" % (self.order_id, self.sku, self.quantity)


class Inventory:
    """Stock for many SKUs with all-or-nothing reservations."""

    def __init__(self, bus=None):
        self.bus = bus
        self._levels = {}
        self._reservations = {}
        self.ledger = []

    def level(self, sku):
        """The :class:`StockLevel` for ``sku`` (created on first use)."""
        key = str(sku)
        if key not in self._levels:
            self._levels[key] = StockLevel(key)
        return self._levels[key]

    def set_policy(self, sku, reorder_point, reorder_quantity):
        """Configure when and how much to reorder for ``sku``."""
        level = self.level(sku)
        level.reorder_point = require_quantity(reorder_point, "reorder_point", minimum=0)
        level.reorder_quantity = require_quantity(reorder_quantity, "reorder_quantity", minimum=0)
        return level

    @validated(quantity=require_quantity)
    def receive(self, sku, quantity):
        """Book ``quantity`` new units into stock; returns the new on-hand."""
        level = self.level(sku)
        level.on_hand += quantity
        self.ledger.append((str(sku), quantity, "receive"))
        return level.on_hand

    def adjust(self, sku, delta, reason):
        """Correct stock by ``delta`` (e.g. after a count) with a reason."""
        require(isinstance(delta, int) and not isinstance(delta, bool), "delta", "must be an integer")
        require(delta != 0, "delta", "must not be zero")
        level = self.level(sku)
        if level.on_hand + delta < level.reserved:
            raise InsufficientStockError(str(sku), -delta, level.available)
        level.on_hand += delta
        self.ledger.append((str(sku), delta, reason))
        return level.on_hand

    def available(self, sku):
        return self.level(sku).available

    @emits("stock.reserved")
    def reserve(self, order_id, items):
        """Reserve ``{sku: quantity}`` for ``order_id``.

        Either every line is reserved or none is; an existing reservation for
        the same order is rejected.
        """
        require(order_id not in self._reservations, "order_id", "already has a reservation")
        wanted = {}
        for sku, quantity in items.items():
            require_quantity(quantity)
            wanted[str(sku)] = wanted.get(str(sku), 0) + quantity
        for sku, quantity in sorted(wanted.items()):
            available = self.level(sku).available
            if quantity > available:
                raise InsufficientStockError(sku, quantity, available)
        made = []
        for sku, quantity in sorted(wanted.items()):
            self.level(sku).reserved += quantity
            made.append(Reservation(order_id, sku, quantity))
        self._reservations[order_id] = made
        return made

    def reservations(self, order_id):
        return list(self._reservations.get(order_id, []))

    @emits("stock.released")
    def release(self, order_id):
        """Return reserved units of ``order_id`` to availability."""
        made = self._reservations.pop(order_id, [])
        for reservation in made:
            self.level(reservation.sku).reserved -= reservation.quantity
        return sum(r.quantity for r in made)

    @emits("stock.committed")
    def commit(self, order_id):
        """Ship reserved units: they leave both reserved and on-hand stock."""
        if order_id not in self._reservations:
            raise ValidationError("order_id", "no reservation for %s" % order_id)
        made = self._reservations.pop(order_id)
        for reservation in made:
            level = self.level(reservation.sku)
            level.reserved -= reservation.quantity
            level.on_hand -= reservation.quantity
            self.ledger.append((reservation.sku, -reservation.quantity, "commit:%s" % order_id))
        return sum(r.quantity for r in made)

    def reorder_suggestions(self):
        """``[(sku, units)]`` for every SKU that needs reordering, by SKU."""
        suggestions = []
        for sku in sorted(self._levels):
            units = self._levels[sku].suggested_order()
            if units:
                suggestions.append((sku, units))
        return suggestions

    def total_units(self, include_reserved=True):
        """Total units on hand (or only the available ones)."""
        if include_reserved:
            return sum(level.on_hand for level in self._levels.values())
        return sum(level.available for level in self._levels.values())

    def stock_value(self, catalog, currency="USD"):
        """On-hand units valued at catalogue price; unknown SKUs are skipped."""
        total = Money.zero(currency)
        for sku, level in sorted(self._levels.items()):
            if sku not in catalog or level.on_hand == 0:
                continue
            total = total + catalog.get(sku).price * level.on_hand
        return total


def safety_stock(demand_std_dev, lead_time_days, service_level="0.95"):
    """Safety stock = z * sigma_daily * sqrt(lead time), rounded up."""
    sigma = require_non_negative(demand_std_dev, "demand_std_dev")
    lead = require_non_negative(lead_time_days, "lead_time_days")
    level = to_decimal(service_level)
    if level not in SERVICE_LEVEL_Z:
        raise ValidationError("service_level", "unsupported service level %s" % service_level)
    z = SERVICE_LEVEL_Z[level]
    return math.ceil(z * sigma * lead.sqrt())


def reorder_point(daily_demand, lead_time_days, safety=0):
    """Demand during lead time plus safety stock, rounded up."""
    demand = require_non_negative(daily_demand, "daily_demand")
    lead = require_non_negative(lead_time_days, "lead_time_days")
    return math.ceil(demand * lead) + require_quantity(safety, "safety", minimum=0)


def economic_order_quantity(annual_demand, order_cost, holding_cost):
    """Classic EOQ ``sqrt(2DS/H)`` rounded up to a whole unit."""
    demand = require_non_negative(annual_demand, "annual_demand")
    cost = require_non_negative(order_cost, "order_cost")
    holding = to_decimal(holding_cost)
    require(holding > 0, "holding_cost", "must be positive")
    if demand == 0 or cost == 0:
        return 0
    return math.ceil((2 * demand * cost / holding).sqrt())


def days_of_cover(on_hand, daily_demand):
    """Whole days current stock lasts at ``daily_demand`` (``None`` if no demand)."""
    demand = require_non_negative(daily_demand, "daily_demand")
    if demand == 0:
        return None
    return int(Decimal(on_hand) / demand)
