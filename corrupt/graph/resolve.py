"""Solve the per-file constraints into caller -> callee edges between project symbols.

A flow-insensitive, context-insensitive points-to fixed point (the approach of
PyCG): every variable key holds a set of abstract values, and constraints are
re-evaluated until no set grows. A worklist keeps this fast: each constraint
records the keys it read, and is only re-run when one of those keys grows.
Whenever evaluation order has side effects, values are visited in sorted
order, so the result does not depend on string hashing (``PYTHONHASHSEED``):
a capped variable (``MAX_VALUES``) makes the outcome order-sensitive. Abstract values are tuples:

* ``("F", q)`` a function (or lambda), ``("C", q)`` a class, ``("M", m)`` a module,
  ``("I", q)`` an instance of class ``q``;
* ``("BM", q, self_value)`` a method bound to an instance or class;
* ``("L", key)`` a list/tuple/set/dict literal whose elements live in ``key.<elems>``;
* ``("G", q)`` the generator a call of generator function ``q`` returns;
* ``("S", cls, self_value)`` the proxy ``super()`` returns inside class ``cls``;
* ``("LM", key, name)`` a method of a container literal (``append``, ``get``...);
* ``("DV", key, view)`` a dict literal's ``keys()``, ``values()`` or ``items()``;
* ``("ROW", columns)`` a tuple made by ``zip``, ``enumerate`` or ``dict.items``, whose
  element at position i lives in variable ``columns[i]`` (``None``: nothing known);
* ``("B", name)`` a builtin (or ``functools.partial``...) modelled in :mod:`.builtin_calls`.

Dict literals (keys ``<dict:...>``) keep the values stored under constant keys in
their own slots, so ``OPS["+"]`` reaches only what was stored under ``"+"``
until a store under an unknown key makes the dict opaque; iterating one gives
its keys.

Only values that originate in the project exist, so calls into the standard
library or third-party code produce no edges: precise before complete.
"""

from __future__ import annotations

import builtins
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from corrupt.graph import builtin_calls
from corrupt.graph.facts import (
    ELEMS,
    GROWN,
    ITEM,
    KEYS,
    OPAQUE,
    RAISES,
    RETURN,
    STARRED,
    YIELD,
    Expr,
    FunctionInfo,
    ModuleFacts,
)
from corrupt.graph.models import Symbol

_EMPTY: frozenset[Any] = frozenset()
# A variable that may hold more values than this is too imprecise to resolve
# calls through: it is emptied and frozen. Edges found through it would be mostly
# guesses (precision first), and capping keeps the fixed point fast on large repos.
MAX_VALUES = 8
_READERS = {"get", "pop", "setdefault", "__getitem__", "copy", "keys", "values", "items"}
_WRITERS: dict[str, int | str] = {
    "append": 0,
    "add": 0,
    "insert": 1,
    "extend": "iter",
    "update": "sub",
    "setdefault": 1,
}
# Calls that move elements, after which constant indexes no longer say which one.
_REORDERERS = {"insert", "pop", "remove", "reverse", "sort", "clear", "setdefault", "update"}
_CATCH_ALL = {"Exception", "BaseException"}


