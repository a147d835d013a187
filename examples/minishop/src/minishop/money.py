"""Money value objects.

A :class:`Money` couples a :class:`~decimal.Decimal` amount with an ISO
currency code.  Arithmetic between different currencies is refused, and
rounding always respects the currency's number of minor digits.
"""

from decimal import Decimal

from . import utils
from .validation import ValidationError, require_currency

CURRENCY_EXPONENTS = {"USD": 2, "EUR": 2, "GBP": 2, "CHF": 2, "CAD": 2, "JPY": 0, "KWD": 3}
CURRENCY_SYMBOLS = {"USD": "$", "EUR": "\u20ac", "GBP": "\u00a3", "JPY": "\u00a5"}


class CurrencyMismatchError(ValueError):
    """Raised when combining amounts in two different currencies."""


class Money:
    """An immutable amount of money in a single currency."""

    __slots__ = ("_amount", "_currency")

    def __init__(self, amount=0, currency="USD"):
        code = require_currency(currency)
        try:
            value = utils.to_decimal(amount)
        except (TypeError, ValueError):
            raise ValidationError("amount", "must be a number") from None
        object.__setattr__(self, "_amount", value)
        object.__setattr__(self, "_currency", code)

    def __setattr__(self, name, value):
        raise AttributeError("Money is immutable")

    @property
    def amount(self):
        """The raw (possibly unrounded) decimal amount."""
        return self._amount

    @property
    def currency(self):
        """Upper-case ISO currency code."""
        return self._currency

    @classmethod
    def zero(cls, currency="USD"):
        """A zero amount in ``currency``."""
        return cls(0, currency)

    @classmethod
    def from_minor(cls, units, currency="USD"):
        """Build from an integer count of minor units (cents, pence...)."""
        exponent = cls.exponent_for(currency)
        return cls(Decimal(int(units)).scaleb(-exponent), currency)

    @classmethod
    def parse(cls, text):
        """Parse ``"USD 12.50"``, ``"12.50 EUR"`` or ``"$12.50"``."""
        cleaned = text.strip().replace(",", "")
        for code, symbol in CURRENCY_SYMBOLS.items():
            if cleaned.startswith(symbol):
                return cls(cleaned[len(symbol):].strip(), code)
            if cleaned.startswith("-" + symbol):
                return cls("-" + cleaned[len(symbol) + 1:].strip(), code)
        parts = cleaned.split()
        if len(parts) != 2:
            raise ValidationError("money", "cannot parse %r" % text)
        first, second = parts
        if first.isalpha():
            return cls(second, first)
        return cls(first, second)

    @staticmethod
    def exponent_for(currency):
        """Number of minor digits for ``currency`` (defaults to two)."""
        return CURRENCY_EXPONENTS.get(currency.upper(), 2)

    @property
    def minor_units(self):
        """The rounded amount expressed as an integer of minor units."""
        exponent = self.exponent_for(self._currency)
        return int(self.rounded()._amount.scaleb(exponent))

    @property
    def is_zero(self):
        return self._amount == 0

    @property
    def is_negative(self):
        return self._amount < 0

    def _coerce(self, other):
        if isinstance(other, Money):
            if other._currency != self._currency:
                raise CurrencyMismatchError("%s vs %s" % (self._currency, other._currency))
            return other._amount
        if other == 0 and not isinstance(other, bool):
            return Decimal(0)
        return NotImplemented

    def __add__(self, other):
        value = self._coerce(other)
        if value is NotImplemented:
            return NotImplemented
        return Money(self._amount + value, self._currency)

    __radd__ = __add__

    def __sub__(self, other):
        value = self._coerce(other)
        if value is NotImplemented:
            return NotImplemented
        return Money(self._amount - value, self._currency)

    def __neg__(self):
        return Money(-self._amount, self._currency)

    def __abs__(self):
        return Money(abs(self._amount), self._currency)

    def __mul__(self, factor):
        if isinstance(factor, (Money, bool)):
            return NotImplemented
        return Money(self._amount * utils.to_decimal(factor), self._currency)

    __rmul__ = __mul__

    def __truediv__(self, divisor):
        if isinstance(divisor, (Money, bool)):
            return NotImplemented
        value = utils.to_decimal(divisor)
        if value == 0:
            raise ZeroDivisionError("division of Money by zero")
        return Money(self._amount / value, self._currency)

    def __eq__(self, other):
        if not isinstance(other, Money):
            return NotImplemented
        return self._currency == other._currency and self._amount == other._amount

    def __hash__(self):
        return hash((self._currency, self._amount))

    def _compare_value(self, other):
        if not isinstance(other, Money):
            raise TypeError("cannot compare Money with %s" % type(other).__name__)
        return self._coerce(other)

    def __lt__(self, other):
        return self._amount < self._compare_value(other)

    def __le__(self, other):
        return self._amount <= self._compare_value(other)

    def __gt__(self, other):
        return self._amount > self._compare_value(other)

    def __ge__(self, other):
        return self._amount >= self._compare_value(other)

    def __bool__(self):
        return not self.is_zero

    def __repr__(self):
        return "Money(%r, %r)" % (str(self._amount), self._currency)

    def __str__(self):
        return self.format()

    def rounded(self, mode="half_up"):
        """Round to the currency's minor unit."""
        places = self.exponent_for(self._currency)
        return Money(utils.quantize(self._amount, places, mode), self._currency)

    def percentage(self, percent, mode="half_up"):
        """``percent`` percent of this amount, rounded to minor units."""
        return Money(utils.percent_of(self._amount, percent), self._currency).rounded(mode)

    def allocate(self, ratios):
        """Split into parts proportional to ``ratios`` without losing cents.

        Leftover minor units are handed out one at a time to the parts with
        the largest fractional remainders (earliest index wins ties).
        """
        if not ratios:
            raise ValueError("at least one ratio is required")
        weights = [utils.to_decimal(r) for r in ratios]
        if any(w < 0 for w in weights):
            raise ValueError("ratios must be non-negative")
        total_weight = sum(weights)
        if total_weight == 0:
            raise ValueError("ratios must not all be zero")
        total_units = self.minor_units
        sign = -1 if total_units < 0 else 1
        units = abs(total_units)
        exact = [Decimal(units) * w / total_weight for w in weights]
        shares = [int(e) for e in exact]
        remainder = units - sum(shares)
        order = sorted(range(len(exact)), key=lambda i: (-(exact[i] - shares[i]), i))
        for index in order[:remainder]:
            shares[index] += 1
        return [Money.from_minor(sign * s, self._currency) for s in shares]

    def split(self, parts):
        """Split evenly into ``parts`` pieces (see :meth:`allocate`)."""
        if parts <= 0:
            raise ValueError("parts must be positive")
        return self.allocate([1] * parts)

    def format(self, with_symbol=True):
        """Human readable form with thousands separators, e.g. ``$1,234.50``."""
        places = self.exponent_for(self._currency)
        value = utils.quantize(self._amount, places)
        sign = "-" if value < 0 else ""
        whole, _, fraction = format(abs(value), "f").partition(".")
        groups = []
        while len(whole) > 3:
            groups.insert(0, whole[-3:])
            whole = whole[:-3]
        groups.insert(0, whole)
        body = ",".join(groups)
        if fraction:
            body = body + "." + fraction
        symbol = CURRENCY_SYMBOLS.get(self._currency)
        if with_symbol and symbol:
            return sign + symbol + body
        return sign + body + " " + self._currency


def sum_money(items, currency="USD"):
    """Add up an iterable of :class:`Money`, starting from zero."""
    total = Money.zero(currency)
    for item in items:
        total = total + item
    return total


def max_money(items, default=None):
    """Largest amount in ``items`` or ``default`` when empty."""
    best = default
    for item in items:
        if best is None or item > best:
            best = item
    return best


def min_money(items, default=None):
    """Smallest amount in ``items`` or ``default`` when empty."""
    best = default
    for item in items:
        if best is None or item < best:
            best = item
    return best
