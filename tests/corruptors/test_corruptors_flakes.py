"""The scoped pyflakes check: it skips other bodies, yet finds what the whole-file check finds."""

from __future__ import annotations

import ast

import pytest

from corrupt.corruptors.flakes import _parsed_original, _spliced, findings, unseen_by_pyflakes
from corrupt.corruptors.validate import new_pyflakes_findings

ORIGINAL = """\
import os
import sys


def shared():
    return os.sep


def target(path):
    name = os.path.basename(path)
    return sys.intern(name)


def other():
    import sys

    return sys.platform


class Box:
    def method(self, items):
        total = 0

        def add(item):
            return total + item

        return [add(i) for i in items]
"""

TARGET = ("target", 9)
METHOD = ("Box.method", 21)


def test_the_scoped_check_skips_the_other_bodies():
    source = ORIGINAL + "\n\ndef broken():\n    return undefined_name\n"
    source += "\n\nclass Broken:\n    size = other_undefined\n"
    whole, scoped = findings(source), findings(source, TARGET)
    assert scoped is not None
    for name in ("undefined_name", "other_undefined"):
        assert whole[f"UndefinedName('{name}',)"] == 1 and f"UndefinedName('{name}',)" not in scoped
    # the body of the class holding the target is checked
    holding = source.replace("class Box:\n", "class Box:\n    limit = missing\n")
    held = findings(holding, ("Box.method", METHOD[1] + 1))
    assert held is not None and held["UndefinedName('missing',)"] == 1


@pytest.mark.parametrize(
    ("where", "before", "after", "expected"),
    [
        # the target stops using an import another body still uses: nothing new
        (TARGET, "os.path.basename(path)", "path", []),
        # it stops using sys, which a skipped body imports again
        (
            TARGET,
            "sys.intern(name)",
            "name",
            ["RedefinedWhileUnused('sys', 2)", "UnusedImport('sys',)"],
        ),
        (
            TARGET,
            "return sys.intern(name)",
            "return sys.intern(nmae)",
            ["UndefinedName('nmae',)", "UnusedVariable('name',)"],
        ),
        (TARGET, "name = os", "unused = path\n    name = os", ["UnusedVariable('unused',)"]),
        # a nested function's use of its enclosing function's local
        (METHOD, "return total + item", "return item", ["UnusedVariable('total',)"]),
        (METHOD, "return total + item", "return total - item", []),
    ],
)
def test_scoped_and_whole_file_checks_find_the_same_new_findings(where, before, after, expected):
    corrupted = ORIGINAL.replace(before, after, 1)
    assert findings(corrupted, where) is not None  # where names the changed function
    whole = new_pyflakes_findings(ORIGINAL, corrupted)
    assert whole == expected
    assert new_pyflakes_findings(ORIGINAL, corrupted, where) == whole


def test_a_skipped_body_that_reimports_a_name_is_judged_on_the_whole_file():
    """``other`` imports sys again: once ``target`` stops using it, the whole file calls
    the module's import a redefinition, which the scoped check cannot see."""
    corrupted = ORIGINAL.replace("sys.intern(name)", "name", 1)
    assert findings(corrupted, TARGET) == {"UnusedImport('sys',)": 1}
    whole = new_pyflakes_findings(ORIGINAL, corrupted)
    assert "RedefinedWhileUnused('sys', 2)" in whole
    assert new_pyflakes_findings(ORIGINAL, corrupted, TARGET) == whole


def test_a_file_that_declares_globals_is_not_checked_scoped():
    source = ORIGINAL + "\n\ndef reset():\n    global CACHE\n    CACHE = None\n"
    assert findings(source, TARGET) is None
    assert findings(source, ("missing", 3)) is None
    assert findings(source) is not None


@pytest.mark.parametrize(
    ("where", "before", "after"),
    [
        (TARGET, "sys.intern(name)", "sys.intern(path)"),
        (METHOD, "return total + item", "return total - item"),  # indented, nested
    ],
)
def test_a_spliced_parse_is_the_whole_files_parse(where, before, after):
    corrupted = ORIGINAL.replace(before, after, 1)
    spliced = _spliced(ORIGINAL, corrupted, *where)
    assert spliced is not None
    tree, target = spliced
    whole = ast.parse(corrupted)
    assert ast.dump(tree, include_attributes=True) == ast.dump(whole, include_attributes=True)
    assert target in ast.walk(tree) and target.lineno == where[1]
    assert ast.dump(_parsed_original(ORIGINAL)) == ast.dump(ast.parse(ORIGINAL))  # untouched


def test_no_splice_when_lines_move_or_the_change_leaves_the_function():
    added = ORIGINAL.replace("name = os", "unused = path\n    name = os", 1)
    outside = ORIGINAL.replace("return os.sep", "return os.linesep", 1)
    assert _spliced(ORIGINAL, added, *TARGET) is None
    assert _spliced(ORIGINAL, outside, *TARGET) is None


SEEN = """\
def target(x, items):
    table = {1: x, 2: x + 1}
    if x == 3 and items:
        return table, x + 2, -x, "%s" % x
    return x is 4, x >> 1
"""


@pytest.mark.parametrize(
    ("before", "after", "unseen"),
    [
        ("x == 3", "x < 3", True),  # a comparison pyflakes does not read
        ("x == 3", "x == 30", True),  # a number of the same type
        ("and items", "or items", True),
        ("-x", "~x", True),
        ("x + 2", "x - 2", True),
        ("x + 2", "x % 2", False),  # `%` is read (percent formats)
        ("x == 3", "x is 3", False),  # so is `is` (comparison with a literal)
        ("x is 4", "x is 5", True),
        ("x == 3", "x == 3.0", False),  # a number of another type
        ("x >> 1", "x << 1", False),  # `>>` is read (`print >> f`)
        ("{1: x, 2: x + 1}", "{1: x, 1: x + 1}", False),  # dict keys are compared
        ("{1: x, 2: x + 1}", "{1: x, 2: x - 1}", True),
        ('"%s" % x', '"%d" % x', False),  # strings are read
        ("return table", "return items", False),  # names are read
    ],
)
def test_changes_pyflakes_does_not_look_at_need_no_check(before, after, unseen):
    where = ("target", 1)
    corrupted = SEEN.replace(before, after, 1)
    assert corrupted != SEEN
    assert unseen_by_pyflakes(SEEN, corrupted, *where) is unseen
    if unseen:  # pyflakes itself agrees, on the whole file
        assert findings(corrupted) == findings(SEEN)


def test_duplicate_dict_keys_made_by_a_number_are_found():
    corrupted = SEEN.replace("{1: x, 2: x + 1}", "{1: x, 1: x + 1}", 1)
    found = new_pyflakes_findings(SEEN, corrupted, ("target", 1))
    assert found == ["MultiValueRepeatedKeyLiteral(1,)", "MultiValueRepeatedKeyLiteral(1,)"]
