"""Price rules, coupons and the pricing engine.

Every rule derives from the abstract :class:`PriceRule`.  Exclusive rules
compete (the single biggest discount wins) while stackable rules are all
added on top; the combined discount never exceeds the line subtotal.
"""

from abc import ABC, abstractmethod

from .money import Money
from .money import sum_money as total_of
from .utils import clamp
from .validation import (
    ValidationError,
    require,
    require_date_range,
    require_percent,
    require_quantity,
    require_text,
)

RULE_TYPES = {}


def rule_type(name):
    """Class decorator: register a rule class for (de)serialisation."""

    def decorator(cls):
        RULE_TYPES[name] = cls
        cls.type_name = name
        return cls

    return decorator


class LineContext:
    """Everything a price rule may inspect about one cart line."""

    def __init__(self, product, quantity, customer_tier=None, on_date=None):
        self.product = product
        self.quantity = require_quantity(quantity)
        self.customer_tier = customer_tier
        self.on_date = on_date

    @property
    def unit_price(self):
        return self.product.price

    @property
    def subtotal(self):
        return self.unit_price * self.quantity

    @property
    def currency(self):
        return self.unit_price.currency


class PriceRule(ABC):
    """Base class of all discount rules."""

    type_name = "abstract"
    stackable = False

    def __init__(self, name, starts=None, ends=None, category=None):
        self.name = require_text(name, "name")
        self.starts, self.ends = require_date_range(starts, ends)
        self.category = category

    def is_active(self, on_date):
        """Whether the rule's validity window contains ``on_date``."""
        if on_date is None:
            return True
        if self.starts is not None and on_date < self.starts:
            return False
        if self.ends is not None and on_date > self.ends:
            return False
        return True

    def applies_to(self, line):
        """Date and category checks; subclasses add their own conditions."""
        if not self.is_active(line.on_date):
            return False
        if self.category is not None:
            category = line.product.category
            return category is not None and category.is_within(self.category)
        return True

    @abstractmethod
    def compute(self, line):
        """Raw discount for ``line`` (before clamping and rounding)."""

    def discount_for(self, line):
        """Rounded discount for ``line``, between zero and its subtotal."""
        zero = Money.zero(line.currency)
        if not self.applies_to(line):
            return zero
        amount = self.compute(line).rounded()
        return clamp(amount, zero, line.subtotal)

    def describe(self):
        return self.name

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.name)


@rule_type("percentage")
class PercentageDiscount(PriceRule):
    """A flat percentage off the line subtotal."""

    def __init__(self, name, percent, **kwargs):
        super().__init__(name, **kwargs)
        self.percent = require_percent(percent)

    def compute(self, line):
        return line.subtotal.percentage(self.percent)

    def describe(self):
        return "%s (%s%% off)" % (super().describe(), self.percent)


@rule_type("member")
class MemberDiscount(PercentageDiscount):
    """Percentage discount for certain customer tiers; stacks with others."""

    stackable = True

    def __init__(self, name, percent, tiers, **kwargs):
        super().__init__(name, percent, **kwargs)
        require(len(tiers) > 0, "tiers", "at least one tier is required")
        self.tiers = frozenset(tiers)

    def applies_to(self, line):
        if line.customer_tier not in self.tiers:
            return False
        return super().applies_to(line)


@rule_type("fixed")
class FixedAmountDiscount(PriceRule):
    """A fixed amount off each unit once ``min_quantity`` is reached."""

    def __init__(self, name, amount_off, min_quantity=1, **kwargs):
        super().__init__(name, **kwargs)
        require(isinstance(amount_off, Money) and amount_off.amount > 0, "amount_off", "must be positive Money")
        self.amount_off = amount_off
        self.min_quantity = require_quantity(min_quantity, "min_quantity")

    def applies_to(self, line):
        return line.quantity >= self.min_quantity and super().applies_to(line)

    def compute(self, line):
        return self.amount_off * line.quantity


@rule_type("bulk")
class BulkTierDiscount(PriceRule):
    """Percentage that grows with quantity.

    ``tiers`` is a list of ``(min_quantity, percent)`` pairs; the highest tier
    whose minimum is reached applies.
    """

    def __init__(self, name, tiers, **kwargs):
        super().__init__(name, **kwargs)
        require(len(tiers) > 0, "tiers", "at least one tier is required")
        cleaned = sorted((require_quantity(q, "tier"), require_percent(p)) for q, p in tiers)
        minimums = [q for q, _ in cleaned]
        require(len(set(minimums)) == len(minimums), "tiers", "duplicate minimum quantity")
        self.tiers = cleaned

    def tier_percent(self, quantity):
        """Percent applicable for ``quantity`` units (0 below the first tier)."""
        percent = 0
        for minimum, tier_percent in self.tiers:
            if quantity >= minimum:
                percent = tier_percent
            else:
                break
        return percent

    def applies_to(self, line):
        return self.tier_percent(line.quantity) > 0 and super().applies_to(line)

    def compute(self, line):
        return line.subtotal.percentage(self.tier_percent(line.quantity))


