"""Writing tasks in the formats other harnesses already read.

- ``jsonl``: the task record itself, one object per line.
- ``swesmith``: SWE-smith / SWE-bench task instances (``instance_id``, ``repo``,
  ``base_commit``, ``patch`` = the bug-introducing diff, ``FAIL_TO_PASS``,
  ``PASS_TO_PASS`` as lists like SWE-smith's own dataset, ``problem_statement``,
  ``created_at``, ``version``, and ``image_name`` when the task was built in a
  container image).
- ``pdb``: Precise Debugging Benchmarking records, one per corrupted file,
  with the fields of PDB's repository-level (SWE-smith) records (``task_id``,
  ``repo``, ``target_file``, ``task_prompt``, ``gt_solution``, ``buggy_code``,
  ``gt_diff``, ``bug_count``, ``bug_type``...): ``gt_diff`` is the file's PDB
  edit script as a JSON string (as PDB's released datasets store it) and
  applying it to ``buggy_code`` gives ``gt_solution``.  Needs the file contents, which the task record does not
  carry: pass ``files_for(task) -> {path: (original, corrupted)}``
  (``Store.task_files`` fits).
- ``gold``: SWE-bench predictions (``instance_id``, ``model_name_or_path`` =
  ``gold``, ``model_patch`` = the fix patch): what ``corrupt score`` grades
  as a perfect solver, a check of the scorer and of the tasks.
- ``parquet``: the task record as one row per task, loadable with
  ``datasets.load_dataset("parquet", data_files=...)``.  Maps whose keys vary
  per task (``edit_script``, per-target ``metrics``) are JSON strings, so every
  file has the same schema and files concatenate.

Every file is written to a temporary name and renamed into place, so an
interrupted export never leaves a half-written file behind.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Any

from corrupt.errors import InputError, StoreError
from corrupt.source.edits import apply_edit_script
from corrupt.tasks.models import Task


class ExportFormat(StrEnum):
    JSONL = "jsonl"  # our task records
    SWESMITH = "swesmith"  # SWE-smith task instances
    PDB = "pdb"  # one PDB record per bug, with its edit script
    PARQUET = "parquet"  # our task records, columnar
    GOLD = "gold"  # SWE-bench predictions holding the fix patches (for corrupt score)


DEFAULT_NAMES = {
    ExportFormat.JSONL: "tasks.export.jsonl",
    ExportFormat.SWESMITH: "swesmith.jsonl",
    ExportFormat.PDB: "pdb.jsonl",
    ExportFormat.PARQUET: "tasks.parquet",
    ExportFormat.GOLD: "gold.predictions.jsonl",
}
FilesFor = Callable[[Task], dict[str, tuple[str, str]]]


def swesmith_instance_id(task: Task) -> str:
    """SWE-smith's ``owner__name.commit8.<bug kind>__<hash>`` naming.

    SWE-smith splits an instance id at its last dot to find the repository, so
    the suffix keeps only the task's hash (its last dot-free part).
    """
    repo = re.sub(r"[^A-Za-z0-9_.-]", "_", task.repo.name.replace("/", "__"))
    digest = re.sub(r"[^A-Za-z0-9_-]", "_", task.task_id.rsplit(".", 1)[-1])
    commit = task.repo.commit.removeprefix("tree:")[:8]
    return f"{repo}.{commit}.{task.kind}__{digest[:12]}"


def swesmith_record(task: Task) -> dict[str, Any]:
    record: dict[str, Any] = {
        "instance_id": swesmith_instance_id(task),
        "repo": task.repo.name,
        "base_commit": task.repo.commit,
        "patch": task.corruption_patch,
        "FAIL_TO_PASS": list(task.tests.fail_to_pass),
        "PASS_TO_PASS": list(task.tests.pass_to_pass),
        "problem_statement": task.problem_statement,
        "created_at": task.created_at,
        # SWE-bench keys install specs on ``version``; a corrupted repo's
        # environment is fixed by its commit, so the short commit names it.
        "version": task.repo.commit[:8],
    }
    if task.image_name:
        record["image_name"] = task.image_name
    return record


def pdb_records(task: Task, files: dict[str, tuple[str, str]]) -> list[dict[str, Any]]:
    """One PDB record per corrupted file; refuses scripts that do not round-trip."""
    records = []
    for path in sorted(task.edit_script):
        if path not in files:
            raise StoreError(f"task {task.task_id}: no file contents for {path}")
        original, corrupted = files[path]
        script = task.edit_script[path]
        if apply_edit_script(corrupted, script) != original:
            raise StoreError(
                f"task {task.task_id}: the edit script of {path} does not restore the original"
            )
        bugs = [b for b in task.bugs if b.file == path]
        record = {
            "task_id": f"{task.task_id}/{path}",
            "source_task_id": task.task_id,
            "repo": task.repo.name,
            "target_file": path,
            "source_dataset": task.repo.name,
            "source_model": task.corruptor,
            "task_prompt": task.problem_statement,
            "gt_solution": original,
            "buggy_code": corrupted,
            "gt_diff": json.dumps(script, ensure_ascii=False),
            "bug_count": len(bugs),
            # PDB labels atomic bugs only (null for composed ones); the lists keep every label
            # with one type per column, so the file loads with HF datasets.
            "bug_type": bugs[0].category if len(bugs) == 1 else None,
            "bug_subtype": bugs[0].subcategory if len(bugs) == 1 else None,
            "bug_categories": [b.category for b in bugs],
            "bug_subcategories": [b.subcategory for b in bugs],
            "gt_length": len(original.splitlines()),
            "frozen_lines": 0,
            "is_buggy": True,
        }
        if task.image_name:
            record["image_name"] = task.image_name
        records.append(record)
    return records


def _json_lines(records: Iterable[dict[str, Any]]) -> Iterator[str]:
    for record in records:
        yield json.dumps(record, ensure_ascii=False) + "\n"


def _atomic_write(out: Path, write: Callable[[Path], None]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_text_lines(lines: Iterable[str]) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        with path.open("w", encoding="utf-8", newline="") as fh:
            fh.writelines(lines)

    return write


def parquet_row(task: Task) -> dict[str, Any]:
    row = task.model_dump(mode="json")
    row["edit_script"] = json.dumps(row["edit_script"], ensure_ascii=False)
    for target in row["targets"]:
        target["metrics"] = json.dumps(target["metrics"])
    return row


def parquet_schema(extra_fields: Iterable[str] = ()) -> Any:
    """A fixed schema, so files from different builds concatenate; unknown fields as JSON."""
    import pyarrow as pa

    strings = pa.list_(pa.string())
    effect = pa.struct(
        [
            ("exception", pa.string()),
            ("message", pa.string()),
            ("manifest_frames", strings),
            ("hop_distance", pa.int64()),
        ]
    )
    fields = [
        ("task_id", pa.string()),
        (
            "repo",
            pa.struct(
                [
                    ("name", pa.string()),
                    ("url", pa.string()),
                    ("commit", pa.string()),
                    ("stars", pa.int64()),
                ]
            ),
        ),
        ("mode", pa.string()),
        ("kind", pa.string()),
        ("corruptor", pa.string()),
        (
            "targets",
            pa.list_(
                pa.struct(
                    [
                        ("file", pa.string()),
                        ("qualname", pa.string()),
                        ("start_line", pa.int64()),
                        ("end_line", pa.int64()),
                        ("metrics", pa.string()),
                    ]
                )
            ),
        ),
        (
            "difficulty",
            pa.struct(
                [
                    ("centrality_pct", pa.float64()),
                    ("complexity_pct", pa.float64()),
                    ("n_functions", pa.int64()),
                    ("slice", pa.string()),
                ]
            ),
        ),
        ("corruption_patch", pa.string()),
        ("fix_patch", pa.string()),
        ("edit_script", pa.string()),
        (
            "bugs",
            pa.list_(
                pa.struct(
                    [
                        ("target", pa.string()),
                        ("file", pa.string()),
                        ("lines", pa.list_(pa.int64())),
                        ("category", pa.string()),
                        ("subcategory", pa.string()),
                        ("operator", pa.string()),
                        ("effect", effect),
                    ]
                )
            ),
        ),
        (
            "tests",
            pa.struct(
                [
                    ("command", pa.string()),
                    ("fail_to_pass", strings),
                    ("pass_to_pass", strings),
                    ("baseline_seconds", pa.float64()),
                ]
            ),
        ),
        ("problem_statement", pa.string()),
        ("seed", pa.int64()),
        ("engine_version", pa.string()),
        ("created_at", pa.string()),
        ("image_name", pa.string()),
    ]
    known = {name for name, _ in fields}
    fields += [(name, pa.string()) for name in extra_fields if name not in known]
    return pa.schema(fields)


def _write_parquet(tasks: list[Task]) -> Callable[[Path], None]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError("parquet export needs pyarrow: pip install 'corrupt[parquet]'") from None
    rows = [parquet_row(t) for t in tasks]
    schema = parquet_schema(Task.model_fields)
    fixed = set(parquet_schema().names)
    for row in rows:  # fields added to Task later travel as JSON text
        for name in schema.names:
            if name not in fixed and name in row:
                row[name] = json.dumps(row[name])
    table = pa.Table.from_pylist(rows, schema=schema)

    def write(path: Path) -> None:
        pq.write_table(table, path)

    return write


def export_tasks(
    tasks: list[Task], fmt: str, out: Path, *, files_for: FilesFor | None = None
) -> int:
    """Write ``tasks`` to ``out`` in format ``fmt``; returns the number of records written."""
    if fmt not in set(ExportFormat):
        raise InputError(f"unknown export format {fmt!r}; choose one of {', '.join(ExportFormat)}")
    out = Path(out)
    if fmt == "jsonl":
        _atomic_write(out, _write_text_lines(t.model_dump_json() + "\n" for t in tasks))
        return len(tasks)
    if fmt == "swesmith":
        _atomic_write(out, _write_text_lines(_json_lines(swesmith_record(t) for t in tasks)))
        return len(tasks)
    if fmt == "gold":
        predictions = (
            {"instance_id": t.task_id, "model_name_or_path": "gold", "model_patch": t.fix_patch}
            for t in tasks
        )
        _atomic_write(out, _write_text_lines(_json_lines(predictions)))
        return len(tasks)
    if fmt == "pdb":
        if files_for is None:
            raise InputError(
                "the pdb format needs the corrupted files' contents: export from a build folder"
            )
        records = [r for t in tasks for r in pdb_records(t, files_for(t))]
        _atomic_write(out, _write_text_lines(_json_lines(records)))
        return len(records)
    _atomic_write(out, _write_parquet(tasks))
    return len(tasks)
