import pytest

from conftest import BOOK, COFFEE, EBOOK, KIDS, KIT, PHONES, SHIRT, usd
from minishop import (
    BundleProduct,
    Catalog,
    Category,
    DigitalProduct,
    Money,
    PhysicalProduct,
    Sku,
    ValidationError,
    make_product,
)
from minishop.catalog import PRODUCT_KINDS, compute_check_digit, register_kind


@pytest.mark.parametrize(
    "family, number, digit",
    [("BOK", "0001", 3), ("BOK", "0002", 0), ("ABC", "1234", 4), ("ZZZ", "9999", 6), ("AAA", "0000", 3),
     ("XYZ", "0042", 5), ("ELE", "0300", 9)],
)
def test_compute_check_digit(family, number, digit):
    assert compute_check_digit(family, number) == digit


@pytest.mark.parametrize(
    "text, family, number, variant, canonical",
    [
        ("ABC-1234-4", "ABC", "1234", None, "ABC-1234-4"),
        (" abc-1234-4 ", "ABC", "1234", None, "ABC-1234-4"),
        ("CLO-0200-8/xl", "CLO", "0200", "XL", "CLO-0200-8/XL"),
        ("ZZZ-9999-6/RED01", "ZZZ", "9999", "RED01", "ZZZ-9999-6/RED01"),
    ],
)
def test_sku_parse(text, family, number, variant, canonical):
    sku = Sku.parse(text)
    assert (sku.family, sku.number, sku.variant) == (family, number, variant)
    assert str(sku) == canonical


@pytest.mark.parametrize(
    "text",
    ["ABC-1234-5", "AB-1234-4", "ABC-123-4", "ABC1234-4", "ABC-1234-4/", "ABC-1234-4/TOOLONG", "", "ABC-12345-4"],
)
def test_sku_parse_rejects(text):
    with pytest.raises(ValidationError):
        Sku.parse(text)
    assert Sku.is_valid(text) is False


def test_sku_parse_rejects_non_string():
    with pytest.raises(ValidationError, match="must be a string"):
        Sku.parse(1234)


@pytest.mark.parametrize(
    "family, number, variant, expected",
    [("abc", 1234, None, "ABC-1234-4"), ("xyz", 42, "blue", "XYZ-0042-5/BLUE"), ("AAA", 0, None, "AAA-0000-3")],
)
def test_sku_build(family, number, variant, expected):
    assert str(Sku.build(family, number, variant)) == expected
    assert Sku.is_valid(expected)


@pytest.mark.parametrize("family, number", [("AB", 1), ("A1C", 1), ("ABC", 10000), ("ABC", -1)])
def test_sku_build_rejects(family, number):
    with pytest.raises(ValidationError):
        Sku.build(family, number)


def test_sku_equality_and_base():
    sku = Sku.parse("CLO-0200-8/M")
    assert sku.base == "CLO-0200-8"
    assert sku.check_digit == 8
    assert sku == Sku.parse("clo-0200-8/m")
    assert sku != Sku.parse("CLO-0200-8")
    assert hash(sku) == hash(Sku.parse("CLO-0200-8/M"))
    assert repr(sku) == "Sku('CLO-0200-8/M')"


def test_category_tree(categories):
    audio = categories["audio"]
    assert audio.path == "electronics/audio"
    assert audio.depth == 1
    assert categories["electronics"].depth == 0
    assert [c.name for c in audio.lineage()] == ["Electronics", "Audio"]
    assert audio.is_within(categories["electronics"])
    assert audio.is_within(audio)
    assert not categories["electronics"].is_within(audio)
    assert not audio.is_within(categories["books"])
    assert repr(audio) == "Category('electronics/audio')"


def test_category_descendants_depth_first():
    root = Category("Home & Garden")
    kitchen = Category("Kitchen", root)
    knives = Category("Knives", kitchen)
    garden = Category("Garden", root)
    assert root.descendants() == [kitchen, knives, garden]
    assert knives.path == "home-garden/kitchen/knives"
    assert knives.depth == 2
    assert garden.descendants() == []


def test_category_requires_name():
    with pytest.raises(ValidationError):
        Category("  ")


