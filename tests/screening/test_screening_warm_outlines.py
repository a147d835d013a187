"""The warm server compiles a changed function's outline, not its whole file: the same plan."""

from __future__ import annotations

import ast

import pytest

from corrupt.sandboxes.guest.warm_server import NotSwappable, changed_functions, outlines, same

SOURCE = '''"""A module whose functions depend on what the compiler knows of it."""
from __future__ import annotations

import collections
try:
    import json as codec
except ImportError:  # pragma: no cover
    import pickle as codec

LIMIT = 3


def tally(items) -> collections.Counter[str]:
    counts = collections.Counter(items)
    return codec.dumps(counts.most_common(LIMIT))


class Base:
    def describe(self):
        return "base"


class Shape(Base):
    """A shape."""

    sides = 4

    class Corner:
        def angle(self, turns=1):
            return 90 * turns

    def describe(self):
        return "shape:" + super().describe() + str(self.__private)

    @property
    def area(self):
        return self.sides * 2


if LIMIT:
    def guarded():
        return LIMIT + 1
'''


def _plan(original: str, corrupted: str) -> object:
    """What the server compares: changed functions' code (shape, lines, qualified
    names, nested code) and which changed beyond their lines; or why it declines."""
    try:
        changes, altered = changed_functions(
            compile(original, "m.py", "exec", dont_inherit=True),
            compile(corrupted, "m.py", "exec", dont_inherit=True),
            "m.py",
        )
    except NotSwappable as exc:
        return exc.why
    return {key: (code, code and code.co_qualname) for key, code in changes.items()}, altered


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("most_common(LIMIT)", "most_common(LIMIT + 1)"),  # module.attr() with imports in try
        ("return 90 * turns", "return 90 + turns"),  # a method of a nested class
        ('"shape:" + super()', '"round:" + super()'),  # super() needs the class cell
        ("str(self.__private)", "str(self.__other)"),  # names mangled by the class
        ("return self.sides * 2", "return self.sides * 3"),  # under a decorator
        ("turns=1", "turns=2"),  # a default: evaluated when the class is made
    ],
)
def test_an_outline_gives_the_plan_of_the_whole_file(old: str, new: str) -> None:
    corrupted = SOURCE.replace(old, new, 1)
    cut = outlines(SOURCE, corrupted, ast.parse(SOURCE))
    assert cut is not None
    assert len(cut[0]) < len(SOURCE) / 2  # most of the file is left out
    whole, outlined = _plan(SOURCE, corrupted), _plan(*cut)
    if isinstance(whole, str):
        assert outlined == whole
        return
    assert isinstance(outlined, tuple) and outlined[1] == whole[1]  # type: ignore[index]
    ours, theirs = outlined[0], whole[0]  # type: ignore[index]
    assert ours.keys() == theirs.keys() and ours
    for key, (code, qualname) in theirs.items():
        assert same(code, ours[key][0]) and ours[key][1] == qualname


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("return LIMIT + 1", "return LIMIT + 2"),  # a function inside a module-level `if`
        ("LIMIT = 3", "LIMIT = 4"),  # not in a function at all
        ("sides = 4", "sides = 5"),  # a class body
        ("        return 90 * turns\n", "        turns += 1\n        return 90 * turns\n"),
        ("return codec.dumps", "return codec.loads"),  # fine alone...
    ],
)
def test_no_outline_where_the_change_leaves_one_function_or_moves_lines(old: str, new: str) -> None:
    corrupted = SOURCE.replace(old, new, 1)
    if "loads" in new:  # ...but not together with a change elsewhere
        corrupted = corrupted.replace("sides = 4", "sides = 5")
    assert outlines(SOURCE, corrupted, ast.parse(SOURCE)) is None


def test_a_set_of_constants_compares_equal_in_any_order() -> None:
    """Two compiles of one module can order a ``frozenset`` constant apart: not a change."""
    sets = [", ".join(repr(str(n)) for n in range(100, 100 + size)) for size in range(4, 64)]
    source = "".join(f"S{n} = frozenset({{{codes}}})\n" for n, codes in enumerate(sets))
    source += (
        f"PAIR = (1, frozenset({{{sets[-1]}}}))\n\ndef f(x):\n    return x in {{{sets[-1]}}}\n"
    )
    for _ in range(3):
        old = compile(source, "m.py", "exec", dont_inherit=True)
        new = compile(source.replace("return x", "return  x"), "m.py", "exec", dont_inherit=True)
        assert changed_functions(old, new, "m.py") == ({}, set())
