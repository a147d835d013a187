"""Eligibility and percentile ranks on hand-built code graphs (real ast parsing of real files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corrupt.errors import InputError
from corrupt.graph.models import CodeGraph, FunctionMetrics, Symbol
from corrupt.selection.eligibility import eligible_targets, is_test_file, percentile_ranks


def graph_of(functions: dict[str, dict], edges=()) -> CodeGraph:
    """``functions``: qualname -> {file, line, end, code_lines, harmonic, cyclomatic, ...}."""
    symbols, metrics = {}, {}
    for qualname, spec in functions.items():
        line = spec.get("line", 1)
        symbols[qualname] = Symbol(
            qualname=qualname,
            kind=spec.get("kind", "function"),
            file=spec.get("file", "pkg/mod.py"),
            start_line=line,
            end_line=spec.get("end", line + 6),
        )
        if symbols[qualname].is_function:
            metrics[qualname] = FunctionMetrics(
                harmonic=spec.get("harmonic", 0.0),
                code_lines=spec.get("code_lines", 8),
                cyclomatic=spec.get("cyclomatic", 1),
                halstead_volume=spec.get("halstead_volume", 0.0),
            )
    return CodeGraph(import_root="", symbols=symbols, edges=list(edges), metrics=metrics)


def covered(graph: CodeGraph, n: int = 5) -> dict[str, list[str]]:
    return {q: [f"tests/test_x.py::test_{i}" for i in range(n)] for q in graph.symbols}


def test_test_files_are_recognised() -> None:
    for path in [
        "tests/test_a.py",
        "pkg/tests/helpers.py",
        "test_a.py",
        "pkg/a_test.py",
        "conftest.py",
    ]:
        assert is_test_file(path), path
    for path in ["pkg/testing_utils.py", "pkg/contest.py", "src/pkg/attest.py"]:
        assert not is_test_file(path), path


def test_lines_coverage_and_test_code_filter() -> None:
    graph = graph_of(
        {
            "pkg.mod.big": {"code_lines": 5},
            "pkg.mod.small": {"code_lines": 4},
            "pkg.mod.lonely": {"code_lines": 9},
            "tests.test_mod.test_big": {"file": "tests/test_mod.py", "code_lines": 9},
            "pkg.mod": {"kind": "module"},
        }
    )
    coverage = covered(graph)
    coverage["pkg.mod.lonely"] = coverage["pkg.mod.lonely"][:4]
    names = [t.qualname for t in eligible_targets(graph, coverage)]
    assert names == ["pkg.mod.big"]
    relaxed = eligible_targets(graph, coverage, min_lines=4, min_covering=4)
    assert [t.qualname for t in relaxed] == ["pkg.mod.big", "pkg.mod.lonely", "pkg.mod.small"]
    assert relaxed[0].covering_tests == sorted(set(coverage[relaxed[0].qualname]))


SOURCE = '''\
class Box:
    def __repr__(self):
        return f"Box({self._x!r}) with a long enough body to count"

    @property
    def value(self):
        """The value."""
        return self._value

    def set_value(self, v):
        self._value = v

    def abstract(self):
        raise NotImplementedError("subclasses")

    def real(self, items):
        total = 0
        for item in items:
            total += item
        return total
'''


def test_trivial_accessors_are_dropped(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "box.py").write_text(SOURCE, encoding="utf-8")
    lines = {"__repr__": 2, "value": 6, "set_value": 10, "abstract": 13, "real": 16}
    graph = graph_of(
        {
            f"pkg.box.Box.{name}": {"file": "pkg/box.py", "line": line, "kind": "method"}
            for name, line in lines.items()
        }
    )
    with_source = eligible_targets(graph, covered(graph), min_lines=1, root=tmp_path)
    assert [t.qualname for t in with_source] == ["pkg.box.Box.real"]
    # Without the source only dunder trivia can be recognised, by name.
    by_name = {t.qualname for t in eligible_targets(graph, covered(graph), min_lines=1)}
    assert "pkg.box.Box.__repr__" not in by_name and "pkg.box.Box.value" in by_name


def test_percentile_ranks_top_decile_and_ties() -> None:
    ranks = percentile_ranks([float(v) for v in range(10)])
    assert [r >= 90 for r in ranks] == [False] * 9 + [True]
    assert percentile_ranks([3.0, 3.0, 3.0]) == [50.0, 50.0, 50.0]
    assert percentile_ranks([1.0, 2.0]) == [25.0, 75.0]


def test_ranks_follow_chosen_metric() -> None:
    functions = {
        f"pkg.mod.f{i}": {
            "line": 10 * i + 1,
            "harmonic": float(i),
            "code_lines": 20 - i,
            "cyclomatic": i + 1,
            "halstead_volume": 100.0 - i,
        }
        for i in range(10)
    }
    graph = graph_of(functions)
    by_lines = {t.qualname: t for t in eligible_targets(graph, covered(graph))}
    assert by_lines["pkg.mod.f9"].centrality_pct == 95.0
    assert by_lines["pkg.mod.f0"].complexity_pct == 95.0  # most code lines
    by_cc = {
        t.qualname: t
        for t in eligible_targets(graph, covered(graph), complexity_metric="cyclomatic")
    }
    assert by_cc["pkg.mod.f9"].complexity_pct == 95.0
    assert by_cc["pkg.mod.f0"].complexity_pct == 5.0
    by_hv = {
        t.qualname: t
        for t in eligible_targets(graph, covered(graph), complexity_metric="halstead_volume")
    }
    assert by_hv["pkg.mod.f0"].complexity_pct == 95.0
    assert by_hv["pkg.mod.f0"].metrics["halstead_volume"] == 100.0


def test_unknown_metric_is_input_error() -> None:
    graph = graph_of({"pkg.mod.f": {}})
    with pytest.raises(InputError, match="unknown complexity metric"):
        eligible_targets(graph, covered(graph), complexity_metric="loc")
