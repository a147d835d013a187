"""The SQLite store in a build's output folder: what makes builds resumable.

One store belongs to one repository at one commit. It records every candidate
tried (with its outcome, so a rerun never screens it again), the accepted tasks
with the file contents they touch, and the repository's function metrics.
Writes are single transactions in WAL mode, so a build killed at any instant
leaves either a whole candidate/task or nothing of it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from corrupt.corruptors.models import Rejection, RejectionKind
from corrupt.errors import StoreError, TaskNotFound
from corrupt.tasks.models import Task

STORE_NAME = "store.sqlite"
TASKS_JSONL = "tasks.jsonl"
AUDITS_KEY = "audits"  # meta: the last leak audit of each export, by target path
APR_KEY = "apr"  # meta: the APR baseline's result for each task, by task id

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS functions (
    qualname TEXT PRIMARY KEY, file TEXT NOT NULL, start_line INTEGER, end_line INTEGER,
    covering INTEGER NOT NULL, eligible INTEGER NOT NULL, metrics TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS candidates (
    key TEXT PRIMARY KEY, mode TEXT NOT NULL, targets TEXT NOT NULL, status TEXT NOT NULL,
    reason TEXT NOT NULL, corruptor TEXT, screened INTEGER NOT NULL DEFAULT 0,
    seconds REAL NOT NULL DEFAULT 0, task_id TEXT, payload TEXT, rejection TEXT
);
CREATE TABLE IF NOT EXISTS tasks (
    task_id TEXT PRIMARY KEY, candidate TEXT NOT NULL UNIQUE, mode TEXT NOT NULL,
    kind TEXT NOT NULL, record TEXT NOT NULL, files TEXT NOT NULL
);
"""


_COLUMNS = (
    "key, mode, targets, status, reason, corruptor, screened, seconds, task_id, payload, rejection"
)


class CandidateStatus(StrEnum):
    VERIFIED = "verified"  # a task (written once accepted in candidate order)
    REJECTED = "rejected"  # ``rejection`` says why
    FOUND = "found"  # a member search that found a single-function corruption (payload)
    NONE = "none"  # a member search that found none


@dataclass
class CandidateRow:
    key: str
    mode: str  # a build mode, or "member" for a cached single-function search
    targets: list[str]
    status: CandidateStatus
    corruptor: str | None
    screened: int
    seconds: float
    task_id: str | None
    # verified: {"task": ..., "files": ...}; found: {"corruption": ...}
    payload: dict[str, Any] | None
    rejection: Rejection | None = None

    @property
    def reason(self) -> str:
        return self.rejection.detail if self.rejection else ""


