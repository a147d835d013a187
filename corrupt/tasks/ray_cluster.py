"""Connecting to Ray, shared by ``build-many --executor ray`` and ``build --executor ray``.

Ray is an optional extra (``pip install 'corrupt[ray]'``): it is imported only
here, with a one-line error when it is missing.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from typing import Any

from corrupt.errors import InputError


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise InputError(
            "--executor ray needs the ray package: pip install 'corrupt[ray]'"
        ) from None
    return ray


@contextlib.contextmanager
def ray_cluster(address: str | None, cpus: int) -> Iterator[Any]:
    """The ray module, connected to the cluster at ``address`` (or ``RAY_ADDRESS``), else to a
    cluster of this machine with at least ``cpus`` CPUs, started here and stopped at the end."""
    ray = import_ray()
    where = address or os.environ.get("RAY_ADDRESS")
    if where:
        try:
            ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
        except (ConnectionError, ValueError) as exc:  # unreachable, or not an address
            raise InputError(f"cannot join the Ray cluster at {where}: {exc}") from None
    else:
        ray.init(
            num_cpus=max(os.cpu_count() or 1, cpus),
            include_dashboard=False,
            logging_level=logging.WARNING,
            log_to_driver=False,
        )
    try:
        yield ray
    finally:
        ray.shutdown()
