"""Tax regions and rates.

Regions form a hierarchy (country, then state/province).  A sub-region's
rate is added to its parent's, unless the sub-region is *compound*, in which
case it is charged on the amount plus the parent tax.  Category overrides
and exemptions are looked up from the most specific category upwards.
"""

from decimal import Decimal

from .money import Money
from .utils import percent_of, quantize
from .validation import ValidationError, require, require_percent, require_text


class TaxRegion:
    """One taxing jurisdiction."""

    def __init__(self, code, name, rate, category_rates=None, exempt=(), parent=None, compound=False):
        self.code = require_text(code, "code").upper()
        self.name = require_text(name, "name")
        self.rate = require_percent(rate, "rate")
        self.category_rates = {slug: require_percent(r, "rate") for slug, r in (category_rates or {}).items()}
        self.exempt = frozenset(exempt)
        self.parent = parent
        self.compound = compound
        require(not (compound and parent is None), "compound", "only sub-regions can compound")

    def rate_for(self, category=None):
        """This region's own percent for ``category`` (ignores parents)."""
        if category is not None:
            for node in reversed(category.lineage()):
                if node.slug in self.exempt:
                    return Decimal(0)
                if node.slug in self.category_rates:
                    return self.category_rates[node.slug]
        return self.rate

    def chain(self):
        """Regions from the outermost parent down to ``self``."""
        regions = []
        node = self
        while node is not None:
            regions.append(node)
            node = node.parent
        regions.reverse()
        return regions

    def effective_rate(self, category=None, places=4):
        """Total percent charged, including parents and compounding."""
        base = Decimal(100)
        taxed = Decimal(0)
        for region in self.chain():
            rate = region.rate_for(category)
            if region.compound:
                taxed += percent_of(base + taxed, rate)
            else:
                taxed += percent_of(base, rate)
        return quantize(taxed, places)

    def tax_for(self, amount, category=None):
        """Tax owed on ``amount`` (a :class:`Money`), rounded once at the end."""
        require(isinstance(amount, Money), "amount", "must be Money")
        if amount.is_zero:
            return Money.zero(amount.currency)
        raw = Decimal(0)
        for region in self.chain():
            rate = region.rate_for(category)
            base = amount.amount + raw if region.compound else amount.amount
            raw += percent_of(base, rate)
        return Money(raw, amount.currency).rounded()

    def __repr__(self):
        return "TaxRegion(%r, %s%%)" % (self.code, self.rate)


class TaxTable:
    """Lookup of regions by ``COUNTRY`` or ``COUNTRY-STATE`` code."""

    def __init__(self, regions=()):
        self._regions = {}
        for region in regions:
            self.add(region)

    def add(self, region):
        if region.code in self._regions:
            raise ValidationError("code", "duplicate region %s" % region.code)
        self._regions[region.code] = region
        return region

    def __contains__(self, code):
        return code.upper() in self._regions

    def region_for(self, country, state=None):
        """Most specific region for the address; falls back to the country."""
        country = country.upper()
        if state:
            specific = self._regions.get("%s-%s" % (country, state.upper()))
            if specific is not None:
                return specific
        region = self._regions.get(country)
        if region is None:
            raise ValidationError("country", "no tax region for %s" % country)
        return region

    def tax_for(self, amount, country, state=None, category=None):
        return self.region_for(country, state).tax_for(amount, category)

    def codes(self):
        return sorted(self._regions)


def split_inclusive(gross, rate):
    """Split a tax-inclusive ``gross`` into ``(net, tax)`` at ``rate`` percent."""
    rate = require_percent(rate, "rate")
    net = Money(gross.amount * 100 / (100 + rate), gross.currency).rounded()
    return net, gross - net


def add_tax(net, rate):
    """``net`` plus ``rate`` percent tax, rounded."""
    return net + net.percentage(rate)


def default_tax_table():
    """A small illustrative table used by the examples and tests."""
    us = TaxRegion("US", "United States", 0)
    de = TaxRegion("DE", "Germany", 19, category_rates={"books": 7, "food": 7})
    gb = TaxRegion("GB", "United Kingdom", 20, exempt={"books", "children"}, category_rates={"energy": 5})
    ca = TaxRegion("CA", "Canada", 5)
    return TaxTable(
        [
            us,
            TaxRegion("US-CA", "California", "7.25", parent=us, exempt={"food"}),
            TaxRegion("US-NY", "New York", 4, parent=us, category_rates={"clothing": 0}),
            TaxRegion("US-OR", "Oregon", 0, parent=us),
            de,
            gb,
            ca,
            TaxRegion("CA-QC", "Quebec", "9.975", parent=ca),
            TaxRegion("CA-PE", "Prince Edward Island", 10, parent=ca, compound=True),
        ]
    )
