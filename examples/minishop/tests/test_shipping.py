from decimal import Decimal

import pytest

from conftest import BOOK, COFFEE, KIT, PHONES, usd
from minishop import ValidationError
from minishop.shipping import (
    Box,
    PackItem,
    Parcel,
    RateTable,
    ShippingZone,
    chargeable_weight,
    default_boxes,
    default_rate_table,
    items_for_product,
    pack_items,
    volumetric_weight,
)


@pytest.fixture
def boxes():
    return default_boxes()


@pytest.fixture
def rates():
    return default_rate_table()


def book_item():
    return PackItem(BOOK, 500, (23, 15, 3))


def coffee_item():
    return PackItem(COFFEE, 1000, (20, 12, 8))


def test_pack_item_sorts_dimensions():
    item = PackItem("x", 10, (5, 1, 3))
    assert item.dimensions == (1, 3, 5)
    assert item.volume == 15
    assert repr(item) == "PackItem(x, 10g)"


def test_box_properties(boxes):
    small, medium, large = boxes
    assert small.dimensions == (10, 15, 20)
    assert small.volume == 3000
    assert medium.volume == 24000
    assert large.volume == 96000
    assert repr(large) == "Box('large')"


def test_box_validation():
    with pytest.raises(ValidationError):
        Box("flat", 10, 0, 10, 100)
    with pytest.raises(ValidationError):
        Box("weak", 10, 10, 10, 0)


@pytest.mark.parametrize(
    "weight, dimensions, fits",
    [
        (500, (23, 15, 3), False),
        (1000, (20, 12, 8), True),
        (1900, (5, 5, 5), True),
        (1901, (5, 5, 5), False),
        (100, (10, 15, 20), True),
        (100, (10, 16, 20), False),
        (100, (20, 10, 15), True),
    ],
)
def test_box_fits(boxes, weight, dimensions, fits):
    assert boxes[0].fits(PackItem("x", weight, dimensions)) is fits


def test_parcel_accounting(boxes):
    parcel = Parcel(boxes[0])
    parcel.add(PackItem("b", 400, (10, 10, 15)))
    assert parcel.weight_grams == 500
    assert parcel.volume_used == 1500
    assert parcel.fill_ratio == Decimal("0.5")
    parcel.add(PackItem("a", 400, (10, 10, 15)))
    assert parcel.fill_ratio == Decimal(1)
    assert parcel.skus() == ["a", "b"]
    assert parcel.can_add(PackItem("c", 1, (1, 1, 1))) is False


def test_parcel_rejects_overweight(boxes):
    parcel = Parcel(boxes[0])
    parcel.add(PackItem("a", 1000, (5, 5, 5)))
    assert parcel.can_add(PackItem("b", 900, (5, 5, 5))) is True
    assert parcel.can_add(PackItem("b", 901, (5, 5, 5))) is False
    with pytest.raises(ValidationError, match="does not fit in small"):
        parcel.add(PackItem("b", 901, (5, 5, 5)))


@pytest.mark.parametrize(
    "dimensions, divisor, grams",
    [((20, 15, 10), 5000, 600), ((40, 30, 20), 5000, 4800), ((60, 40, 40), 5000, 19200),
     ((10, 10, 10), 5000, 200), ((20, 15, 10), 6000, 500), ((7, 7, 7), 5000, 69)],
)
def test_volumetric_weight(dimensions, divisor, grams):
    assert volumetric_weight(dimensions, divisor) == grams


@pytest.mark.parametrize("item_weight, expected", [(400, 600), (1800, 1900), (500, 600), (499, 600)])
def test_chargeable_weight(boxes, item_weight, expected):
    parcel = Parcel(boxes[0])
    parcel.add(PackItem("x", item_weight, (5, 5, 5)))
    assert chargeable_weight(parcel) == expected


def test_pack_books_share_a_medium_box(boxes):
    parcels = pack_items([book_item() for _ in range(3)], boxes)
    assert [p.box.name for p in parcels] == ["medium"]
    assert parcels[0].weight_grams == 1800
    assert len(parcels[0].items) == 3


def test_pack_coffee_needs_two_small_boxes(boxes):
    parcels = pack_items([coffee_item(), coffee_item()], boxes)
    assert [p.box.name for p in parcels] == ["small", "small"]
    assert [p.weight_grams for p in parcels] == [1100, 1100]


def test_pack_largest_item_first(boxes):
    phones = PackItem(PHONES, 350, (20, 18, 9))
    parcels = pack_items([coffee_item(), phones], boxes)
    assert [p.box.name for p in parcels] == ["medium"]
    assert [i.sku for i in parcels[0].items] == [PHONES, COFFEE]
    assert parcels[0].weight_grams == 1650


def test_pack_mixed_small_then_medium(boxes):
    items = [PackItem("tiny", 100, (5, 5, 5)), book_item()]
    parcels = pack_items(items, boxes)
    assert [(p.box.name, p.skus()) for p in parcels] == [("medium", [BOOK, "tiny"])]


def test_pack_opens_new_box_when_full(boxes):
    heavy = [PackItem("h%d" % n, 4000, (20, 20, 20)) for n in range(3)]
    parcels = pack_items(heavy, boxes)
    assert [p.box.name for p in parcels] == ["medium", "medium"]
    assert [p.skus() for p in parcels] == [["h0", "h1"], ["h2"]]


