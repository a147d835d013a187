"""Writing tasks in the formats other harnesses already read.

- ``jsonl`` / ``parquet``: the task record, one row per task, in the schema
  :mod:`corrupt.outputs.schema` derives from the task model (per-task maps as
  JSON text); the JSONL gets a ``.features.json`` beside it for
  ``datasets.load_dataset("json", ..., features=...)``, the Parquet file
  carries the same features in its metadata.
- ``swebench``: SWE-bench 5 instances with their own per-task image and eval
  script (:mod:`corrupt.outputs.swebench`); needs a container engine.
- ``swesmith``: SWE-smith instances, a generated repository profile and the
  image with one branch per task (:mod:`corrupt.outputs.swesmith`).
- ``harbor``: one Harbor task folder per task (:mod:`corrupt.outputs.harbor`).
- ``pdb``: Precise Debugging Benchmarking records, a JSON array with one
  record per corrupted file (``task_id`` without ``/``, ``buggy_code``,
  ``gt_solution``, ``gt_diff`` = the file's edit script as a map, applying it
  to ``buggy_code`` gives ``gt_solution``).
- ``gold``: SWE-bench predictions holding the fix patches: what ``corrupt
  score`` and ``run_evaluation`` grade as a perfect solver.

Files are written to a temporary name and renamed into place (never
half-written), with the mode the umask gives any new file; ``-`` writes to stdout.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO

from corrupt.errors import InputError, StoreError
from corrupt.outputs.files import write_bytes, write_output
from corrupt.outputs.formats import ExportFormat
from corrupt.outputs.harbor import write_harbor_tasks
from corrupt.outputs.schema import arrow_schema, row_of, task_features
from corrupt.outputs.swebench import swebench_instance
from corrupt.outputs.swesmith import profiles_module, profiles_path, swesmith_instances
from corrupt.outputs.task_image import ExportImages
from corrupt.source.edits import apply_edit_script
from corrupt.tasks.models import Task

DEFAULT_NAMES = {
    ExportFormat.JSONL: "tasks.export.jsonl",
    ExportFormat.PARQUET: "tasks.parquet",
    ExportFormat.SWEBENCH: "swebench.jsonl",
    ExportFormat.SWESMITH: "swesmith.json",  # SWE-smith's valid reads a JSON array only
    ExportFormat.HARBOR: "harbor",
    ExportFormat.PDB: "pdb.json",
    ExportFormat.GOLD: "gold.predictions.jsonl",
}
NEEDS_IMAGES = {ExportFormat.SWEBENCH, ExportFormat.SWESMITH, ExportFormat.HARBOR}
FilesFor = Callable[[Task], dict[str, tuple[str, str]]]


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
            # PDB writes one result file per task_id: no "/" in it.
            "task_id": f"{task.task_id}__{path.replace('/', '__')}",
            "source_task_id": task.task_id,
            "repo": task.repo.name,
            "target_file": path,
            "source_dataset": task.repo.name,
            "source_model": task.corruptor,
            "task_prompt": task.problem_statement,
            "gt_solution": original,
            "buggy_code": corrupted,
            "gt_diff": script,
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


# Escaped to ASCII: SWE-bench reads JSONL with str.splitlines(), which also splits
# at U+2028/U+0085 inside strings, and SWE-smith opens files in the locale's encoding.
def _json_lines(records: Iterable[dict[str, Any]]) -> Callable[[BinaryIO], None]:
    def write(stream: BinaryIO) -> None:
        for record in records:
            stream.write((json.dumps(record) + "\n").encode("ascii"))

    return write


def _json_array(records: list[dict[str, Any]]) -> Callable[[BinaryIO], None]:
    def write(stream: BinaryIO) -> None:
        stream.write(json.dumps(records, indent=1).encode("ascii") + b"\n")

    return write


def _write_parquet(tasks: list[Task]) -> Callable[[BinaryIO], None]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError("parquet export needs pyarrow: pip install 'corrupt[parquet]'") from None
    table = pa.Table.from_pylist([row_of(t) for t in tasks], schema=arrow_schema())

    def write(stream: BinaryIO) -> None:
        pq.write_table(table, stream)

    return write


def _features_beside(out: Path) -> None:
    """``tasks.export.jsonl`` gets ``tasks.export.features.json``: HF datasets features to load it with."""
    sidecar = out.with_name(out.name.removesuffix(".jsonl") + ".features.json")
    write_bytes(sidecar, (json.dumps(task_features(), indent=1) + "\n").encode())


def runnable(tasks: list[Task]) -> list[Task]:
    """Tasks a harness can grade: with no FAIL_TO_PASS test it can name, any patch would pass.

    Builds verify ``--min-failing`` readable tests; this guards older builds.
    """
    kept = [t for t in tasks if t.tests.readable()[0]]
    if tasks and not kept:
        raise InputError("no task has a FAIL_TO_PASS test whose id a harness can read")
    return kept


def check_target(fmt: str, out: Path) -> None:
    """Refuse a target the format cannot write, before any image is built."""
    if fmt == ExportFormat.HARBOR and str(out) == "-":
        raise InputError("the harbor format writes a folder of tasks; give --out a folder")


def export_tasks(
    tasks: list[Task],
    fmt: str,
    out: Path,
    *,
    files_for: FilesFor | None = None,
    images: ExportImages | None = None,
) -> int:
    """Write ``tasks`` to ``out`` (``-``: stdout) in format ``fmt``; returns the number of records written.

    ``files_for(task) -> {path: (original, corrupted)}`` (``Store.task_files``)
    is needed by ``pdb``; ``images`` by the formats that run in containers.
    """
    if fmt not in set(ExportFormat):
        raise InputError(f"unknown export format {fmt!r}; choose one of {', '.join(ExportFormat)}")
    out = Path(out)
    if fmt in NEEDS_IMAGES and images is None:
        raise InputError(f"the {fmt} format builds per-task images: export from a build folder")
    if fmt == ExportFormat.PDB and files_for is None:
        raise InputError(
            "the pdb format needs the corrupted files' contents: export from a build folder"
        )
    check_target(fmt, out)
    if fmt in NEEDS_IMAGES:
        tasks = runnable(tasks)
    if fmt == ExportFormat.HARBOR:
        assert images is not None
        return write_harbor_tasks(tasks, out, images.task_image)
    records = _records(tasks, ExportFormat(fmt), files_for, images)
    if fmt == ExportFormat.PARQUET:
        write_output(out, _write_parquet(tasks))
    elif fmt in (ExportFormat.PDB, ExportFormat.SWESMITH):
        write_output(out, _json_array(records))
    else:
        write_output(out, _json_lines(records))
    if fmt == ExportFormat.JSONL and str(out) != "-":
        _features_beside(out)
    if fmt == ExportFormat.SWESMITH:
        write_bytes(profiles_path(out), profiles_module(tasks).encode())
    return len(records)


def _records(
    tasks: list[Task],
    fmt: ExportFormat,
    files_for: FilesFor | None,
    images: ExportImages | None,
) -> list[dict[str, Any]]:
    if fmt in (ExportFormat.JSONL, ExportFormat.PARQUET):
        return [row_of(t) for t in tasks]
    if fmt == ExportFormat.GOLD:
        return [
            {"instance_id": t.task_id, "model_name_or_path": "gold", "model_patch": t.fix_patch}
            for t in tasks
        ]
    if fmt == ExportFormat.PDB:
        assert files_for is not None
        return [r for t in tasks for r in pdb_records(t, files_for(t))]
    assert images is not None
    if fmt == ExportFormat.SWEBENCH:
        return [swebench_instance(t, images.task_image(t)) for t in tasks]
    return swesmith_instances(tasks, images)
