"""What ``corrupt score`` reads (SWE-bench predictions) and writes (one score per task)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from corrupt.errors import InputError
from corrupt.scoring.localization import Localization


class Prediction(BaseModel):
    """One line of SWE-bench's predictions format, with an optional DSDBench-style
    ``localization`` (see :mod:`corrupt.scoring.localization`)."""

    instance_id: str
    model_name_or_path: str
    model_patch: str = ""
    localization: Localization | list[Localization] | None = None

    @property
    def localizations(self) -> list[Localization] | None:
        if self.localization is None:
            return None
        return self.localization if isinstance(self.localization, list) else [self.localization]

    @property
    def patch_sha256(self) -> str:
        return hashlib.sha256(self.model_patch.encode("utf-8")).hexdigest()


class Score(BaseModel):
    """One scored prediction. The first twelve fields are the documented contract;
    the rest say where the task sits (for tables and plots) and how it was judged."""

    task_id: str
    model: str
    applied: bool
    resolved: bool
    f2p_fixed: float  # fraction of FAIL_TO_PASS passing after the patch
    p2p_broken: int  # PASS_TO_PASS tests no longer passing
    right_function: bool | None  # every corrupted function was edited; None for remove mode
    precision: float | None  # PDB edit-level precision; None when no edit was made
    recall: float  # bugs recovered / bugs
    edited_lines: int  # edits made outside tests and their configuration
    tests_tampered: bool  # the patch touched tests or their configuration (undone before running)
    error: str | None
    mode: str
    kind: str
    slice: str
    n_functions: int
    centrality_pct: float
    complexity_pct: float
    bugs: int
    bugs_recovered: int
    functions_edited: list[str]  # targets the patch edits inside
    edits_outside_targets: int
    tampered_files: list[str]
    apply_mode: str | None  # exact or fuzzy; None when nothing was applied
    epsilon: int
    patch_sha256: str
    test_runs: int
    seconds: float
    hops: int | None = None  # the task's difficulty.hops
    missing: bool = False  # the model gave no prediction for this task of the set
    # Per bug, where the prediction carries a localization (None: it carries none)
    cause_hit: list[bool] | None = None
    effect_hit: list[bool | None] | None = None
    error_match: list[bool | None] | None = None

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (self.task_id, self.model, self.patch_sha256, self.epsilon)


def load_predictions(path: Path) -> list[Prediction]:
    """SWE-bench predictions: JSONL, a JSON list, or a JSON object keyed by instance id."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # a byte-order mark is not data
    except FileNotFoundError:
        raise InputError(f"no such predictions file: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from None
    records = _records(path, text)
    predictions: list[Prediction] = []
    seen: set[tuple[str, str]] = set()
    for where, record in records:
        if isinstance(record, dict) and record.get("model_patch") is None:
            record = {**record, "model_patch": ""}  # SWE-bench writes null for no answer
        try:
            prediction = Prediction.model_validate(record)
        except ValidationError as exc:
            problem = exc.errors()[0]
            field = ".".join(str(p) for p in problem["loc"]) or "record"
            raise InputError(f"{path} {where}: {field}: {problem['msg'].lower()}") from None
        for name in ("instance_id", "model_name_or_path", "model_patch"):
            try:
                getattr(prediction, name).encode("utf-8")
            except UnicodeEncodeError:
                raise InputError(
                    f"{path} {where}: {name} is not valid Unicode (a lone surrogate)"
                ) from None
        key = (prediction.instance_id, prediction.model_name_or_path)
        if key in seen:
            raise InputError(
                f"{path} {where}: a second prediction for {key[0]} by {key[1]}; keep one per model"
            )
        seen.add(key)
        predictions.append(prediction)
    if not predictions:
        raise InputError(f"{path} holds no predictions")
    return predictions


def _records(path: Path, text: str) -> list[tuple[str, Any]]:
    if text.lstrip().startswith("["):
        return [(f"item {i}", r) for i, r in enumerate(_json(path, text), 1)]
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append((f"line {number}", json.loads(line)))
        except json.JSONDecodeError as exc:
            if (
                not records
            ):  # not JSONL: one JSON object, keyed by instance id (SWE-bench allows it)
                try:
                    return _keyed(json.loads(text))
                except json.JSONDecodeError:
                    pass
            raise InputError(f"{path} line {number} is not JSON: {exc.msg}") from None
    if len(records) == 1 and _is_keyed(records[0][1]):
        return _keyed(records[0][1])
    return records


def _is_keyed(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and "instance_id" not in data
        and all(isinstance(v, dict) for v in data.values())
    )


def _keyed(data: Any) -> list[tuple[str, Any]]:
    if not _is_keyed(data):
        return [("record", data)]
    return [
        (f"entry {k}", {"instance_id": k, **v} if isinstance(v, dict) else v)
        for k, v in data.items()
    ]


def _json(path: Path, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path} is not JSON (line {exc.lineno}: {exc.msg})") from None