def test_product_basics(products):
    book = products["book"]
    assert book.code == BOOK
    assert book.kind == "physical"
    assert book.category_path == "books"
    assert book.volume_cm3 == 1035
    assert book.shipping_weight(3) == 1500
    assert book.describe() == "Python Basics (BOK-0001-3) $29.99, 500g"
    assert repr(book) == "PhysicalProduct('BOK-0001-3')"


def test_product_tags_are_normalised():
    product = PhysicalProduct(BOOK, "X", usd(1), tags=[" Python", "python", "", "Web "])
    assert product.tags == ("python", "web")


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"price": Money(-1)}, "price"),
        ({"price": 5}, "price"),
        ({"name": " "}, "name"),
        ({"weight_grams": -10}, "weight_grams"),
        ({"sku": "BOK-0001-4"}, "sku"),
        ({"dimensions": (1, 2)}, "dimensions"),
    ],
)
def test_product_validation(kwargs, field):
    fields = {"sku": BOOK, "name": "Book", "price": usd(5)}
    fields.update(kwargs)
    with pytest.raises(ValidationError) as info:
        PhysicalProduct(**fields)
    assert info.value.field == field


@pytest.mark.parametrize(
    "query, expected",
    [("python", True), ("PYTH", True), ("bok-0001", True), ("prog", True), ("gram", False), ("", True),
     ("basics", True), ("coffee", False)],
)
def test_product_matches(products, query, expected):
    assert products["book"].matches(query) is expected


def test_digital_product(products):
    ebook = products["ebook"]
    assert ebook.kind == "digital"
    assert ebook.requires_shipping is False
    assert ebook.weight_grams == 0
    assert ebook.shipping_weight(10) == 0
    assert ebook.download_limit == 3
    assert ebook.describe() == "Python Basics E-Book (DIG-0400-6) $9.99, download"


def test_bundle_product_price_and_weight(products):
    kit = products["kit"]
    assert kit.component_total() == usd("59.99")
    assert kit.price == usd("53.99")
    assert kit.savings() == usd("6.00")
    assert kit.weight_grams == 2500
    assert kit.shipping_weight(2) == 5000
    assert kit.requires_shipping is True


def test_bundle_with_explicit_price(products):
    kit = BundleProduct("BUN-0501-3", "Kit", [(products["kids"], 2)], price=usd("20"))
    assert kit.price == usd("20")
    assert kit.savings() == usd("5.00")


def test_bundle_of_digital_goods_does_not_ship(products):
    kit = BundleProduct("BUN-0501-3", "Digital Kit", [(products["ebook"], 3)], bundle_discount=50)
    assert kit.requires_shipping is False
    assert kit.price == Money("14.98")
    assert kit.shipping_weight() == 0


def test_bundle_needs_components():
    with pytest.raises(ValidationError):
        BundleProduct("BUN-0501-3", "Empty", [])


def test_make_product_and_registry(products):
    assert set(PRODUCT_KINDS) >= {"physical", "digital", "bundle"}
    product = make_product("digital", sku=EBOOK, name="E", price=usd(1), download_limit=0)
    assert isinstance(product, DigitalProduct)
    assert product.download_limit == 0
    with pytest.raises(ValidationError):
        make_product("service", sku=EBOOK, name="E", price=usd(1))


def test_register_kind_rejects_duplicates():
    with pytest.raises(ValueError):
        @register_kind("physical")
        class Another(PhysicalProduct):
            pass


def test_catalog_lookup(catalog, products):
    assert len(catalog) == 7
    assert catalog.get(BOOK) is products["book"]
    assert catalog.get(" bok-0001-3 ") is products["book"]
    assert catalog.get(Sku.parse(COFFEE)) is products["coffee"]
    assert BOOK in catalog
    assert "BOK-0009-9" not in catalog
    assert "garbage" not in catalog
    with pytest.raises(KeyError):
        catalog.get("AAA-0000-3")


def test_catalog_iterates_in_sku_order(catalog):
    assert [p.code for p in catalog] == [BOOK, KIDS, KIT, SHIRT, EBOOK, PHONES, COFFEE]


def test_catalog_rejects_duplicates(catalog, products):
    with pytest.raises(ValidationError, match="duplicate SKU"):
        catalog.add(products["book"])


