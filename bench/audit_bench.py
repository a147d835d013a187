"""The leak audit over every export of a build: what it read, what it found, what it cost.

    python bench/audit_bench.py BUILD... [--images] [--work DIR]

For each build folder, writes every export (``jsonl``, ``parquet``, ``pdb``;
with ``--images`` also ``swebench``, ``swesmith`` and ``harbor``, which need a
container engine in ``DOCKER_HOST``) and one materialised task (with
``--images``, ``materialize --image``) through the real CLI, each of which
runs the audit as its last step, then runs ``corrupt audit`` on each again
and prints per target: tasks, needles, images read, leaks, and the seconds the
audit alone took. A leak makes the export itself fail; the table shows that
as ``export failed``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CORRUPT = [sys.executable, "-m", "corrupt.cli"]
FILE_FORMATS = {"jsonl": "tasks.jsonl", "parquet": "tasks.parquet", "pdb": "pdb.json"}
IMAGE_FORMATS = {"swebench": "swebench.jsonl", "swesmith": "swesmith.json", "harbor": "harbor"}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CORRUPT, *args], capture_output=True, text=True, timeout=7200)


def first_task(build: Path) -> str:
    return str(json.loads((build / "tasks.jsonl").read_text().splitlines()[0])["task_id"])


def bench(build: Path, work: Path, images: bool) -> list[tuple[str, ...]]:
    rows = []
    formats = {**FILE_FORMATS, **(IMAGE_FORMATS if images else {})}
    targets = []
    for fmt, name in formats.items():
        target = work / fmt / name
        written = run("export", str(build), "--format", fmt, "--out", str(target))
        if written.returncode != 0:
            rows.append((build.name, fmt, "export failed", written.stderr.strip()[-200:]))
            continue
        targets.append((fmt, target))
    task = work / "materialized"
    flags = ["--image"] if images else []
    made = run("materialize", first_task(build), "--build", str(build), "--out", str(task), *flags)
    if made.returncode == 0:
        targets.append(("materialized" + (" --image" if images else ""), task))
    else:
        rows.append((build.name, "materialized", "failed", made.stderr.strip()[-200:]))
    for fmt, target in targets:
        started = time.perf_counter()
        flags = ["--json", *([] if images else ["--no-images"])]
        audited = run("audit", str(build), str(target), *flags)
        seconds = time.perf_counter() - started
        (result,) = json.loads(audited.stdout)
        counts = [result[k] for k in ("tasks", "needles", "images", "leaks", "unchecked")]
        counts = [str(len(c) if isinstance(c, list) else c) for c in counts]
        status = "passed" if result["passed"] else "LEAK: " + result["leaks"][0]
        rows.append((build.name, fmt, *counts, f"{seconds:.1f}", status))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("builds", nargs="+", type=Path)
    parser.add_argument("--images", action="store_true", help="also the container formats")
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="audit-bench-"))
    header = ("build", "target", "tasks", "needles", "images", "leaks", "unchecked", "s", "status")
    print("\t".join(header))
    for build in args.builds:
        for row in bench(build, work / build.name, args.images):
            print("\t".join(row), flush=True)


if __name__ == "__main__":
    main()