class Store:
    """A build's SQLite store. Thread-safe: one connection behind a lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)
            columns = {r[1] for r in self._db.execute("PRAGMA table_info(candidates)")}
            if (
                "rejection" not in columns
            ):  # a store written before rejections were recorded as data
                self._db.execute("ALTER TABLE candidates ADD COLUMN rejection TEXT")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path} is not a usable task store: {exc}") from None

    @classmethod
    def open(cls, out_dir: Path, *, create: bool = False) -> Store:
        """Open the store of an output folder (``create`` for a build)."""
        out_dir = Path(out_dir)
        path = out_dir / STORE_NAME
        if not path.exists():
            if not create:
                raise StoreError(
                    f"no task store in {out_dir} (expected {path}); run `corrupt build` first"
                )
            out_dir.mkdir(parents=True, exist_ok=True)
        return cls(path)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def discard(self) -> None:
        """Close and delete this store (its WAL files too): for a build that failed before any candidate."""
        self.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # -- the repository this store belongs to ---------------------------------

    def bind_repo(self, info: dict[str, Any]) -> None:
        """Record which repo+commit this folder holds; refuse a different one."""
        current = self.checkout_info()
        if current and (current.get("name"), current.get("commit")) != (
            info["name"],
            info["commit"],
        ):
            raise StoreError(
                f"{self.path.parent} holds tasks of {current.get('name')} at {str(current.get('commit'))[:12]}, "
                f"not {info['name']} at {info['commit'][:12]}; choose another --out"
            )
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('repo', ?)", (json.dumps(info),))

    def swap_engine(self, engine: dict[str, str]) -> dict[str, str] | None:
        """Record the engine building into this folder; returns the one before, if it differs."""
        previous = self.get_meta("engine")
        self.set_meta("engine", engine)
        return previous if isinstance(previous, dict) and previous != engine else None

    def checkout_info(self) -> dict[str, Any]:
        row = self._query_one("SELECT value FROM meta WHERE key = 'repo'")
        return json.loads(row[0]) if row else {}

    def set_meta(self, key: str, value: object) -> None:
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    def get_meta(self, key: str, default: object = None) -> object:
        row = self._query_one("SELECT value FROM meta WHERE key = ?", (key,))
        return json.loads(row[0]) if row else default

    # -- functions -------------------------------------------------------------

    def save_functions(
        self, rows: list[tuple[str, str, int, int, int, bool, dict[str, Any]]]
    ) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM functions")
            db.executemany(
                "INSERT INTO functions VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(q, f, s, e, c, int(el), json.dumps(m)) for q, f, s, e, c, el, m in rows],
            )

    # -- candidates and tasks ----------------------------------------------------

    def candidate(self, key: str) -> CandidateRow | None:
        row = self._query_one(f"SELECT {_COLUMNS} FROM candidates WHERE key = ?", (key,))
        return _candidate_row(row) if row else None

    def candidates(self, mode: str | None = None) -> list[CandidateRow]:
        sql, args = f"SELECT {_COLUMNS} FROM candidates", tuple[str, ...]()
        if mode:
            sql, args = sql + " WHERE mode = ?", (mode,)
        return [_candidate_row(r) for r in self._query(sql + " ORDER BY rowid", args)]

    def record_candidate(
        self, row: CandidateRow, task: Task | None = None, files: dict[str, list[str]] | None = None
    ) -> None:
        """Write a candidate's outcome, and its task when accepted, in one transaction."""
        with self._transaction() as db:
            db.execute(
                f"INSERT OR REPLACE INTO candidates ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    row.key,
                    row.mode,
                    json.dumps(row.targets),
                    row.status.value,
                    row.reason,
                    row.corruptor,
                    row.screened,
                    row.seconds,
                    row.task_id,
                    json.dumps(row.payload) if row.payload is not None else None,
                    row.rejection.kind.value if row.rejection else None,
                ),
            )
            if task is not None:
                db.execute(
                    "INSERT OR REPLACE INTO tasks VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        task.task_id,
                        row.key,
                        task.mode,
                        task.kind,
                        task.model_dump_json(),
                        json.dumps(files or {}),
                    ),
                )

    def accept(self, key: str) -> Task:
        """Turn an already verified candidate into a written task."""
        cand = self.candidate(key)
        if cand is None or cand.status != CandidateStatus.VERIFIED or not cand.payload:
            raise StoreError(f"candidate {key} is not a verified candidate")
        task = Task.model_validate(cand.payload["task"])
        with self._transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO tasks VALUES (?, ?, ?, ?, ?, ?)",
                (
                    task.task_id,
                    key,
                    task.mode,
                    task.kind,
                    task.model_dump_json(),
                    json.dumps(cand.payload["files"]),
                ),
            )
        return task

    def task_candidate(self, task_id: str) -> str | None:
        """The candidate a task was written for, if the task exists."""
        row = self._query_one("SELECT candidate FROM tasks WHERE task_id = ?", (task_id,))
        return row[0] if row else None

    def list_tasks(self) -> list[Task]:
        return [
            Task.model_validate_json(r[0])
            for r in self._query("SELECT record FROM tasks ORDER BY rowid")
        ]

    def get_task(self, task_id: str) -> Task:
        rows = self._query(
            "SELECT record FROM tasks WHERE task_id LIKE ? ORDER BY task_id", (task_id + "%",)
        )
        exact = [r for r in rows if Task.model_validate_json(r[0]).task_id == task_id]
        if exact:
            rows = exact
        if not rows:
            raise TaskNotFound(f"no task {task_id!r} in {self.path.parent}")
        if len(rows) > 1:
            raise TaskNotFound(
                f"task id prefix {task_id!r} is ambiguous ({len(rows)} tasks); give more characters"
            )
        return Task.model_validate_json(rows[0][0])

    def task_files(self, task_id: str) -> dict[str, tuple[str, str]]:
        """The files a task touches: path -> (original, corrupted) text."""
        (row,) = self._query(
            "SELECT files FROM tasks WHERE task_id = ?", (self.get_task(task_id).task_id,)
        )
        return {path: (pair[0], pair[1]) for path, pair in json.loads(row[0]).items()}

    def task_count(self) -> int:
        row = self._query_one("SELECT COUNT(*) FROM tasks")
        return int(row[0]) if row else 0

    def append_jsonl(self, task: Task) -> None:
        """Add the task just written to ``tasks.jsonl``, so a long build's file grows as it
        goes at the cost of one line (rewriting the file for each task made a build of
        thousands quadratic). A kill can tear the last line or miss it: a build rewrites
        the file whole when it starts on a store with tasks, and when it ends."""
        with open(self.path.parent / TASKS_JSONL, "a", encoding="utf-8") as fh:
            fh.write(task.model_dump_json() + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def write_jsonl(self) -> Path:
        """Rewrite ``tasks.jsonl`` atomically (temp file + rename)."""
        out = self.path.parent / TASKS_JSONL
        tmp = out.with_suffix(".jsonl.tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            for task in self.list_tasks():
                fh.write(task.model_dump_json() + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, out)
        return out

    # -- plumbing -----------------------------------------------------------------

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def _query_one(self, sql: str, args: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
        rows = self._query(sql, args)
        return rows[0] if rows else None


def _candidate_row(row: tuple[Any, ...]) -> CandidateRow:
    key, mode, targets, status, reason, corruptor, screened, seconds, task_id, payload, kind = row
    # A store from before rejection kinds were recorded keeps its reasons, grouped as "other".
    rejection = (
        Rejection(RejectionKind(kind) if kind else RejectionKind.OTHER, reason) if reason else None
    )
    return CandidateRow(
        key=key,
        mode=mode,
        targets=json.loads(targets),
        status=CandidateStatus(status),
        corruptor=corruptor,
        screened=screened,
        seconds=seconds,
        task_id=task_id,
        payload=json.loads(payload) if payload else None,
        rejection=rejection,
    )


DEFAULT_BUILDS = Path("out")


def candidate_stores(store: Path | None) -> list[Path]:
    """Where to look for a task: the given folder, else ``.`` and every ``out/*`` build."""
    if store is not None:
        return [Path(store)]
    found = [Path(".")] if (Path(".") / STORE_NAME).is_file() else []
    if DEFAULT_BUILDS.is_dir():
        found += sorted(p for p in DEFAULT_BUILDS.iterdir() if (p / STORE_NAME).is_file())
    return found


def resolve_store(task_id: str, store: Path | None) -> Path:
    """The one build folder holding ``task_id`` (or a unique prefix of it)."""
    folders = candidate_stores(store)
    if store is not None:
        return folders[0]
    holding = []
    for folder in folders:
        opened = Store.open(folder)
        try:
            opened.get_task(task_id)
            holding.append(folder)
        except TaskNotFound:
            continue
        finally:
            opened.close()
    if len(holding) == 1:
        return holding[0]
    if not holding:
        where = ", ".join(str(f) for f in folders) or "no build folders in . or out/"
        raise TaskNotFound(f"no task {task_id!r} in {where}; pass --build BUILD")
    raise TaskNotFound(
        f"task {task_id!r} is in several builds ({', '.join(map(str, holding))}); pass --build"
    )
