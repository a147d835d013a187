from decimal import Decimal

import pytest

from minishop import CurrencyMismatchError, Money, ValidationError, total
from minishop.money import max_money, min_money


def test_construction_normalises_currency():
    money = Money("12.5", "usd")
    assert money.amount == Decimal("12.5")
    assert money.currency == "USD"
    assert repr(money) == "Money('12.5', 'USD')"


def test_money_is_immutable():
    money = Money(1)
    with pytest.raises(AttributeError):
        money.amount = 5


@pytest.mark.parametrize("amount", ["abc", None, True])
def test_bad_amount(amount):
    with pytest.raises(ValidationError):
        Money(amount)


@pytest.mark.parametrize(
    "units, currency, expected",
    [(1234, "USD", "12.34"), (-5, "EUR", "-0.05"), (500, "JPY", "500"), (1234, "KWD", "1.234"), (0, "GBP", "0.00")],
)
def test_from_minor(units, currency, expected):
    assert Money.from_minor(units, currency) == Money(expected, currency)


@pytest.mark.parametrize(
    "amount, currency, units",
    [("12.345", "USD", 1235), ("12.344", "USD", 1234), ("-0.005", "USD", -1), ("99.5", "JPY", 100), ("1.2345", "KWD", 1235)],
)
def test_minor_units(amount, currency, units):
    assert Money(amount, currency).minor_units == units


@pytest.mark.parametrize(
    "text, expected",
    [
        ("USD 12.50", Money("12.50", "USD")),
        ("12.50 eur", Money("12.50", "EUR")),
        ("$1,234.56", Money("1234.56", "USD")),
        ("-$3.00", Money("-3.00", "USD")),
        ("\u00a31.10", Money("1.10", "GBP")),
        ("\u00a5500", Money("500", "JPY")),
    ],
)
def test_parse(text, expected):
    assert Money.parse(text) == expected


@pytest.mark.parametrize("text", ["12.50", "USD 12 50", "1 2 3"])
def test_parse_rejects(text):
    with pytest.raises(ValidationError):
        Money.parse(text)


def test_addition_and_subtraction():
    a, b = Money("10.10"), Money("2.05")
    assert a + b == Money("12.15")
    assert a - b == Money("8.05")
    assert b - a == Money("-8.05")
    assert -a == Money("-10.10")
    assert abs(Money("-3")) == Money("3")


def test_sum_builtin_uses_radd_with_zero():
    assert sum([Money("1.50"), Money("2.25"), Money("0.25")]) == Money("4.00")


def test_adding_plain_numbers_is_refused():
    with pytest.raises(TypeError):
        Money(1) + 5
    with pytest.raises(TypeError):
        Money(1) - 2


def test_currency_mismatch():
    with pytest.raises(CurrencyMismatchError):
        Money(1, "USD") + Money(1, "EUR")
    with pytest.raises(CurrencyMismatchError):
        Money(1, "USD") < Money(1, "EUR")


@pytest.mark.parametrize(
    "amount, factor, expected",
    [("19.99", 3, "59.97"), ("10", "0.5", "5.0"), ("2.50", Decimal("1.1"), "2.750"), ("7", 0, "0")],
)
def test_multiplication(amount, factor, expected):
    assert Money(amount) * factor == Money(expected)
    assert factor * Money(amount) == Money(expected)


def test_multiplying_two_money_values_is_refused():
    with pytest.raises(TypeError):
        Money(2) * Money(3)


def test_comparisons():
    small, big = Money("1.00"), Money("2.00")
    assert small < big
    assert small <= big
    assert big > small
    assert big >= small
    assert small <= Money("1")
    assert small >= Money("1")
    assert not small > Money("1")
    assert not small < Money("1")
    with pytest.raises(TypeError):
        small < 5


def test_equality_and_hash():
    assert Money("1.0") == Money("1.00")
    assert hash(Money("1.0")) == hash(Money("1.00"))
    assert Money("1", "USD") != Money("1", "EUR")
    assert Money(1) != 1
    assert len({Money("5"), Money("5.00"), Money("6")}) == 2


def test_truthiness_and_flags():
    assert not Money(0)
    assert Money("0.01")
    assert Money("-1").is_negative
    assert not Money("0").is_negative
    assert Money("0.00").is_zero


@pytest.mark.parametrize(
    "amount, currency, mode, expected",
    [
        ("2.345", "USD", "half_up", "2.35"),
        ("2.345", "USD", "half_even", "2.34"),
        ("2.349", "USD", "down", "2.34"),
        ("1234.5", "JPY", "half_up", "1235"),
        ("1.23456", "KWD", "half_up", "1.235"),
        ("-0.125", "EUR", "half_up", "-0.13"),
    ],
)
def test_rounded(amount, currency, mode, expected):
    result = Money(amount, currency).rounded(mode)
    assert str(result.amount) == expected


