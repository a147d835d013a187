"""A dataclass's fields as a typer command's options, so an option is declared once, on its field.

A field whose type is ``Annotated[T, typer.Option(...)]`` (or ``typer.Argument``)
becomes a parameter of the command, with the field's name, type and default;
typer reads parameters from ``inspect.signature``, so the command's
``__signature__`` lists them after its own. The command takes their values as
``**fields``, keyed by field name, ready for the dataclass.

A bool field with :data:`~corrupt.pipeline.options.TURNED_OFF_BY_FLAG` in its
metadata is spelt by the flag that turns it off: ``--no-isolation`` gives
``isolation=False`` (a typer flag sets True, so the parameter is
``no_isolation`` and its value is turned round before the command sees it).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar, get_args, get_origin, get_type_hints

from typer.models import ParameterInfo

from corrupt.pipeline.options import TURNED_OFF_BY_FLAG

_R = TypeVar("_R")


@dataclass(frozen=True)
class _Field:
    name: str  # the dataclass's
    parameter: inspect.Parameter  # the command's
    turned_off: bool  # the parameter is the flag that turns the field off


def _option_fields(model: type[Any], leave_out: Collection[str]) -> list[_Field]:
    """The fields of ``model`` that have typer metadata, in declaration order."""
    hints = get_type_hints(model, include_extras=True)
    found = []
    for field in dataclasses.fields(model):
        hint = hints[field.name]
        on_command_line = get_origin(hint) is Annotated and any(
            isinstance(extra, ParameterInfo) for extra in get_args(hint)[1:]
        )
        if field.name in leave_out or not on_command_line:
            continue
        turned_off = bool(field.metadata.get(TURNED_OFF_BY_FLAG))
        if field.default is dataclasses.MISSING:
            default: Any = inspect.Parameter.empty
        else:
            default = not field.default if turned_off else field.default
        name = f"no_{field.name}" if turned_off else field.name
        parameter = inspect.Parameter(
            name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint
        )
        found.append(_Field(field.name, parameter, turned_off))
    return found


def with_fields(
    model: type[Any], *, leave_out: Collection[str] = ()
) -> Callable[[Callable[..., _R]], Callable[..., _R]]:
    """Give a typer command the options of ``model``'s fields (less ``leave_out``) after its own;
    the command takes their values as ``**fields``."""
    fields = _option_fields(model, leave_out)

    def give(command: Callable[..., _R]) -> Callable[..., _R]:
        own = inspect.signature(command, eval_str=True).parameters.values()

        @functools.wraps(command)
        def parsed(**values: Any) -> _R:
            for field in fields:
                if field.turned_off:
                    values[field.name] = not values.pop(field.parameter.name)
            return command(**values)

        parsed.__dict__["__signature__"] = inspect.Signature(
            [p for p in own if p.kind != p.VAR_KEYWORD] + [f.parameter for f in fields]
        )
        return parsed

    return give
