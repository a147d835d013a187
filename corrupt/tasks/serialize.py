"""JSON round trip for corruptions, so screened members survive a resumed build."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from corrupt.corruptors.models import Bug, Corruption, Effect, FileChange


def corruption_to_dict(corruption: Corruption) -> dict[str, Any]:
    return asdict(corruption)


def corruption_from_dict(data: dict[str, Any]) -> Corruption:
    return Corruption(
        kind=data["kind"],
        corruptor=data["corruptor"],
        targets=list(data["targets"]),
        files={path: FileChange(**change) for path, change in data["files"].items()},
        bugs=[
            Bug(**{**bug, "lines": list(bug["lines"]), "effect": Effect(**bug.get("effect") or {})})
            for bug in data["bugs"]
        ],
        stats=dict(data.get("stats") or {}),
    )