@pytest.mark.parametrize(
    "amount, percent, expected",
    [("59.99", 10, "6.00"), ("19.99", "15", "3.00"), ("200", "7.25", "14.50"), ("0.05", 50, "0.03"), ("100", 0, "0.00")],
)
def test_percentage(amount, percent, expected):
    assert str(Money(amount).percentage(percent).amount) == expected


@pytest.mark.parametrize(
    "amount, ratios, expected",
    [
        ("100.00", [1, 1, 1], ["33.34", "33.33", "33.33"]),
        ("0.05", [3, 7], ["0.02", "0.03"]),
        ("10.00", [1, 0, 1], ["5.00", "0.00", "5.00"]),
        ("-1.00", [1, 2], ["-0.33", "-0.67"]),
        ("0.10", [1, 1, 1], ["0.04", "0.03", "0.03"]),
        ("5", [2, 3], ["2.00", "3.00"]),
    ],
)
def test_allocate(amount, ratios, expected):
    parts = Money(amount).allocate(ratios)
    assert [str(p.amount) for p in parts] == expected
    assert sum(parts) == Money(amount).rounded()


def test_allocate_jpy_uses_whole_units():
    assert [p.amount for p in Money(100, "JPY").allocate([1, 2])] == [Decimal(33), Decimal(67)]


@pytest.mark.parametrize("ratios", [[], [0, 0], [1, -1]])
def test_allocate_rejects_bad_ratios(ratios):
    with pytest.raises(ValueError):
        Money(10).allocate(ratios)


def test_split():
    assert [str(p.amount) for p in Money("10.00").split(3)] == ["3.34", "3.33", "3.33"]
    assert [str(p.amount) for p in Money("0.03").split(4)] == ["0.01", "0.01", "0.01", "0.00"]
    with pytest.raises(ValueError):
        Money(1).split(0)


@pytest.mark.parametrize(
    "amount, currency, with_symbol, expected",
    [
        ("1234.5", "USD", True, "$1,234.50"),
        ("1234567.891", "USD", True, "$1,234,567.89"),
        ("-42", "EUR", True, "-\u20ac42.00"),
        ("999", "GBP", True, "\u00a3999.00"),
        ("1000", "JPY", True, "\u00a51,000"),
        ("12.5", "CHF", True, "12.50 CHF"),
        ("1234.5", "USD", False, "1,234.50 USD"),
        ("0.0005", "KWD", True, "0.001 KWD"),
        ("123456", "USD", True, "$123,456.00"),
    ],
)
def test_format(amount, currency, with_symbol, expected):
    assert Money(amount, currency).format(with_symbol) == expected


def test_str_uses_format():
    assert str(Money("5")) == "$5.00"


def test_total_helper():
    assert total([Money("1.10"), Money("2.20")]) == Money("3.30")
    assert total([], "EUR") == Money(0, "EUR")
    with pytest.raises(CurrencyMismatchError):
        total([Money(1, "EUR")], "USD")


def test_max_and_min_money():
    values = [Money("3"), Money("7.5"), Money("1.25"), Money("7.5")]
    assert max_money(values) == Money("7.5")
    assert min_money(values) == Money("1.25")
    assert max_money([], default=Money(0)) == Money(0)
    assert min_money([]) is None
    assert min_money([Money("5")], default=Money("2")) == Money("2")
    assert max_money([Money("5")], default=Money("2")) == Money("5")


@pytest.mark.parametrize(
    "amount, divisor, expected", [("10", 4, "2.5"), ("53.98", 2, "26.99"), ("1", "0.5", "2"), ("-9", 3, "-3")]
)
def test_division(amount, divisor, expected):
    assert Money(amount) / divisor == Money(expected)


def test_division_errors():
    with pytest.raises(ZeroDivisionError):
        Money(1) / 0
    with pytest.raises(TypeError):
        Money(1) / Money(1)


@pytest.mark.parametrize(
    "values, default, largest, smallest",
    [
        (["1", "2", "3"], None, "3", "1"),
        (["-5", "-2"], None, "-2", "-5"),
        (["7"], None, "7", "7"),
        (["4", "4.00", "1"], None, "4", "1"),
        (["0.01", "0.02"], "0.015", "0.02", "0.01"),
        (["2", "8"], "5", "8", "2"),
    ],
)
def test_max_min_money_cases(values, default, largest, smallest):
    items = [Money(v) for v in values]
    fallback = Money(default) if default else None
    assert max_money(items, fallback) == max(items + ([fallback] if fallback else []))
    assert min_money(items, fallback) == min(items + ([fallback] if fallback else []))
    if default is None:
        assert max_money(items) == Money(largest)
        assert min_money(items) == Money(smallest)


