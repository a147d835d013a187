"""Shopping cart: the hub that ties pricing, tax and shipping together."""

from . import shipping as ship
from .money import Money, sum_money
from .pricing import LineContext, PricingEngine
from .tax import default_tax_table
from .validation import ValidationError, require, require_currency, require_quantity, validated

MAX_LINE_QUANTITY = 99


class CartLine:
    """A product and a quantity."""

    __slots__ = ("product", "quantity")

    def __init__(self, product, quantity):
        self.product = product
        self.quantity = quantity

    @property
    def sku(self):
        return self.product.code

    @property
    def subtotal(self):
        return self.product.price * self.quantity

    def __repr__(self):
        return "CartLine(%s x%d)" % (self.sku, self.quantity)


class CartTotals:
    """A snapshot of every amount shown at checkout."""

    FIELDS = ("subtotal", "discount", "coupon_discount", "shipping", "tax", "total")

    def __init__(self, subtotal, discount, coupon_discount, shipping, tax):
        self.subtotal = subtotal
        self.discount = discount
        self.coupon_discount = coupon_discount
        self.shipping = shipping
        self.tax = tax
        self.total = subtotal - discount - coupon_discount + shipping + tax

    def as_dict(self):
        return {name: getattr(self, name) for name in self.FIELDS}

    def __repr__(self):
        return "CartTotals(total=%s)" % self.total


class Cart:
    """Lines in insertion order plus the services needed to price them."""

    def __init__(self, currency="USD", pricing=None, tax_table=None, rate_table=None, boxes=None,
                 customer_tier=None, on_date=None):
        self.currency = require_currency(currency)
        self.pricing = pricing if pricing is not None else PricingEngine()
        self.tax_table = tax_table if tax_table is not None else default_tax_table()
        self.rate_table = rate_table if rate_table is not None else ship.default_rate_table(self.currency)
        self.boxes = boxes if boxes is not None else ship.default_boxes()
        self.customer_tier = customer_tier
        self.on_date = on_date
        self.coupon = None
        self._lines = {}

    @validated(quantity=require_quantity)
    def add(self, product, quantity=1):
        """Add units of ``product`` (merging with an existing line)."""
        require(product.active, "product", "%s is not for sale" % product.code)
        require(product.price.currency == self.currency, "product", "price is not in %s" % self.currency)
        line = self._lines.get(product.code)
        new_quantity = quantity + (line.quantity if line else 0)
        require(new_quantity <= MAX_LINE_QUANTITY, "quantity", "at most %d per line" % MAX_LINE_QUANTITY)
        if line is None:
            self._lines[product.code] = CartLine(product, new_quantity)
        else:
            line.quantity = new_quantity
        return self._lines[product.code]

    def remove(self, sku):
        """Drop a line entirely; returns the removed line."""
        try:
            return self._lines.pop(str(sku))
        except KeyError:
            raise ValidationError("sku", "%s is not in the cart" % sku) from None

    def set_quantity(self, sku, quantity):
        """Change a line's quantity; zero removes the line."""
        require_quantity(quantity, minimum=0, maximum=MAX_LINE_QUANTITY)
        if quantity == 0:
            self.remove(sku)
            return None
        line = self._lines.get(str(sku))
        require(line is not None, "sku", "%s is not in the cart" % sku)
        line.quantity = quantity
        return line

    @property
    def lines(self):
        return list(self._lines.values())

    @property
    def item_count(self):
        return sum(line.quantity for line in self._lines.values())

    def is_empty(self):
        return not self._lines

    def line_contexts(self):
        return [LineContext(l.product, l.quantity, self.customer_tier, self.on_date) for l in self.lines]

    def priced_lines(self):
        return self.pricing.price_lines(self.line_contexts())

    def subtotal(self):
        """Sum of list prices before any discount."""
        return sum_money((line.subtotal for line in self.lines), self.currency)

    def line_discounts(self):
        """Total of all rule-based discounts."""
        return sum_money((p.discount for p in self.priced_lines()), self.currency)

    def discounted_subtotal(self):
        return self.subtotal() - self.line_discounts()

    def apply_coupon(self, code):
        """Attach a coupon after checking it applies to the current cart."""
        coupon = self.pricing.find_coupon(code)
        require(coupon is not None, "coupon", "unknown code %s" % code)
        reason = coupon.check(self.discounted_subtotal(), self.on_date)
        require(reason is None, "coupon", reason or "")
        self.coupon = coupon
        return coupon

    def remove_coupon(self):
        self.coupon = None

    def coupon_discount(self):
        """Current coupon discount; zero if none or no longer valid."""
        if self.coupon is None:
            return Money.zero(self.currency)
        base = self.discounted_subtotal()
        if self.coupon.check(base, self.on_date) is not None:
            return Money.zero(self.currency)
        return self.coupon.discount(base)

    def merchandise_total(self):
        return self.discounted_subtotal() - self.coupon_discount()

    @property
    def requires_shipping(self):
        return any(line.product.requires_shipping for line in self.lines)

    def pack(self):
        """Parcels needed for everything that ships."""
        items = []
        for line in self.lines:
            items.extend(ship.items_for_product(line.product, line.quantity))
        return ship.pack_items(items, self.boxes) if items else []

    def shipping_cost(self, country, method="standard"):
        if not self.requires_shipping:
            return Money.zero(self.currency)
        return self.rate_table.quote(self.pack(), country, method, subtotal=self.merchandise_total())

    def taxable_amounts(self):
        """``[(line, amount)]`` with the coupon spread over lines by net value."""
        priced = self.priced_lines()
        nets = [p.net for p in priced]
        coupon = self.coupon_discount()
        if coupon.is_zero or all(n.is_zero for n in nets):
            return [(p.line, net) for p, net in zip(priced, nets)]
        shares = coupon.allocate([n.amount for n in nets])
        return [(p.line, net - share) for p, net, share in zip(priced, nets, shares)]

    def tax(self, country, state=None):
        """Tax on the discounted merchandise, by line category."""
        region = self.tax_table.region_for(country, state)
        amounts = self.taxable_amounts()
        return sum_money((region.tax_for(amount, line.product.category) for line, amount in amounts), self.currency)

    def totals(self, country, state=None, method="standard"):
        """Everything needed for a checkout page."""
        if self.is_empty():
            zero = Money.zero(self.currency)
            return CartTotals(zero, zero, zero, zero, zero)
        return CartTotals(
            self.subtotal(),
            self.line_discounts(),
            self.coupon_discount(),
            self.shipping_cost(country, method),
            self.tax(country, state),
        )