def test_catalog_remove(catalog):
    removed = catalog.remove(SHIRT)
    assert removed.name == "T-Shirt"
    assert len(catalog) == 6
    assert SHIRT not in catalog


@pytest.mark.parametrize(
    "query, category, max_price, expected",
    [
        ("", None, None, [EBOOK, KIDS, COFFEE, SHIRT, BOOK, KIT, PHONES]),
        ("python", None, None, [EBOOK, BOOK]),
        ("", "books", None, [EBOOK, KIDS, BOOK, KIT]),
        ("", "electronics", None, [PHONES]),
        ("", None, "20.00", [EBOOK, KIDS, COFFEE, SHIRT]),
        ("book", "books", "15", [EBOOK, KIDS]),
        ("", "children", None, [KIDS]),
        ("nothing", None, None, []),
    ],
)
def test_catalog_search(catalog, categories, query, category, max_price, expected):
    result = catalog.search(
        query,
        category=categories[category] if category else None,
        max_price=usd(max_price) if max_price else None,
    )
    assert [p.code for p in result] == expected


def test_catalog_search_skips_inactive(catalog, products):
    products["shirt"].active = False
    assert SHIRT not in [p.code for p in catalog.search()]
    assert SHIRT in [p.code for p in catalog.search(include_inactive=True)]


def test_catalog_by_category(catalog):
    assert catalog.by_category() == {
        "books": [BOOK, KIT, EBOOK],
        "books/children": [KIDS],
        "clothing": [SHIRT],
        "electronics/audio": [PHONES],
        "food": [COFFEE],
    }


def test_catalog_by_category_skips_uncategorised():
    catalog = Catalog([PhysicalProduct(BOOK, "Loose", usd(1))])
    assert catalog.by_category() == {}


def test_catalog_price_range(catalog, categories):
    assert catalog.price_range() == (usd("9.99"), usd("199.99"))
    assert catalog.price_range(categories["books"]) == (usd("9.99"), usd("53.99"))
    assert catalog.price_range(categories["children"]) == (usd("12.50"), usd("12.50"))
    assert Catalog().price_range() is None


@pytest.mark.parametrize(
    "name, expected",
    [
        ("books", ["Children"]),
        ("children", []),
        ("electronics", ["Audio"]),
        ("food", []),
        ("audio", []),
    ],
)
def test_descendants_of_fixture_categories(categories, name, expected):
    assert [c.name for c in categories[name].descendants()] == expected


@pytest.mark.parametrize("levels", [1, 2, 3, 4, 5])
def test_descendants_of_a_chain(levels):
    root = Category("Level 0")
    node = root
    for n in range(1, levels + 1):
        node = Category("Level %d" % n, node)
    assert [c.name for c in root.descendants()] == ["Level %d" % n for n in range(1, levels + 1)]
    assert node.depth == levels
    assert node.path.count("/") == levels


@pytest.mark.parametrize("kind", ["gift-card", "service", "rental", "subscription", "voucher"])
def test_register_kind_adds_new_kinds(kind, products):
    @register_kind(kind)
    class Custom(DigitalProduct):
        pass

    try:
        assert PRODUCT_KINDS[kind] is Custom
        assert Custom.kind == kind
        made = make_product(kind, sku=EBOOK, name="Custom", price=usd(5))
        assert type(made) is Custom
        assert made.kind == kind
        assert made.requires_shipping is False
    finally:
        del PRODUCT_KINDS[kind]


@pytest.mark.parametrize(
    "remove, expected",
    [
        ([], {"books": 3, "books/children": 1, "clothing": 1, "electronics/audio": 1, "food": 1}),
        ([KIDS], {"books": 3, "clothing": 1, "electronics/audio": 1, "food": 1}),
        ([BOOK, KIT], {"books": 1, "books/children": 1, "clothing": 1, "electronics/audio": 1, "food": 1}),
        ([PHONES, SHIRT, COFFEE], {"books": 3, "books/children": 1}),
        ([BOOK, KIT, EBOOK, KIDS], {"clothing": 1, "electronics/audio": 1, "food": 1}),
    ],
)
def test_by_category_after_removals(catalog, remove, expected):
    for sku in remove:
        assert catalog.remove(sku).code == sku
    grouped = catalog.by_category()
    assert {path: len(skus) for path, skus in grouped.items()} == expected
    assert list(grouped) == sorted(expected)
    assert len(catalog) == 7 - len(remove)


