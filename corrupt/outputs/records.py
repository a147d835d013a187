"""The files record formats are written as: JSON lines and JSON arrays, and read back.

Written ASCII-escaped: SWE-bench reads JSONL with ``str.splitlines()``, which
also splits at U+2028/U+0085 inside strings, and SWE-smith opens files in the
locale's encoding. The leak audit reads them back as a harness would.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO

Records = list[dict[str, Any]]


def json_lines(records: Iterable[dict[str, Any]]) -> Callable[[BinaryIO], None]:
    def write(stream: BinaryIO) -> None:
        for record in records:
            stream.write((json.dumps(record) + "\n").encode("ascii"))

    return write


def json_array(records: Records) -> Callable[[BinaryIO], None]:
    def write(stream: BinaryIO) -> None:
        stream.write(json.dumps(records, indent=1).encode("ascii") + b"\n")

    return write


def read_json_lines(path: Path) -> Records:
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def read_json_array(path: Path) -> Records:
    """The records of a JSON array; a lone object is one record."""
    loaded = json.loads(path.read_text(encoding="utf-8"))
    return loaded if isinstance(loaded, list) else [loaded]
