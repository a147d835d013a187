"""What made a build: corrupt's version and a digest of the code that decides its tasks.

A resumed build keeps every candidate and task its store already holds. When
the corruptors, selection or verification changed in between, those records
came from other code than the rest of the build will, and the user should
know: the store keeps the identity of the engine that last built into it.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from corrupt import __version__

PACKAGE = Path(__file__).resolve().parents[1]
# The code whose change can change which tasks a build writes.
DECIDING = (
    "source",
    "corruptors",
    "selection",
    "prepare.py",
    "tasks/verify.py",
    "screening/screen.py",
    "tasks/assemble.py",
    "pipeline/build.py",
    "pipeline/options.py",  # the defaults: --min-failing, --min-covering, ...
)


@functools.cache
def engine_identity() -> dict[str, str]:
    digest = hashlib.sha256()
    for part in DECIDING:
        root = PACKAGE / part
        for path in sorted(root.rglob("*.py") if root.is_dir() else [root]):
            digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + path.read_bytes())
    return {"version": __version__, "code": digest.hexdigest()[:16]}
