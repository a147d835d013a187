import datetime
from decimal import Decimal

import pytest

from minishop.validation import (
    ValidationError,
    require,
    require_currency,
    require_date_range,
    require_email,
    require_non_negative,
    require_one_of,
    require_percent,
    require_positive,
    require_postal_code,
    require_quantity,
    require_text,
    validated,
)


def test_validation_error_message_and_field():
    error = ValidationError("price", "must be positive")
    assert str(error) == "price: must be positive"
    assert error.field == "price"
    assert error.message == "must be positive"
    assert isinstance(error, ValueError)


def test_require_passes_and_fails():
    require(True, "x", "never")
    with pytest.raises(ValidationError) as info:
        require(0, "x", "boom")
    assert str(info.value) == "x: boom"


@pytest.mark.parametrize("value, expected", [("  hi ", "hi"), ("a", "a"), ("x" * 10, "x" * 10)])
def test_require_text_strips(value, expected):
    assert require_text(value, "f", max_length=10) == expected


@pytest.mark.parametrize(
    "value, message",
    [(5, "f: must be a string"), ("   ", "f: must not be empty"), ("x" * 11, "f: must be at most 10 characters")],
)
def test_require_text_rejects(value, message):
    with pytest.raises(ValidationError) as info:
        require_text(value, "f", max_length=10)
    assert str(info.value) == message


@pytest.mark.parametrize("value, expected", [(1, Decimal(1)), ("0.01", Decimal("0.01")), (2.5, Decimal("2.5"))])
def test_require_positive_accepts(value, expected):
    assert require_positive(value, "v") == expected


@pytest.mark.parametrize("value, message", [(0, "v: must be positive"), ("-1", "v: must be positive"),
                                            ("abc", "v: must be a number"), (None, "v: must be a number")])
def test_require_positive_rejects(value, message):
    with pytest.raises(ValidationError) as info:
        require_positive(value, "v")
    assert str(info.value) == message


@pytest.mark.parametrize("value, ok", [(0, True), ("0.00", True), (3, True), ("-0.01", False), (-5, False)])
def test_require_non_negative(value, ok):
    if ok:
        assert require_non_negative(value, "n") == Decimal(str(value))
    else:
        with pytest.raises(ValidationError, match="must not be negative"):
            require_non_negative(value, "n")


@pytest.mark.parametrize(
    "value, minimum, maximum, ok",
    [
        (1, 1, None, True),
        (0, 1, None, False),
        (0, 0, None, True),
        (5, 1, 5, True),
        (6, 1, 5, False),
        (-1, 0, None, False),
        (1.0, 1, None, False),
        (True, 0, None, False),
        ("3", 1, None, False),
    ],
)
def test_require_quantity(value, minimum, maximum, ok):
    if ok:
        assert require_quantity(value, "q", minimum, maximum) == value
    else:
        with pytest.raises(ValidationError):
            require_quantity(value, "q", minimum, maximum)


def test_require_quantity_messages():
    with pytest.raises(ValidationError) as low:
        require_quantity(0)
    assert str(low.value) == "quantity: must be at least 1"
    with pytest.raises(ValidationError) as high:
        require_quantity(10, maximum=9)
    assert str(high.value) == "quantity: must be at most 9"


@pytest.mark.parametrize("value, ok", [(0, True), (100, True), ("12.5", True), (100.5, False), (-0.1, False)])
def test_require_percent(value, ok):
    if ok:
        assert require_percent(value) == Decimal(str(value))
    else:
        with pytest.raises(ValidationError, match="between 0 and 100"):
            require_percent(value)


@pytest.mark.parametrize("code, expected", [("usd", "USD"), (" eur ", "EUR"), ("JPY", "JPY"), ("kwd", "KWD")])
def test_require_currency_normalises(code, expected):
    assert require_currency(code) == expected


@pytest.mark.parametrize(
    "code, message",
    [
        ("US", "currency: must be a 3-letter code"),
        ("U5D", "currency: must be a 3-letter code"),
        ("XXX", "currency: unsupported currency XXX"),
        (840, "currency: must be a string"),
    ],
)
def test_require_currency_rejects(code, message):
    with pytest.raises(ValidationError) as info:
        require_currency(code)
    assert str(info.value) == message


def test_require_one_of():
    assert require_one_of("b", {"a", "b"}, "letter") == "b"
    with pytest.raises(ValidationError) as info:
        require_one_of("z", {"b", "a"}, "letter")
    assert str(info.value) == "letter: must be one of a, b"


@pytest.mark.parametrize(
    "value, expected",
    [
        ("Ann@Example.COM", "Ann@example.com"),
        (" bob.smith+shop@mail.co.uk ", "bob.smith+shop@mail.co.uk"),
        ("x_y@a-b.io", "x_y@a-b.io"),
    ],
)
def test_require_email_accepts(value, expected):
    assert require_email(value) == expected


@pytest.mark.parametrize(
    "value", ["plainaddress", "a@b", "a@b.c", "a..b@example.com", ("x" * 65) + "@example.com", "@example.com"]
)
def test_require_email_rejects(value):
    with pytest.raises(ValidationError):
        require_email(value)