@rule_type("bogo")
class BuyXGetYFree(PriceRule):
    """Buy ``buy`` units, get ``free`` more at no cost (repeating)."""

    def __init__(self, name, buy, free, **kwargs):
        super().__init__(name, **kwargs)
        self.buy = require_quantity(buy, "buy")
        self.free = require_quantity(free, "free")

    def free_units(self, quantity):
        """How many of ``quantity`` units are free."""
        group = self.buy + self.free
        full_groups, rest = divmod(quantity, group)
        return full_groups * self.free + max(0, rest - self.buy)

    def compute(self, line):
        return line.unit_price * self.free_units(line.quantity)


def normalize_coupon_code(code):
    """Upper-case a coupon code and drop spaces and dashes."""
    text = require_text(code, "coupon")
    return "".join(ch for ch in text.upper() if ch not in " -")


class Coupon:
    """An order-level discount redeemed with a code."""

    def __init__(self, code, percent=None, amount=None, min_subtotal=None, max_uses=None, expires=None):
        self.code = normalize_coupon_code(code)
        require((percent is None) != (amount is None), "coupon", "give exactly one of percent or amount")
        self.percent = require_percent(percent) if percent is not None else None
        self.amount = amount
        self.min_subtotal = min_subtotal
        self.max_uses = require_quantity(max_uses, "max_uses") if max_uses is not None else None
        self.expires = expires
        self.uses = 0

    def check(self, subtotal, on_date=None):
        """Return ``None`` if usable for ``subtotal``, else a reason string."""
        if self.expires is not None and on_date is not None and on_date > self.expires:
            return "expired"
        if self.max_uses is not None and self.uses >= self.max_uses:
            return "used up"
        if self.min_subtotal is not None and subtotal < self.min_subtotal:
            return "subtotal below %s" % self.min_subtotal
        if self.amount is not None and self.amount.currency != subtotal.currency:
            return "wrong currency"
        return None

    def discount(self, subtotal):
        """Discount this coupon gives on ``subtotal`` (never more than it)."""
        if self.percent is not None:
            value = subtotal.percentage(self.percent)
        else:
            value = self.amount
        return min(value, subtotal)

    def redeem(self, subtotal, on_date=None):
        """Consume one use and return the discount, or raise."""
        reason = self.check(subtotal, on_date)
        if reason is not None:
            raise ValidationError("coupon", "%s: %s" % (self.code, reason))
        self.uses += 1
        return self.discount(subtotal)


class PricedLine:
    """Result of pricing one line: the applied discounts and the net."""

    def __init__(self, line, discounts):
        self.line = line
        self.discounts = discounts

    @property
    def gross(self):
        return self.line.subtotal

    @property
    def discount(self):
        return total_of((amount for _, amount in self.discounts), self.line.currency)

    @property
    def net(self):
        return self.gross - self.discount

    @property
    def rule_names(self):
        return [name for name, _ in self.discounts]


class PricingEngine:
    """Applies rules to lines and looks up coupons."""

    def __init__(self, rules=(), coupons=()):
        self.rules = list(rules)
        self._coupons = {}
        for coupon in coupons:
            self.register_coupon(coupon)

    def add_rule(self, rule):
        if not isinstance(rule, PriceRule):
            raise TypeError("rules must derive from PriceRule")
        self.rules.append(rule)
        return rule

    def register_coupon(self, coupon):
        if coupon.code in self._coupons:
            raise ValidationError("coupon", "duplicate code %s" % coupon.code)
        self._coupons[coupon.code] = coupon
        return coupon

    def find_coupon(self, code):
        """Coupon for ``code`` (any case/spacing) or ``None``."""
        return self._coupons.get(normalize_coupon_code(code))

    def best_exclusive(self, line):
        """``(rule, amount)`` of the largest non-stackable discount or ``None``."""
        best = None
        for rule in self.rules:
            if rule.stackable:
                continue
            amount = rule.discount_for(line)
            if amount.is_zero:
                continue
            if best is None or amount > best[1]:
                best = (rule, amount)
        return best

    def price_line(self, line):
        """Price one :class:`LineContext` into a :class:`PricedLine`."""
        applied = []
        best = self.best_exclusive(line)
        if best is not None:
            applied.append((best[0].name, best[1]))
        remaining = line.subtotal - (best[1] if best else 0)
        for rule in self.rules:
            if not rule.stackable or remaining.is_zero:
                continue
            amount = min(rule.discount_for(line), remaining)
            if amount.is_zero:
                continue
            applied.append((rule.name, amount))
            remaining = remaining - amount
        return PricedLine(line, applied)

    def price_lines(self, lines):
        return [self.price_line(line) for line in lines]
