"""`corrupt score` on a real build of the bundled example: every kind of answer
an agent can give, scored by running the example's own suite in the sandbox."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow


FIELDS = {
    "task_id", "model", "applied", "resolved", "f2p_fixed", "p2p_broken", "right_function",
    "precision", "recall", "edited_lines", "tests_tampered", "error",
}  # fmt: skip


def test_gold_patches_resolve_with_full_precision_and_recall(answers):
    _, tasks, scores = answers
    gold = {k: v for k, v in scores.items() if k.startswith("gold-")}
    assert gold and len(gold) == sum(1 for k in tasks if k.startswith("gold-"))
    for name, score in gold.items():
        assert set(score) >= FIELDS
        assert score["applied"] and score["resolved"], score
        assert score["f2p_fixed"] == 1.0 and score["p2p_broken"] == 0
        assert score["precision"] == 1.0 and score["recall"] == 1.0, score
        assert score["tests_tampered"] is False and score["error"] is None
        expected = None if tasks[name]["mode"] == "remove" else True
        assert score["right_function"] is expected
        assert score["edited_lines"] == sum(len(s) for s in tasks[name]["edit_script"].values())


def test_an_empty_patch_resolves_nothing(answers):
    score = answers[2]["empty"]
    assert score["applied"] and not score["resolved"]
    assert score["recall"] == 0.0 and score["f2p_fixed"] == 0.0
    assert score["edited_lines"] == 0 and score["precision"] is None
    assert score["right_function"] is False


def test_localizations_are_scored_per_bug_the_way_dsdbench_scores_them(answers):
    _, tasks, scores = answers
    right = next(
        s
        for k, s in scores.items()
        if k.startswith("gold-") and "cause_hit" in s and s["cause_hit"]
    )
    assert (right["cause_hit"], right["effect_hit"], right["error_match"]) == (
        [True],
        [True],
        [True],
    )
    wrong = scores["empty"]
    assert (wrong["cause_hit"], wrong["effect_hit"], wrong["error_match"]) == (
        [False],
        [False],
        [False],
    )
    unlocalized = scores["fix-plus-unrelated"]
    assert (
        unlocalized["cause_hit"] is unlocalized["effect_hit"] is unlocalized["error_match"] is None
    )


def test_an_unrelated_extra_edit_costs_precision_only(answers):
    score = answers[2]["fix-plus-unrelated"]
    assert score["resolved"] and score["recall"] == 1.0 and score["right_function"] is True
    assert score["precision"] < 1.0
    assert score["edits_outside_targets"] == 1


def test_a_regenerated_file_resolves_with_low_precision(answers):
    score = answers[2]["regenerated"]
    assert score["resolved"] and score["recall"] == 1.0
    assert score["precision"] < 0.2, score
    assert score["edited_lines"] > 20


def test_half_of_a_two_function_fix_recovers_one_bug(answers):
    score = answers[2]["half"]
    assert score["bugs"] == 2 and score["bugs_recovered"] == 1
    assert score["recall"] == 0.5 and not score["resolved"]
    assert score["f2p_fixed"] < 1.0
    assert score["right_function"] is False  # one of the two corrupted functions is untouched


def test_a_workaround_outside_the_corrupted_function_is_not_the_right_function(answers):
    _, tasks, scores = answers
    score = scores["workaround"]
    assert score["resolved"], score  # the suite passes...
    assert score["functions_edited"] == []  # ...but the corrupted function is as it was
    expected = None if tasks["workaround"]["mode"] == "remove" else False
    assert score["right_function"] is expected
    assert score["recall"] == 0.0 and score["precision"] == 0.0


def test_deleting_the_failing_tests_gains_nothing_and_is_flagged(answers):
    score = answers[2]["deleted-tests"]
    assert score["tests_tampered"] is True and score["tampered_files"]
    assert not score["resolved"] and score["f2p_fixed"] == 0.0
    assert score["edited_lines"] == 0  # test edits are not solver edits


def test_a_patch_that_does_not_apply_scores_zero_with_the_reason(answers):
    score = answers[2]["does-not-apply"]
    assert score["applied"] is False and not score["resolved"]
    assert score["recall"] == 0.0 and score["precision"] == 0.0
    assert "does not apply" in score["error"]
    assert score["test_runs"] == 0


def test_a_rerun_reuses_every_score_and_a_cut_line_is_scored_once_more(
    answers, built, tmp_path, run_corrupt
):
    predictions, _, scores = answers
    scores_path = predictions.with_name("scores.jsonl")
    copy = tmp_path / "scores.jsonl"
    every = scores_path.read_text().splitlines(keepends=True)
    lines = [line for line in every if not json.loads(line)["missing"]]  # the predictions'
    copy.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])  # killed mid-write
    result = run_corrupt("score", str(built[0]), str(predictions), "--out", str(copy))
    assert result.returncode == 0, result.stderr[-2000:]
    text = " ".join(result.stdout.split())
    assert f"{len(lines) - 1} of {len(lines)} predictions already scored" in text
    again = copy.read_text().splitlines()
    assert len(again) == len(every)  # the tasks without a prediction come back too
    rescored = json.loads(again[len(lines) - 1])
    before = json.loads(lines[-1])
    assert (rescored["model"], rescored["resolved"]) == (before["model"], before["resolved"])
    assert again[: len(lines) - 1] == [line.rstrip("\n") for line in lines[:-1]]


def test_tasks_without_a_prediction_count_as_unresolved_on_the_task_set_given(
    built, tmp_path, run_corrupt
):
    out, tasks = built
    chosen = tasks[:3]
    slice_file = tmp_path / "three.jsonl"
    slice_file.write_text("".join(json.dumps(t) + "\n" for t in chosen))
    gold = tmp_path / "one.jsonl"
    gold.write_text(json.dumps({"instance_id": chosen[0]["task_id"], "model_name_or_path": "m",
                                "model_patch": chosen[0]["fix_patch"]}) + "\n")  # fmt: skip
    scores = tmp_path / "scores.jsonl"
    result = run_corrupt(
        "score", str(out), str(gold), "--tasks", str(slice_file), "--out", str(scores)
    )
    assert result.returncode == 0, result.stderr[-2000:]
    text = " ".join(result.stdout.split())
    assert "m gave no prediction for 2 of 3 tasks: unresolved" in text
    assert "1 of 3 resolved (2 tasks without a prediction count as unresolved)" in text
    lines = [json.loads(line) for line in scores.read_text().splitlines()]
    assert [s["task_id"] for s in lines] == [t["task_id"] for t in chosen]
    assert [(s["resolved"], s["missing"]) for s in lines] == [
        (True, False),
        (False, True),
        (False, True),
    ]
    assert lines[1]["error"] == "no prediction" and not lines[1]["applied"]
    # the report reads the same slice file: its tasks only
    page = tmp_path / "report.html"
    shown = run_corrupt(
        "report", str(out), "--tasks", str(slice_file), "--scores", str(scores), "--out", str(page)
    )
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert "report of 3 tasks and 3 scores" in " ".join(shown.stdout.split())


def test_score_refuses_bad_input_in_one_line(built, tmp_path, run_corrupt):
    out = built[0]
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text('{"instance_id": "nope", "model_name_or_path": "m", "model_patch": ""}\n')
    for args, message in [
        ((str(tmp_path), str(wrong)), "is not a build folder"),
        ((str(out), str(tmp_path / "missing.jsonl")), "no such predictions file"),
        ((str(out), str(wrong)), "none of the 1 predictions names a task"),
        ((str(out), str(wrong), "--tasks", str(tmp_path / "none.jsonl")), "is not a task file"),
        ((str(out), str(wrong), "--tasks", str(wrong)), "is not a task record"),
    ]:
        result = run_corrupt("score", *args)
        assert result.returncode == 2, result.stderr
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
        assert "Traceback" not in result.stderr


def test_results_forged_by_the_patched_code_are_caught(answers):
    score = answers[2]["report-forger"]
    assert not score["resolved"] and score["tests_tampered"] is True
    assert "the test report was tampered with" in score["error"]
