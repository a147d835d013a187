"""What a project's Python files mention: read as text, bounded, no code run.

Some of a suite's needs show only in what its code says, not in any
configuration: the locales it sets (:mod:`corrupt.repos.locales`), the bytecode
files it compiles or looks for. These readers answer from the files' text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from corrupt.repos.projectfiles import read_text

MAX_FILES = 3000
MAX_FILE_BYTES = 500_000
SKIPPED_DIRS = frozenset({".git", ".tox", ".nox", ".venv", "venv", "node_modules", "build"})
# Code (or an error) that compiles modules itself or looks for their bytecode: with the
# sandbox's bytecode cache (``PYTHONPYCACHEPREFIX``) the files are elsewhere than it looks.
HANDLES_BYTECODE = re.compile(
    r"\bpy_compile\b|\bcompileall\b|cache_from_source|source_from_cache|__pycache__"
    r"|pycache_prefix|\.pyc\b"
)


def python_texts(root: Path, *, tests_only: bool = False) -> Iterator[str]:
    """The text of the tree's Python files (with ``tests_only``, those whose path names
    tests: test folders, test modules, conftest files), in path order, at most
    :data:`MAX_FILES` of them."""
    seen = 0
    for path in sorted(root.rglob("*.py")):
        if seen >= MAX_FILES:
            return
        parts = path.relative_to(root).parts
        if SKIPPED_DIRS.intersection(parts[:-1]) or path.is_symlink():
            continue
        if tests_only and not any("test" in part.lower() for part in parts):  # conftest too
            continue
        seen += 1
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
        except OSError:
            continue
        text = read_text(path)
        if text is not None:
            yield text


def handles_bytecode(root: Path) -> bool:
    """Whether the project's code compiles modules or looks for their ``.pyc`` files."""
    return any(HANDLES_BYTECODE.search(text) for text in python_texts(root))
