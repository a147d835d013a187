"""DSDBench-style localization scored per bug, on a two-bug task record (tests/tasks_factory.py)."""

from __future__ import annotations

from tasks_factory import MULTI, make_task

from corrupt.scoring.localization import Localization, localization_hits
from corrupt.scoring.models import Prediction
from corrupt.tasks.models import EffectRecord


def two_bugs():
    task, _ = make_task(MULTI, kind="multi")
    pricing, tax = task.bugs
    pricing.effect = EffectRecord(exception="AssertionError", file="tests/test_shop.py", line=6)
    tax.effect = EffectRecord(exception="builtins.ValueError", file="src/shop/tax.py", line=2)
    return task, pricing, tax


def test_each_bug_is_hit_by_any_entry_naming_it_and_missed_otherwise():
    task, pricing, tax = two_bugs()
    given = [
        Localization(cause=[f"{pricing.file}:{pricing.lines[0]}"], effect="./tests/test_shop.py:6",
                     error="AssertionError: assert 13 == 26"),
        Localization(cause=[f"{tax.file}:{tax.lines[0] + 1}"], effect="src/shop/tax.py:3", error="ValueError"),
    ]  # fmt: skip
    hits = localization_hits(task, given)
    assert hits.cause_hit == [True, False]  # one line off is a miss
    assert hits.effect_hit == [True, False]
    assert hits.error_match == [
        True,
        True,
    ]  # the type, not the message; dotted names compared by their last part


def test_what_the_task_does_not_know_is_not_judged():
    task, pricing, tax = two_bugs()
    tax.effect = EffectRecord()
    hits = localization_hits(task, [Localization(effect="nonsense", error="")])
    assert hits.cause_hit == [False, False]
    assert hits.effect_hit == [False, None] and hits.error_match == [False, None]


def test_a_prediction_takes_one_localization_or_a_list():
    one = Prediction.model_validate(
        {"instance_id": "t", "model_name_or_path": "m", "localization": {"cause": ["a.py:3"]}}
    )
    assert one.localizations == [Localization(cause=["a.py:3"])]
    none = Prediction.model_validate({"instance_id": "t", "model_name_or_path": "m"})
    assert none.localizations is None
