"""Packing items into boxes and quoting zone/weight based rates."""

import math
from decimal import Decimal

from .money import Money
from .validation import ValidationError, require, require_one_of, require_positive, require_quantity, require_text

METHOD_MULTIPLIERS = {"standard": Decimal("1"), "express": Decimal("1.5"), "overnight": Decimal("2.5")}
DEFAULT_DIMENSIONS = (10, 10, 5)


class PackItem:
    """One physical unit to be packed."""

    __slots__ = ("sku", "weight_grams", "dimensions")

    def __init__(self, sku, weight_grams, dimensions=DEFAULT_DIMENSIONS):
        self.sku = sku
        self.weight_grams = weight_grams
        self.dimensions = tuple(sorted(dimensions))

    @property
    def volume(self):
        a, b, c = self.dimensions
        return a * b * c

    def __repr__(self):
        return "PackItem(%s, %dg)" % (self.sku, self.weight_grams)


class Box:
    """A shipping carton with inner dimensions in cm and weight limits in g."""

    def __init__(self, name, length, width, height, max_weight_grams, tare_grams=0):
        self.name = require_text(name, "name")
        self.dimensions = tuple(sorted(int(require_positive(d, "dimension")) for d in (length, width, height)))
        self.max_weight_grams = int(require_positive(max_weight_grams, "max_weight_grams"))
        self.tare_grams = tare_grams

    @property
    def volume(self):
        a, b, c = self.dimensions
        return a * b * c

    def fits(self, item):
        """Whether ``item`` fits physically (each sorted side within the box)."""
        if item.weight_grams + self.tare_grams > self.max_weight_grams:
            return False
        return all(i <= b for i, b in zip(item.dimensions, self.dimensions))

    def __repr__(self):
        return "Box(%r)" % self.name


class Parcel:
    """A box plus the items packed into it."""

    def __init__(self, box):
        self.box = box
        self.items = []

    @property
    def weight_grams(self):
        return self.box.tare_grams + sum(item.weight_grams for item in self.items)

    @property
    def volume_used(self):
        return sum(item.volume for item in self.items)

    @property
    def fill_ratio(self):
        return Decimal(self.volume_used) / Decimal(self.box.volume)

    def can_add(self, item):
        """Weight, volume and per-item size check for adding ``item``."""
        if not self.box.fits(item):
            return False
        if self.weight_grams + item.weight_grams > self.box.max_weight_grams:
            return False
        return self.volume_used + item.volume <= self.box.volume

    def add(self, item):
        if not self.can_add(item):
            raise ValidationError("item", "%s does not fit in %s" % (item.sku, self.box.name))
        self.items.append(item)

    def skus(self):
        return sorted(item.sku for item in self.items)


def volumetric_weight(dimensions, divisor=5000):
    """Dimensional weight in grams: ``l*w*h / divisor`` kg, rounded up."""
    length, width, height = dimensions
    return math.ceil(Decimal(length * width * height) * 1000 / Decimal(divisor))


def chargeable_weight(parcel, divisor=5000):
    """The larger of the actual and the volumetric weight of a parcel."""
    return max(parcel.weight_grams, volumetric_weight(parcel.box.dimensions, divisor))


def pack_items(items, boxes):
    """First-fit-decreasing packing of ``items`` into parcels.

    Items are considered largest volume first (heavier first on ties).  Each
    goes into the first open parcel with room; otherwise a new parcel is
    opened with the smallest box that can hold it.
    """
    require(len(boxes) > 0, "boxes", "at least one box is required")
    candidates = sorted(boxes, key=lambda box: (box.volume, box.max_weight_grams))
    ordered = sorted(items, key=lambda item: (-item.volume, -item.weight_grams, item.sku))
    parcels = []
    for item in ordered:
        target = next((p for p in parcels if p.can_add(item)), None)
        if target is None:
            box = next((b for b in candidates if b.fits(item)), None)
            if box is None:
                raise ValidationError("item", "%s fits in no box" % item.sku)
            target = Parcel(box)
            parcels.append(target)
        target.add(item)
    return parcels


class ShippingZone:
    """Rates for a group of countries.

    ``base`` covers the first kilogram; every started 500 g above that costs
    ``per_half_kg``.  Orders at or above ``free_over`` ship free (standard
    method only).
    """

    def __init__(self, name, countries, base, per_half_kg, free_over=None, max_weight_grams=30000):
        self.name = require_text(name, "name")
        self.countries = frozenset(c.upper() for c in countries)
        self.base = base
        self.per_half_kg = per_half_kg
        self.free_over = free_over
        self.max_weight_grams = max_weight_grams

    def rate_for_weight(self, grams):
        """Price for one parcel of ``grams`` chargeable weight."""
        require(grams <= self.max_weight_grams, "weight", "exceeds zone limit")
        extra = max(0, grams - 1000)
        steps = math.ceil(extra / 500)
        return self.base + self.per_half_kg * steps

    def ships_free(self, subtotal, method):
        return method == "standard" and self.free_over is not None and subtotal >= self.free_over


class RateTable:
    """Zones plus a fallback zone for unlisted countries."""

    def __init__(self, zones, fallback=None):
        self.zones = list(zones)
        self.fallback = fallback

    def zone_for(self, country):
        code = country.upper()
        for zone in self.zones:
            if code in zone.countries:
                return zone
        if self.fallback is None:
            raise ValidationError("country", "we do not ship to %s" % code)
        return self.fallback

    def quote(self, parcels, country, method="standard", subtotal=None):
        """Total shipping for ``parcels`` to ``country`` using ``method``."""
        require_one_of(method, METHOD_MULTIPLIERS, "method")
        zone = self.zone_for(country)
        if not parcels:
            return Money.zero(zone.base.currency)
        if subtotal is not None and zone.ships_free(subtotal, method):
            return Money.zero(zone.base.currency)
        total = Money.zero(zone.base.currency)
        for parcel in parcels:
            total = total + zone.rate_for_weight(chargeable_weight(parcel))
        return (total * METHOD_MULTIPLIERS[method]).rounded()

    def quote_items(self, items, boxes, country, method="standard", subtotal=None):
        """Pack ``items`` then quote the resulting parcels."""
        return self.quote(pack_items(items, boxes) if items else [], country, method, subtotal)


def items_for_product(product, quantity):
    """Expand ``quantity`` units of a product into :class:`PackItem` objects."""
    require_quantity(quantity)
    if not product.requires_shipping:
        return []
    dimensions = getattr(product, "dimensions", DEFAULT_DIMENSIONS)
    weight = product.shipping_weight(1)
    return [PackItem(product.code, weight, dimensions) for _ in range(quantity)]


def default_boxes():
    return [
        Box("small", 20, 15, 10, 2000, tare_grams=100),
        Box("medium", 40, 30, 20, 10000, tare_grams=300),
        Box("large", 60, 40, 40, 25000, tare_grams=700),
    ]


def default_rate_table(currency="USD"):
    domestic = ShippingZone("domestic", ["US"], Money("5.00", currency), Money("1.00", currency), Money("100", currency))
    near = ShippingZone("near", ["CA", "MX"], Money("12.00", currency), Money("2.50", currency))
    europe = ShippingZone("europe", ["DE", "FR", "GB", "NL"], Money("18.00", currency), Money("4.00", currency))
    world = ShippingZone("world", [], Money("25.00", currency), Money("6.00", currency))
    return RateTable([domestic, near, europe], fallback=world)
