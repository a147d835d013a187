"""Products, categories and SKUs.

SKUs look like ``ABC-1234-4`` optionally followed by ``/VARIANT``: a
three-letter family, a four-digit number and a check digit computed by
:func:`compute_check_digit`.
"""

import re

from .money import Money
from .utils import slugify, unique_ordered
from .validation import (
    ValidationError,
    require,
    require_non_negative,
    require_quantity,
    require_text,
)

_SKU_RE = re.compile(r"^([A-Z]{3})-(\d{4})-(\d)(?:/([A-Z0-9]{1,6}))?$")

PRODUCT_KINDS = {}


def compute_check_digit(family, number):
    """Check digit for a SKU body.

    Letters count as their alphabet position (A=1), digits as themselves;
    weights alternate 3, 1, 3, ... and the digit tops the sum up to a
    multiple of ten.
    """
    total = 0
    for index, char in enumerate(family + number):
        value = ord(char) - 64 if char.isalpha() else int(char)
        weight = 3 if index % 2 == 0 else 1
        total += value * weight
    return (10 - total % 10) % 10


class Sku:
    """A parsed, validated stock keeping unit."""

    __slots__ = ("family", "number", "variant")

    def __init__(self, family, number, variant=None):
        self.family = family
        self.number = number
        self.variant = variant

    @classmethod
    def parse(cls, text):
        """Parse and validate SKU text (case-insensitive, whitespace trimmed)."""
        if not isinstance(text, str):
            raise ValidationError("sku", "must be a string")
        match = _SKU_RE.match(text.strip().upper())
        if match is None:
            raise ValidationError("sku", "malformed SKU %r" % text)
        family, number, check, variant = match.groups()
        if compute_check_digit(family, number) != int(check):
            raise ValidationError("sku", "bad check digit in %r" % text)
        return cls(family, number, variant)

    @classmethod
    def build(cls, family, number, variant=None):
        """Create a SKU from its parts, zero-padding ``number``."""
        family = family.upper()
        require(len(family) == 3 and family.isalpha(), "family", "must be 3 letters")
        require(0 <= number <= 9999, "number", "must be between 0 and 9999")
        return cls(family, "%04d" % number, variant.upper() if variant else None)

    @staticmethod
    def is_valid(text):
        """``True`` if ``text`` parses as a SKU."""
        try:
            Sku.parse(text)
        except ValidationError:
            return False
        return True

    @property
    def check_digit(self):
        return compute_check_digit(self.family, self.number)

    @property
    def base(self):
        """The SKU without its variant suffix."""
        return "%s-%s-%d" % (self.family, self.number, self.check_digit)

    def __str__(self):
        if self.variant:
            return "%s/%s" % (self.base, self.variant)
        return self.base

    def __eq__(self, other):
        return isinstance(other, Sku) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))

    def __repr__(self):
        return "Sku(%r)" % str(self)


class Category:
    """A node in the category tree."""

    def __init__(self, name, parent=None):
        self.name = require_text(name, "category")
        self.parent = parent
        self.children = []
        if parent is not None:
            parent.children.append(self)

    @property
    def slug(self):
        return slugify(self.name)

    @property
    def path(self):
        """Slugs from the root down to this category, joined with ``/``."""
        return "/".join(node.slug for node in self.lineage())

    @property
    def depth(self):
        return len(self.lineage()) - 1

    def lineage(self):
        """Categories from the root to ``self`` inclusive."""
        chain = []
        node = self
        while node is not None:
            chain.append(node)
            node = node.parent
        chain.reverse()
        return chain

    def is_within(self, other):
        """``True`` if ``self`` is ``other`` or one of its descendants."""
        return any(node is other for node in self.lineage())

    def descendants(self):
        """All categories below this one, depth first."""
        found = []
        for child in self.children:
            found.append(child)
            found.extend(child.descendants())
        return found

    def __repr__(self):
        return "Category(%r)" % self.path


def register_kind(name):
    """Class decorator registering a product subclass under ``name``."""

    def decorator(cls):
        if name in PRODUCT_KINDS:
            raise ValueError("duplicate product kind %s" % name)
        PRODUCT_KINDS[name] = cls
        cls.kind = name
        return cls

    return decorator


class Product:
    """Base class for everything that can be sold."""

    kind = "base"
    requires_shipping = True

    def __init__(self, sku, name, price, category=None, weight_grams=0, tags=(), active=True):
        self.sku = sku if isinstance(sku, Sku) else Sku.parse(sku)
        self.name = require_text(name, "name")
        require(isinstance(price, Money), "price", "must be Money")
        require(not price.is_negative, "price", "must not be negative")
        self.price = price
        self.category = category
        self.weight_grams = int(require_non_negative(weight_grams, "weight_grams"))
        self.tags = tuple(unique_ordered(tag.strip().lower() for tag in tags if tag.strip()))
        self.active = active

    @property
    def code(self):
        """The SKU as text."""
        return str(self.sku)

    @property
    def category_path(self):
        return self.category.path if self.category is not None else ""

    def shipping_weight(self, quantity=1):
        """Weight in grams for ``quantity`` units."""
        return self.weight_grams * quantity

    def matches(self, query):
        """Case-insensitive match against name, SKU and tags."""
        needle = query.strip().lower()
        if not needle:
            return True
        if needle in self.name.lower() or needle in self.code.lower():
            return True
        return any(needle == tag or tag.startswith(needle) for tag in self.tags)

    def describe(self):
        return "%s (%s) %s" % (self.name, self.code, self.price)

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.code)