@pytest.mark.parametrize(
    "amount, parts, expected",
    [
        ("1.00", 3, ["0.34", "0.33", "0.33"]),
        ("1.00", 1, ["1.00"]),
        ("0.05", 2, ["0.03", "0.02"]),
        ("-0.10", 3, ["-0.04", "-0.03", "-0.03"]),
        ("9.99", 4, ["2.50", "2.50", "2.50", "2.49"]),
    ],
)
def test_split_cases(amount, parts, expected):
    assert [str(p.amount) for p in Money(amount).split(parts)] == expected


@pytest.mark.parametrize(
    "amount, ratios, expected",
    [
        ("1.00", [1, 2], ["0.33", "0.67"]),
        ("0.10", [1, 2], ["0.03", "0.07"]),
        ("0.05", [1, 3], ["0.01", "0.04"]),
        ("0.11", [2, 1], ["0.07", "0.04"]),
        ("1", [1, 5], ["0.17", "0.83"]),
        ("2.00", [1, 1, 1], ["0.67", "0.67", "0.66"]),
    ],
)
def test_allocate_gives_leftover_to_largest_remainder(amount, ratios, expected):
    assert [str(p.amount) for p in Money(amount).allocate(ratios)] == expected


@pytest.mark.parametrize(
    "amount, currency, expected",
    [
        ("12345.67", "USD", "$12,345.67"),
        ("1000", "USD", "$1,000.00"),
        ("999999.99", "USD", "$999,999.99"),
        ("-1234567", "JPY", "-\u00a51,234,567"),
        ("10000", "EUR", "\u20ac10,000.00"),
        ("5000.5", "CAD", "5,000.50 CAD"),
    ],
)
def test_format_thousands(amount, currency, expected):
    assert Money(amount, currency).format() == expected


@pytest.mark.parametrize(
    "text, expected",
    [("EUR 5", Money(5, "EUR")), ("5 EUR", Money(5, "EUR")), ("jpy 1,000", Money(1000, "JPY")),
     ("  GBP   2.5 ", Money("2.5", "GBP")), ("0.001 KWD", Money("0.001", "KWD"))],
)
def test_parse_two_part_forms(text, expected):
    assert Money.parse(text) == expected


@pytest.mark.parametrize("text", ["USD", "", "USD 1 2", "EUR EUR 1", "5"])
def test_parse_rejects_wrong_part_count(text):
    with pytest.raises(ValidationError, match="cannot parse"):
        Money.parse(text)


@pytest.mark.parametrize(
    "amount, ratios, expected",
    [
        ("1.00", ["0.5", "0.5"], ["0.50", "0.50"]),
        ("3.00", ["0.25", "0.75"], ["0.75", "2.25"]),
        ("1.00", [0, 1], ["0.00", "1.00"]),
        ("-3.00", [1, 2], ["-1.00", "-2.00"]),
        ("-0.05", [1, 1], ["-0.03", "-0.02"]),
    ],
)
def test_allocate_fractional_zero_and_negative(amount, ratios, expected):
    assert [str(p.amount) for p in Money(amount).allocate(ratios)] == expected


@pytest.mark.parametrize(
    "amount, expected",
    [("999", "$999.00"), ("100", "$100.00"), ("123.45", "$123.45"), ("-555", "-$555.00"), ("1", "$1.00")],
)
def test_format_three_digits_has_no_separator(amount, expected):
    assert Money(amount).format() == expected


@pytest.mark.parametrize(
    "amount, currency, expected",
    [("1", "CHF", "1.00 CHF"), ("-2.5", "CAD", "-2.50 CAD"), ("1.2345", "KWD", "1.235 KWD"),
     ("1000", "CHF", "1,000.00 CHF"), ("3", "USD", "3.00 USD")],
)
def test_format_with_code(amount, currency, expected):
    assert Money(amount, currency).format(with_symbol=currency != "USD") == expected


@pytest.mark.parametrize("a, b", [("USD", "EUR"), ("EUR", "GBP"), ("JPY", "USD"), ("CHF", "CAD"), ("KWD", "JPY")])
def test_currency_mismatch_message(a, b):
    with pytest.raises(CurrencyMismatchError, match="%s vs %s" % (a, b)):
        Money(1, a) - Money(1, b)
