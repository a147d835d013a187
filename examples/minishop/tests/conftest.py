import datetime

import pytest

from minishop import (
    BundleProduct,
    Catalog,
    Category,
    DigitalProduct,
    Money,
    PhysicalProduct,
)

BOOK = "BOK-0001-3"
KIDS = "BOK-0002-0"
COFFEE = "FOD-0100-2"
SHIRT = "CLO-0200-8"
PHONES = "ELE-0300-9"
EBOOK = "DIG-0400-6"
KIT = "BUN-0500-6"

DAY = datetime.date(2024, 3, 15)


def usd(amount):
    return Money(amount, "USD")


@pytest.fixture
def categories():
    books = Category("Books")
    children = Category("Children", books)
    food = Category("Food")
    clothing = Category("Clothing")
    electronics = Category("Electronics")
    audio = Category("Audio", electronics)
    return {
        "books": books,
        "children": children,
        "food": food,
        "clothing": clothing,
        "electronics": electronics,
        "audio": audio,
    }


@pytest.fixture
def products(categories):
    book = PhysicalProduct(BOOK, "Python Basics", usd("29.99"), dimensions=(23, 15, 3),
                           category=categories["books"], weight_grams=500, tags=["python", "programming"])
    kids = PhysicalProduct(KIDS, "Picture Book", usd("12.50"), dimensions=(25, 25, 1),
                           category=categories["children"], weight_grams=300, tags=["kids"])
    coffee = PhysicalProduct(COFFEE, "Coffee Beans", usd("15.00"), dimensions=(20, 12, 8),
                             category=categories["food"], weight_grams=1000, tags=["coffee", "organic"])
    shirt = PhysicalProduct(SHIRT, "T-Shirt", usd("20.00"), dimensions=(30, 20, 2),
                            category=categories["clothing"], weight_grams=200)
    phones = PhysicalProduct(PHONES, "Headphones", usd("199.99"), dimensions=(20, 18, 9),
                             category=categories["audio"], weight_grams=350, tags=["audio"])
    ebook = DigitalProduct(EBOOK, "Python Basics E-Book", usd("9.99"), category=categories["books"])
    kit = BundleProduct(KIT, "Starter Kit", [(book, 1), (coffee, 2)], bundle_discount=10,
                        category=categories["books"])
    return {"book": book, "kids": kids, "coffee": coffee, "shirt": shirt, "phones": phones,
            "ebook": ebook, "kit": kit}


@pytest.fixture
def catalog(products):
    return Catalog(products.values())
