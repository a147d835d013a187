"""Time index + call graph + all metrics on a repository, cold and warm.

    python bench/graph_bench.py PATH [--workers N]

Prints lines of code, seconds and lines/s for:
  cold          empty cache: parse every file (process pool) + resolve + metrics
  warm          same cache again: every file and the finished graph are cache hits
  warm-parse    parse results cached but the graph not (what one edited file costs,
                minus that file's parse): resolve + metrics from cached facts
and, as a yardstick for this machine's current speed, bare ``ast.parse`` of the
same files on one core, with the load average.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import os
import shutil
import tempfile
import time
from pathlib import Path

from corrupt.graph import DEFAULT_EXCLUDES, build_code_graph
from corrupt.graph.discover import discover


def timed(label: str, root: Path, cache: Path, workers: int | None) -> None:
    start = time.perf_counter()
    graph = build_code_graph(root, cache_dir=cache, workers=workers)
    seconds = time.perf_counter() - start
    print(
        f"{label:<11} {graph.lines_of_code:>8} lines {seconds:>7.2f} s "
        f"{graph.lines_of_code / seconds:>9.0f} lines/s  "
        f"({len(graph.metrics)} functions, {len(graph.edges)} edges, {len(graph.skipped)} skipped)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    root = args.path
    _, sources = discover(root, DEFAULT_EXCLUDES)
    texts = [(root / s.path).read_bytes() for s in sources]
    start = time.perf_counter()
    for data in texts:
        with contextlib.suppress(SyntaxError, ValueError):
            ast.parse(data)
    parse_seconds = time.perf_counter() - start
    lines = sum(t.count(b"\n") for t in texts)
    print(f"{root}: {len(sources)} files, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.1f}")
    print(
        f"{'ast.parse':<11} {lines:>8} lines {parse_seconds:>7.2f} s "
        f"{lines / parse_seconds:>9.0f} lines/s  (one core, yardstick)"
    )
    cache = Path(tempfile.mkdtemp(prefix="graph-bench-"))
    try:
        timed("cold", root, cache, args.workers)
        timed("warm", root, cache, args.workers)
        for graph_entry in cache.rglob("g*.pkl"):
            graph_entry.unlink()
        timed("warm-parse", root, cache, args.workers)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
