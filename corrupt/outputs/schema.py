"""The columnar schema of exported tasks, derived from the task model itself.

Why derived: a hand-kept copy drifts from :class:`~corrupt.tasks.models.Task`
the day a field is added. Walking the model's annotations gives one schema for
every build, so Parquet and JSONL files from different builds (local or docker,
old or new) concatenate. Maps whose keys vary per task (``edit_script``, a
target's ``metrics``) cannot be one columnar struct, and JSON readers that
infer them turn them into structs of nulls, so they travel as JSON text and
are declared ``Value("string")``: the one string type HF datasets 3.x and 5.x
both read (5.x's ``Json`` feature does not exist in 3.x). :func:`json_columns`
names them, so a reader knows what to ``json.loads``.
"""

from __future__ import annotations

import json
import types
import typing
from enum import Enum
from typing import Any, get_args, get_origin

from pydantic import BaseModel

from corrupt.tasks.models import Task

Feature = dict[str, Any] | list[Any]
_SCALARS: dict[type, str] = {str: "string", int: "int64", float: "float64", bool: "bool"}


def _unwrap(annotation: Any) -> Any:
    """``X | None`` is ``X``: every column is nullable."""
    if get_origin(annotation) in (typing.Union, types.UnionType):
        (inner,) = [arg for arg in get_args(annotation) if arg is not type(None)]
        return inner
    return annotation


def _fields(model: type[BaseModel]) -> dict[str, Any]:
    """The model's fields and computed fields (``difficulty.slice``), as the record has them."""
    hints = typing.get_type_hints(model)
    computed = {name: info.return_type for name, info in model.model_computed_fields.items()}
    return {name: hints[name] for name in model.model_fields} | computed


def feature_of(annotation: Any) -> Feature:
    """The HF ``Features`` dict form of one annotation (lists as ``[feature]``, which 3.x and 5.x read)."""
    annotation = _unwrap(annotation)
    origin = get_origin(annotation)
    if origin is list:
        return [feature_of(get_args(annotation)[0])]
    if origin is dict:
        return {"dtype": "string", "_type": "Value"}  # JSON text
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {name: feature_of(hint) for name, hint in _fields(annotation).items()}
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return {"dtype": "string", "_type": "Value"}
    return {"dtype": _SCALARS[annotation], "_type": "Value"}


def task_features() -> dict[str, Feature]:
    """The declared features of an exported task row."""
    return {name: feature_of(hint) for name, hint in _fields(Task).items()}


def arrow_type(feature: Feature) -> Any:
    import pyarrow as pa

    if isinstance(feature, list):
        return pa.list_(arrow_type(feature[0]))
    if feature.get("_type") == "Value":
        return {"string": pa.string, "int64": pa.int64, "float64": pa.float64, "bool": pa.bool_}[
            feature["dtype"]
        ]()
    return pa.struct([(name, arrow_type(sub)) for name, sub in feature.items()])


def arrow_schema() -> Any:
    """The Parquet schema, carrying the features where HF datasets looks for them."""
    import pyarrow as pa

    features = task_features()
    metadata = {"huggingface": json.dumps({"info": {"features": features}})}
    return pa.schema([(name, arrow_type(f)) for name, f in features.items()], metadata=metadata)


def row_of(task: Task) -> dict[str, Any]:
    """The task as one row of that schema: its maps as JSON text, everything else as is."""
    return {name: _encode(getattr(task, name), hint) for name, hint in _fields(Task).items()}


def _encode(value: Any, annotation: Any) -> Any:
    if value is None:
        return None
    annotation = _unwrap(annotation)
    origin = get_origin(annotation)
    if origin is list:
        return [_encode(item, get_args(annotation)[0]) for item in value]
    if origin is dict:
        return json.dumps(value)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {n: _encode(getattr(value, n), h) for n, h in _fields(annotation).items()}
    return value.value if isinstance(value, Enum) else value
