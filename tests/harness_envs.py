"""The harnesses' own code, each in the environment scripts/harness-envs.sh made for it.

SWE-bench 5, SWE-smith and the two HF datasets majors cannot share one venv
with corrupt (or each other), and Harbor needs Python >= 3.12, so tests run
their snippets in side venvs, or in the Debian trixie root under bubblewrap.
Missing environments skip locally and fail under CI, like the docker tests.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _missing(what: str) -> None:
    message = f'{what} missing: run `eval "$(bash scripts/harness-envs.sh)"`'
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def side_python(name: str) -> Path:
    envs = Path(os.environ.get("CORRUPT_HARNESS_ENVS", ROOT / ".cache" / "harness"))
    python = envs / name / "bin" / "python"
    if not python.exists():
        _missing(f"the {name} environment ({python})")
    return python


def run_side(name: str, code: str, *args: str, cwd: Path | None = None) -> object:
    """Run ``code`` with the side venv's python; it prints one JSON value, returned decoded."""
    result = subprocess.run(
        [str(side_python(name)), "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"},
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def run_harbor(code: str, *binds: Path) -> object:
    """Run ``code`` with Harbor's python in the trixie root; ``binds`` appear at the same paths."""
    root = os.environ.get("CORRUPT_HARBOR_ROOT", "/var/cache/corrupt/rootfs-trixie-harbor")
    if not Path(root, "opt/harbor/bin/python").exists():
        _missing(f"Harbor's root ({root})")
    mounts = [arg for path in binds for arg in ("--bind", str(path), str(path))]
    result = subprocess.run(
        ["bwrap", "--bind", root, "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        + mounts
        + ["--setenv", "HOME", "/root", "/opt/harbor/bin/python", "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])
