"""build-many on real repositories: the Ray executor against the local one.

    python bench/build_many_bench.py [--only owner/name ...] [--mirrors DIR]
                                     [--work DIR] [-- BUILD OPTIONS]

Each repository of ``bench/corpus.txt`` (default: five small ones with quick
suites) is read from its local mirror at the pinned commit, as
``intake_corpus.py`` does. ``corrupt baseline`` first warms the shared cache
(clone, environment, baseline; not timed), so both measured runs pay only for
graph, selection, corruption and verification. Then ``corrupt build-many``
runs once with ``--executor local`` and once with ``--executor ray`` (a local
cluster), each into a fresh root. Printed: per repository, the status and
task ids of each run (with its seconds) and whether they are identical; the
wall time of each run, the Ray one including the start of its local cluster.
The build options default to ``--mode discovery --n 1``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from intake_corpus import mirror_rewrites, read_corpus, spec_for

HERE = Path(__file__).resolve().parent
PICKS = [
    "pytest-dev/iniconfig",
    "termcolor/termcolor",
    "python-semver/python-semver",
    "un33k/python-slugify",
    "benjaminp/six",
]


def corrupt(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "corrupt.cli", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True)


def task_ids(folder: Path) -> list[str]:
    jsonl = folder / "tasks.jsonl"
    if not jsonl.exists():
        return []
    return [json.loads(line)["task_id"] for line in jsonl.read_text().splitlines()]


def run(
    listing: Path, root: Path, executor: str, build: list[str], env: dict[str, str]
) -> tuple[float, dict[str, dict[str, object]]]:
    shutil.rmtree(root, ignore_errors=True)
    started = time.monotonic()
    args = ["build-many", str(listing), "--root", str(root), "--json", "--executor", executor]
    result = corrupt(*args, *build, env=env)
    seconds = time.monotonic() - started
    rows = {row["folder"]: row for row in map(json.loads, result.stdout.splitlines())}
    if not rows:
        sys.exit(f"build-many --executor {executor} failed: {result.stderr.strip()[-2000:]}")
    return seconds, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=HERE / "corpus.txt")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/build-many-bench"))
    parser.add_argument("--only", nargs="*", default=PICKS, help="owner/name to build")
    parser.add_argument("build", nargs="*", help="build options (after --)")
    args = parser.parse_args()
    build = args.build or ["--mode", "discovery", "--n", "1"]
    pinned = dict(read_corpus(args.corpus)[0])
    specs = [spec_for(name, pinned[name], args.mirrors) for name in args.only]
    args.work.mkdir(parents=True, exist_ok=True)
    listing = args.work / "repos.txt"
    listing.write_text("".join(f"{spec}\n" for spec in specs))
    env = dict(os.environ, XDG_CACHE_HOME=str(args.work / "cache"), COLUMNS="200")
    env.update(mirror_rewrites(args.mirrors))
    for spec in specs:  # warm: clone, environment, baseline
        warm = corrupt("baseline", spec, env=env)
        print(f"warm {'green' if warm.returncode == 0 else 'red'}: {spec}", flush=True)
    local_s, local = run(listing, args.work / "local", "local", build, env)
    ray_s, ray = run(listing, args.work / "ray", "ray", build, env)
    print(f"\n{'repository':<36} {'local':<13} {'ray':<13} {'tasks':>5}  identical ids")
    for folder in local:
        ids = task_ids(args.work / "local" / folder), task_ids(args.work / "ray" / folder)
        same = "yes" if ids[0] == ids[1] else "NO"
        cells = [
            f"{r.get('status')} {r.get('seconds', 0):.0f} s"
            for r in (local[folder], ray.get(folder, {}))
        ]
        print(f"{folder:<36} {cells[0]:<13} {cells[1]:<13} {len(ids[0]):>5}  {same}")
        for row in (local[folder], ray.get(folder, {})):
            if row.get("cause"):
                print(f"    [{row['cause']}] {row['message']}")
    print(f"\nwall time: local {local_s:.0f} s, ray {ray_s:.0f} s ({local_s / ray_s:.2f}x)")


if __name__ == "__main__":
    main()
