"""One rule finds a function by def line: the graph's symbols, stdlib ast and libcst agree on it."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest

from corrupt.graph import build_code_graph
from corrupt.source.edits import split_lines
from corrupt.source.functions import (
    TargetNotFound,
    defs_in_order,
    function_at,
    functions_in,
    matches,
    parse_python,
    span_of,
)
from corrupt.source.locate import locate

SHAPES = Path(__file__).parents[1] / "fixtures" / "identity" / "shapes"
GEOMETRY = SHAPES / "src" / "shapes" / "geometry.py"


def test_every_graph_function_is_found_at_its_def_line_with_the_graph_spans() -> None:
    source = GEOMETRY.read_text()
    tree, lines = ast.parse(source), split_lines(source)
    graph = build_code_graph(SHAPES)
    symbols = [s for s in graph.functions() if s.file == "src/shapes/geometry.py"]
    assert any("#" in s.qualname for s in symbols)  # the fixture repeats names
    for symbol in symbols:
        node = function_at(tree, symbol.start_line, symbol.qualname)
        assert node is not None, symbol.qualname
        span = span_of(node, lines)
        assert (span.def_line, span.end) == (symbol.start_line, symbol.end_line)
        assert (span.def_line, span.signature_end) == symbol.signature
        assert span.docstring == symbol.docstring
        assert span.body_start == symbol.body_start
        # libcst's node is the same def: rewriting it changes that def and nothing else
        located = locate(source, symbol.qualname, symbol.start_line)
        assert located.node.lineno == node.lineno and located.span == span
        renamed = located.with_function(located.function.with_changes(name=cst.Name("renamed")))
        changed = [
            i + 1
            for i, (a, b) in enumerate(zip(lines, split_lines(renamed), strict=True))
            if a != b
        ]
        assert changed == [symbol.start_line]


def test_same_name_definitions_are_told_apart_by_def_line() -> None:
    source = GEOMETRY.read_text()
    tree = ast.parse(source)
    setters = [node for path, node in functions_in(tree) if path == "Rect.width"]
    assert len(setters) == 2
    getter, setter = setters
    assert function_at(tree, setter.lineno, "shapes.geometry.Rect.width#2") is setter
    assert function_at(tree, getter.lineno, "shapes.geometry.Rect.width") is getter
    # a stale line (the name does not sit there) finds nothing rather than a neighbour
    assert function_at(tree, setter.lineno, "shapes.geometry.Rect.height") is None
    assert function_at(tree, setter.lineno + 1, "shapes.geometry.Rect.width") is None


def test_ast_and_libcst_list_definitions_in_the_same_order() -> None:
    source = GEOMETRY.read_text()
    from_ast = [path for path, _ in defs_in_order(ast.parse(source))]
    from_cst = [path for path, _ in defs_in_order(cst.parse_module(source))]
    assert from_ast == from_cst
    assert from_ast.count("perimeter.helper") >= 1 and "Rect.width" in from_ast


def test_spans_of_a_multi_line_header_a_docstring_and_decorators() -> None:
    source = (
        "import functools\n"
        "\n"
        "@functools.lru_cache\n"
        "@staticmethod\n"
        "def f(\n"
        "    a,\n"
        "    b,\n"
        "):  # header ends here\n"
        "    # a comment before the docstring\n"
        '    """Doc\n'
        '    string."""\n'
        "    return a + b\n"
    )
    node = function_at(ast.parse(source), 5)
    assert node is not None
    span = span_of(node, split_lines(source))
    assert (span.start, span.def_line, span.signature_end) == (3, 5, 8)
    assert span.docstring == (10, 11)
    assert (span.body_start, span.end) == (12, 12)


def test_a_docstring_only_function_has_no_body_start() -> None:
    node = function_at(ast.parse('def f():\n    """Only a docstring."""\n'), 1)
    assert node is not None
    assert span_of(node, ["def f():\n", '    """Only a docstring."""\n']).body_start is None


def test_qualname_suffixes_do_not_decide_the_match() -> None:
    assert matches("pkg.mod.C.value#2", "C.value")
    assert matches("pkg.mod.parse#overload", "parse")
    assert not matches("pkg.mod.C.value", "value.C")
    assert not matches("pkg.mod.Cvalue", "value")


def test_a_file_that_does_not_parse_is_a_target_not_found() -> None:
    with pytest.raises(TargetNotFound, match="does not parse"):
        parse_python("def f(:\n")
