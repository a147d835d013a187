"""Reading a repository's configuration files, whatever they hold.

Configuration is repository data: a ``pyproject.toml`` may hold a number where
a table belongs, a list of numbers where strings belong, or not parse at all.
Intake reads it through these functions, which answer ``{}``, ``[]`` or None
for anything missing or of the wrong shape instead of failing the build.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any


def read_text(path: Path) -> str | None:
    """The file's text, or None when it is missing, unreadable or not UTF-8."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def read_toml(path: Path) -> dict[str, Any]:
    """The file's TOML, or {} when it is missing, unreadable or not TOML."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def table(data: object, *keys: str) -> dict[str, Any]:
    """``data[k1][k2]...`` when every step is a table, else {}."""
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def strings(value: object) -> list[str]:
    """The strings of a list (a lone string is a list of one); anything else gives []."""
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
