"""Records of the graph stage: symbols, call edges and per-function metrics.

Symbols and metrics pickle as their constructor arguments, not as one
``__dict__`` each: a cached graph of thousands of them loads in half the time.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import networkx as nx

SymbolKind = Literal["module", "class", "function", "method", "nested"]


@dataclass
class Symbol:
    """One module, class or function, named by its dotted qualified name.

    Lines are 1-based and inclusive. ``start_line`` is the ``def``/``class``
    line (decorators come before it, in ``decorators``); ``body_start`` is the
    first statement after the docstring, so "the body" is
    ``body_start..end_line``.
    """

    qualname: str
    kind: SymbolKind
    file: str  # posix path relative to the repository root
    start_line: int
    end_line: int
    is_async: bool = False
    parent: str | None = None  # enclosing symbol's qualname
    decorators: tuple[int, int] | None = None
    docstring: tuple[int, int] | None = None
    signature: tuple[int, int] | None = None  # def line .. line of the colon
    body_start: int | None = None

    @property
    def is_function(self) -> bool:
        return self.kind in ("function", "method", "nested")

    def __reduce__(self) -> tuple[type[Symbol], tuple[object, ...]]:
        return Symbol, _symbol_fields(self)


@dataclass
class FunctionMetrics:
    harmonic: float = 0.0  # outgoing reach: sum over g of 1/d(f -> g)
    harmonic_norm: float = 0.0  # harmonic / (n - 1)
    pagerank: float = 0.0
    betweenness: float = 0.0
    distance_discount: float = 0.0  # sum over reachable g of 0.5 ** d(f -> g)
    in_degree: int = 0
    out_degree: int = 0
    degree: int = 0
    cyclomatic: int = 1
    halstead_volume: float = 0.0
    halstead_difficulty: float = 0.0
    code_lines: int = 0  # no blanks, comments or docstring
    nesting_depth: int = 0

    def as_dict(self) -> dict[str, float]:
        return asdict(self)

    def __reduce__(self) -> tuple[type[FunctionMetrics], tuple[object, ...]]:
        return FunctionMetrics, _metrics_fields(self)


_symbol_fields = attrgetter(*(f.name for f in fields(Symbol)))
_metrics_fields = attrgetter(*(f.name for f in fields(FunctionMetrics)))


@dataclass
class SkippedFile:
    file: str
    reason: str  # "syntax error at line 3: ...", "not UTF-8", ...


@dataclass
class CodeGraph:
    """The code of one repository at one commit: what exists and who calls whom."""

    import_root: str  # "src", "" ...: relative to the repository root
    symbols: dict[str, Symbol]
    edges: list[tuple[str, str]]  # caller -> callee, both keys of ``symbols``
    metrics: dict[str, FunctionMetrics] = field(default_factory=dict)  # functions only
    skipped: list[SkippedFile] = field(default_factory=list)
    lines_of_code: int = 0

    def digraph(self) -> nx.DiGraph:
        """Every symbol as a node (with its kind and file), every call as an edge."""
        import networkx as nx

        graph = nx.DiGraph()
        for name, symbol in self.symbols.items():
            graph.add_node(name, kind=symbol.kind, file=symbol.file)
        graph.add_edges_from(self.edges)
        return graph

    def adjacency(self) -> dict[str, list[str]]:
        """``{caller: [callee, ...]}`` with every symbol a key (DESIGN.md's JSON export)."""
        result: dict[str, list[str]] = {name: [] for name in sorted(self.symbols)}
        for caller, callee in self.edges:
            result[caller].append(callee)
        for callees in result.values():
            callees.sort()
        return result

    def functions(self) -> list[Symbol]:
        """Function, method and nested-function symbols in file and line order."""
        found = [s for s in self.symbols.values() if s.is_function]
        return sorted(found, key=lambda s: (s.file, s.start_line, s.qualname))
