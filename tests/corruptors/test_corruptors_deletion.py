"""Deletion keeps the specification (decorators, signature, docstring) and nothing else."""

from __future__ import annotations

import ast
import textwrap
from typing import Any

import pytest

from corrupt.corruptors.deletion import DeletionCorruptor, delete_function
from corrupt.corruptors.models import (
    CorruptionRequest,
    DeletionStyle,
    Rejection,
    RejectionKind,
    TargetSource,
)
from corrupt.source.edits import apply_edit_script, edit_script
from corrupt.source.functions import TargetNotFound

SOURCE = textwrap.dedent(
    '''\
    """Module doc."""
    import functools

    TOTAL = 3  # a comment outside


    @functools.lru_cache(maxsize=None)
    def total(
        items: list[int],
        *,
        scale: int = 2,
    ) -> int:
        """Sum of items.

        Scaled.
        """
        # explain the loop
        result = 0
        for item in items:
            result += item * scale
        return result


    class Basket:
        \'\'\'A basket.\'\'\'

        @property
        def size(self) -> int:
            return len(self.items)

        async def fetch(self, url):
            "Fetch it."
            return await self.client.get(url)

        def outer(self):
            def inner(x):
                return x + 1
            return inner

    def one_liner(): return 1
    def one_liner_doc(): "Doc."; return 2
    '''
)


def _def_line(name: str, source: str = SOURCE) -> int:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return node.lineno
    raise AssertionError(name)


def _function_source(source: str, name: str) -> str:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return ast.get_source_segment(source, node) or ""
    raise AssertionError(name)


def _check_only_body_changed(original: str, corrupted: str, name: str) -> None:
    old = next(n for n in ast.walk(ast.parse(original)) if getattr(n, "name", None) == name)
    new = next(n for n in ast.walk(ast.parse(corrupted)) if getattr(n, "name", None) == name)
    assert ast.dump(old.args) == ast.dump(new.args)
    assert [ast.dump(d) for d in old.decorator_list] == [ast.dump(d) for d in new.decorator_list]
    assert ast.get_docstring(old) == ast.get_docstring(new)
    assert type(old) is type(new)
    assert apply_edit_script(corrupted, edit_script(original, corrupted)) == original


def test_function_with_decorator_multiline_signature_and_docstring() -> None:
    mutant = delete_function(SOURCE, "pkg/mod.py", "pkg.mod.total", _def_line("total"))
    assert _function_source(mutant.corrupted, "total").endswith(
        '    Scaled.\n    """\n    raise NotImplementedError'
    )
    assert (
        "@functools.lru_cache(maxsize=None)\ndef total(\n    items: list[int]," in mutant.corrupted
    )
    assert "explain the loop" not in mutant.corrupted
    assert "TOTAL = 3  # a comment outside" in mutant.corrupted
    _check_only_body_changed(SOURCE, mutant.corrupted, "total")
    assert (mutant.operator, mutant.hef_category) == ("deletion", "missing logic")
    assert mutant.lines == [17]


@pytest.mark.parametrize(
    ("qualname", "name", "expected"),
    [
        ("m.Basket.size", "size", "def size(self) -> int:\n        raise NotImplementedError"),
        (
            "m.Basket.fetch",
            "fetch",
            'async def fetch(self, url):\n        "Fetch it."\n        raise',
        ),
        ("m.Basket.outer.inner", "inner", "def inner(x):\n            raise NotImplementedError"),
        ("m.Basket.outer", "outer", "def outer(self):\n        raise NotImplementedError\n"),
        ("m.one_liner", "one_liner", "def one_liner(): raise NotImplementedError\n"),
        (
            "m.one_liner_doc",
            "one_liner_doc",
            'def one_liner_doc(): "Doc."; raise NotImplementedError',
        ),
    ],
)
def test_methods_properties_async_nested_and_one_liners(
    qualname: str, name: str, expected: str
) -> None:
    mutant = delete_function(SOURCE, "m.py", qualname, _def_line(name))
    assert expected in mutant.corrupted
    assert "    @property\n" in mutant.corrupted
    _check_only_body_changed(SOURCE, mutant.corrupted, name)
    before, after = SOURCE.splitlines(), mutant.corrupted.splitlines()
    assert before[: _def_line(name) - 1] == after[: _def_line(name) - 1]


def test_pass_style_and_tabs_and_crlf() -> None:
    source = "class C:\r\n\tdef m(self):\r\n\t\tx = 1\r\n\t\treturn x\r\n\r\nY = 2"
    mutant = delete_function(source, "c.py", "c.C.m", 2, style="pass")
    assert mutant.corrupted == "class C:\r\n\tdef m(self):\r\n\t\tpass\r\n\r\nY = 2"


def test_unknown_target_and_bad_input_are_clear_errors() -> None:
    with pytest.raises(TargetNotFound, match="no function m.total with its def on line 3"):
        delete_function(SOURCE, "m.py", "m.total", 3)
    with pytest.raises(TargetNotFound, match="does not parse"):
        delete_function("def f(:\n", "m.py", "m.f", 1)
    with pytest.raises(TargetNotFound, match="style"):
        delete_function(SOURCE, "m.py", "m.total", _def_line("total"), style="drop")  # type: ignore[arg-type]
    already = "def f():\n    raise NotImplementedError\n"
    with pytest.raises(TargetNotFound, match="no body to delete"):
        delete_function(already, "m.py", "m.f", 1)


def test_the_deletion_corruptor_answers_with_a_corruption_or_a_rejection() -> None:
    source = "class C:\n    @property\n    def v(self):\n        return 1\n\n    @v.setter\n    def v(self, x):\n        self._v = x\n"

    def ask(qualname: str, line: int) -> Any:
        target = TargetSource("c.py", qualname, line, source)
        request = CorruptionRequest((target,), frozenset())
        return DeletionCorruptor(DeletionStyle.PASS).corrupt(request, screener=None)  # type: ignore[arg-type]

    setter = ask("c.C.v#2", 7)
    assert setter.rejection is None and setter.corruption is not None
    assert setter.corruption.kind == "deletion" and setter.corruption.corruptor == "deletion"
    corrupted = setter.corruption.files["c.py"].corrupted
    assert corrupted == source.replace("        self._v = x\n", "        pass\n")
    assert setter.corruption.bugs[0].lines == [8]
    stale = ask("c.C.v", 5)  # no def on that line: rejected as data, not raised
    assert stale.corruption is None
    assert stale.rejection == Rejection(
        RejectionKind.NOT_FOUND, "no function c.C.v with its def on line 5"
    )
