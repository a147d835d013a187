"""Operators on real code: every mutant of every bundled-example function is a fair single edit."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from corrupt.corruptors.operators import generate_mutants
from corrupt.source.edits import apply_edit_script, edit_script, split_lines
from corrupt.source.functions import function_at

MINISHOP = Path(__file__).resolve().parents[2] / "examples" / "minishop" / "src"
MODULES = [p for p in sorted(MINISHOP.rglob("*.py")) if "def " in p.read_text(encoding="utf-8")]

REALISTIC = '''\
import math


class Ledger:
    def __init__(self, entries=None):
        self.entries = entries or []

    def balance(self, *, since: int = 0, limit: int = 100, strict: bool = False) -> float:
        """Sum of entries after ``since`` (at most ``limit`` of them)."""
        total = 0.0
        seen = 0
        for index in range(since, len(self.entries)):
            amount = self.entries[index]
            if amount is None or amount < 0 and strict:
                continue
            if seen >= limit:
                break
            total += amount * 1.5 - 2
            seen += 1
        names = sorted(str(e).strip() for e in self.entries if e)
        if names and not any(n.startswith("x") for n in names):
            self.entries.append(max(total, 0))
        else:
            total = math.floor(total) // 2
        return round(total, 2)

    def lookup(self, keys, default=None, callbacks=None):
        if callbacks is None:
            callbacks = []
        found = False
        result = default
        for key in keys:
            try:
                value = self.index[key]
            except KeyError:
                continue
            if value in self.hidden or value is self.marker:
                found = True
                result = value
                callbacks.append(lambda value=value: value)
                break
        ordered = sorted(keys, key=len, reverse=True)
        return found, result, ordered

    def names(self, prefix):
        out = []
        for entry in self.entries:
            out.append(str(entry))
        return {prefix: out}
'''


def _functions(source: str) -> list[tuple[str, int]]:
    found: list[tuple[str, int]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                path = f"{prefix}.{child.name}"
                if not isinstance(child, ast.ClassDef):
                    found.append((path, child.lineno))
                walk(child, path)
            else:
                walk(child, prefix)

    walk(ast.parse(source), "pkg.mod")
    return found


def _span(source: str, qualname: str, def_line: int) -> tuple[int, int, ast.AST]:
    """The function's lines, found in a whole-file parse (generation parses only the function)."""
    node = function_at(ast.parse(source), def_line, qualname)
    assert node is not None, f"{qualname} lost its def line"
    start = min([d.lineno for d in node.decorator_list] + [node.lineno])
    return start, node.end_lineno or node.lineno, node


def _check_all_mutants(source: str, *, round_trip: bool = True) -> int:
    """Independent re-check with stdlib ``ast``; returns how many mutants were checked."""
    checked = 0
    lines = split_lines(source)
    for qualname, def_line in _functions(source):
        start, end, before = _span(source, qualname, def_line)
        for mutant in generate_mutants(source, "pkg/mod.py", qualname, def_line):
            corrupted = mutant.corrupted
            new_start, new_end, after = _span(corrupted, qualname, def_line)
            new_lines = split_lines(corrupted)
            assert new_start == start
            assert new_lines[: start - 1] == lines[: start - 1], mutant.operator
            assert new_lines[new_end:] == lines[end:], mutant.operator
            assert all(start <= line <= max(new_end, start) + 1 for line in mutant.lines)
            assert ast.dump(before) != ast.dump(after)
            assert before.name == after.name  # type: ignore[attr-defined]
            if mutant.operator not in ("change_default", "mutable_default"):
                assert ast.dump(before.args) == ast.dump(after.args)  # type: ignore[attr-defined]
            if round_trip:
                assert apply_edit_script(corrupted, edit_script(source, corrupted)) == source
            checked += 1
    return checked


def test_all_mutants_of_a_realistic_function_are_fair() -> None:
    checked = _check_all_mutants(REALISTIC)
    assert checked > 80
    operators = {m.operator for q, line in _functions(REALISTIC) for m in _all(q, line)}
    assert len(operators) >= 25


def _all(qualname: str, def_line: int) -> list:
    return generate_mutants(REALISTIC, "l.py", qualname, def_line)


def test_generation_is_deterministic_for_a_seed() -> None:
    def run(seed: int) -> list[tuple[str, str]]:
        mutants = generate_mutants(REALISTIC, "l.py", "l.Ledger.balance", 8, seed=seed)
        return [(m.operator, m.corrupted) for m in mutants]

    first, again, other = run(7), run(7), run(8)
    assert first == again
    assert first != other and sorted(first) == sorted(other)
    assert len(set(first)) == len(first), "no duplicate candidates"


@pytest.mark.skipif(not MODULES, reason="examples/minishop/src is not present")
@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.name)
def test_every_minishop_function_yields_only_fair_mutants(module: Path) -> None:
    source = module.read_text(encoding="utf-8")
    assert _check_all_mutants(source, round_trip=False) > 0
