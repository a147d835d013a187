"""The whole-file tells: the quick comment check must agree with tokenizing both files."""

from __future__ import annotations

import pytest

from corrupt.corruptors.validate import comment_added, comments, tells

ORIGINAL = '''\
"""A module whose strings hold hashes # like this."""

LABEL = "total # of items"


def total(items):
    # sum the prices
    result = 0
    for item in items:
        result = result + item
    return result


def banner(name):
    text = """
    # not a comment, inside a string
    """
    return text + name
'''


def slow_comment_added(original: str, corrupted: str) -> bool:
    return bool(comments(corrupted) - comments(original))


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("result = result + item", "result = result - item"),  # no lexical character
        ("result = result + item", "result = result + item  # off by one?"),  # a new comment
        ('"total # of items"', '"total" # of items'),  # a string turned into a comment
        ("    # sum the prices\n", ""),  # a comment removed
        ("    return text + name", "    return name  # text"),  # added after a string
        ('    text = """', '    text = """\\'),  # a backslash joins the next line
        ("    return result\n", "    return result\n    # done\n"),  # a comment-only line
    ],
)
@pytest.mark.parametrize("where", [None, ("total", 6), ("banner", 14)])
def test_the_quick_comment_check_agrees_with_tokenizing(before, after, where):
    """Named or not, and whether the change lies in the named function or not."""
    assert before in ORIGINAL
    corrupted = ORIGINAL.replace(before, after, 1)
    expected = slow_comment_added(ORIGINAL, corrupted)
    assert comment_added(ORIGINAL, corrupted, where) == expected


def test_an_added_comment_is_a_tell_and_a_plain_edit_is_not():
    assert tells(ORIGINAL, ORIGINAL.replace("result + item", "result + item  # hmm")) == [
        "comment added"
    ]
    assert tells(ORIGINAL, ORIGINAL.replace("result + item", "result * item")) == []


def test_a_new_unused_variable_is_a_pyflakes_tell():
    corrupted = ORIGINAL.replace("    result = 0\n", "    result = 0\n    unused = 1\n")
    problems = tells(ORIGINAL, corrupted)
    assert len(problems) == 1 and "UnusedVariable" in problems[0] and "unused" in problems[0]
