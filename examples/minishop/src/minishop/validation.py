"""Shared validators.

Every public constructor in minishop funnels its arguments through these
helpers, so they are the most frequently called functions in the package.
Each validator either returns a normalised value or raises
:class:`ValidationError`.
"""

import functools
import inspect
import re

from .utils import to_decimal

KNOWN_CURRENCIES = ("USD", "EUR", "GBP", "JPY", "CHF", "KWD", "CAD")

_EMAIL = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")
_POSTAL_PATTERNS = {
    "US": re.compile(r"^\d{5}(-\d{4})?$"),
    "CA": re.compile(r"^[A-Z]\d[A-Z] ?\d[A-Z]\d$"),
    "GB": re.compile(r"^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$"),
    "DE": re.compile(r"^\d{5}$"),
    "FR": re.compile(r"^\d{5}$"),
    "JP": re.compile(r"^\d{3}-\d{4}$"),
}


class ValidationError(ValueError):
    """Raised when a value fails validation; remembers the offending field."""

    def __init__(self, field, message):
        super().__init__("%s: %s" % (field, message))
        self.field = field
        self.message = message


def require(condition, field, message):
    """Raise :class:`ValidationError` unless ``condition`` is truthy."""
    if not condition:
        raise ValidationError(field, message)


def require_text(value, field, max_length=200):
    """Return ``value`` stripped; it must be a non-empty string."""
    require(isinstance(value, str), field, "must be a string")
    text = value.strip()
    require(text != "", field, "must not be empty")
    require(len(text) <= max_length, field, "must be at most %d characters" % max_length)
    return text


def _number(value, field):
    try:
        return to_decimal(value)
    except (TypeError, ValueError):
        raise ValidationError(field, "must be a number") from None


def require_positive(value, field):
    """Return ``value`` as a Decimal that is strictly greater than zero."""
    number = _number(value, field)
    require(number > 0, field, "must be positive")
    return number


def require_non_negative(value, field):
    """Return ``value`` as a Decimal that is zero or greater."""
    number = _number(value, field)
    require(number >= 0, field, "must not be negative")
    return number


def require_quantity(value, field="quantity", minimum=1, maximum=None):
    """Return ``value`` as an int within ``[minimum, maximum]``."""
    require(isinstance(value, int) and not isinstance(value, bool), field, "must be an integer")
    require(value >= minimum, field, "must be at least %d" % minimum)
    if maximum is not None:
        require(value <= maximum, field, "must be at most %d" % maximum)
    return value


def require_percent(value, field="percent"):
    """Return ``value`` as a Decimal between 0 and 100 inclusive."""
    number = _number(value, field)
    require(0 <= number <= 100, field, "must be between 0 and 100")
    return number


def require_currency(code, field="currency"):
    """Normalise a currency code to upper case and check it is supported."""
    require(isinstance(code, str), field, "must be a string")
    normalised = code.strip().upper()
    require(len(normalised) == 3 and normalised.isalpha(), field, "must be a 3-letter code")
    require(normalised in KNOWN_CURRENCIES, field, "unsupported currency %s" % normalised)
    return normalised


def require_one_of(value, options, field):
    """Check that ``value`` is one of ``options`` and return it."""
    require(value in options, field, "must be one of %s" % ", ".join(sorted(map(str, options))))
    return value


def require_email(value, field="email"):
    """Return a lower-cased e-mail address after a syntactic check."""
    text = require_text(value, field, max_length=254)
    require(_EMAIL.match(text) is not None, field, "is not a valid e-mail address")
    local, _, domain = text.rpartition("@")
    require(len(local) <= 64, field, "local part is too long")
    require(".." not in text, field, "must not contain consecutive dots")
    return local + "@" + domain.lower()


def require_postal_code(country, code, field="postal_code"):
    """Validate a postal code for ``country`` and return it normalised."""
    text = require_text(code, field, max_length=12).upper()
    pattern = _POSTAL_PATTERNS.get(country.upper())
    if pattern is None:
        require(len(text) >= 3, field, "is too short")
        return text
    require(pattern.match(text) is not None, field, "is not valid for %s" % country.upper())
    return text


def require_date_range(start, end, field="dates"):
    """Check that ``start`` is not after ``end`` when both are given."""
    if start is not None and end is not None:
        require(start <= end, field, "start must not be after end")
    return start, end


def validated(**checks):
    """Decorator that validates named arguments before the call.

    ``checks`` maps parameter names to one-argument callables which return the
    normalised value (or raise).  Defaults are applied first, so validators
    also see default values.  Example::

        @validated(quantity=require_quantity)
        def add(self, product, quantity=1): ...
    """

    def decorator(func):
        signature = inspect.signature(func)
        unknown = set(checks) - set(signature.parameters)
        if unknown:
            raise TypeError("unknown parameters to validate: %s" % ", ".join(sorted(unknown)))

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            for name, check in checks.items():
                bound.arguments[name] = check(bound.arguments[name])
            return func(*bound.args, **bound.kwargs)

        wrapper.validators = dict(checks)
        return wrapper

    return decorator
