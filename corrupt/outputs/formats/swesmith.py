"""``--format swesmith``: SWE-smith instances, the profile module SWE-smith needs for them, and its image.

A JSON array (SWE-smith's ``valid`` reads nothing else) built by
:mod:`corrupt.outputs.swesmith`, with ``swesmith_profiles.py`` beside it and,
on the engine, the profile's image besides the per-task ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from corrupt.outputs.formats import ExportFormat, Exporting, RecordView
from corrupt.outputs.records import json_array, read_json_array

if TYPE_CHECKING:
    from corrupt.tasks.models import Task


# These two import the SWE-smith module (and its image builders) only when called.
def _profiles_path(out: Path) -> Path:
    from corrupt.outputs.swesmith import profiles_path

    return profiles_path(out)


def _instance_id(task: Task) -> str:
    from corrupt.outputs.swesmith import instance_id

    return instance_id(task)


def write(job: Exporting) -> int:
    from corrupt.outputs.files import write_bytes, write_output
    from corrupt.outputs.swesmith import profiles_module, swesmith_instances

    assert job.images is not None
    records = swesmith_instances(job.tasks, job.images)
    write_output(job.out, json_array(records))
    write_bytes(_profiles_path(job.out), profiles_module(job.tasks).encode())
    return len(records)


FORMAT = ExportFormat(
    name="swesmith",
    listed=3,
    default_name="swesmith.json",
    write=write,
    read=read_json_array,
    view=RecordView("instance_id", ("problem_statement",), _instance_id, agent_images=True),
    needs_images=True,
    extra_images=1,  # the profile's image, with one branch per task
    side_files=lambda out: [_profiles_path(out)],
    side_files_are="SWE-smith profiles",
    marks=("instance_id",),
)
