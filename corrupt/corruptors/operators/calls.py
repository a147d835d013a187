"""Function misuse: the wrong method or builtin, arguments swapped, flipped or forgotten."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from corrupt.corruptors.operators.base import FunctionContext, Operator, Site, code


def _pairs(*pairs: tuple[str, str]) -> dict[str, str]:
    table = {}
    for a, b in pairs:
        table[a], table[b] = b, a
    return table


class WrongMethod(Operator):
    """A method of the same object with a related meaning: ``append``/``extend``, ``keys``/``values``..."""

    name = "wrong_method"
    odc_category, odc_subcategory = "Algorithm", "wrong function called"
    hef_category = "function misuse"
    PAIRS = _pairs(
        ("append", "extend"),
        ("keys", "values"),
        ("startswith", "endswith"),
        ("lstrip", "rstrip"),
        ("find", "rfind"),
        ("upper", "lower"),
        ("union", "intersection"),
        ("issubset", "issuperset"),
        ("difference", "symmetric_difference"),
        ("floor", "ceil"),
        ("get", "setdefault"),
        ("isdigit", "isalpha"),
        ("min", "max"),
        ("ljust", "rjust"),
        ("partition", "rpartition"),
        ("isupper", "islower"),
        # One-way where the reverse is an AttributeError on a list (``list.popleft``).
    ) | {"strip": "rstrip", "popleft": "pop", "discard": "remove"}

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for call in ctx.of_type(cst.Call):
            func = call.func
            if not isinstance(func, cst.Attribute):
                continue
            new = self.PAIRS.get(func.attr.value)
            if new is None:
                continue
            replacement = func.with_changes(attr=func.attr.with_changes(value=new))
            yield Site(func, replacement, f".{func.attr.value}() -> .{new}()")


class WrongBuiltin(Operator):
    """``min`` ↔ ``max``, ``any`` ↔ ``all``, ``int`` ↔ ``round``, ``list`` → ``sorted``."""

    name = "wrong_builtin"
    odc_category, odc_subcategory = "Algorithm", "wrong function called"
    hef_category = "function misuse"
    PAIRS = _pairs(("min", "max"), ("any", "all"), ("int", "round")) | {"list": "sorted"}

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        shadowed = set(ctx.bindings())
        for call in ctx.of_type(cst.Call):
            func = call.func
            if not isinstance(func, cst.Name) or func.value in shadowed:
                continue
            new = self.PAIRS.get(func.value)
            if new is None or new in shadowed:
                continue
            yield Site(func, func.with_changes(value=new), f"{func.value}() -> {new}()")


_LITERALS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer, cst.Float)


def _is_literal(expr: cst.BaseExpression) -> bool:
    constant = isinstance(expr, cst.Name) and expr.value in ("None", "True", "False")
    return constant or isinstance(expr, _LITERALS)


# Swapping these arguments is harmless (min, max) or a crash rather than a bug.
_SYMMETRIC_OR_TYPED = {"min", "max", "isinstance", "issubclass", "getattr", "setattr", "hasattr"}


class SwapCallArguments(Operator):
    """Two adjacent positional arguments of a call change places."""

    name = "swap_call_arguments"
    odc_category, odc_subcategory = "Algorithm", "function argument misunderstanding"
    hef_category = "function misuse"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for call in ctx.of_type(cst.Call):
            if isinstance(call.func, cst.Name) and call.func.value in _SYMMETRIC_OR_TYPED:
                continue
            args = list(call.args)
            for i in range(len(args) - 1):
                first, second = args[i], args[i + 1]
                if first.keyword or second.keyword or first.star or second.star:
                    continue
                if code(first.value).strip() == code(second.value).strip():
                    continue
                if _is_literal(first.value) != _is_literal(second.value):
                    continue  # a string or number in a name's place reads as a typo, a tell
                new_args = list(args)
                new_args[i] = first.with_changes(value=second.value)
                new_args[i + 1] = second.with_changes(value=first.value)
                yield Site(
                    call,
                    call.with_changes(args=new_args),
                    f"swapped {code(first.value)} and {code(second.value)} in {code(call.func)}()",
                )


class FlipKeywordArgument(Operator):
    """A boolean keyword argument in a call is flipped (``reverse=True`` → ``reverse=False``)."""

    name = "flip_keyword_argument"
    odc_category, odc_subcategory = "Algorithm", "function argument misunderstanding"
    hef_category = "function misuse"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for arg in ctx.of_type(cst.Arg):
            value = arg.value
            if arg.keyword is None or not isinstance(value, cst.Name):
                continue
            if value.value not in ("True", "False"):
                continue
            new = "False" if value.value == "True" else "True"
            replacement = arg.with_changes(value=value.with_changes(value=new))
            yield Site(arg, replacement, f"{arg.keyword.value}={value.value} -> {new}")


class DropKeywordArgument(Operator):
    """A keyword argument is left out, so the callee's default applies."""

    name = "drop_keyword_argument"
    odc_category, odc_subcategory = "Algorithm", "missing function argument"
    hef_category = "missing logic"

    def sites(self, ctx: FunctionContext) -> Iterator[Site]:
        for call in ctx.of_type(cst.Call):
            args = list(call.args)
            if any(a.star == "**" for a in args):
                continue
            for i, arg in enumerate(args):
                if arg.keyword is None:
                    continue
                kept = args[:i] + args[i + 1 :]
                if kept and i == len(args) - 1:
                    kept[-1] = kept[-1].with_changes(comma=arg.comma)
                yield Site(
                    call,
                    call.with_changes(args=kept),
                    f"dropped {arg.keyword.value}= from {code(call.func)}()",
                )
