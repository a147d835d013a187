"""``--format jsonl``: the task record, one row per task, with the HF datasets features beside it.

Rows follow the schema :mod:`corrupt.outputs.schema` derives from the task
model (per-task maps as JSON text); ``tasks.export.jsonl`` gets
``tasks.export.features.json``, to load it with
``datasets.load_dataset("json", ..., features=...)``.
"""

from __future__ import annotations

import json
from pathlib import Path

from corrupt.outputs.formats import ExportFormat, Exporting, RecordView
from corrupt.outputs.records import json_lines, read_json_lines


def features_path(out: Path) -> Path:
    return out.with_name(out.name.removesuffix(".jsonl") + ".features.json")


def write(job: Exporting) -> int:
    from corrupt.outputs.files import write_bytes, write_output
    from corrupt.outputs.schema import row_of, task_features

    records = [row_of(t) for t in job.tasks]
    write_output(job.out, json_lines(records))
    if str(job.out) != "-":
        write_bytes(features_path(job.out), (json.dumps(task_features(), indent=1) + "\n").encode())
    return len(records)


FORMAT = ExportFormat(
    name="jsonl",
    listed=0,
    default_name="tasks.export.jsonl",
    write=write,
    read=read_json_lines,
    view=RecordView("task_id", ("problem_statement",)),
    side_files=lambda out: [features_path(out)],
    marks=("task_id",),
)
