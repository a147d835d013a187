"""Which files make up the code under analysis, and what each module is called.

Module names follow DESIGN.md: dotted paths relative to the import root
(``src/`` in a src layout, else the repository root); ``pkg/__init__.py`` is
``pkg``. Tests, docs, examples and build/venv folders are excluded by glob
rules so that the graph describes the library, not its scaffolding.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from corrupt.repos.testsupport import TEST_PATTERNS

# A pattern ending in "/" names a directory (matched against every path
# component); a pattern with "/" inside matches the whole relative path;
# any other pattern matches the file name.
DEFAULT_EXCLUDES: tuple[str, ...] = (
    *TEST_PATTERNS,
    "docs/",
    "doc/",
    "example/",
    "examples/",
    "setup.py",
    "build/",
    "dist/",
    ".*/",
    "venv/",
    "env/",
    "site-packages/",
    "node_modules/",
    "__pycache__/",
    "*.egg-info/",
)


@dataclass(frozen=True)
class SourceFile:
    path: str  # posix, relative to the repository root
    module: str
    is_package: bool  # an __init__.py


def find_import_root(root: Path) -> str:
    """``"src"`` for a src layout holding Python code, else ``""`` (the root itself)."""
    src = root / "src"
    if src.is_dir() and any(src.rglob("*.py")):
        return "src"
    return ""


def _excluded(rel_parts: tuple[str, ...], is_dir: bool, patterns: tuple[str, ...]) -> bool:
    rel = "/".join(rel_parts)
    name = rel_parts[-1]
    for pattern in patterns:
        if pattern.endswith("/"):
            if is_dir and fnmatch.fnmatchcase(name, pattern[:-1]):
                return True
        elif "/" in pattern:
            if fnmatch.fnmatchcase(rel, pattern):
                return True
        elif not is_dir and fnmatch.fnmatchcase(name, pattern):
            return True
    return False


def module_name(rel_to_import_root: tuple[str, ...]) -> tuple[str, bool]:
    """Dotted module name of a file given its path parts under the import root."""
    *dirs, filename = rel_to_import_root
    stem = filename[:-3]
    if stem == "__init__":
        return (".".join(dirs) or "__init__"), True
    return ".".join([*dirs, stem]), False


def discover(
    root: Path, exclude: tuple[str, ...] = DEFAULT_EXCLUDES
) -> tuple[str, list[SourceFile]]:
    """Return the import root and every included ``*.py`` file under it, sorted by path."""
    import_root = find_import_root(root)
    base = root / import_root if import_root else root
    prefix = tuple(Path(import_root).parts)
    files: list[SourceFile] = []
    for dirpath, dirnames, filenames in os.walk(base):
        rel_dir = Path(dirpath).relative_to(base).parts
        dirnames[:] = sorted(
            d for d in dirnames if not _excluded((*prefix, *rel_dir, d), True, exclude)
        )
        for filename in sorted(filenames):
            if not filename.endswith(".py"):
                continue
            parts = (*rel_dir, filename)
            if _excluded((*prefix, *parts), False, exclude):
                continue
            if not all(p.isidentifier() for p in (*rel_dir, filename[:-3])):
                continue  # not importable under a dotted name
            if not stat.S_ISREG(os.lstat(os.path.join(dirpath, filename)).st_mode):
                continue  # a committed link may lead to /dev/zero or a secret: never read it
            name, is_package = module_name(parts)
            files.append(SourceFile("/".join((*prefix, *parts)), name, is_package))
    files.sort(key=lambda f: f.path)
    return import_root, files
