import datetime
from decimal import Decimal

import pytest

from minishop import utils


@pytest.mark.parametrize(
    "value, expected",
    [
        (5, Decimal("5")),
        (0.1, Decimal("0.1")),
        (" 1_000.25 ", Decimal("1000.25")),
        ("-3.5", Decimal("-3.5")),
        (Decimal("2.50"), Decimal("2.50")),
        (1.005, Decimal("1.005")),
    ],
)
def test_to_decimal_converts(value, expected):
    result = utils.to_decimal(value)
    assert result == expected
    assert str(result) == str(expected)


@pytest.mark.parametrize("value", ["", "   ", "abc", "1.2.3", "nan", "inf"])
def test_to_decimal_rejects_bad_strings(value):
    with pytest.raises(ValueError):
        utils.to_decimal(value)


@pytest.mark.parametrize("value", [True, None, [1], object()])
def test_to_decimal_rejects_bad_types(value):
    with pytest.raises(TypeError):
        utils.to_decimal(value)


@pytest.mark.parametrize(
    "value, places, mode, expected",
    [
        ("2.345", 2, "half_up", "2.35"),
        ("2.345", 2, "half_even", "2.34"),
        ("2.355", 2, "half_even", "2.36"),
        ("2.349", 2, "down", "2.34"),
        ("2.341", 2, "up", "2.35"),
        ("-2.345", 2, "half_up", "-2.35"),
        ("7.5", 0, "half_up", "8"),
        ("7.5", 0, "half_even", "8"),
        ("6.5", 0, "half_even", "6"),
        ("1.23456", 3, "half_up", "1.235"),
    ],
)
def test_quantize(value, places, mode, expected):
    assert str(utils.quantize(value, places, mode)) == expected


def test_quantize_rejects_unknown_mode():
    with pytest.raises(ValueError):
        utils.quantize("1", 2, "banker")


def test_quantize_rejects_negative_places():
    with pytest.raises(ValueError):
        utils.quantize("1", -1)


@pytest.mark.parametrize(
    "value, low, high, expected",
    [(5, 0, 10, 5), (-1, 0, 10, 0), (11, 0, 10, 10), (0, 0, 10, 0), (10, 0, 10, 10), (3, 3, 3, 3)],
)
def test_clamp(value, low, high, expected):
    assert utils.clamp(value, low, high) == expected


def test_clamp_rejects_inverted_bounds():
    with pytest.raises(ValueError):
        utils.clamp(1, 5, 2)


@pytest.mark.parametrize(
    "amount, percent, expected",
    [("200", "15", "30"), ("19.99", "10", "1.999"), ("50", "0", "0"), ("80", "100", "80"), ("3", "33.3", "0.999")],
)
def test_percent_of(amount, percent, expected):
    assert utils.percent_of(amount, percent) == Decimal(expected)


@pytest.mark.parametrize(
    "value, expected",
    [("15%", "15"), (" 7.5 % ", "7.5"), ("100", "100"), (0, "0"), (Decimal("12.25"), "12.25"), ("0%", "0")],
)
def test_parse_percent(value, expected):
    assert utils.parse_percent(value) == Decimal(expected)


@pytest.mark.parametrize("value", ["101%", "-1", 100.01, "-0.5%"])
def test_parse_percent_out_of_range(value):
    with pytest.raises(ValueError):
        utils.parse_percent(value)


@pytest.mark.parametrize(
    "items, size, expected",
    [
        ([1, 2, 3, 4, 5], 2, [[1, 2], [3, 4], [5]]),
        ([1, 2, 3, 4], 2, [[1, 2], [3, 4]]),
        ([1, 2, 3], 5, [[1, 2, 3]]),
        ([], 3, []),
        ([1, 2, 3], 1, [[1], [2], [3]]),
    ],
)
def test_chunked(items, size, expected):
    assert utils.chunked(items, size) == expected


def test_chunked_rejects_zero_size():
    with pytest.raises(ValueError):
        utils.chunked([1], 0)


