from decimal import Decimal

import pytest

from conftest import usd
from minishop import Category, Money, TaxRegion, TaxTable, ValidationError, default_tax_table
from minishop.tax import add_tax, split_inclusive


@pytest.fixture
def table():
    return default_tax_table()


@pytest.mark.parametrize(
    "code, category, rate",
    [
        ("DE", None, "19"),
        ("DE", "books", "7"),
        ("DE", "children", "7"),
        ("DE", "audio", "19"),
        ("GB", "children", "0"),
        ("GB", "books", "0"),
        ("GB", "clothing", "20"),
        ("US-CA", "food", "0"),
        ("US-CA", "books", "7.25"),
        ("US-NY", "clothing", "0"),
        ("US-NY", "food", "4"),
    ],
)
def test_rate_for(table, categories, code, category, rate):
    region = table.region_for(*code.split("-"))
    assert region.rate_for(categories[category] if category else None) == Decimal(rate)


def test_rate_for_category_override_on_leaf():
    energy = Category("Energy")
    assert default_tax_table().region_for("GB").rate_for(energy) == Decimal(5)


@pytest.mark.parametrize(
    "country, state, category, expected",
    [
        ("CA", "QC", None, "14.9750"),
        ("CA", "PE", None, "15.5000"),
        ("CA", None, None, "5.0000"),
        ("US", "CA", None, "7.2500"),
        ("US", "CA", "food", "0.0000"),
        ("DE", None, "books", "7.0000"),
        ("US", "OR", None, "0.0000"),
    ],
)
def test_effective_rate(table, categories, country, state, category, expected):
    region = table.region_for(country, state)
    rate = region.effective_rate(categories[category] if category else None)
    assert str(rate) == expected


@pytest.mark.parametrize(
    "country, state, amount, category, expected",
    [
        ("US", "CA", "100", None, "7.25"),
        ("US", "CA", "19.99", None, "1.45"),
        ("US", "CA", "15.00", "food", "0.00"),
        ("CA", "PE", "100", None, "15.50"),
        ("CA", "PE", "19.99", None, "3.10"),
        ("CA", "QC", "19.99", None, "2.99"),
        ("DE", None, "100", "audio", "19.00"),
        ("DE", None, "29.99", "books", "2.10"),
        ("GB", None, "12.50", "children", "0.00"),
        ("US", "TX", "100", None, "0.00"),
        ("US", "NY", "0", None, "0.00"),
    ],
)
def test_tax_for(table, categories, country, state, amount, category, expected):
    tax = table.tax_for(usd(amount), country, state, categories[category] if category else None)
    assert tax == usd(expected)
    assert tax.currency == "USD"


def test_tax_for_requires_money(table):
    with pytest.raises(ValidationError):
        table.region_for("DE").tax_for(Decimal("10"))


def test_region_for_fallbacks(table):
    assert table.region_for("us", "ca").code == "US-CA"
    assert table.region_for("US", "TX").code == "US"
    assert table.region_for("US").code == "US"
    assert table.region_for("DE", "").code == "DE"
    with pytest.raises(ValidationError, match="no tax region for FR"):
        table.region_for("fr")


def test_table_codes_and_membership(table):
    assert table.codes() == ["CA", "CA-PE", "CA-QC", "DE", "GB", "US", "US-CA", "US-NY", "US-OR"]
    assert "us-ca" in table
    assert "FR" not in table


def test_table_rejects_duplicates(table):
    with pytest.raises(ValidationError):
        table.add(TaxRegion("de", "Again", 5))


def test_region_validation():
    with pytest.raises(ValidationError):
        TaxRegion("XX", "Nowhere", 5, compound=True)
    with pytest.raises(ValidationError):
        TaxRegion("XX", "Nowhere", 101)
    region = TaxRegion("xx", "Somewhere", "7.25")
    assert region.code == "XX"
    assert repr(region) == "TaxRegion('XX', 7.25%)"
    assert region.chain() == [region]


def test_chain_goes_from_outer_to_inner(table):
    assert [r.code for r in table.region_for("CA", "PE").chain()] == ["CA", "CA-PE"]


@pytest.mark.parametrize(
    "gross, rate, net, tax",
    [("119", 19, "100.00", "19.00"), ("10", 20, "8.33", "1.67"), ("107.25", "7.25", "100.00", "7.25"),
     ("0.01", 20, "0.01", "0.00"), ("50", 0, "50.00", "0.00")],
)
def test_split_inclusive(gross, rate, net, tax):
    assert split_inclusive(usd(gross), rate) == (usd(net), usd(tax))


@pytest.mark.parametrize(
    "net, rate, expected", [("100", 19, "119.00"), ("19.99", "7.25", "21.44"), ("10", 0, "10.00"), ("0.10", 5, "0.11")]
)
def test_add_tax(net, rate, expected):
    assert add_tax(usd(net), rate) == usd(expected)


def test_tax_respects_currency_exponent():
    region = TaxRegion("JP", "Japan", 10)
    assert region.tax_for(Money(1999, "JPY")) == Money(200, "JPY")


@pytest.mark.parametrize(
    "amount, expected", [("50", "7.75"), ("10", "1.55"), ("200", "31.00"), ("33.33", "5.17"), ("1000", "155.00")]
)
def test_compound_tax_is_charged_on_tax(table, amount, expected):
    assert table.tax_for(usd(amount), "CA", "PE") == usd(expected)


@pytest.mark.parametrize(
    "compound, amount, expected",
    [(True, "100", "21.00"), (False, "100", "20.00"), (True, "50", "10.50"), (False, "50", "10.00"),
     (True, "7", "1.47")],
)
def test_custom_compound_region(compound, amount, expected):
    parent = TaxRegion("P", "Parent", 10)
    child = TaxRegion("P-C", "Child", 10, parent=parent, compound=compound)
    assert child.tax_for(usd(amount)) == usd(expected)


@pytest.mark.parametrize(
    "parent_rate, child_rate, expected",
    [(10, 10, "21.0000"), (5, 10, "15.5000"), (20, 5, "26.0000"), (0, 8, "8.0000"), ("7.5", "2.5", "10.1875")],
)
def test_effective_rate_compounds(parent_rate, child_rate, expected):
    parent = TaxRegion("P", "Parent", parent_rate)
    child = TaxRegion("P-C", "Child", child_rate, parent=parent, compound=True)
    assert str(child.effective_rate()) == expected
