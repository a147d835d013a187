"""Task ids name harness containers, log folders and git branches: only characters those allow."""

from __future__ import annotations

import re

from corrupt.tasks.assemble import task_id_for
from corrupt.tasks.verify import Repair

REPAIR = Repair("", "", {"a.py": {"1": {"type": "Modify", "original": "x", "modified": "y"}}})


def test_ids_keep_plain_names_and_fold_the_rest() -> None:
    assert task_id_for("acme/shop", "c0ffee", "remove", REPAIR).startswith("acme__shop.")
    assert task_id_for("minishop", "c0ffee", "remove", REPAIR).startswith("minishop.")
    odd = task_id_for("my shop \U0001f600+@", "c0ffee", "remove", REPAIR)
    assert re.fullmatch(r"[A-Za-z0-9._-]+", odd) and odd.startswith("my_shop____.")
    assert odd != task_id_for("my shop \U0001f600+@", "c0ffee", "discovery", REPAIR)


def test_a_multi_task_keeps_the_id_it_had_when_its_mode_said_discovery() -> None:
    from tasks_factory import MULTI, make_task

    from corrupt.tasks.modes import TaskMode

    task, _ = make_task(MULTI, kind="multi")
    assert task.mode == TaskMode.MULTI
    older = task.model_dump(mode="json") | {"mode": "discovery"}
    assert type(task).model_validate(older).mode == "multi"
    assert task_id_for("s", "c", TaskMode.MULTI.told, REPAIR) == task_id_for(
        "s", "c", "discovery", REPAIR
    )
    assert TaskMode.REMOVE.told == "remove"