@pytest.mark.parametrize(
    "items, key, expected",
    [
        ([3, 1, 3, 2, 1], None, [3, 1, 2]),
        (["a", "B", "A", "b", "c"], str.lower, ["a", "B", "c"]),
        ([], None, []),
        ([1, 1, 1], None, [1]),
        ([(1, "x"), (2, "x"), (3, "y")], lambda t: t[1], [(1, "x"), (3, "y")]),
    ],
)
def test_unique_ordered(items, key, expected):
    assert utils.unique_ordered(items, key) == expected


@pytest.mark.parametrize(
    "text, max_length, expected",
    [
        ("Hello, World!", 40, "hello-world"),
        ("  Books & Media  ", 40, "books-media"),
        ("Audio", 40, "audio"),
        ("A very long category name here", 12, "a-very-long"),
        ("---", 40, ""),
        ("Kids' 2nd Edition", 40, "kids-2nd-edition"),
    ],
)
def test_slugify(text, max_length, expected):
    assert utils.slugify(text, max_length) == expected


def test_group_by_keeps_first_seen_key_order():
    words = ["apple", "bean", "avocado", "cherry", "banana"]
    assert utils.group_by(words, lambda w: w[0]) == {
        "a": ["apple", "avocado"],
        "b": ["bean", "banana"],
        "c": ["cherry"],
    }
    assert list(utils.group_by(words, lambda w: w[0])) == ["a", "b", "c"]


def test_group_by_parity():
    assert utils.group_by(range(6), lambda n: n % 2) == {0: [0, 2, 4], 1: [1, 3, 5]}


@pytest.mark.parametrize(
    "start, end, expected",
    [
        (datetime.date(2024, 2, 28), datetime.date(2024, 3, 1), 2),
        (datetime.date(2023, 2, 28), datetime.date(2023, 3, 1), 1),
        (datetime.date(2024, 3, 1), datetime.date(2024, 3, 1), 0),
        (datetime.date(2024, 3, 10), datetime.date(2024, 3, 1), -9),
    ],
)
def test_days_between(start, end, expected):
    assert utils.days_between(start, end) == expected


@pytest.mark.parametrize(
    "pairs, expected",
    [
        ([(10, 1), (20, 3)], Decimal("17.5")),
        ([(5, 2)], Decimal("5")),
        ([(1, 0), (3, 1)], Decimal("3")),
        ([("2.5", "2"), ("4", "1")], Decimal("3")),
        ([(100, 1), (0, 4)], Decimal("20")),
    ],
)
def test_weighted_average(pairs, expected):
    assert utils.weighted_average(pairs) == expected


def test_weighted_average_without_weight_is_none():
    assert utils.weighted_average([(4, 0)]) is None
    assert utils.weighted_average([]) is None


def test_weighted_average_rejects_negative_weight():
    with pytest.raises(ValueError):
        utils.weighted_average([(1, -1)])


def test_memoize_caches_and_clears():
    calls = []

    @utils.memoize
    def square(n):
        """Square a number."""
        calls.append(n)
        return n * n

    assert [square(3), square(3), square(4)] == [9, 9, 16]
    assert calls == [3, 4]
    assert square.cache == {(3,): 9, (4,): 16}
    assert square.__name__ == "square"
    assert square.__doc__ == "Square a number."
    square.cache_clear()
    assert square(3) == 9
    assert calls == [3, 4, 3]


@pytest.mark.parametrize(
    "calls, expected_calls, cache_size",
    [
        ([1, 1, 1], [1], 1),
        ([1, 2, 1, 2], [1, 2], 2),
        ([], [], 0),
        ([5, 4, 3, 4, 5], [5, 4, 3], 3),
        ([0, 0, 7], [0, 7], 2),
    ],
)
def test_memoize_cases(calls, expected_calls, cache_size):
    seen = []

    @utils.memoize
    def triple(n):
        seen.append(n)
        return 3 * n

    assert [triple(n) for n in calls] == [3 * n for n in calls]
    assert seen == expected_calls
    assert len(triple.cache) == cache_size


