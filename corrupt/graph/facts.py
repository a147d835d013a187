"""The records extraction emits per file: its facts, its functions' signatures, and the constraint language.

A file's :class:`ModuleFacts` are plain picklable data, so they can be cached by
content hash and computed in worker processes; :mod:`corrupt.graph.resolve`
solves them once every file is read. Call resolution is a small
flow-insensitive points-to analysis in the spirit of PyCG. Names are resolved
lexically during extraction to variable keys (``pkg.mod.f.x``); what a key may
hold is only known once every file is read, so extraction emits constraints
over symbolic expressions (plain tuples):

* ``("assign", key, expr)``: the variable may hold what ``expr`` evaluates to;
* ``("call", site, owner, callee, args, kwargs, try)``: a call made by the symbol
  ``owner`` (inside the ``try`` body ``try``, or ``None``); its result is variable ``site``;
* ``("setattr", obj, name, expr)`` / ``("setitem", obj, expr, slot, key)``: stores into
  attributes and containers;
* ``("access", owner, expr)``: an attribute read, which calls a property;
* ``("dunder", site, owner, expr, names, args, try)``: an implicit call of the first of
  ``names`` an instance defines (``with`` calls ``__enter__``, ``for`` calls
  ``__iter__``/``__next__``, ``x[k]`` calls ``__getitem__``, ``len(x)`` ``__len__``...);
* ``("binop", site, owner, left, right, names, reflected, try)``: an operator, which
  calls the left operand's method, or the right one's reflected method when the left
  operand may not define it;
* ``("raise", owner, expr, try)``: an exception raised by ``owner``, inside the
  ``try`` body ``try`` when not ``None``. What a handler catches is what the
  calls in its ``try`` body raise, so ``except E as e`` binds ``e`` to those;
* ``("escape", owner, try, kinds, outer, reraises)``: what a ``try`` body raises and
  no handler (of exception classes ``kinds``) catches goes on to the ``outer`` try
  body, or out of ``owner`` (everything does when a handler re-raises).

Names of builtins (``sorted``, ``map``, ``len``, ``ValueError``...) that the module
does not rebind evaluate to ``("builtin", name)``: the solver models the builtins
that call back into project code (keys, ``map``/``filter`` functions, protocol
methods) and the exception hierarchy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from corrupt.graph.local_metrics import LocalMetrics
from corrupt.graph.models import Symbol

Expr = tuple[Any, ...]
RETURN, YIELD, ELEMS, KEYS = "<return>", "<yield>", "<elems>", "<keys>"
RAISES = "<raises>"  # exceptions a function (or a try body) may raise
OPAQUE = "<reordered>"  # set once a container's elements may have moved or been replaced
GROWN = "<grown>"  # set once a list may have grown, so negative indexes no longer hold
ITEM = "<item{!r}>"  # a literal's element at a constant index or key
STARRED: tuple[str] = ("starred",)  # a ``*args`` argument: positions after it are unknown


@dataclass
class FunctionInfo:
    """What binding call arguments to parameters needs to know about a function."""

    params: tuple[str, ...]  # positional parameters, in order
    kwonly: tuple[str, ...] = ()
    binding: str = "plain"  # plain | static | class | property
    is_generator: bool = False
    is_lambda: bool = False
    # Parameters returned as they are (``return func`` in a registering decorator,
    # ``return self`` in a fluent method). The solver passes the caller's own
    # argument through, so one call site's argument never leaks into another's result.
    returned_params: tuple[str, ...] = ()


@dataclass
class ModuleFacts:
    module: str
    file: str
    is_package: bool
    lines: int
    symbols: list[Symbol] = field(default_factory=list)
    metrics: dict[str, LocalMetrics] = field(default_factory=dict)
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    bases: dict[str, list[Expr]] = field(default_factory=dict)
    constraints: list[tuple[Any, ...]] = field(default_factory=list)
    star_imports: list[str] = field(default_factory=list)
