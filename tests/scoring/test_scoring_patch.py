"""Reading a solver's patch (edits as written, located in the corrupted text),
PDB alignment and precision, test-support detection and the predictions format."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from corrupt.errors import InputError
from corrupt.repos.testsupport import is_test_support
from corrupt.scoring.models import load_predictions
from corrupt.scoring.patch import (
    Edit,
    PatchError,
    apply_patch,
    check_patch,
    edit_script_of,
    modules_of_tests,
    normalized,
    read_patch,
)
from corrupt.scoring.pdb import align
from corrupt.source.edits import apply_edit_script, edit_script

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from solver_patches import diff, rewritten  # noqa: E402

CORRUPTED = "".join(f"line {n}\n" for n in range(1, 21)).replace("line 10\n", "line ten\n")
ORIGINAL = CORRUPTED.replace("line ten\n", "line 10\n")


def edits_of(patch: str, text: str = CORRUPTED) -> list[Edit]:
    tree = Path(tempfile.mkdtemp())
    (tree / "m.py").write_text(text)
    return read_patch(patch, lambda path: text if path == "m.py" else "", tree).edits


def test_a_one_line_fix_is_one_modify_on_the_corrupted_line():
    (edit,) = edits_of(diff("m.py", CORRUPTED, ORIGINAL))
    assert (edit.file, edit.line, edit.kind, edit.original, edit.modified) == (
        "m.py",
        10,
        "Modify",
        "line ten",
        "line 10",
    )


def test_edits_as_written_rebuild_the_patched_text():
    after = CORRUPTED.replace("line 3\n", "").replace("line 15\n", "line 15\nnew a\nnew b\n")
    after = after.replace("line ten\n", "line 10\n")
    edits = edits_of(diff("m.py", CORRUPTED, after))
    assert sorted((e.kind, e.line) for e in edits) == [
        ("Add", 16),
        ("Add", 16),
        ("Delete", 3),
        ("Modify", 10),
    ]
    assert apply_edit_script(CORRUPTED, edit_script_of(edits)) == after
    # the same keys as the ground truth's own edit script
    assert set(edit_script_of(edits)) == set(edit_script(after, CORRUPTED))


def test_a_rewritten_file_counts_every_line_it_rewrites():
    edits = edits_of(rewritten("m.py", CORRUPTED, ORIGINAL))
    assert len(edits) == 20 and {e.kind for e in edits} == {"Modify"}
    assert len({e.block for e in edits}) == 1


def test_hunks_with_wrong_line_numbers_are_located_by_their_text():
    patch = diff("m.py", CORRUPTED, ORIGINAL).replace("@@ -7,7 +7,7 @@", "@@ -2,7 +2,7 @@")
    assert "@@ -2,7" in patch
    (edit,) = edits_of(patch)
    assert edit.line == 10


def test_precision_counts_unaligned_and_excess_edits():
    truth = [[Edit("m.py", 10, "Modify", "line ten", "line 10")]]
    gold = [Edit("m.py", 10, "Modify", "line ten", "line 10", block=1)]
    far = Edit("m.py", 19, "Modify", "line 19", "line nineteen", block=2)
    nearby_same = [Edit("m.py", 11, "Modify", "line 11", "line 10", block=3)]
    assert align(gold, truth, 2).precision == 1.0
    assert align(gold + [far], truth, 2).precision == 0.5
    assert align([], truth, 2).precision is None
    assert align(nearby_same, truth, 2).aligned == [nearby_same]  # one line off, same content
    assert align(nearby_same, truth, 0).aligned == [[]]
    indented = [Edit("m.py", 12, "Modify", "line 12", "    line  10\t", block=5)]
    assert align(indented, truth, 2).aligned == [indented]  # whitespace aside, the same fix
    partial = [Edit("m.py", 11, "Modify", "line 11", "line 1", block=6)]
    assert align(partial, truth, 2).aligned == [[]]  # other content off the bug's lines
    block = [Edit("m.py", n, "Modify", f"line {n}", f"line {n}", block=4) for n in range(5, 16)]
    result = align(block, truth, 2)
    assert len(result.aligned[0]) == 11 and result.precision == round(3 / 11, 4)


def test_each_edit_goes_to_the_nearest_bug():
    truth = [
        [Edit("m.py", 3, "Modify", "a", "b")],
        [Edit("m.py", 12, "Modify", "c", "d")],
    ]
    made = [
        Edit("m.py", 3, "Modify", "a", "b", block=1),
        Edit("m.py", 12, "Modify", "c", "d", block=2),
    ]
    result = align(made, truth, 2)
    assert result.aligned == [[made[0]], [made[1]]]
    assert result.precision == 1.0


@pytest.mark.parametrize(
    "path, expected",
    [
        ("tests/test_cart.py", True),
        ("src/pkg/tests/helpers.py", True),
        ("conftest.py", True),
        ("src/pkg/test_util.py", True),
        ("pyproject.toml", True),
        ("tox.ini", True),
        ("pytest.toml", True),
        ("src/sitecustomize.py", True),
        ("src/evil.pth", True),
        ("tests", True),
        ("src/pkg/cart.py", False),
        ("src/pkg/contest.py", False),
    ],
)
def test_test_support_paths(path, expected):
    assert is_test_support(path, set()) is expected


def test_a_test_module_named_by_the_task_is_test_support():
    assert is_test_support("checks/cart_checks.py", {"checks/cart_checks.py"})


def test_a_product_module_whose_doctests_the_task_names_is_not_put_back():
    """Found by the APR bench on ftfy: every gold patch to ftfy/__init__.py was undone as
    tampering, because its doctests are among the task's tests."""
    ids = [
        "ftfy/__init__.py::ftfy.fix_text",
        "src/pkg/cart.py::pkg.cart.Cart.total",
        "src/pkg/cart.py::pkg.cart",
        "checks/cart_checks.py::test_total",
        "tests/test_cart.py::test_cart[a.b]",
        "tests/test_cart.py::test_cart",
    ]
    assert modules_of_tests(ids) == {"checks/cart_checks.py", "tests/test_cart.py"}


