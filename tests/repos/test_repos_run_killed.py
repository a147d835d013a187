"""corrupt itself killed with SIGKILL mid-run: no test process outlives it, and the
next corrupt process removes the temporary folders it could not."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from repos_run_support import fixture_checkout, session_cache

from corrupt.scratch import sweep

CHILD = """
import sys
from corrupt.repos.checkout import checkout
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.repos.models import Command, Limits
from corrupt.repos.specs import parse_spec
from corrupt.repos.workspace import Workspace

source, cache, marker = sys.argv[1:]
box = LocalSandbox(cache_dir=cache)
pinned = checkout(parse_spec(source), cache_dir=cache)
env = box.prepare(pinned)
with Workspace(pinned) as ws:
    code = "import os, time\\nif os.fork() == 0:\\n    os.setsid()\\ntime.sleep(300)"
    box.run(env, ws.path, Command(["python", "-c", code, marker], limits=Limits(timeout=600)))
"""


def _with_marker(marker: str, *, but: int) -> dict[int, bool]:
    """Processes other than ``but`` with ``marker`` on their command line -> whether each is bwrap."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != but:
            with contextlib.suppress(OSError):
                argv = (entry / "cmdline").read_bytes().split(b"\0")
                if marker.encode() in argv:
                    found[int(entry.name)] = argv[0].endswith(b"bwrap")
    return found


def test_sigkill_of_corrupt_ends_its_runs_and_the_next_start_sweeps_its_folders(tmp_path_factory):
    checkout = fixture_checkout("hostile", tmp_path_factory)
    cache = session_cache(tmp_path_factory)
    marker = f"corrupt-killed-{uuid.uuid4().hex[:8]}"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(checkout.spec.location), str(cache), marker]
    )
    deadline = time.monotonic() + 120

    def sandboxed() -> list[int]:
        return [
            pid for pid, is_bwrap in _with_marker(marker, but=child.pid).items() if not is_bwrap
        ]

    while len(sandboxed()) < 2 and time.monotonic() < deadline:  # the test and its forked child
        time.sleep(0.1)
    assert len(sandboxed()) == 2, "the run never started"
    left = list(Path(tempfile.gettempdir()).glob(f"corrupt-{child.pid}-*"))
    assert left and any(left[0].glob("ws-*"))

    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    deadline = time.monotonic() + 5
    while _with_marker(marker, but=child.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _with_marker(marker, but=child.pid) == {}  # bwrap's own processes included

    assert all(folder.exists() for folder in left)  # nobody cleaned up after the dead process...
    removed = sweep()
    assert set(left) <= set(removed) and not any(folder.exists() for folder in left)  # ...until now