@pytest.mark.parametrize(
    "category, max_price, expected",
    [
        (None, None, ("9.99", "199.99")),
        ("books", None, ("9.99", "53.99")),
        ("food", None, ("15.00", "15.00")),
        ("electronics", None, ("199.99", "199.99")),
        ("clothing", None, ("20.00", "20.00")),
    ],
)
def test_price_range_by_category(catalog, categories, category, max_price, expected):
    low, high = catalog.price_range(categories[category] if category else None)
    assert (low, high) == (usd(expected[0]), usd(expected[1]))


@pytest.mark.parametrize("inactive", [["book"], ["ebook"], ["ebook", "kids"], ["phones"], ["kit", "book"]])
def test_price_range_ignores_inactive(catalog, products, categories, inactive):
    for key in inactive:
        products[key].active = False
    active = [p.price for p in products.values() if p.active]
    assert catalog.price_range() == (min(active), max(active))


@pytest.mark.parametrize(
    "max_price, expected",
    [
        ("9.99", [EBOOK]),
        ("12.50", [EBOOK, KIDS]),
        ("29.99", [EBOOK, KIDS, COFFEE, SHIRT, BOOK]),
        ("53.99", [EBOOK, KIDS, COFFEE, SHIRT, BOOK, KIT]),
        ("199.99", [EBOOK, KIDS, COFFEE, SHIRT, BOOK, KIT, PHONES]),
        ("9.98", []),
    ],
)
def test_search_max_price_is_inclusive(catalog, max_price, expected):
    assert [p.code for p in catalog.search(max_price=usd(max_price))] == expected


@pytest.mark.parametrize(
    "family, number, expected",
    [("BOK", 0, "BOK-0000-6"), ("bok", 1, "BOK-0001-3"), ("Fod", 100, "FOD-0100-2"), ("ele", 300, "ELE-0300-9"),
     ("ZZZ", 9999, "ZZZ-9999-6"), ("xyz", 7, "XYZ-0007-4")],
)
def test_sku_build_pads_numbers(family, number, expected):
    sku = Sku.build(family, number)
    assert str(sku) == expected
    assert len(sku.number) == 4
    assert Sku.parse(expected) == sku


@pytest.mark.parametrize("query", ["", " ", "   ", "\t", "\n "])
def test_blank_query_matches_everything(catalog, query):
    assert len(catalog.search(query)) == 7
    assert all(p.matches(query) for p in catalog)


@pytest.mark.parametrize(
    "key, quantity, price, weight",
    [("book", 1, "26.99", 500), ("coffee", 3, "40.50", 3000), ("kids", 2, "22.50", 600), ("shirt", 5, "90.00", 1000),
     ("phones", 1, "179.99", 350)],
)
def test_single_component_bundles(products, key, quantity, price, weight):
    bundle = BundleProduct("BUN-0501-3", "Solo", [(products[key], quantity)], bundle_discount=10)
    assert bundle.price == usd(price)
    assert bundle.weight_grams == weight
    assert bundle.component_total() == products[key].price * quantity


@pytest.mark.parametrize("family", ["AAA", "bok", "Xyz", "QQQ", "zzz"])
def test_sku_build_accepts_number_zero(family):
    sku = Sku.build(family, 0)
    assert sku.number == "0000"
    assert Sku.is_valid(str(sku))


@pytest.mark.parametrize("query", ["zzz", "headphones", "coffee", "kids", "xyz"])
def test_book_does_not_match_unrelated_queries(products, query):
    assert products["book"].matches(query) is False


@pytest.mark.parametrize("kind", ["service", "gift", "Physical", "", "bundles"])
def test_make_product_unknown_kind(kind):
    with pytest.raises(ValidationError, match="unknown product kind"):
        make_product(kind, sku=EBOOK, name="E", price=usd(1))


@pytest.mark.parametrize("key", ["book", "kids", "coffee", "ebook", "kit"])
def test_catalog_add_duplicate_each_product(catalog, products, key):
    with pytest.raises(ValidationError, match="duplicate SKU %s" % products[key].code):
        catalog.add(products[key])
    assert len(catalog) == 7
