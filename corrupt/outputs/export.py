"""Writing tasks in the formats other harnesses already read.

Each format is a module of :mod:`corrupt.outputs.formats`, which says what
it needs and writes it; here are the checks every export makes before its
writer runs: a format that names images or reads the corrupted files is
given them (so it comes from a build folder), a folder is never written to
stdout, and the formats that run in containers get only tasks a harness can
grade.

Files are written to a temporary name and renamed into place (never
half-written), with the mode the umask gives any new file; ``-`` writes to stdout.
"""

from __future__ import annotations

from pathlib import Path

from corrupt.errors import InputError
from corrupt.outputs.formats import ExportFormat, Exporting, FilesFor, export_formats
from corrupt.outputs.task_image import ExportImages
from corrupt.tasks.models import Task


def export_format(name: str) -> ExportFormat:
    formats = export_formats()
    if name not in formats:
        raise InputError(f"unknown export format {name!r}; choose one of {', '.join(formats)}")
    return formats[name]


def runnable(tasks: list[Task]) -> list[Task]:
    """Tasks a harness can grade: with no FAIL_TO_PASS test it can name, any patch would pass.

    Builds verify ``--min-failing`` readable tests; this guards older builds.
    """
    kept = [t for t in tasks if t.tests.readable()[0]]
    if tasks and not kept:
        raise InputError("no task has a FAIL_TO_PASS test whose id a harness can read")
    return kept


def check_target(fmt: ExportFormat, out: Path) -> None:
    """Refuse a target the format cannot write, before any image is built."""
    if fmt.folder and str(out) == "-":
        raise InputError(f"the {fmt.name} format writes a folder of tasks; give --out a folder")


def export_tasks(
    tasks: list[Task],
    name: str,
    out: Path,
    *,
    files_for: FilesFor | None = None,
    images: ExportImages | None = None,
) -> int:
    """Write ``tasks`` to ``out`` (``-``: stdout) in format ``name``; returns the number of records written.

    ``files_for(task) -> {path: (original, corrupted)}`` (``Store.task_files``)
    is needed by the formats that read the corrupted files; ``images`` by those
    that run in containers.
    """
    fmt = export_format(name)
    out = Path(out)
    if fmt.needs_images and images is None:
        raise InputError(
            f"the {fmt.name} format builds per-task images: export from a build folder"
        )
    if fmt.needs_files and files_for is None:
        raise InputError(
            f"the {fmt.name} format needs the corrupted files' contents: export from a build folder"
        )
    check_target(fmt, out)
    if fmt.needs_images:
        tasks = runnable(tasks)
    return fmt.write(Exporting(tasks, out, files_for, images))
