"""The installed metadata a project declares statically, for a project left unbuilt.

When a project's own build cannot run here (its backend downloads a license text,
an extension needs a compiler), the tests still import its working tree, but a
test that asks ``importlib.metadata`` for the project's version or entry points
finds nothing. PEP 621's ``[project]`` table is the metadata a backend would
write, so ``pyproject-metadata`` (the library meson-python and scikit-build-core
build theirs with) turns it into the ``METADATA`` and ``entry_points.txt`` of a
dist-info; a version the table leaves dynamic is git's description of the pinned
commit, the one every build here is handed.

Pure functions of the project's files: nothing here installs anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from packaging.utils import canonicalize_name
from packaging.version import Version
from pyproject_metadata import ConfigurationError, StandardMetadata

from corrupt.repos.projectfiles import read_toml, table

FALLBACK_VERSION = "0.0.0"


@dataclass(frozen=True)
class StaticDist:
    """A dist-info's files: folder name, then file name -> text."""

    folder: str
    files: dict[str, str]


def static_dist(root: Path, version: str | None) -> StaticDist | None:
    """The dist-info ``root``'s ``[project]`` table describes, or None when it has none
    or the table is not valid PEP 621 (then nothing is claimed for it)."""
    pyproject = read_toml(root / "pyproject.toml")
    project = table(pyproject, "project")
    if not project:
        return None
    dynamic = [str(d) for d in project.get("dynamic", []) if isinstance(d, str)]
    try:
        metadata = StandardMetadata.from_pyproject(
            {**pyproject, "project": {**project, "dynamic": dynamic}},
            root,
            allow_extra_keys=True,
        )
        if metadata.version is None:
            metadata.version = Version(version or FALLBACK_VERSION)
        text = str(metadata.as_rfc822())
    except (ConfigurationError, ValueError, TypeError, OSError, ExceptionGroup):
        return None  # InvalidVersion is a ValueError
    name = canonicalize_name(metadata.name).replace("-", "_")
    files = {"METADATA": text, "INSTALLER": "corrupt\n"}
    groups = {
        "console_scripts": metadata.scripts,
        "gui_scripts": metadata.gui_scripts,
        **metadata.entrypoints,
    }
    points = "".join(
        f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in entries.items()) + "\n"
        for group, entries in groups.items()
        if entries
    )
    if points:
        files["entry_points.txt"] = points
    folder = f"{name}-{metadata.version}.dist-info"
    files["RECORD"] = "".join(f"{folder}/{f},,\n" for f in [*files, "RECORD"])
    return StaticDist(folder, files)
