"""``--format pdb``: Precise Debugging Benchmarking records, one per corrupted file.

A JSON array; each record holds ``task_id`` (without ``/``: PDB writes one
result file per id), ``buggy_code``, ``gt_solution`` and ``gt_diff``, the
file's edit script as a map: applying it to ``buggy_code`` gives
``gt_solution``. It needs the corrupted files' contents, so only a build
folder exports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from corrupt.errors import StoreError
from corrupt.outputs.formats import ExportFormat, Exporting, RecordView
from corrupt.outputs.records import json_array, read_json_array

if TYPE_CHECKING:
    from corrupt.tasks.models import Task


def pdb_records(task: Task, files: dict[str, tuple[str, str]]) -> list[dict[str, Any]]:
    """One PDB record per corrupted file; refuses scripts that do not round-trip."""
    from corrupt.source.edits import apply_edit_script

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


def write(job: Exporting) -> int:
    from corrupt.outputs.files import write_output

    assert job.files_for is not None
    records = [r for t in job.tasks for r in pdb_records(t, job.files_for(t))]
    write_output(job.out, json_array(records))
    return len(records)


FORMAT = ExportFormat(
    name="pdb",
    listed=5,
    default_name="pdb.json",
    write=write,
    read=read_json_array,
    view=RecordView("source_task_id", ("task_prompt", "buggy_code")),
    needs_files=True,
    marks=("task_prompt", "task_id"),
)