def test_pack_rejects_oversized_item(boxes):
    with pytest.raises(ValidationError, match="fits in no box"):
        pack_items([PackItem("pole", 100, (100, 10, 10))], boxes)
    with pytest.raises(ValidationError):
        pack_items([book_item()], [])


@pytest.mark.parametrize(
    "grams, expected", [(500, "5"), (1000, "5"), (1001, "6"), (1500, "6"), (1501, "7"), (2600, "9"), (4800, "13")]
)
def test_rate_for_weight(rates, grams, expected):
    assert rates.zone_for("US").rate_for_weight(grams) == usd(expected)


def test_rate_for_weight_limit(rates):
    with pytest.raises(ValidationError):
        rates.zone_for("US").rate_for_weight(30001)


@pytest.mark.parametrize(
    "country, zone", [("US", "domestic"), ("ca", "near"), ("MX", "near"), ("GB", "europe"), ("JP", "world")]
)
def test_zone_for(rates, country, zone):
    assert rates.zone_for(country).name == zone


def test_zone_without_fallback():
    table = RateTable([ShippingZone("home", ["US"], usd(5), usd(1))])
    with pytest.raises(ValidationError, match="we do not ship to FR"):
        table.zone_for("FR")


@pytest.mark.parametrize(
    "country, method, subtotal, expected",
    [
        ("US", "standard", None, "13.00"),
        ("US", "express", None, "19.50"),
        ("US", "overnight", None, "32.50"),
        ("DE", "standard", None, "50.00"),
        ("CA", "standard", None, "32.00"),
        ("JP", "standard", None, "73.00"),
        ("US", "standard", "100", "0"),
        ("US", "express", "100", "19.50"),
        ("US", "standard", "99.99", "13.00"),
        ("DE", "standard", "1000", "50.00"),
    ],
)
def test_quote(boxes, rates, country, method, subtotal, expected):
    parcels = pack_items([book_item() for _ in range(3)], boxes)
    result = rates.quote(parcels, country, method, usd(subtotal) if subtotal else None)
    assert result == usd(expected)


def test_quote_sums_parcels(boxes, rates):
    parcels = pack_items([coffee_item(), coffee_item()], boxes)
    # each small parcel: 1100 g actual vs 600 g volumetric -> 1100 g -> 5 + 1
    assert rates.quote(parcels, "US") == usd("12.00")
    assert rates.quote(parcels, "US", "express") == usd("18.00")


def test_quote_edge_cases(rates, boxes):
    assert rates.quote([], "US") == usd(0)
    with pytest.raises(ValidationError):
        rates.quote([], "US", "teleport")
    assert rates.quote_items([], boxes, "US") == usd(0)
    assert rates.quote_items([coffee_item()], boxes, "US") == usd("6.00")


def test_items_for_product(products):
    books = items_for_product(products["book"], 2)
    assert [(i.sku, i.weight_grams, i.dimensions) for i in books] == [(BOOK, 500, (3, 15, 23))] * 2
    assert items_for_product(products["ebook"], 5) == []
    kit = items_for_product(products["kit"], 1)
    assert [(i.sku, i.weight_grams, i.dimensions) for i in kit] == [(KIT, 2500, (5, 10, 10))]
    with pytest.raises(ValidationError):
        items_for_product(products["book"], 0)


@pytest.mark.parametrize(
    "first, second, ok",
    [(1000, 900, True), (1000, 901, False), (1500, 400, True), (1500, 401, False), (100, 1800, True)],
)
def test_parcel_weight_limit_boundary(boxes, first, second, ok):
    parcel = Parcel(boxes[0])
    parcel.add(PackItem("a", first, (2, 2, 2)))
    assert parcel.can_add(PackItem("b", second, (2, 2, 2))) is ok


@pytest.mark.parametrize(
    "grams, expected", [(1, "5"), (250, "5"), (999, "5"), (30000, "63"), (29999, "63")]
)
def test_rate_for_light_and_limit_weights(rates, grams, expected):
    assert rates.zone_for("US").rate_for_weight(grams) == usd(expected)


@pytest.mark.parametrize("country", ["IN", "JP", "BR", "AU", "ZA"])
def test_unknown_countries_use_fallback(rates, country):
    assert rates.zone_for(country).name == "world"
    table = RateTable(rates.zones)
    with pytest.raises(ValidationError):
        table.zone_for(country)


@pytest.mark.parametrize("used, extra, ok", [(1900, 100, True), (1900, 101, False), (1000, 1000, True), (1000, 1001, False),
                                             (1999, 1, True)])
def test_can_add_up_to_exact_weight_limit(boxes, used, extra, ok):
    parcel = Parcel(boxes[0])
    parcel.add(PackItem("a", used - 100, (2, 2, 2)))
    assert parcel.can_add(PackItem("b", extra, (2, 2, 2))) is ok


@pytest.mark.parametrize("country, expected", [("US", "63"), ("CA", "157"), ("DE", "250"), ("JP", "373"),
                                               ("MX", "157")])
def test_rate_at_exact_zone_weight_limit(rates, country, expected):
    zone = rates.zone_for(country)
    assert zone.rate_for_weight(30000) == usd(expected)
    with pytest.raises(ValidationError):
        zone.rate_for_weight(30001)


@pytest.mark.parametrize("dimensions", [(100, 10, 10), (61, 1, 1), (41, 41, 1), (50, 45, 45), (70, 70, 70)])
def test_items_too_big_for_any_box(boxes, dimensions):
    with pytest.raises(ValidationError, match="fits in no box"):
        pack_items([PackItem("big", 10, dimensions)], boxes)
