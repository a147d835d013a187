"""Sales reporting over lists of :class:`~minishop.orders.Order`."""

from decimal import Decimal

from minishop.money import Money, sum_money
from minishop.orders import OrderStatus
from .utils import group_by, quantize

COUNTED = (OrderStatus.PAID, OrderStatus.SHIPPED, OrderStatus.DELIVERED, OrderStatus.REFUNDED)


def counted_orders(orders, start=None, end=None):
    """Orders that generated revenue, optionally within a date window."""
    selected = []
    for order in orders:
        if order.status not in COUNTED:
            continue
        if start is not None and (order.placed_on is None or order.placed_on < start):
            continue
        if end is not None and (order.placed_on is None or order.placed_on > end):
            continue
        selected.append(order)
    return selected


def sales_summary(orders, currency="USD", start=None, end=None):
    """Counts and money totals for revenue-generating orders."""
    selected = counted_orders(orders, start, end)
    gross = sum_money((o.total for o in selected), currency)
    refunds = sum_money((o.refunded_total for o in selected), currency)
    count = len(selected)
    average = Money(gross.amount / count, currency).rounded() if count else Money.zero(currency)
    return {
        "orders": count,
        "items": sum(o.item_count for o in selected),
        "gross": gross,
        "refunds": refunds,
        "net": gross - refunds,
        "average_order": average,
        "shipping": sum_money((o.shipping for o in selected), currency),
        "tax": sum_money((o.tax for o in selected), currency),
    }


def revenue_by_day(orders, currency="USD"):
    """``{date: net revenue}`` in date order."""
    grouped = group_by(counted_orders(orders), lambda o: o.placed_on)
    return {day: sum_money((o.net_total for o in grouped[day]), currency) for day in sorted(grouped)}


def line_totals(orders):
    """Per-SKU units sold and net revenue (refunded units excluded)."""
    totals = {}
    for order in counted_orders(orders):
        for line in order.lines:
            sold = line.quantity - line.refunded_quantity
            if sold <= 0:
                continue
            units, revenue = totals.get(line.sku, (0, None))
            value = line.net_for(sold)
            totals[line.sku] = (units + sold, value if revenue is None else revenue + value)
    return totals


def top_products(orders, limit=5, by="revenue"):
    """Best sellers as ``[(sku, units, revenue)]``, ties broken by SKU."""
    if by not in ("revenue", "units"):
        raise ValueError("by must be 'revenue' or 'units'")
    rows = [(sku, units, revenue) for sku, (units, revenue) in line_totals(orders).items()]
    if by == "revenue":
        rows.sort(key=lambda row: (-row[2].amount, row[0]))
    else:
        rows.sort(key=lambda row: (-row[1], row[0]))
    return rows[:limit]


def revenue_by_category(orders, currency="USD", depth=1):
    """Net revenue per category path truncated to ``depth`` levels."""
    result = {}
    for order in counted_orders(orders):
        for line in order.lines:
            sold = line.quantity - line.refunded_quantity
            if sold <= 0:
                continue
            path = line.category_path or "uncategorised"
            key = "/".join(path.split("/")[:depth])
            result[key] = result.get(key, Money.zero(currency)) + line.net_for(sold)
    return dict(sorted(result.items()))


def refund_rate(orders):
    """Refunded share of gross revenue as a percent with two decimals."""
    summary = sales_summary(orders)
    if summary["gross"].is_zero:
        return Decimal("0.00")
    return quantize(summary["refunds"].amount * 100 / summary["gross"].amount, 2)


def status_breakdown(orders):
    """Number of orders in each status, every status listed."""
    counts = {status.value: 0 for status in OrderStatus}
    for order in orders:
        counts[order.status.value] += 1
    return counts


def moving_average(values, window):
    """Trailing moving averages (two decimals) once ``window`` values exist."""
    if window <= 0:
        raise ValueError("window must be positive")
    averages = []
    running = Decimal(0)
    for index, value in enumerate(values):
        running += Decimal(value)
        if index >= window:
            running -= Decimal(values[index - window])
        if index >= window - 1:
            averages.append(quantize(running / window, 2))
    return averages


def percent_change(old, new):
    """Change from ``old`` to ``new`` in percent, or ``None`` if ``old`` is 0."""
    old_value = old.amount if isinstance(old, Money) else Decimal(old)
    new_value = new.amount if isinstance(new, Money) else Decimal(new)
    if old_value == 0:
        return None
    return quantize((new_value - old_value) * 100 / abs(old_value), 1)


def format_table(rows, headers):
    """Render rows as a fixed-width text table (numbers right-aligned)."""
    cells = [[str(c) for c in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    numeric = [
        all(_looks_numeric(row[i]) for row in cells[1:]) and len(cells) > 1 for i in range(len(headers))
    ]
    lines = []
    for row_index, row in enumerate(cells):
        parts = []
        for i, cell in enumerate(row):
            parts.append(cell.rjust(widths[i]) if numeric[i] else cell.ljust(widths[i]))
        lines.append("  ".join(parts).rstrip())
        if row_index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _looks_numeric(text):
    stripped = text.replace(",", "").lstrip("-$\u20ac\u00a3")
    return stripped.replace(".", "", 1).isdigit()
