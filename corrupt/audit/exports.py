"""Auditing what an export or a materialisation wrote, read back as a harness would show it.

What is read is what an agent is given: a materialised folder whole (its
``.git`` included), a Harbor task folder but for ``tests/`` and
``solution/`` (Harbor copies those in only for the verifier and the oracle),
the fields of a record that reach the agent (the problem statement; PDB's
prompt and buggy code), and every image an export names. The fix patch of a
SWE-bench instance or a JSONL record is the answer by design and is not read;
gold predictions are nothing but answers and are refused.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from corrupt.audit.audit import AuditResult, Evidence, audit_folder, audit_texts
from corrupt.errors import InputError, LeakError
from corrupt.outputs.formats import (
    ExportFormat,
    FolderView,
    RecordView,
    Unread,
    export_formats,
)
from corrupt.outputs.materialize import TASK_FILE
from corrupt.outputs.records import Records, read_json_array, read_json_lines
from corrupt.repos.original import original_checkout
from corrupt.tasks.models import Task
from corrupt.tasks.store import AUDITS_KEY, Store

MATERIALIZED = "materialized"
VERIFIED_IN = (
    "image {}: the environment the task was verified in (holds the original; not for agents)"
)
ROUTE_ORDER = [
    "file",
    "text",
    "archive",
    "compiled",
    "git",
]  # the first named is the plainest  # the store's record of the last audit of each target


def detect_format(path: Path) -> str:
    """What wrote ``path``: a materialised task, a folder format, or a record format."""
    formats = export_formats().values()
    if path.is_dir():
        if (path / TASK_FILE).is_file():
            return MATERIALIZED
        for fmt in formats:
            if fmt.marker and (path / fmt.marker).is_file():
                return fmt.name
        exports = [f"a {fmt.name} export" for fmt in formats if fmt.folder]
        raise InputError(f"{path} is neither {' nor '.join(['a materialized task', *exports])}")
    if not path.is_file():
        raise InputError(f"nothing to audit at {path}")
    for fmt in formats:
        if fmt.suffix and path.suffix == fmt.suffix:
            return fmt.name
    try:
        records = read_json_lines(path) if path.suffix == ".jsonl" else read_json_array(path)
    except (ValueError, OSError) as exc:
        raise InputError(f"cannot read {path} as records: {exc}") from None
    first = records[0] if records else {}
    marked = [f for f in formats if f.marks and f.marks[0] in first]
    if not marked:
        raise InputError(f"{path} holds no records corrupt exports; pass --format")
    # The format with most marks is the most particular; a tie (no export writes one)
    # goes to the later listed.
    return max(reversed(marked), key=lambda f: len(f.marks)).name


def _records(path: Path, fmt: ExportFormat) -> Records:
    assert fmt.read is not None
    try:
        return fmt.read(path)
    except (ValueError, OSError, ImportError) as exc:
        raise InputError(f"cannot read {path} as {fmt.name} records: {exc}") from None


class Auditor:
    """Audits targets against one build's tasks; ``images`` audits the images they name."""

    def __init__(
        self, build: Path, *, images: Callable[[Evidence, list[str]], Any] | None = None
    ) -> None:
        self.build = Path(build)
        store = Store.open(self.build)
        try:
            self.tasks = {t.task_id: t for t in store.list_tasks()}
            info = store.checkout_info()
        finally:
            store.close()
        self.evidence = Evidence(self.tasks, self._files, original_checkout(info).path)
        self.make_images = images

    def _files(self, task_id: str) -> dict[str, tuple[str, str]]:
        store = Store.open(self.build)
        try:
            return store.task_files(task_id)
        finally:
            store.close()

    def audit(self, path: Path, name: str | None = None) -> AuditResult:
        name = name or detect_format(path)
        formats = export_formats()
        if name not in {*formats, MATERIALIZED}:
            choices = ", ".join([*formats, MATERIALIZED])
            raise InputError(f"unknown format {name!r}; choose one of {choices}")
        if name == MATERIALIZED:
            result = self._materialized(path)
        else:
            result = self._export(path, formats[name])
        result.target = str(path)
        result.needles = sum(len(self.evidence.needles(t)) for t in set(result.task_ids))
        result.unchecked[:0] = self.evidence.without_needles(result.task_ids)
        self._remember(result, name)
        return result

    def _export(self, path: Path, fmt: ExportFormat) -> AuditResult:
        if isinstance(fmt.view, Unread):
            raise InputError(fmt.view.refusal)
        if isinstance(fmt.view, FolderView):
            return self._folder(path, fmt.view)
        return self._file(path, fmt, fmt.view)

    def _task(self, task_id: str, where: Path) -> Task:
        if task_id not in self.tasks:
            raise InputError(f"{where} holds task {task_id}, which is not in {self.build}")
        return self.tasks[task_id]

    def _materialized(self, folder: Path) -> AuditResult:
        manifest = json.loads((folder / TASK_FILE).read_text(encoding="utf-8"))
        task = self._task(manifest["task_id"], folder)
        result = audit_folder(folder, self.evidence, [task.task_id])
        images = [(manifest["task_image"], [task.task_id])] if manifest.get("task_image") else []
        if manifest.get("image_name"):
            result.unchecked.append(VERIFIED_IN.format(manifest["image_name"]))
        return self._with_images(result, images)

    def _folder(self, folder: Path, view: FolderView) -> AuditResult:
        result = AuditResult(str(folder))
        images = []
        for found in view.tasks(folder):
            task = self._task(found.task_id, found.folder)
            result.merge(
                audit_folder(found.folder, self.evidence, [task.task_id], leave_out=view.hidden)
            )
            images.append((found.image, [task.task_id]))
        return self._with_images(result, images)

    def _file(self, path: Path, fmt: ExportFormat, view: RecordView) -> AuditResult:
        by_id = {view.task_key(t): t for t in self.tasks.values()}
        texts, images = [], []
        records = _records(path, fmt)
        for number, record in enumerate(records, 1):
            if record.get(view.id_field) not in by_id:
                raise InputError(f"{path}: record {number} is not a task of {self.build}")
            task = by_id[record[view.id_field]]
            texts += [
                (task.task_id, f"{path} record {number} {name}", str(record[name]))
                for name in view.shown
                if record.get(name)
            ]
            if record.get("image_name") and view.agent_images:
                images.append((record["image_name"], [task.task_id]))
        result = audit_texts(str(path), self.evidence, texts)
        if not view.agent_images:
            result.unchecked += sorted(
                {VERIFIED_IN.format(r["image_name"]) for r in records if r.get("image_name")}
            )
        return self._with_images(result, images)

    def _with_images(self, result: AuditResult, images: list[tuple[str, list[str]]]) -> AuditResult:
        if not images:
            return result
        if self.make_images is None:
            result.unchecked += [f"image {tag}: not read (--no-images)" for tag, _ in images]
            return result
        auditor = self.make_images(self.evidence, [t for _, ids in images for t in ids])
        for tag, ids in images:
            result.merge(auditor.audit(tag, ids))
        return result

    def _remember(self, result: AuditResult, fmt: str) -> None:
        """Kept in the build's store for the report; a build one may not write to keeps nothing."""
        store = Store.open(self.build)
        try:
            kept = store.get_meta(AUDITS_KEY)
            audits: dict[str, Any] = kept if isinstance(kept, dict) else {}
            audits[str(result.target)] = {
                "format": fmt,
                "passed": result.passed,
                "leaks": len(result.leaks),
                "tasks": result.tasks,
                "images": len(result.images),
                "unchecked": len(result.unchecked),
                "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            }
            store.set_meta(AUDITS_KEY, audits)
        except sqlite3.Error:
            pass
        finally:
            store.close()


def default_targets(build: Path) -> list[Path]:
    """The exports written into ``build`` under their default names."""
    return [
        build / fmt.default_name
        for fmt in export_formats().values()
        if (build / fmt.default_name).exists() and not isinstance(fmt.view, Unread)
    ]


def audit_written(
    build: Path,
    written: list[Path],
    fmt: str,
    *,
    images: Callable[[Evidence, list[str]], Any] | None,
) -> AuditResult:
    """Audit what an export or a materialisation just wrote (``written[0]``; the rest are its
    side files); a leak removes all of it and raises :class:`LeakError` naming the route."""
    result = Auditor(build, images=images).audit(written[0], fmt)
    if result.passed:
        return result
    for path in written:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    first = min(result.leaks, key=lambda leak: ROUTE_ORDER.index(leak.route))
    more = f" (and {len(result.leaks) - 1} more)" if len(result.leaks) > 1 else ""
    raise LeakError(f"{first.line()}{more}; removed {written[0]}")


def summary(result: AuditResult) -> str:
    """One line: what was read and whether it passed."""
    read = f"{result.tasks} tasks, {result.needles} needles"
    if result.images:
        read += f", {len(result.images)} images"
    if result.passed:
        unchecked = f"; {len(result.unchecked)} not checked" if result.unchecked else ""
        return f"audit passed: no original code in {result.target} ({read}){unchecked}"
    return f"audit FAILED: {len(result.leaks)} leaks in {result.target} ({read})"