@pytest.mark.parametrize(
    "country, code, expected",
    [
        ("US", "94105", "94105"),
        ("us", "94105-1234", "94105-1234"),
        ("CA", "k1a 0b1", "K1A 0B1"),
        ("GB", "sw1a 1aa", "SW1A 1AA"),
        ("JP", "100-0001", "100-0001"),
        ("NL", "1012 ab", "1012 AB"),
    ],
)
def test_require_postal_code_accepts(country, code, expected):
    assert require_postal_code(country, code) == expected


@pytest.mark.parametrize(
    "country, code",
    [("US", "9410"), ("US", "94105-12"), ("CA", "123 456"), ("DE", "1234"), ("JP", "1000001"), ("NL", "12")],
)
def test_require_postal_code_rejects(country, code):
    with pytest.raises(ValidationError):
        require_postal_code(country, code)


def test_require_date_range():
    a, b = datetime.date(2024, 1, 1), datetime.date(2024, 2, 1)
    assert require_date_range(a, b) == (a, b)
    assert require_date_range(a, a) == (a, a)
    assert require_date_range(None, b) == (None, b)
    assert require_date_range(a, None) == (a, None)
    with pytest.raises(ValidationError, match="start must not be after end"):
        require_date_range(b, a)


def test_validated_decorator_normalises_arguments():
    @validated(code=require_currency, quantity=require_quantity)
    def order(code, quantity=2):
        """Docstring survives."""
        return code, quantity

    assert order("usd") == ("USD", 2)
    assert order(" eur ", quantity=5) == ("EUR", 5)
    assert order.__doc__ == "Docstring survives."
    assert sorted(order.validators) == ["code", "quantity"]
    with pytest.raises(ValidationError):
        order("usd", 0)


def test_validated_rejects_unknown_parameter():
    with pytest.raises(TypeError, match="unknown parameters to validate: nope"):
        @validated(nope=require_quantity)
        def func(quantity):
            return quantity


@pytest.mark.parametrize(
    "args, kwargs, expected",
    [
        (("usd",), {}, ("USD", 1, "x")),
        (("eur", 3), {}, ("EUR", 3, "x")),
        (("gbp",), {"note": "y"}, ("GBP", 1, "y")),
        ((), {"currency": "jpy", "quantity": 7}, ("JPY", 7, "x")),
        (("chf", 2, "z"), {}, ("CHF", 2, "z")),
    ],
)
def test_validated_binds_all_call_styles(args, kwargs, expected):
    @validated(currency=require_currency, quantity=require_quantity)
    def make(currency, quantity=1, note="x"):
        return currency, quantity, note

    assert make(*args, **kwargs) == expected


@pytest.mark.parametrize(
    "args, kwargs, error",
    [
        (("usd", 0), {}, ValidationError),
        (("zzz",), {}, ValidationError),
        ((), {}, TypeError),
        (("usd", 1, "n", "extra"), {}, TypeError),
        (("usd",), {"bogus": 1}, TypeError),
    ],
)
def test_validated_errors(args, kwargs, error):
    @validated(currency=require_currency, quantity=require_quantity)
    def make(currency, quantity=1, note="x"):
        return currency, quantity, note

    with pytest.raises(error):
        make(*args, **kwargs)


@pytest.mark.parametrize(
    "local",
    ["a" * 64, "b" * 63 + "c", "first.last" + "x" * 54, "x" * 60 + "+tag", "0123456789" * 6 + "abcd"],
)
def test_require_email_accepts_64_character_local_part(local):
    assert len(local) == 64
    assert require_email(local + "@Example.org") == local + "@example.org"
    with pytest.raises(ValidationError, match="local part is too long"):
        require_email(local + "z@example.org")


@pytest.mark.parametrize("value", ["", " ", "  \t ", "\n", "\r\n"])
def test_require_text_rejects_blank(value):
    with pytest.raises(ValidationError, match="must not be empty"):
        require_text(value, "f")


@pytest.mark.parametrize("value, maximum", [(3, 3), (5, 10), (1, 1), (99, 99), (50, 51)])
def test_require_quantity_at_or_below_maximum(value, maximum):
    assert require_quantity(value, maximum=maximum) == value
    with pytest.raises(ValidationError, match="must be at most"):
        require_quantity(maximum + 1, maximum=maximum)


@pytest.mark.parametrize("local_length", [1, 5, 9, 20, 60])
def test_require_email_total_length_limit(local_length):
    local = "a" * local_length
    domain = "d" * (254 - local_length - 1 - 4) + ".com"
    address = local + "@" + domain
    assert len(address) == 254
    assert require_email(address) == address
    with pytest.raises(ValidationError, match="at most 254"):
        require_email(local + "@d" + domain)


@pytest.mark.parametrize("code, ok", [("123", True), ("12", False), ("A1", False), ("ABC", True), ("1234", True)])
def test_require_postal_code_minimum_length_for_unknown_countries(code, ok):
    if ok:
        assert require_postal_code("ZZ", code) == code
    else:
        with pytest.raises(ValidationError, match="too short"):
            require_postal_code("ZZ", code)


@pytest.mark.parametrize("country", ["ZZ", "NL", "BR", "IT", "AU"])
def test_three_character_postal_codes_are_enough(country):
    assert require_postal_code(country, "a1b") == "A1B"