@register_kind("physical")
class PhysicalProduct(Product):
    """A tangible item with a shipping weight and dimensions (cm)."""

    def __init__(self, sku, name, price, dimensions=(10, 10, 10), **kwargs):
        super().__init__(sku, name, price, **kwargs)
        require(len(dimensions) == 3, "dimensions", "needs length, width and height")
        self.dimensions = tuple(int(require_non_negative(d, "dimensions")) for d in dimensions)

    @property
    def volume_cm3(self):
        length, width, height = self.dimensions
        return length * width * height

    def describe(self):
        base = super().describe()
        return "%s, %dg" % (base, self.weight_grams)


@register_kind("digital")
class DigitalProduct(Product):
    """A download: weightless and never shipped."""

    requires_shipping = False

    def __init__(self, sku, name, price, download_limit=3, **kwargs):
        kwargs["weight_grams"] = 0
        super().__init__(sku, name, price, **kwargs)
        self.download_limit = require_quantity(download_limit, "download_limit", minimum=0)

    def shipping_weight(self, quantity=1):
        return 0

    def describe(self):
        return super().describe() + ", download"


@register_kind("bundle")
class BundleProduct(Product):
    """Several products sold together.

    ``components`` is a list of ``(product, quantity)`` pairs.  When no
    explicit price is given the bundle costs the sum of its parts less
    ``bundle_discount`` percent.
    """

    def __init__(self, sku, name, components, price=None, bundle_discount=0, **kwargs):
        require(len(components) > 0, "components", "a bundle needs components")
        self.components = [(product, require_quantity(qty)) for product, qty in components]
        self.bundle_discount = bundle_discount
        if price is None:
            price = self.component_total()
            price = price - price.percentage(bundle_discount)
        kwargs.setdefault("weight_grams", sum(p.shipping_weight(q) for p, q in self.components))
        super().__init__(sku, name, price, **kwargs)

    @property
    def requires_shipping(self):
        return any(product.requires_shipping for product, _ in self.components)

    def component_total(self):
        """List price of all components at full price."""
        currency = self.components[0][0].price.currency
        total = Money.zero(currency)
        for product, quantity in self.components:
            total = total + product.price * quantity
        return total

    def savings(self):
        """How much cheaper the bundle is than buying its parts."""
        return self.component_total() - self.price

    def shipping_weight(self, quantity=1):
        return sum(p.shipping_weight(q) for p, q in self.components) * quantity


def make_product(kind, **fields):
    """Instantiate a registered product kind by name."""
    try:
        cls = PRODUCT_KINDS[kind]
    except KeyError:
        raise ValidationError("kind", "unknown product kind %s" % kind) from None
    return cls(**fields)


class Catalog:
    """An in-memory collection of products indexed by SKU text."""

    def __init__(self, products=()):
        self._products = {}
        for product in products:
            self.add(product)

    def add(self, product):
        """Add ``product``; its SKU must not be present yet."""
        if product.code in self._products:
            raise ValidationError("sku", "duplicate SKU %s" % product.code)
        self._products[product.code] = product
        return product

    def get(self, sku):
        """Look up by SKU text or :class:`Sku`; raises ``KeyError``."""
        key = str(sku) if isinstance(sku, Sku) else str(Sku.parse(sku))
        return self._products[key]

    def remove(self, sku):
        product = self.get(sku)
        del self._products[product.code]
        return product

    def __len__(self):
        return len(self._products)

    def __iter__(self):
        return iter(sorted(self._products.values(), key=lambda p: p.code))

    def __contains__(self, sku):
        return Sku.is_valid(str(sku)) and str(Sku.parse(str(sku))) in self._products

    def search(self, query="", category=None, max_price=None, include_inactive=False):
        """Products matching all given filters, sorted by price then SKU."""
        results = []
        for product in self:
            if not product.active and not include_inactive:
                continue
            if category is not None and (product.category is None or not product.category.is_within(category)):
                continue
            if max_price is not None and product.price > max_price:
                continue
            if product.matches(query):
                results.append(product)
        results.sort(key=lambda p: (p.price.rounded().amount, p.code))
        return results

    def by_category(self):
        """Map of category path to SKUs, for products with a category."""
        grouped = {}
        for product in self:
            if product.category is None:
                continue
            grouped.setdefault(product.category_path, []).append(product.code)
        return dict(sorted(grouped.items()))

    def price_range(self, category=None):
        """``(cheapest, dearest)`` price among active products or ``None``."""
        prices = [p.price for p in self.search(category=category)]
        if not prices:
            return None
        return prices[0], max(prices)
