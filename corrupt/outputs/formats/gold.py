"""``--format gold``: SWE-bench predictions holding the fix patches.

What ``corrupt score`` and ``run_evaluation`` grade as a perfect solver.
Nothing in it is for an agent, so the leak audit does not read it.
"""

from __future__ import annotations

from corrupt.outputs.formats import ExportFormat, Exporting, Unread
from corrupt.outputs.records import json_lines, read_json_lines


def write(job: Exporting) -> int:
    from corrupt.outputs.files import write_output

    records = [
        {"instance_id": t.task_id, "model_name_or_path": "gold", "model_patch": t.fix_patch}
        for t in job.tasks
    ]
    write_output(job.out, json_lines(records))
    return len(records)


FORMAT = ExportFormat(
    name="gold",
    listed=6,
    default_name="gold.predictions.jsonl",
    write=write,
    read=read_json_lines,
    view=Unread(
        why="gold predictions are the answers",
        refusal="gold predictions are the fixes themselves: there is nothing to audit",
    ),
    marks=("model_patch", "instance_id"),
)
