"""Small, generic helpers shared by the rest of minishop.

Everything in here is pure and deterministic: no clocks, no randomness and
no I/O.  Most other modules lean on :func:`to_decimal` and :func:`quantize`.
"""

import functools
import re
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, ROUND_UP, Decimal, InvalidOperation

ROUNDING_MODES = {
    "half_up": ROUND_HALF_UP,
    "half_even": ROUND_HALF_EVEN,
    "down": ROUND_DOWN,
    "up": ROUND_UP,
}

_SLUG_STRIP = re.compile(r"[^a-z0-9]+")


def to_decimal(value):
    """Convert ``value`` into a :class:`~decimal.Decimal`.

    Integers and decimals pass straight through, floats go via their
    shortest ``repr`` so ``0.1`` becomes ``Decimal("0.1")``, and strings may
    contain surrounding whitespace and ``_`` digit separators.  Booleans are
    rejected because they are almost always a bug at the call site.
    """
    if isinstance(value, bool):
        raise TypeError("booleans are not numbers here")
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, str):
        text = value.strip().replace("_", "")
        if not text:
            raise ValueError("empty numeric string")
        try:
            result = Decimal(text)
        except InvalidOperation:
            raise ValueError("not a number: %r" % value) from None
        if not result.is_finite():
            raise ValueError("not a finite number: %r" % value)
        return result
    raise TypeError("cannot convert %s to Decimal" % type(value).__name__)


def quantize(value, places=2, mode="half_up"):
    """Round ``value`` to ``places`` decimal places using a named mode."""
    if mode not in ROUNDING_MODES:
        raise ValueError("unknown rounding mode: %s" % mode)
    if places < 0:
        raise ValueError("places must be non-negative")
    exponent = Decimal(1).scaleb(-places)
    return to_decimal(value).quantize(exponent, rounding=ROUNDING_MODES[mode])


def clamp(value, low, high):
    """Limit ``value`` to the closed interval ``[low, high]``."""
    if low > high:
        raise ValueError("low bound is greater than high bound")
    if value < low:
        return low
    if value > high:
        return high
    return value


def percent_of(amount, percent):
    """Return ``percent`` percent of ``amount`` as an unrounded Decimal."""
    return to_decimal(amount) * to_decimal(percent) / Decimal(100)


def parse_percent(value):
    """Parse ``"15%"``, ``"15"``, ``15`` or ``Decimal("15")`` into ``Decimal``.

    The result must lie between 0 and 100 inclusive.
    """
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("%"):
            text = text[:-1].strip()
        number = to_decimal(text)
    else:
        number = to_decimal(value)
    if number < 0 or number > 100:
        raise ValueError("percent out of range: %s" % value)
    return number


def chunked(items, size):
    """Split ``items`` into consecutive lists of at most ``size`` elements."""
    if size <= 0:
        raise ValueError("chunk size must be positive")
    chunk = []
    result = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            result.append(chunk)
            chunk = []
    if chunk:
        result.append(chunk)
    return result


def unique_ordered(items, key=None):
    """Drop duplicates from ``items`` while keeping first-seen order."""
    seen = set()
    result = []
    for item in items:
        marker = key(item) if key is not None else item
        if marker in seen:
            continue
        seen.add(marker)
        result.append(item)
    return result


def slugify(text, max_length=40):
    """Lower-case ``text`` and join its alphanumeric runs with dashes."""
    slug = _SLUG_STRIP.sub("-", text.lower()).strip("-")
    if len(slug) > max_length:
        slug = slug[:max_length].rstrip("-")
    return slug


def group_by(items, key):
    """Group ``items`` into a dict of lists keyed by ``key(item)``.

    Keys appear in the order they are first encountered.
    """
    groups = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


def days_between(start, end):
    """Number of whole days from ``start`` to ``end`` (may be negative)."""
    return (end - start).days


def weighted_average(pairs):
    """Weighted mean of ``(value, weight)`` pairs, or ``None`` if no weight."""
    total_weight = Decimal(0)
    total = Decimal(0)
    for value, weight in pairs:
        w = to_decimal(weight)
        if w < 0:
            raise ValueError("weights must be non-negative")
        total += to_decimal(value) * w
        total_weight += w
    if total_weight == 0:
        return None
    return total / total_weight


def memoize(func):
    """Cache results of a function of hashable positional arguments.

    The cache is exposed as ``wrapper.cache`` and can be emptied with
    ``wrapper.cache_clear()``.
    """
    cache = {}

    @functools.wraps(func)
    def wrapper(*args):
        if args in cache:
            return cache[args]
        result = func(*args)
        cache[args] = result
        return result

    def cache_clear():
        cache.clear()

    wrapper.cache = cache
    wrapper.cache_clear = cache_clear
    return wrapper
