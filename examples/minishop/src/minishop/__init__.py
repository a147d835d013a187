"""minishop: a small order, inventory and pricing library.

The most commonly used names are re-exported here so applications can write
``from minishop import Money, Cart, Catalog``.
"""

from .cart import Cart, CartTotals
from .catalog import BundleProduct, Catalog, Category, DigitalProduct, PhysicalProduct, Sku, make_product
from .events import EventBus
from .inventory import InsufficientStockError, Inventory
from .money import CurrencyMismatchError, Money
from .money import sum_money as total
from .orders import Order, OrderStatus, cancel_order, fulfil_order, place_order
from .pricing import (
    BulkTierDiscount,
    BuyXGetYFree,
    Coupon,
    FixedAmountDiscount,
    MemberDiscount,
    PercentageDiscount,
    PricingEngine,
)
from .tax import TaxRegion, TaxTable, default_tax_table
from .validation import ValidationError

__version__ = "0.1.0"

__all__ = [
    "BulkTierDiscount",
    "BundleProduct",
    "BuyXGetYFree",
    "Cart",
    "CartTotals",
    "Catalog",
    "Category",
    "Coupon",
    "CurrencyMismatchError",
    "DigitalProduct",
    "EventBus",
    "FixedAmountDiscount",
    "InsufficientStockError",
    "Inventory",
    "MemberDiscount",
    "Money",
    "Order",
    "OrderStatus",
    "PercentageDiscount",
    "PhysicalProduct",
    "PricingEngine",
    "Sku",
    "TaxRegion",
    "TaxTable",
    "ValidationError",
    "cancel_order",
    "default_tax_table",
    "fulfil_order",
    "make_product",
    "place_order",
    "total",
]
