"""``--format swebench``: SWE-bench 5 instances, each with its own per-task image and eval script.

The instances are built by :mod:`corrupt.outputs.swebench`; the images by
:class:`corrupt.outputs.task_image.ExportImages`, so it needs a container
engine and a build folder.
"""

from __future__ import annotations

from corrupt.outputs.formats import ExportFormat, Exporting, RecordView
from corrupt.outputs.records import json_lines, read_json_lines


def write(job: Exporting) -> int:
    from corrupt.outputs.files import write_output
    from corrupt.outputs.swebench import swebench_instance

    images = job.images
    assert images is not None
    records = [swebench_instance(t, images.task_image(t)) for t in job.tasks]
    write_output(job.out, json_lines(records))
    return len(records)


FORMAT = ExportFormat(
    name="swebench",
    listed=2,
    default_name="swebench.jsonl",
    write=write,
    read=read_json_lines,
    view=RecordView("instance_id", ("problem_statement", "hints_text"), agent_images=True),
    needs_images=True,
    marks=("eval_script", "instance_id"),
)
