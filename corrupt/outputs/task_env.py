"""A materialised task's own environment: the one it was verified in, less the project's code.

The build's venv cannot be handed over as it is: the project is installed in it
from a copy of the original tree, so its site-packages hold the original of every
corrupted function. The task gets a copy of that venv in which every distribution
installed from a local folder (the project, a sub-project it names by path) keeps
its ``.dist-info`` (``importlib.metadata`` still finds its version and entry
points) and loses its files (the tests import the task's tree, as they did in the
build). Console scripts are pointed at the copy's interpreter, not the cache's.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path

from corrupt.errors import CorruptError

TASK_VENV = ".venv"
# corrupt's own notes in a cached venv (what went in, how it was locked): not the task's
NOT_COPIED = shutil.ignore_patterns(".corrupt-*")


def task_environment(source: Path, dest: Path) -> None:
    """Copy the venv at ``source`` to ``dest`` without the code of its local distributions."""
    if not (source / "pyvenv.cfg").is_file():
        raise CorruptError(f"{source} is not a virtual environment")
    shutil.copytree(source, dest, symlinks=True, ignore=NOT_COPIED)
    for info in sorted(dest.glob("lib/python*/site-packages/*.dist-info")):
        _strip(info)
    _repoint_scripts(dest / "bin", source, dest)


def _strip(info: Path) -> None:
    """Delete the files a distribution installed from a local folder owns, outside its
    dist-info (one from an index is left whole)."""
    try:
        origin = json.loads((info / "direct_url.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if not (isinstance(origin, dict) and "dir_info" in origin):
        return
    site = info.parent
    with open(info / "RECORD", encoding="utf-8", newline="") as fh:
        owned = [row[0] for row in csv.reader(fh) if row]
    folders = set()
    for name in owned:
        # normalised, not resolved: a link is removed itself, never what it points at
        path = Path(os.path.normpath(site / name))
        if path.is_relative_to(info) or not path.is_relative_to(site):
            continue  # its metadata stays; a script in bin/ holds no code of the project
        if path.is_file() or path.is_symlink():
            path.unlink()
        folders.add(path.parent)
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        cache = folder / "__pycache__"
        if cache.is_dir():
            shutil.rmtree(cache)
        while folder != site and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent


def _repoint_scripts(bin_dir: Path, source: Path, dest: Path) -> None:
    """Console scripts start with the cached venv's interpreter: the copy's instead."""
    old, new = f"#!{source}/bin/".encode(), f"#!{dest}/bin/".encode()
    for script in bin_dir.iterdir():
        if script.is_symlink() or not script.is_file():
            continue
        data = script.read_bytes()
        if data.startswith(old):
            script.write_bytes(new + data[len(old) :])
