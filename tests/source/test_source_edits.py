"""Edit scripts and unified diffs must undo a corruption byte for byte."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corrupt.source.edits import (
    EditScriptError,
    apply_edit_script,
    apply_unified_diff,
    changed_lines,
    edit_script,
    unified_diff,
)

TEXTS = st.sampled_from(
    ["", "x = 1", "\treturn x", "    if a:", "pass", "y = 'é'", "  # c", "\x0c"]
)
TERMS = st.sampled_from(["\n", "\r\n"])
ALL_TERMS = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def files(draw: st.DrawFn, terms: st.SearchStrategy[str] = TERMS) -> str:
    lines = draw(st.lists(st.tuples(TEXTS, terms), max_size=12))
    tail = draw(st.sampled_from(["", "end", "\tlast"]))
    return "".join(text + term for text, term in lines) + tail


@st.composite
def edited(draw: st.DrawFn, base: str) -> str:
    """``base`` after a few random line insertions, deletions and replacements."""
    lines = base.splitlines(keepends=True)
    term = draw(TERMS)
    for _ in range(draw(st.integers(0, 4))):
        action = draw(st.sampled_from(["add", "delete", "modify"]))
        at = draw(st.integers(0, len(lines)))
        if action == "add":
            lines.insert(at, draw(TEXTS) + term)
        elif lines and at < len(lines):
            if action == "delete":
                del lines[at]
            else:
                ending = lines[at][len(lines[at].rstrip("\r\n")) :]
                lines[at] = draw(TEXTS) + ending
    if draw(st.booleans()):
        text = "".join(lines)
        return text.rstrip("\r\n") if draw(st.booleans()) else text + term
    return "".join(lines)


@st.composite
def pairs(draw: st.DrawFn) -> tuple[str, str]:
    original = draw(files())
    return original, draw(edited(original))


@settings(max_examples=300, deadline=None)
@given(pairs())
def test_edit_script_round_trips_random_edits(pair: tuple[str, str]) -> None:
    original, corrupted = pair
    assert apply_edit_script(corrupted, edit_script(original, corrupted)) == original


@settings(max_examples=200, deadline=None)
@given(files(ALL_TERMS), files(ALL_TERMS))
def test_edit_script_round_trips_unrelated_files(original: str, corrupted: str) -> None:
    """Mixed and lone-CR terminators too: the script spells out what defaults cannot give."""
    assert apply_edit_script(corrupted, edit_script(original, corrupted)) == original
    assert apply_unified_diff(corrupted, unified_diff("m.py", corrupted, original)) == original


@settings(max_examples=300, deadline=None)
@given(pairs())
def test_unified_diff_round_trips_both_ways(pair: tuple[str, str]) -> None:
    original, corrupted = pair
    fix = unified_diff("pkg/mod.py", corrupted, original)
    assert apply_unified_diff(corrupted, fix) == original
    breaking = unified_diff("pkg/mod.py", original, corrupted)
    assert apply_unified_diff(original, breaking) == corrupted


def test_modify_add_delete_in_pdb_format() -> None:
    original = "a\nb\nc\nd\n"
    corrupted = "a\nB\nd\nX\n"
    script = edit_script(original, corrupted)
    assert script == {
        "2": {"type": "Modify", "original": "B", "modified": "b"},
        "3": {"type": "Add", "original": "", "modified": "c"},
        "4": {"type": "Delete", "original": "X", "modified": ""},
    }
    assert apply_edit_script(corrupted, script) == original


def test_several_adds_at_one_line_are_keyed_with_spaces() -> None:
    script = edit_script("a\nx\ny\nz\nb\n", "a\nb\n")
    assert list(script) == ["2", "2 ", "2  "]
    assert [e["modified"] for e in script.values()] == ["x", "y", "z"]
    assert apply_edit_script("a\nb\n", script) == "a\nx\ny\nz\nb\n"


def test_crlf_is_kept_and_values_exclude_terminators() -> None:
    original = "def f():\r\n\treturn 1\r\n"
    corrupted = "def f():\r\n\treturn 2\r\n"
    script = edit_script(original, corrupted)
    assert script == {"2": {"type": "Modify", "original": "\treturn 2", "modified": "\treturn 1"}}
    assert apply_edit_script(corrupted, script) == original


def test_missing_final_newline_is_an_edit_of_the_last_piece() -> None:
    assert edit_script("a\nb", "a\nb\n") == {
        "3": {"type": "Delete", "original": "", "modified": ""}
    }
    assert edit_script("a\nb\n", "a\nb") == {"3": {"type": "Add", "original": "", "modified": ""}}
    assert apply_edit_script("a\nb\n", edit_script("a\nb", "a\nb\n")) == "a\nb"


def test_mixed_terminators_are_spelled_out_only_where_needed() -> None:
    original = "a\r\nb\nc\n"
    corrupted = "a\nb\nc\n"
    script = edit_script(original, corrupted)
    assert script == {"1": {"type": "Modify", "original": "a", "modified": "a\r\n"}}
    assert apply_edit_script(corrupted, script) == original


def test_identical_files_give_an_empty_script_and_diff() -> None:
    assert edit_script("x\n", "x\n") == {}
    assert unified_diff("m.py", "x\n", "x\n") == ""


def test_changed_lines_are_lines_of_the_corrupted_file() -> None:
    assert changed_lines("a\nb\nc\n", "a\nB\nc\n") == [2]
    assert changed_lines("a\nb\nc\n", "a\nc\n") == [2]


def test_mismatched_script_is_a_clear_error() -> None:
    with pytest.raises(EditScriptError, match="line 1 does not match"):
        apply_edit_script("z\n", {"1": {"type": "Modify", "original": "q", "modified": "a"}})
    with pytest.raises(EditScriptError, match="outside the file"):
        apply_edit_script("z\n", {"9": {"type": "Add", "original": "", "modified": "a"}})


def test_diff_that_does_not_fit_is_a_clear_error() -> None:
    diff = unified_diff("m.py", "a\nb\n", "a\nc\n")
    with pytest.raises(EditScriptError, match="does not match"):
        apply_unified_diff("q\nb\n", diff)
    with pytest.raises(EditScriptError, match="not a unified diff|expected a diff"):
        apply_unified_diff("a\n", "garbage\n")


def test_diff_marks_missing_final_newline_like_git() -> None:
    diff = unified_diff("m.py", "a\nb", "a\nc")
    assert diff.endswith("-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n")
    assert diff.startswith("diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n")


CASES = [
    ("def f(x):\n    return x + 1\n", "def f(x):\n    return x - 1\n"),
    ("a\r\nb\r\nc", "a\r\nB\r\nc\r\n"),
    ("\tx = 1\n" * 10 + "end", "\tx = 1\n" * 4 + "\tx = 2\n" + "\tx = 1\n" * 5),
    ("one\ntwo\n", "zero\none\ntwo\nthree"),
    ("keep\n", ""),
]


@pytest.mark.parametrize(("before", "after"), CASES)
def test_git_apply_accepts_the_diffs(tmp_path: Path, before: str, after: str) -> None:
    """``git apply`` is the consumer of fix/corruption patches, so it is the judge."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    target = tmp_path / "pkg" / "mod.py"
    target.parent.mkdir()
    target.write_bytes(before.encode())
    patch = tmp_path / "change.patch"
    patch.write_bytes(unified_diff("pkg/mod.py", before, after).encode())
    subprocess.run(["git", "apply", "--check", str(patch)], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", str(patch)], cwd=tmp_path, check=True)
    assert target.read_bytes() == after.encode()
    assert apply_unified_diff(before, unified_diff("pkg/mod.py", before, after)) == after