@pytest.mark.parametrize(
    "items, key, expected",
    [
        ([], len, {}),
        (["a", "bb", "c"], len, {1: ["a", "c"], 2: ["bb"]}),
        ([3, 1, 2], lambda n: n > 1, {True: [3, 2], False: [1]}),
        (["x"], str.upper, {"X": ["x"]}),
    ],
)
def test_group_by_cases(items, key, expected):
    assert utils.group_by(items, key) == expected


@pytest.mark.parametrize(
    "items, size, expected",
    [
        ([1, 2, 3, 4, 5, 6], 3, [[1, 2, 3], [4, 5, 6]]),
        ([1, 2, 3, 4, 5, 6, 7], 3, [[1, 2, 3], [4, 5, 6], [7]]),
        ("abcde", 2, [["a", "b"], ["c", "d"], ["e"]]),
        (range(4), 4, [[0, 1, 2, 3]]),
        ([9, 8], 2, [[9, 8]]),
    ],
)
def test_chunked_more(items, size, expected):
    assert utils.chunked(items, size) == expected


@pytest.mark.parametrize("value", ["0", "0%", 0, "0.0", "100%"])
def test_parse_percent_boundaries(value):
    assert utils.parse_percent(value) in (Decimal(0), Decimal(100))


@pytest.mark.parametrize("value, expected", [("0.5", "0.5"), ("1%", "1"), ("99.99", "99.99"), (1, "1"), ("0.01%", "0.01")])
def test_parse_percent_small_values(value, expected):
    assert utils.parse_percent(value) == Decimal(expected)


@pytest.mark.parametrize("size", [0, -1, -2, -10, -100])
def test_chunked_rejects_non_positive(size):
    with pytest.raises(ValueError):
        utils.chunked([1, 2], size)


@pytest.mark.parametrize("size, expected", [(1, 3), (2, 2), (3, 1), (4, 1), (100, 1)])
def test_chunked_counts(size, expected):
    assert len(utils.chunked([1, 2, 3], size)) == expected


@pytest.mark.parametrize("value, low, high", [(0, 0, 0), (5, 5, 5), (-1, -1, -1), (7, 3, 3), (1, 2, 2)])
def test_clamp_equal_bounds(value, low, high):
    assert utils.clamp(value, low, high) == low


@pytest.mark.parametrize(
    "text, max_length, expected",
    [("abcde", 5, "abcde"), ("abcdef", 5, "abcde"), ("ab cd", 5, "ab-cd"), ("ab cd e", 5, "ab-cd"), ("a b", 2, "a")],
)
def test_slugify_length_boundary(text, max_length, expected):
    assert utils.slugify(text, max_length) == expected


@pytest.mark.parametrize("value", ["", " ", "\t", "_", " _ "])
def test_to_decimal_rejects_empty(value):
    with pytest.raises(ValueError, match="empty numeric string"):
        utils.to_decimal(value)


@pytest.mark.parametrize(
    "pairs, expected",
    [([(4, 2)], "4"), ([(1, 3), (4, 1)], "1.75"), ([(10, "0.5"), (20, "0.5")], "15"), ([(3, 4), (3, 4)], "3"),
     ([(0, 1), (9, 2)], "6")],
)
def test_weighted_average_more(pairs, expected):
    assert utils.weighted_average(pairs) == Decimal(expected)


@pytest.mark.parametrize("items", [[1], [1, 2], [], "ab", [None, None, None]])
def test_chunked_size_one(items):
    assert utils.chunked(items, 1) == [[item] for item in items]


@pytest.mark.parametrize("mode", ["bankers", "HALF_UP", "", "ceiling", "floor"])
def test_quantize_unknown_modes(mode):
    with pytest.raises(ValueError, match="unknown rounding mode"):
        utils.quantize("1.5", 0, mode)


@pytest.mark.parametrize("value", [None, [], {}, (1,), object()])
def test_to_decimal_type_error_message(value):
    with pytest.raises(TypeError, match="cannot convert"):
        utils.to_decimal(value)
