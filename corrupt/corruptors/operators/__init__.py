"""Procedural corruption operators: the catalogue and single-site mutant generation.

``CATALOGUE`` maps each operator's name to an instance; every operator carries
its ODC category/subcategory and HumanEvalFix category. ``generate_mutants``
runs all (or the named) operators over one function and returns checked,
deduplicated single-site mutants in a seed-determined order.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable

from corrupt.corruptors.operators.base import FunctionContext, Operator, Site
from corrupt.errors import InputError


def _discovered() -> list[type[Operator]]:
    """Every :class:`Operator` subclass defined in this package's modules: a new operator
    is one class in a module here, with nothing to register."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    return Operator.__subclasses__()


CATALOGUE: dict[str, Operator] = {
    cls.name: cls() for cls in sorted(_discovered(), key=lambda c: c.name)
}


def select(names: Iterable[str] | None = None) -> list[Operator]:
    """The named operators (all when ``names`` is None), in catalogue (name) order."""
    if names is None:
        return list(CATALOGUE.values())
    wanted = set(names)
    unknown = sorted(wanted - set(CATALOGUE))
    if unknown:
        raise InputError(f"unknown operator(s): {', '.join(unknown)}; see CATALOGUE")
    return [op for name, op in CATALOGUE.items() if name in wanted]


from corrupt.corruptors.operators.mutate import generate_mutants, mutant_problem  # noqa: E402

__all__ = [
    "CATALOGUE",
    "FunctionContext",
    "Operator",
    "Site",
    "generate_mutants",
    "mutant_problem",
    "select",
]