def test_git_apply_exactly_then_fuzzily_and_never_outside_the_tree(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "m.py").write_text(CORRUPTED)
    drifted = diff("m.py", CORRUPTED, ORIGINAL).replace(" line 7\n", " line 7 \n", 1)
    assert check_patch(tree, diff("m.py", CORRUPTED, ORIGINAL)) == "exact"
    assert check_patch(tree, drifted) == "fuzzy"
    apply_patch(tree, drifted, "fuzzy")
    assert (tree / "m.py").read_text() == ORIGINAL
    outside = diff("../evil.py", "", "x = 1\n").replace("a/../evil.py", "/dev/null")
    with pytest.raises(PatchError, match="does not apply"):
        check_patch(tree, outside)
    assert not (tmp_path / "evil.py").exists()


def test_git_apply_ignores_a_repository_around_the_tree(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "m.py").write_text(CORRUPTED)
    apply_patch(tree, diff("m.py", CORRUPTED, ORIGINAL), "exact")
    assert (tree / "m.py").read_text() == ORIGINAL


def test_a_header_git_cannot_read_is_a_patch_error(tmp_path):
    patch = "diff --git a/m.py b/m.py\n--- a/x.py\n+++ b/y.py\n@@ -1 +1 @@\n-a\n+b\n"
    with pytest.raises(PatchError, match="the patch is not a"):
        read_patch(patch, lambda p: "", tmp_path)


def test_predictions_in_every_swe_bench_shape(tmp_path):
    records = [
        {"instance_id": "t1", "model_name_or_path": "m", "model_patch": "diff"},
        {"instance_id": "t2", "model_name_or_path": "m", "model_patch": None},
    ]
    jsonl = tmp_path / "p.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in records))
    as_list = tmp_path / "p.json"
    as_list.write_text(json.dumps(records))
    as_dict = tmp_path / "d.json"
    as_dict.write_text(json.dumps({r["instance_id"]: r for r in records}))
    for path in (jsonl, as_list, as_dict):
        loaded = load_predictions(path)
        assert [(p.instance_id, p.model_patch) for p in loaded] == [("t1", "diff"), ("t2", "")]


@pytest.mark.parametrize(
    "text, message",
    [
        (
            '{"instance_id": "t1", "model_patch": ""}\n',
            "line 1: model_name_or_path: field required",
        ),
        ('{"instance_id": "t1"\n', "line 1 is not JSON"),
        ("", "holds no predictions"),
        (
            '{"instance_id": "t", "model_name_or_path": "m"}\n'
            '{"instance_id": "t", "model_name_or_path": "m"}\n',
            "a second prediction for t by m",
        ),
    ],
)
def test_bad_predictions_are_one_line_errors(tmp_path, text, message):
    path = tmp_path / "p.jsonl"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        load_predictions(path)


def paths_git_sees(tmp_path: Path, patch: str) -> list[str]:
    tree = Path(tempfile.mkdtemp(dir=tmp_path)) / "tree"
    (tree / "tests").mkdir(parents=True)
    (tree / "m.py").write_text(CORRUPTED)
    (tree / "tests" / "test_m.py").write_text(CORRUPTED)
    return read_patch(patch, lambda p: CORRUPTED, tree).files


def test_a_rename_header_names_the_file_git_really_changes(tmp_path):
    hunks = diff("tests/test_m.py", CORRUPTED, ORIGINAL).split("\n", 2)[2]
    patch = (
        "diff --git a/m.py b/m.py\nsimilarity index 90%\n"
        "rename from tests/test_m.py\nrename to tests/test_m.py\n" + hunks
    )
    assert "tests/test_m.py" in paths_git_sees(tmp_path, patch)


def test_a_copy_header_and_an_escaped_name_are_seen(tmp_path):
    hunks = diff("m.py", CORRUPTED, ORIGINAL).split("\n", 2)[2]
    copy = "diff --git a/m.py b/x.py\nsimilarity index 90%\ncopy from m.py\ncopy to conftest.py\n"
    copy += hunks
    assert "conftest.py" in paths_git_sees(tmp_path, copy)
    escaped = (
        diff("tests/test_m.py", CORRUPTED, ORIGINAL)
        .replace("a/tests/test_m.py", '"a/t\\145sts/test_m.py"')
        .replace("b/tests/test_m.py", '"b/t\\145sts/test_m.py"')
    )
    assert "tests/test_m.py" in paths_git_sees(tmp_path, escaped)


def test_model_patches_are_normalised_before_reading(tmp_path):
    patch = diff("m.py", CORRUPTED, ORIGINAL)
    understated = patch.replace("@@ -7,7 +7,7 @@", "@@ -7 +7 @@").rstrip("\n")
    assert understated != patch
    assert normalized(understated) == patch
    blank_context = patch.replace("\n line 8\n", "\n\n")
    assert "\n line 8\n" not in blank_context
    assert len(edits_of(normalized(blank_context))) == 1


def test_text_that_is_no_diff_is_refused(tmp_path):
    with pytest.raises(PatchError, match="names no file"):
        read_patch("I fixed it, trust me.\n", lambda p: "", tmp_path)
    with pytest.raises(PatchError, match="NUL"):
        read_patch("--- a/m\0.py\n+++ b/m.py\n", lambda p: "", tmp_path)
