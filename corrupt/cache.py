"""Where corrupt keeps what it can reuse: clones, environments, baselines, parsed files.

One root for every stage, ``$XDG_CACHE_HOME/corrupt`` (else ``~/.cache/corrupt``),
so a user (or a test run) moves or clears all of it with one variable.
"""

from __future__ import annotations

import os
from pathlib import Path


def xdg_cache_home() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def cache_root() -> Path:
    return xdg_cache_home() / "corrupt"
