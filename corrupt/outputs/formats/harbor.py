"""``--format harbor``: a folder of Harbor task folders, one per task, on per-task images.

The folders are written by :mod:`corrupt.outputs.harbor`. An agent is shown
each task folder but ``tests/`` and ``solution/``, which Harbor copies in only
for the verifier and the oracle.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from corrupt.outputs.formats import ExportFormat, Exporting, FolderTask, FolderView

MARKER = ".corrupt-harbor-export"  # what lets a later export replace the folder


def write(job: Exporting) -> int:
    from corrupt.outputs.harbor import write_harbor_tasks

    assert job.images is not None
    return write_harbor_tasks(job.tasks, job.out, job.images.task_image)


def task_folders(folder: Path) -> list[FolderTask]:
    """Each task folder of an export, with its task and image as its ``task.toml`` says."""
    found = []
    for task_folder in sorted(p for p in folder.iterdir() if (p / "task.toml").is_file()):
        config = tomllib.loads((task_folder / "task.toml").read_text(encoding="utf-8"))
        found.append(
            FolderTask(
                task_folder, config["metadata"]["task_id"], config["environment"]["docker_image"]
            )
        )
    return found


FORMAT = ExportFormat(
    name="harbor",
    listed=4,
    default_name="harbor",
    write=write,
    view=FolderView(task_folders, hidden=("tests", "solution")),
    needs_images=True,
    folder=True,
    marker=MARKER,
)
