"""The builtins (and the few standard-library functions) that call back into project code.

``sorted(items, key=by_cost)`` calls ``by_cost`` with the elements of ``items``;
``map``, ``filter`` and ``functools.reduce`` call their function; ``len(x)``,
``str(x)``, ``iter(x)``... call the protocol method ``x``'s class defines; and
``list``, ``zip``, ``enumerate``... build containers whose elements are the
argument's. Each model adds the edges these calls make (from the caller of the
builtin, as the call happens on its behalf) and gives back what the builtin
returns, so values keep flowing through it. Everything else the builtins do is
outside the project and adds nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from corrupt.graph.facts import ELEMS, STARRED, YIELD, Expr

if TYPE_CHECKING:
    from corrupt.graph.resolve import Resolver

Args = tuple[Expr | None, ...]
Kwargs = tuple[tuple[str | None, Expr | None], ...]
Values = set[Any] | frozenset[Any]

# builtin -> the protocol methods it calls, the first one a class defines
_PROTOCOL = {
    "len": ("__len__",),
    "str": ("__str__", "__repr__"),
    "repr": ("__repr__",),
    "ascii": ("__repr__",),
    "format": ("__format__", "__str__", "__repr__"),
    "hash": ("__hash__",),
    "abs": ("__abs__",),
    "bool": ("__bool__", "__len__"),
    "int": ("__int__", "__index__"),
    "float": ("__float__",),
    "round": ("__round__",),
    "divmod": ("__divmod__",),
}
# builtins returning a new container of their argument's elements
_COLLECTORS = {"sorted", "list", "tuple", "set", "frozenset", "reversed", "itertools.chain"}
MODULES = {"functools", "itertools"}


class _Call:
    """One builtin call: its caller, its arguments as values, and where its result lives."""

    def __init__(self, solver: Resolver, owner: str, args: Args, kwargs: Kwargs, site: str):
        self.solver, self.owner, self.site = solver, owner, site
        positional = []
        for arg in args:
            if arg == STARRED:
                break
            positional.append(arg)
        self.args = positional
        self.kwargs = {name: value for name, value in kwargs if name is not None}

    def arg(self, position: int) -> Values:
        if position < len(self.args):
            return self.solver.eval(self.args[position])
        return set()

    def elements(self, position: int) -> set[Any]:
        return self.solver.iterated(self.owner, self.arg(position))

    def callback(self, functions: Values, *arguments: Values) -> set[Any]:
        args = tuple(("set", frozenset(values)) for values in arguments)
        return self.solver.call(self.owner, functions, args, ())

    def container(self, elements: Values) -> set[Any]:
        """A new list at this call site holding ``elements``."""
        self.solver.add(f"{self.site}.{ELEMS}", elements)
        return {("L", self.site)}


def key_callback(solver: Resolver, owner: str, kwargs: Kwargs, elements: Values) -> None:
    """``key=`` of ``sorted``, ``min``, ``max`` and ``list.sort``: called with each element."""
    for name, value in kwargs:
        if name == "key" and value is not None:
            solver.call(owner, solver.eval(value), (("set", frozenset(elements)),), ())


def _collect(call: _Call) -> set[Any]:
    elements: set[Any] = set()
    for position in range(len(call.args)):
        elements |= call.elements(position)
    key_callback(call.solver, call.owner, tuple(call.kwargs.items()), elements)
    return call.container(elements)


def _extreme(call: _Call) -> set[Any]:
    """``min``/``max``: one of the elements (or of the arguments), or the default."""
    if len(call.args) == 1:
        elements = call.elements(0)
    else:
        elements = set().union(*(call.arg(i) for i in range(len(call.args))))
    key_callback(call.solver, call.owner, tuple(call.kwargs.items()), elements)
    return elements | call.solver.eval(call.kwargs.get("default"))


def _iter(call: _Call) -> set[Any]:
    values = call.arg(0)
    made = {v for v in values if v[0] in ("L", "G", "DV", "ROW")}
    return made | call.solver.protocol(call.owner, values, ("__iter__",), ())


def _next(call: _Call) -> set[Any]:
    values = call.arg(0)
    found = call.solver.protocol(call.owner, values, ("__next__",), ()) | call.arg(1)
    for value in values:
        if value[0] == "G":
            found |= call.solver.read(f"{value[1]}.{YIELD}")
        elif value[0] != "I":
            found |= call.solver.elements(value, "iter")
    return found


def _rows(call: _Call, columns: list[tuple[int, str | None]]) -> set[Any]:
    """``zip``/``enumerate``: tuples whose positions hold the arguments' elements."""
    names = []
    for position, column in columns:
        if column is not None:
            call.solver.add(column, call.elements(position))
        names.append(column)
    return call.container({("ROW", tuple(names))})


def _zip(call: _Call) -> set[Any]:
    return _rows(call, [(i, f"{call.site}.<col{i}>") for i in range(len(call.args))])


def _enumerate(call: _Call) -> set[Any]:
    return _rows(call, [(-1, None), (0, f"{call.site}.<col1>")])


def _map(call: _Call) -> set[Any]:
    iterables = [call.elements(i) for i in range(1, len(call.args))]
    return call.container(call.callback(call.arg(0), *iterables))


def _filter(call: _Call) -> set[Any]:
    elements = call.elements(1)
    call.callback(call.arg(0), elements)
    return call.container(elements)


def _reduce(call: _Call) -> set[Any]:
    elements = call.elements(1)
    return call.callback(call.arg(0), elements | call.arg(2), elements)


def _sum(call: _Call) -> set[Any]:
    """``sum``: ``start + first`` (the first element's ``__radd__``), then ``__add__``."""
    elements = call.elements(0)
    start = call.args[1] if len(call.args) > 1 else None
    found = call.solver.protocol(call.owner, elements, ("__radd__",), (start,))
    operand = ("set", frozenset(elements))
    return found | call.solver.protocol(call.owner, elements, ("__add__",), (operand,))


def _type(call: _Call) -> set[Any]:
    return {("C", v[1]) for v in call.arg(0) if v[0] == "I"} if len(call.args) == 1 else set()


def _getattr(call: _Call) -> set[Any]:
    name = call.args[1] if len(call.args) > 1 else None
    found = set(call.arg(2))
    if name is not None and name[0] == "const" and isinstance(name[1], str):
        for value in call.arg(0):
            found |= call.solver.attribute(value, name[1])
    return found


def _partial(call: _Call) -> set[Any]:
    """``functools.partial(f, ...)`` calls ``f`` when called: it stands for ``f``."""
    return set(call.arg(0))


HANDLERS: dict[str, Callable[[_Call], set[Any]]] = {
    **dict.fromkeys(_COLLECTORS, _collect),
    "min": _extreme,
    "max": _extreme,
    "iter": _iter,
    "next": _next,
    "zip": _zip,
    "enumerate": _enumerate,
    "map": _map,
    "filter": _filter,
    "sum": _sum,
    "type": _type,
    "getattr": _getattr,
    "functools.reduce": _reduce,
    "functools.partial": _partial,
}


def call(
    solver: Resolver,
    owner: str,
    name: str,
    args: Args,
    kwargs: Kwargs,
    site: str,
    results: set[Any],
) -> None:
    """Model the builtin ``name`` called by ``owner`` at ``site``; add what it returns."""
    one = _Call(solver, owner, args, kwargs, site)
    if name in _PROTOCOL:
        results |= solver.protocol(owner, one.arg(0), _PROTOCOL[name], tuple(one.args[1:]))
    handler = HANDLERS.get(name)
    if handler is not None:
        results |= handler(one)