class Resolver:
    def __init__(self, facts: list[ModuleFacts]):
        self.symbols: dict[str, Symbol] = {s.qualname: s for f in facts for s in f.symbols}
        self.functions: dict[str, FunctionInfo] = {
            k: v for f in facts for k, v in f.functions.items()
        }
        self.modules: set[str] = set()
        for f in facts:
            parts = f.module.split(".")
            self.modules.update(".".join(parts[: i + 1]) for i in range(len(parts)))
        self.bases = {k: v for f in facts for k, v in f.bases.items()}
        self.star = {f.module: f.star_imports for f in facts if f.star_imports}
        self.properties = {
            q.rsplit(".", 1)[-1] for q, info in self.functions.items() if info.binding == "property"
        }
        self.assigns, self.calls, self.stores, self.accesses = [], [], [], []
        for f in facts:
            for c in f.constraints:
                kind = c[0]
                if kind == "assign":
                    self.assigns.append(c)
                elif kind in ("call", "dunder", "binop", "raise", "escape"):
                    self.calls.append(c)
                elif kind == "access":
                    if c[2][2] in self.properties:
                        self.accesses.append(c)
                else:
                    self.stores.append(c)
        self.items = {c[1] for c in self.assigns if ".<item" in c[1]}
        self.vars: dict[str, set[Any]] = defaultdict(set)
        self.saturated: set[str] = set()
        self.allow_fallback = False  # see "dec" in eval
        self.fallback_users: set[int] = set()
        self.current = -1
        self.try_key: str | None = None  # the try body the running constraint's calls are in
        self.edges: set[tuple[str, str]] = set()
        self.mros: dict[str, tuple[list[str], set[str]]] = {}
        self.mro_keys: set[str] = set()  # keys some cached MRO was computed from
        self.reading: set[str] = set()
        self.dependents: dict[str, set[int]] = defaultdict(set)
        self.registered: dict[int, set[str]] = {}
        # (order, name, receiver) -> (values, keys read); dropped when a read key grows
        self.lookups: dict[tuple[tuple[str, ...], str, Any], tuple[set[Any], set[str]]] = {}
        self.lookup_users: dict[str, list[tuple[tuple[str, ...], str, Any]]] = defaultdict(list)
        self.queue: list[int] = []
        self.queued: set[int] = set()

    # -- fixed point -------------------------------------------------------
    def solve(self) -> set[tuple[str, str]]:
        constraints = [*self.assigns, *self.stores, *self.calls, *self.accesses]
        self.queue = list(range(len(constraints) - 1, -1, -1))
        self.queued = set(self.queue)
        while True:
            while self.queue:
                index = self.current = self.queue.pop()
                self.queued.discard(index)
                self.reading = set()
                self.run(constraints[index])
                known = self.registered.setdefault(index, set())
                for key in self.reading - known:
                    self.dependents[key].add(index)
                known |= self.reading
            if self.allow_fallback:
                return self.edges
            # Second phase: decorators that resolved to nothing keep the function.
            self.allow_fallback = True
            self.queue = sorted(self.fallback_users, reverse=True)
            self.queued = set(self.queue)

    def run(self, constraint: tuple[Any, ...]) -> None:
        kind = constraint[0]
        self.try_key = None
        if kind == "assign":
            self.add(constraint[1], self.eval(constraint[2]))
        elif kind == "call":
            _, site, owner, callee, args, kwargs, self.try_key = constraint
            self.add(site, self.call(owner, self.eval(callee), args, kwargs, site))
        elif kind == "dunder":
            _, site, owner, value, names, args, self.try_key = constraint
            self.add(site, self.protocol(owner, self.eval(value), names, args))
        elif kind == "binop":
            _, site, owner, left, right, names, reflected, self.try_key = constraint
            self.add(site, self.operator(owner, left, right, names, reflected))
        elif kind == "raise":
            _, owner, value, self.try_key = constraint
            self.raised(owner, value)
        elif kind == "escape":
            self.escape(*constraint[1:])
        elif kind == "access":
            self.access(constraint[1], constraint[2])
        else:
            self.store(constraint)

    def read(self, key: str) -> frozenset[Any] | set[Any]:
        self.reading.add(key)
        return self.vars.get(key, _EMPTY)

    def add(self, key: str, values: Iterable[Any]) -> None:
        if not values or key in self.saturated:
            return
        target = self.vars[key]
        before = len(target)
        target.update(values)
        if len(target) > MAX_VALUES and not key.endswith(RAISES):
            self.saturated.add(key)
            target.clear()
        if len(target) != before:
            if key in self.mro_keys:
                self.mros.clear()
                self.mro_keys.clear()
                self.lookups.clear()
                self.lookup_users.clear()
            for stale in self.lookup_users.pop(key, ()):
                self.lookups.pop(stale, None)
            for index in self.dependents.get(key, ()):
                if index not in self.queued:
                    self.queued.add(index)
                    self.queue.append(index)

    def edge(self, caller: str, callee: str) -> None:
        if callee in self.symbols:
            self.edges.add((caller, callee))

    # -- evaluation --------------------------------------------------------
    def eval(self, expr: Expr | None) -> frozenset[Any] | set[Any]:
        if expr is None:
            return _EMPTY
        kind = expr[0]
        if kind == "var":
            key = expr[1]
            self.reading.add(key)
            values = self.vars.get(key)
            if values:
                return values
            module, _, name = key.rpartition(".")
            if module in self.star:
                return {v for src in self.star[module] for v in self.attribute(("M", src), name)}
            return _EMPTY
        if kind == "val":
            return {expr[1]}
        if kind == "attr":
            return {v for base in self.eval(expr[1]) for v in self.attribute(base, expr[2])}
        if kind == "mod":
            if expr[1] in self.modules:
                return {("M", expr[1])}
            return {("XM", expr[1])} if expr[1] in builtin_calls.MODULES else _EMPTY
        if kind == "from":
            full = f"{expr[1]}.{expr[2]}" if expr[1] else expr[2]
            if full in self.modules:
                return {("M", full)}
            if expr[1] in self.modules:
                return self.attribute(("M", expr[1]), expr[2])
            return {("B", full)} if full in builtin_calls.HANDLERS else _EMPTY
        if kind == "builtin":
            return {("B", expr[1])}
        if kind in ("const", "starred"):
            return _EMPTY
        if kind == "set":
            return expr[1]  # type: ignore[no-any-return]
        if kind == "seq":
            return {("L", expr[1])}
        if kind in ("sub", "iter"):
            return {v for base in self.eval(expr[1]) for v in self.elements(base, kind)}
        if kind == "union":
            return {v for part in expr[1] for v in self.eval(part)}
        if kind == "inst":
            return {("I", v[1]) for v in self.eval(expr[1]) if v[0] == "C"}
        if kind == "super":
            selves = self.read(expr[2]) or {("I", expr[1])}
            return {("S", expr[1], s) for s in selves if s[0] in ("I", "C")}
        if kind == "dec":
            # What a decorator returns, once known. Until the fixed point is
            # reached a decorator may still resolve, so falling back to the
            # undecorated function only happens in the second phase.
            found = self.read(expr[1])
            if found:
                return found
            self.fallback_users.add(self.current)
            return self.eval(expr[2]) if self.allow_fallback else _EMPTY
        if kind == "index":
            return {v for base in self.eval(expr[1]) for v in self.item(base, expr[2], "sub")}
        if kind == "unpack":
            slot = ITEM.format(expr[2])
            return {v for base in self.eval(expr[1]) for v in self.item(base, slot, "iter")}
        if kind == "yields":
            return {
                v for g in self.eval(expr[1]) if g[0] == "G" for v in self.read(f"{g[1]}.{YIELD}")
            }
        if kind == "caught":
            return self.caught(expr[1], expr[2])
        raise ValueError(f"unknown expression {kind!r}")

    def item(self, base: tuple[Any, ...], slot: str, kind: str) -> frozenset[Any] | set[Any]:
        """The element at constant ``slot`` of ``base``: subscripted (``sub``) or unpacked (``iter``)."""
        if base[0] == "ROW":
            return set().union(
                *(self.read(c) for i, c in enumerate(base[1]) if c and slot == ITEM.format(i))
            )
        if base[0] != "L" or (kind == "iter" and _is_dict(base[1])):
            return self.elements(base, kind)
        item = f"{base[1]}.{slot}"
        if self.read(f"{base[1]}.{OPAQUE}") or not (_is_dict(base[1]) or item in self.items):
            return self.elements(base, kind)
        if slot.startswith("<item-") and self.read(f"{base[1]}.{GROWN}"):
            return self.elements(base, kind)  # ``[-1]`` of a list that grew
        return self.read(item)

    def elements(self, value: tuple[Any, ...], kind: str) -> frozenset[Any] | set[Any]:
        """What iterating (``iter``) or subscripting (``sub``) ``value`` gives."""
        tag = value[0]
        if tag == "L":
            if kind == "iter" and _is_dict(value[1]):
                return self.read(f"{value[1]}.{KEYS}")
            return self.read(f"{value[1]}.{ELEMS}")
        if tag == "G" and kind == "iter":
            return self.read(f"{value[1]}.{YIELD}")
        if tag == "ROW":
            return set().union(*(self.read(c) for c in value[1] if c))
        if tag == "DV":
            key, view = value[1], value[2]
            if view == "items":
                return {("ROW", (f"{key}.{KEYS}", f"{key}.{ELEMS}"))}
            return self.read(f"{key}.{KEYS if view == 'keys' else ELEMS}")
        return _EMPTY

    def iterated(self, owner: str, values: Iterable[Any]) -> set[Any]:
        """The elements a ``for`` over ``values`` sees, calling ``__iter__``/``__next__``."""
        result: set[Any] = set()
        for value in sorted(values):
            if value[0] == "I":
                for iterator in self.protocol(owner, {value}, ("__iter__",), ()):
                    if iterator[0] == "I":
                        result |= self.protocol(owner, {iterator}, ("__next__",), ())
                    else:
                        result |= self.elements(iterator, "iter")
            else:
                result |= self.elements(value, "iter")
        return result

    def exception_types(self, kinds: Expr | None) -> set[Any]:
        """The classes an ``except`` clause names (one, or a tuple of them)."""
        types: set[Any] = set()
        for value in self.eval(kinds):
            types |= self.read(f"{value[1]}.{ELEMS}") if value[0] == "L" else {value}
        return types

    def caught(self, kinds: Expr, tried: str) -> set[Any]:
        """What ``except kinds as e`` binds: the matching exceptions the try body raises."""
        types = self.exception_types(kinds)
        return {r for r in self.read(f"{tried}.{RAISES}") if self.catches(types, r[1])}

    def escape(
        self,
        owner: str,
        tried: str,
        kinds: tuple[Expr | None, ...],
        outer: str | None,
        reraises: bool,
    ) -> None:
        handlers = [self.exception_types(kind) for kind in kinds]
        escaping = {
            r
            for r in self.read(f"{tried}.{RAISES}")
            if reraises or not any(self.catches(types, r[1]) for types in handlers)
        }
        self.add(f"{outer or owner}.{RAISES}", escaping)

    def catches(self, types: set[Any], cls: str) -> bool:
        order = self.mro(cls)
        roots = {
            b[1]
            for c in order
            for base in self.bases.get(c, ())
            for b in self.eval(base)
            if b[0] == "B"
        }
        for kind, name in ((t[0], t[1]) for t in types):
            if kind == "C" and name in order:
                return True
            if kind == "B" and (name in _CATCH_ALL or any(_subclass(r, name) for r in roots)):
                return True
        return False

    def mro(self, cls: str) -> list[str]:
        """C3 linearisation over in-project bases (falls back to depth-first order)."""
        cached = self.mros.get(cls)
        if cached is not None:
            self.reading |= cached[1]
            return cached[0]
        outer, self.reading = self.reading, set()
        self.mros[cls] = ([cls], set())  # guards against cyclic bases while computing
        parents: list[str] = []
        for base in self.bases.get(cls, ()):
            parents.extend(v[1] for v in sorted(self.eval(base)) if v[0] == "C" and v[1] != cls)
        sequences = [list(self.mro(p)) for p in parents] + [list(parents)]
        result = [cls]
        while True:
            sequences = [s for s in sequences if s]
            if not sequences:
                break
            for sequence in sequences:
                head = sequence[0]
                if not any(head in s[1:] for s in sequences):
                    break
            else:  # inconsistent hierarchy: keep depth-first order
                for p in parents:
                    result.extend(c for c in self.mro(p) if c not in result)
                break
            result.append(head)
            for s in sequences:
                if s[0] == head:
                    del s[0]
        self.mros[cls] = (result, self.reading)
        self.mro_keys |= self.reading
        self.reading = outer | self.reading
        return result

    def attribute(self, value: tuple[Any, ...], name: str) -> frozenset[Any] | set[Any]:
        kind = value[0]
        if kind == "M":
            key = f"{value[1]}.{name}"
            found = self.read(key)
            if found:
                return found
            if key in self.modules:
                return {("M", key)}
            if value[1] in self.star:
                return {v for src in self.star[value[1]] for v in self.attribute(("M", src), name)}
            return _EMPTY
        if kind in ("C", "I"):
            return self.lookup(self.mro(value[1]), name, value)
        if kind == "S":
            owner, self_value = value[1], value[2]
            order = self.mro(self_value[1])
            order = order[order.index(owner) + 1 :] if owner in order else self.mro(owner)[1:]
            return self.lookup(order, name, self_value)
        if kind == "L" and (name in _READERS or name in _WRITERS or name in _REORDERERS):
            return {("LM", value[1], name)}
        if kind == "XM" and f"{value[1]}.{name}" in builtin_calls.HANDLERS:
            return {("B", f"{value[1]}.{name}")}
        return _EMPTY

    def lookup(self, order: list[str], name: str, receiver: tuple[Any, ...]) -> set[Any]:
        """The attribute ``name`` as found along ``order`` (an MRO), bound to ``receiver``."""
        cache_key = (tuple(order), name, receiver)
        hit = self.lookups.get(cache_key)
        if hit is not None:
            self.reading |= hit[1]
            return hit[0]
        outer, self.reading = self.reading, set()
        result: set[Any] = set()
        for cls in order:
            found = self.read(f"{cls}.{name}")
            if found:
                result = {bound for v in found for bound in self.bind_to(v, cls, receiver)}
                break
        reads, self.reading = self.reading, outer | self.reading
        self.lookups[cache_key] = (result, reads)
        for key in reads:
            self.lookup_users[key].append(cache_key)
        return result

    def bind_to(
        self, value: tuple[Any, ...], cls: str, receiver: tuple[Any, ...]
    ) -> tuple[Any, ...] | frozenset[Any] | set[Any]:
        """A function found on a class becomes what attribute access really gives."""
        if value[0] != "F" or value[1] not in self.functions:
            return (value,)
        symbol = self.symbols.get(value[1])
        if symbol is None or symbol.parent != cls or symbol.kind != "method":
            return (value,)
        binding = self.functions[value[1]].binding
        if binding == "static":
            return (value,)
        if binding == "class":
            return (("BM", value[1], ("C", receiver[1])),)
        if binding == "property":
            return self.read(f"{value[1]}.{RETURN}") if receiver[0] == "I" else ()
        if receiver[0] == "I":
            return (("BM", value[1], receiver),)
        return (value,)

    # -- calls -------------------------------------------------------------
    def call(
        self,
        owner: str,
        callees: Iterable[Any],
        args: tuple[Expr | None, ...],
        kwargs: tuple[tuple[str | None, Expr | None], ...],
        site: str = "",
    ) -> set[Any]:
        results: set[Any] = set()
        for callee in sorted(callees):
            kind = callee[0]
            if kind == "F":
                self.invoke(owner, callee[1], args, kwargs, None, results)
            elif kind == "BM":
                self.invoke(owner, callee[1], args, kwargs, callee[2], results)
            elif kind == "C":
                self.edge(owner, callee[1])
                instance = ("I", callee[1])
                for init in self.lookup(self.mro(callee[1]), "__init__", instance):
                    if init[0] == "BM":
                        self.invoke(owner, init[1], args, kwargs, instance, set())
                results.add(instance)
            elif kind == "I":
                for method in self.lookup(self.mro(callee[1]), "__call__", callee):
                    if method[0] == "BM":
                        self.invoke(owner, method[1], args, kwargs, callee, results)
            elif kind == "LM":
                self.container_call(owner, callee[1], callee[2], args, kwargs, results)
            elif kind == "B":
                builtin_calls.call(self, owner, callee[1], args, kwargs, site, results)
        return results

    def protocol(
        self, owner: str, values: Iterable[Any], names: tuple[str, ...], args: tuple[Any, ...]
    ) -> set[Any]:
        """Implicit calls of the first of ``names`` each instance in ``values`` defines."""
        results: set[Any] = set()
        for value in sorted(values):
            for method in self.methods(value, names):
                self.invoke(owner, method[1], args, (), method[2], results)
        return results

    def methods(self, value: tuple[Any, ...], names: tuple[str, ...]) -> list[Any]:
        if value[0] != "I":
            return []
        order = self.mro(value[1])
        for name in names:
            found = self.lookup(order, name, value)
            if found:
                return sorted(m for m in found if m[0] == "BM")
        return []

    def operator(
        self,
        owner: str,
        left: Expr | None,
        right: Expr | None,
        names: tuple[str, ...],
        reflected: tuple[str, ...],
    ) -> set[Any]:
        """``left op right``: the left operand's method, else the right one's reflected one."""
        results: set[Any] = set()
        lefts = self.eval(left)
        # A literal's (or an unmodelled expression's) builtin type may lack the method;
        # an operand with no known value is not assumed to.
        unhandled = left is None or left[0] in ("const", "seq")
        for value in sorted(lefts):
            found = self.methods(value, names)
            unhandled = unhandled or not found
            for method in found:
                self.invoke(owner, method[1], (right,), (), method[2], results)
        if unhandled:
            results |= self.protocol(owner, self.eval(right), reflected, (left,))
        return results

    def raised(self, owner: str, expr: Expr) -> None:
        """``raise expr``: a class is instantiated; the instances join what ``owner`` raises."""
        instances: set[Any] = set()
        for value in sorted(self.eval(expr)):
            if value[0] == "C":
                value = next(iter(self.call(owner, (value,), (), ())))
            if value[0] == "I":
                instances.add(value)
        self.add(f"{self.try_key or owner}.{RAISES}", instances)

    def invoke(
        self,
        owner: str,
        qualname: str,
        args: tuple[Expr | None, ...],
        kwargs: tuple[tuple[str | None, Expr | None], ...],
        receiver: tuple[Any, ...] | None,
        results: set[Any],
    ) -> None:
        info = self.functions.get(qualname)
        if info is None:
            return
        self.edge(owner, qualname)
        self.add(f"{self.try_key or owner}.{RAISES}", self.read(f"{qualname}.{RAISES}"))
        params = info.params
        given: dict[str, frozenset[Any] | set[Any]] = {}
        offset = 0
        if receiver is not None and params:
            given[params[0]] = {receiver}
            offset = 1
        for position, arg in enumerate(args):
            if arg == STARRED:
                break
            if arg is not None and offset + position < len(params):
                given[params[offset + position]] = self.eval(arg)
        for name, arg in kwargs:
            if name is not None and (name in params or name in info.kwonly):
                given[name] = self.eval(arg)
        for name, values in given.items():
            self.add(f"{qualname}.{name}", values)
        self.invoke_result(qualname, receiver, results, given)

    def invoke_result(
        self,
        qualname: str,
        receiver: tuple[Any, ...] | None,
        results: set[Any],
        given: dict[str, frozenset[Any] | set[Any]] | None = None,
    ) -> None:
        """What a call returns; returned parameters pass this call's own arguments through."""
        info = self.functions[qualname]
        if info.is_generator:
            results.add(("G", qualname))
            return
        results.update(self.read(f"{qualname}.{RETURN}"))
        if given is None:
            given = {info.params[0]: {receiver}} if receiver is not None and info.params else {}
        for name in info.returned_params:
            results.update(given[name] if name in given else self.read(f"{qualname}.{name}"))

    def container_call(
        self,
        owner: str,
        key: str,
        name: str,
        args: tuple[Expr | None, ...],
        kwargs: tuple[tuple[str | None, Expr | None], ...],
        results: set[Any],
    ) -> None:
        elems = f"{key}.{ELEMS}"
        if name in _REORDERERS:
            self.add(f"{key}.{OPAQUE}", (True,))
        if name == "sort":
            builtin_calls.key_callback(self, owner, kwargs, self.read(elems))
        if name in _READERS:
            first = args[0] if args else None
            if name in ("keys", "values", "items"):
                results.add(("DV", key, name) if _is_dict(key) else ("L", key))
            elif name == "copy":
                results.add(("L", key))
            elif first is not None and first[0] == "const" and name != "setdefault":
                results.update(self.item(("L", key), ITEM.format(first[1]), "sub"))
            else:
                results.update(self.read(elems))
            if name in ("get", "pop", "setdefault") and len(args) > 1 and args[1] is not None:
                results.update(self.eval(args[1]))  # the default
        if name not in _WRITERS:
            return
        self.add(f"{key}.{GROWN}", (True,))
        how = _WRITERS[name]
        if how == "iter" or how == "sub":
            if args and args[0] is not None:
                self.add(elems, {v for b in self.eval(args[0]) for v in self.elements(b, how)})
        elif isinstance(how, int) and len(args) > how and args[how] is not None:
            self.add(elems, self.eval(args[how]))

    def store(self, constraint: tuple[Any, ...]) -> None:
        if constraint[0] == "setattr":
            _, base, name, value = constraint
            values = self.eval(value)
            for target in sorted(self.eval(base)):
                if target[0] in ("C", "I", "M"):
                    self.add(f"{target[1]}.{name}", values)
        else:
            _, base, value, slot, key = constraint
            values = self.eval(value)
            for target in sorted(self.eval(base)):
                if target[0] == "L":
                    self.add(f"{target[1]}.{ELEMS}", values)
                    if slot is not None:
                        self.add(f"{target[1]}.{slot}", values)
                    else:
                        self.add(f"{target[1]}.{OPAQUE}", (True,))
                        self.add(f"{target[1]}.{KEYS}", self.eval(key))

    def access(self, owner: str, expr: Expr) -> None:
        """Reading a property on an instance calls its getter."""
        _, base, name = expr
        for value in sorted(self.eval(base)):
            if value[0] not in ("I", "S"):
                continue
            receiver = value if value[0] == "I" else value[2]
            order = self.mro(receiver[1])
            if value[0] == "S":
                order = order[order.index(value[1]) + 1 :] if value[1] in order else order
            for cls in order:
                found = self.read(f"{cls}.{name}")
                if not found:
                    continue
                for v in sorted(found):
                    info = self.functions.get(v[1]) if v[0] == "F" else None
                    if info is not None and info.binding == "property":
                        symbol = self.symbols.get(v[1])
                        if symbol is not None and symbol.parent == cls:
                            self.edge(owner, v[1])
                            if info.params:
                                self.add(f"{v[1]}.{info.params[0]}", (receiver,))
                break


def _is_dict(key: str) -> bool:
    return key.startswith("<dict:")


def _subclass(name: str, of: str) -> bool:
    """Whether builtin exception ``name`` is ``of`` or derives from it."""
    cls, parent = getattr(builtins, name, None), getattr(builtins, of, None)
    return isinstance(cls, type) and isinstance(parent, type) and issubclass(cls, parent)


def resolve_calls(facts: list[ModuleFacts]) -> list[tuple[str, str]]:
    """Caller -> callee edges between project symbols, sorted."""
    return sorted(Resolver(facts).solve())
