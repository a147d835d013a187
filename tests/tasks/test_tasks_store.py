"""The SQLite store: binding to one repo, atomic candidate+task writes, lookups."""

from __future__ import annotations

import json
import sqlite3

import pytest

from corrupt.corruptors.models import Rejection, RejectionKind
from corrupt.errors import StoreError, TaskNotFound
from corrupt.tasks.models import Difficulty, RepoRef, Task, TestsRecord
from corrupt.tasks.store import CandidateRow, CandidateStatus, Store


def make_task(task_id: str, mode: str = "remove") -> Task:
    return Task(
        task_id=task_id,
        repo=RepoRef(name="o/r", url="file:///r", commit="c" * 40),
        mode=mode,
        kind="deletion",
        corruptor="deletion",
        targets=[],
        difficulty=Difficulty(centrality_pct=50, complexity_pct=50, n_functions=1),
        corruption_patch="",
        fix_patch="",
        edit_script={},
        bugs=[],
        tests=TestsRecord(
            command="pytest", fail_to_pass=["t::a"], pass_to_pass=["t::b"], baseline_seconds=1.0
        ),
        problem_statement="p",
        seed=0,
        engine_version="0",
        created_at="2026-01-01T00:00:00+00:00",
    )


def row(key: str, status: str = "verified", task: Task | None = None) -> CandidateRow:
    return CandidateRow(
        key=key,
        mode="remove",
        targets=["m.f"],
        status=CandidateStatus(status),
        corruptor="deletion",
        screened=2,
        seconds=0.5,
        task_id=task.task_id if task else None,
        payload={"task": task.model_dump(mode="json"), "files": {"m.py": ["a\n", "b\n"]}}
        if task
        else None,
        rejection=None if task else Rejection(RejectionKind.NOT_VERIFIED, "nope"),
    )


def test_store_refuses_another_repo(tmp_path):
    store = Store.open(tmp_path, create=True)
    store.bind_repo({"name": "o/r", "commit": "a" * 40})
    store.bind_repo({"name": "o/r", "commit": "a" * 40})  # same repo: fine
    with pytest.raises(StoreError, match="choose another --out"):
        store.bind_repo({"name": "o/r", "commit": "b" * 40})


def test_open_without_create_needs_a_store(tmp_path):
    with pytest.raises(StoreError, match="no task store"):
        Store.open(tmp_path / "missing")


def test_candidate_and_task_are_written_together(tmp_path):
    store = Store.open(tmp_path, create=True)
    task = make_task("o__r.abc123")
    store.record_candidate(row("remove:m.f", task=task), task, {"m.py": ["a\n", "b\n"]})
    store.record_candidate(row("remove:m.g", status="rejected"))
    assert [t.task_id for t in store.list_tasks()] == ["o__r.abc123"]
    assert store.candidate("remove:m.g").rejection == Rejection(RejectionKind.NOT_VERIFIED, "nope")
    assert store.task_files("o__r.abc") == {"m.py": ("a\n", "b\n")}
    # writing the same candidate again replaces it: nothing is duplicated
    store.record_candidate(row("remove:m.f", task=task), task, {"m.py": ["a\n", "b\n"]})
    assert len(store.list_tasks()) == 1 and len(store.candidates()) == 2


def test_verified_candidate_can_be_accepted_later(tmp_path):
    store = Store.open(tmp_path, create=True)
    task = make_task("o__r.def456")
    store.record_candidate(row("remove:m.f", task=task))  # verified, not accepted
    assert store.list_tasks() == []
    assert store.accept("remove:m.f").task_id == task.task_id
    assert store.accept("remove:m.f").task_id == task.task_id  # idempotent
    assert len(store.list_tasks()) == 1


def test_get_task_by_prefix_and_errors(tmp_path):
    store = Store.open(tmp_path, create=True)
    for tid in ("o__r.aaa111", "o__r.aaa222"):
        store.record_candidate(row(f"k:{tid}", task=make_task(tid)), make_task(tid), {})
    assert store.get_task("o__r.aaa1").task_id == "o__r.aaa111"
    with pytest.raises(TaskNotFound, match="ambiguous"):
        store.get_task("o__r.aaa")
    with pytest.raises(TaskNotFound, match="no task"):
        store.get_task("zzz")


def test_jsonl_is_rewritten_whole(tmp_path):
    store = Store.open(tmp_path, create=True)
    for tid in ("o__r.1", "o__r.2"):
        store.record_candidate(row(f"k:{tid}", task=make_task(tid)), make_task(tid), {})
    path = store.write_jsonl()
    lines = path.read_text().splitlines()
    assert [json.loads(line)["task_id"] for line in lines] == ["o__r.1", "o__r.2"]
    assert not list(tmp_path.glob("*.tmp"))


def test_store_uses_wal_and_survives_reopen(tmp_path):
    store = Store.open(tmp_path, create=True)
    store.set_meta("k", {"v": 1})
    store.close()
    with sqlite3.connect(tmp_path / "store.sqlite") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert Store.open(tmp_path).get_meta("k") == {"v": 1}


def test_garbage_store_is_a_clear_error(tmp_path):
    (tmp_path / "store.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="not a usable task store"):
        Store.open(tmp_path)


def test_the_store_says_when_another_engine_built_into_it(tmp_path):
    store = Store.open(tmp_path, create=True)
    first, second = {"version": "0.1.0", "code": "aaa"}, {"version": "0.1.0", "code": "bbb"}
    assert store.swap_engine(first) is None  # a new folder
    assert store.swap_engine(first) is None  # resumed by the same code
    assert store.swap_engine(second) == first  # resumed by other code
    assert Store.open(tmp_path).get_meta("engine") == second


def test_a_store_from_before_rejection_kinds_opens_and_keeps_its_reasons(tmp_path):
    with sqlite3.connect(tmp_path / "store.sqlite") as db:  # the 0.x schema, without the column
        db.execute(
            "CREATE TABLE candidates (key TEXT PRIMARY KEY, mode TEXT NOT NULL, targets TEXT NOT NULL, "
            "status TEXT NOT NULL, reason TEXT NOT NULL, corruptor TEXT, screened INTEGER NOT NULL DEFAULT 0, "
            "seconds REAL NOT NULL DEFAULT 0, task_id TEXT, payload TEXT)"
        )
        db.execute(
            "INSERT INTO candidates VALUES ('remove:m.g', 'remove', '[\"m.g\"]', 'rejected', 'old reason', "
            "NULL, 1, 0.1, NULL, NULL)"
        )
    store = Store.open(tmp_path)
    old = store.candidate("remove:m.g")
    assert old is not None and old.status == CandidateStatus.REJECTED
    assert old.rejection == Rejection(RejectionKind.OTHER, "old reason")
    store.record_candidate(row("remove:m.h", status="rejected"))
    assert store.candidate("remove:m.h").rejection == Rejection(RejectionKind.NOT_VERIFIED, "nope")
