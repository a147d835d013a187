"""The export formats: one module each in this package, found by listing it, so adding a format is adding its module.

A format's module holds ``FORMAT``, an :class:`ExportFormat` saying all the
rest of corrupt needs to know: its name, the file it is written to by
default, what it needs (per-task images, the corrupted files' contents), its
writer, and how the leak audit recognises what it wrote and reads it back as
a harness shows it to an agent. ``corrupt export``, its ``--format`` choices
and ``corrupt audit`` all come from here, with no list of formats of their
own. The modules import what their writers need only when they write, so
listing the formats (as ``corrupt --help`` does) loads neither pyarrow nor
the image builders.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from corrupt.outputs.records import Records

if TYPE_CHECKING:
    from corrupt.outputs.task_image import ExportImages
    from corrupt.tasks.models import Task

FilesFor = Callable[["Task"], dict[str, tuple[str, str]]]


@dataclass(frozen=True)
class Exporting:
    """One export to write: the tasks, where to, and what a build folder gives the formats
    that need it (``files_for(task) -> {path: (original, corrupted)}`` is ``Store.task_files``)."""

    tasks: list[Task]
    out: Path  # "-" is stdout
    files_for: FilesFor | None = None
    images: ExportImages | None = None


def _task_id(task: Task) -> str:
    return task.task_id


@dataclass(frozen=True)
class RecordView:
    """What a harness shows an agent of each record of a file: the fields the audit reads."""

    id_field: str  # the field naming the task
    shown: tuple[str, ...]  # the fields an agent is given
    task_key: Callable[[Task], str] = _task_id  # what id_field holds for a task
    # image_name is the image the agent works in; otherwise it names the image the task was
    # verified in, which holds the original installed, like any repository image
    agent_images: bool = False


@dataclass(frozen=True)
class FolderTask:
    """One task's folder in a folder export, and the image its agent works in."""

    folder: Path
    task_id: str
    image: str


@dataclass(frozen=True)
class FolderView:
    """What a harness shows an agent of a folder of task folders: each folder but ``hidden``."""

    tasks: Callable[[Path], list[FolderTask]]
    hidden: tuple[str, ...]  # what the harness copies in only after the agent is done


@dataclass(frozen=True)
class Unread:
    """A format the audit does not read: nothing in it is for an agent."""

    why: str  # said after an export
    refusal: str  # the audit's error when asked to read it


@dataclass(frozen=True)
class ExportFormat:
    """One export format, as every part of corrupt that handles exports sees it."""

    name: str  # what --format takes
    listed: int  # its place wherever the formats are listed (--format's choices, messages)
    default_name: str  # the file (or folder) written in the build folder without --out
    write: Callable[[Exporting], int]  # writes the export; the number of records written
    view: RecordView | FolderView | Unread  # what an agent is shown of it
    read: Callable[[Path], Records] | None = None  # its records read back (a file format)
    needs_images: bool = False  # names per-task images: from a build folder, with an engine
    extra_images: int = 0  # images it builds besides one per task
    needs_files: bool = False  # needs the corrupted files' contents: from a build folder
    folder: bool = False  # writes a folder of tasks, never to stdout
    side_files: Callable[[Path], list[Path]] = lambda out: []  # written beside ``out``
    side_files_are: str | None = None  # what its side files are, when the CLI names them
    # How the audit tells what wrote a target: the keys its records hold, the telling one
    # first (of the formats whose telling key the first record holds, the one with most
    # keys wins), a file suffix, or a file in a folder.
    marks: tuple[str, ...] = ()
    suffix: str | None = None
    marker: str | None = None


@cache
def export_formats() -> dict[str, ExportFormat]:
    """Every format by name, in the order they are listed."""
    found: list[ExportFormat] = []
    for module in pkgutil.iter_modules([str(Path(__file__).parent)]):
        declared: ExportFormat = importlib.import_module(f"{__name__}.{module.name}").FORMAT
        found.append(declared)
    return {f.name: f for f in sorted(found, key=lambda f: f.listed)}


def format_names() -> list[str]:
    return list(export_formats())
