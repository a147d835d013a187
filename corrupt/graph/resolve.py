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
* ``("LM", key, name)`` a method of a container literal (``append``, ``get``...).

Only values that originate in the project exist, so calls into the standard
library or third-party code produce no edges: precise before complete.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from corrupt.graph.extract import ELEMS, ITEM, RETURN, YIELD, Expr, FunctionInfo, ModuleFacts
from corrupt.graph.models import Symbol

_EMPTY: frozenset[Any] = frozenset()
# A variable that may hold more values than this is too imprecise to resolve
# calls through: it is emptied and frozen. Edges found through it would be mostly
# guesses (precision first), and capping keeps the fixed point fast on large repos.
MAX_VALUES = 8
_READERS = {
    "get": "elems",
    "pop": "elems",
    "setdefault": "elems",
    "__getitem__": "elems",
    "values": "self",
    "copy": "self",
}
_WRITERS: dict[str, int | str] = {
    "append": 0,
    "add": 0,
    "insert": 1,
    "extend": "iter",
    "update": "sub",
}
# Calls that move elements, after which constant indexes no longer say which one.
_REORDERERS = {"insert", "pop", "remove", "reverse", "sort", "clear"}
OPAQUE = "<reordered>"


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
                elif kind == "call":
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
                for key in sorted(self.reading - known):
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
        if kind == "assign":
            self.add(constraint[1], self.eval(constraint[2]))
        elif kind == "call":
            _, site, owner, callee, args, kwargs = constraint
            self.add(site, self.call(owner, self.eval(callee), args, kwargs))
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
        if len(target) > MAX_VALUES:
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
            return {("M", expr[1])} if expr[1] in self.modules else _EMPTY
        if kind == "from":
            full = f"{expr[1]}.{expr[2]}" if expr[1] else expr[2]
            if full in self.modules:
                return {("M", full)}
            return self.attribute(("M", expr[1]), expr[2]) if expr[1] in self.modules else _EMPTY
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
            result: set[Any] = set()
            for base in self.eval(expr[1]):
                if base[0] != "L":
                    continue
                item = f"{base[1]}.{ITEM.format(expr[2])}"
                if self.read(f"{base[1]}.{OPAQUE}") or item not in self.items:
                    result |= self.elements(base, "sub")
                else:
                    result |= self.read(item)
            return result
        if kind == "enter":
            result = set()
            for value in self.eval(expr[1]):
                for method in self.attribute(value, "__enter__"):
                    if method[0] == "BM":
                        self.invoke_result(method[1], method[2], result)
            return result
        raise ValueError(f"unknown expression {kind!r}")

    def elements(self, value: tuple[Any, ...], kind: str) -> frozenset[Any] | set[Any]:
        if value[0] == "L":
            return self.read(f"{value[1]}.{ELEMS}")
        if value[0] == "G" and kind == "iter":
            return self.read(f"{value[1]}.{YIELD}")
        return _EMPTY

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
                self.container_call(callee[1], callee[2], args, results)
        return results

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
        params = info.params
        given: dict[str, frozenset[Any] | set[Any]] = {}
        offset = 0
        if receiver is not None and params:
            given[params[0]] = {receiver}
            offset = 1
        for position, arg in enumerate(args):
            if arg is None:
                break
            if offset + position < len(params):
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
        self, key: str, name: str, args: tuple[Expr | None, ...], results: set[Any]
    ) -> None:
        elems = f"{key}.{ELEMS}"
        if name in _REORDERERS:
            self.add(f"{key}.{OPAQUE}", (True,))
        if name in _READERS:
            results.update(self.read(elems) if _READERS[name] == "elems" else {("L", key)})
            if name in ("get", "pop", "setdefault") and len(args) > 1 and args[1] is not None:
                results.update(self.eval(args[1]))  # the default
            return
        if name not in _WRITERS:
            return
        how = _WRITERS[name]
        if how == "iter" or how == "sub":
            if args and args[0] is not None:
                self.add(elems, {v for b in self.eval(args[0]) for v in self.elements(b, "iter")})
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
            _, base, value = constraint
            values = self.eval(value)
            for target in sorted(self.eval(base)):
                if target[0] == "L":
                    self.add(f"{target[1]}.{ELEMS}", values)
                    self.add(f"{target[1]}.{OPAQUE}", (True,))

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


def resolve_calls(facts: list[ModuleFacts]) -> list[tuple[str, str]]:
    """Caller -> callee edges between project symbols, sorted."""
    return sorted(Resolver(facts).solve())
