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
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from corrupt.audit.audit import AuditResult, Evidence, audit_folder, audit_texts
from corrupt.errors import InputError, LeakError
from corrupt.outputs.export import DEFAULT_NAMES
from corrupt.outputs.formats import ExportFormat
from corrupt.outputs.harbor import MARKER
from corrupt.outputs.materialize import TASK_FILE
from corrupt.outputs.swesmith import instance_id
from corrupt.repos.original import original_checkout
from corrupt.tasks.models import Task
from corrupt.tasks.store import AUDITS_KEY, Store

MATERIALIZED = "materialized"
HARBOR_HIDDEN = ("tests", "solution")
# Per record format: the field naming the task, and the fields an agent is shown.
RECORD_FIELDS = {
    ExportFormat.JSONL: ("task_id", ("problem_statement",)),
    ExportFormat.PARQUET: ("task_id", ("problem_statement",)),
    ExportFormat.SWEBENCH: ("instance_id", ("problem_statement", "hints_text")),
    ExportFormat.SWESMITH: ("instance_id", ("problem_statement",)),
    ExportFormat.PDB: ("source_task_id", ("task_prompt", "buggy_code")),
}
# The formats whose image_name is where the agent works; elsewhere it names the image the
# task was verified in, which holds the original installed, like any repository image.
AGENT_IMAGES = {ExportFormat.SWEBENCH, ExportFormat.SWESMITH}
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
    """What wrote ``path``: a materialised task, a Harbor folder, or one of the record formats."""
    if path.is_dir():
        if (path / TASK_FILE).is_file():
            return MATERIALIZED
        if (path / MARKER).is_file():
            return ExportFormat.HARBOR
        raise InputError(f"{path} is neither a materialized task nor a harbor export")
    if not path.is_file():
        raise InputError(f"nothing to audit at {path}")
    if path.suffix == ".parquet":
        return ExportFormat.PARQUET
    records = _records(path, ExportFormat.JSONL if path.suffix == ".jsonl" else ExportFormat.PDB)
    first = records[0] if records else {}
    for key, fmt in (
        ("model_patch", ExportFormat.GOLD),
        ("task_prompt", ExportFormat.PDB),
        ("eval_script", ExportFormat.SWEBENCH),
        ("instance_id", ExportFormat.SWESMITH),
        ("task_id", ExportFormat.JSONL),
    ):
        if key in first:
            return fmt
    raise InputError(f"{path} holds no records corrupt exports; pass --format")


def _records(path: Path, fmt: str) -> list[dict[str, Any]]:
    try:
        if fmt == ExportFormat.PARQUET:
            import pyarrow.parquet as pq

            return list(pq.read_table(path).to_pylist())
        text = path.read_text(encoding="utf-8")
        if fmt in (ExportFormat.PDB, ExportFormat.SWESMITH):
            loaded = json.loads(text)
            return loaded if isinstance(loaded, list) else [loaded]
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except (ValueError, OSError, ImportError) as exc:
        raise InputError(f"cannot read {path} as {fmt} records: {exc}") from None


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

    def audit(self, path: Path, fmt: str | None = None) -> AuditResult:
        fmt = fmt or detect_format(path)
        if fmt not in {*ExportFormat, MATERIALIZED}:
            choices = ", ".join([*ExportFormat, MATERIALIZED])
            raise InputError(f"unknown format {fmt!r}; choose one of {choices}")
        if fmt == ExportFormat.GOLD:
            raise InputError("gold predictions are the fixes themselves: there is nothing to audit")
        if fmt == MATERIALIZED:
            result = self._materialized(path)
        elif fmt == ExportFormat.HARBOR:
            result = self._harbor(path)
        else:
            result = self._file(path, fmt)
        result.target = str(path)
        result.needles = sum(len(self.evidence.needles(t)) for t in set(result.task_ids))
        result.unchecked[:0] = self.evidence.without_needles(result.task_ids)
        self._remember(result, fmt)
        return result

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

    def _harbor(self, folder: Path) -> AuditResult:
        result = AuditResult(str(folder))
        images = []
        for task_folder in sorted(p for p in folder.iterdir() if (p / "task.toml").is_file()):
            config = tomllib.loads((task_folder / "task.toml").read_text(encoding="utf-8"))
            task = self._task(config["metadata"]["task_id"], task_folder)
            result.merge(
                audit_folder(task_folder, self.evidence, [task.task_id], leave_out=HARBOR_HIDDEN)
            )
            images.append((config["environment"]["docker_image"], [task.task_id]))
        return self._with_images(result, images)

    def _file(self, path: Path, fmt: str) -> AuditResult:
        id_field, shown = RECORD_FIELDS[ExportFormat(fmt)]
        by_id = self.tasks
        if fmt == ExportFormat.SWESMITH:
            by_id = {instance_id(t): t for t in self.tasks.values()}
        texts, images = [], []
        records = _records(path, fmt)
        for number, record in enumerate(records, 1):
            if record.get(id_field) not in by_id:
                raise InputError(f"{path}: record {number} is not a task of {self.build}")
            task = by_id[record[id_field]]
            texts += [
                (task.task_id, f"{path} record {number} {name}", str(record[name]))
                for name in shown
                if record.get(name)
            ]
            if record.get("image_name") and fmt in AGENT_IMAGES:
                images.append((record["image_name"], [task.task_id]))
        result = audit_texts(str(path), self.evidence, texts)
        if fmt not in AGENT_IMAGES:
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
        build / name
        for name in DEFAULT_NAMES.values()
        if (build / name).exists() and name != DEFAULT_NAMES[ExportFormat.GOLD]
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
