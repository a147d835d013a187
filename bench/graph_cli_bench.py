"""End-to-end time of ``corrupt graph`` on the standard library, cold and warm, as a user runs it.

    python bench/graph_cli_bench.py [--runs 3] [--corpus DIR]

Copies every top-level ``*.py`` file of this interpreter's standard library
into a temporary folder (unless ``--corpus`` names one) and runs
``python -m corrupt graph DIR --json OUT`` as a subprocess, so interpreter
start-up, imports, the table and the JSON file all count:
  cold   a fresh, empty ``$XDG_CACHE_HOME`` for each run
  warm   the same command again on the cache the cold run left
Prints each run's seconds, the medians and whether they meet the targets
(cold <= 5 s, warm <= 1 s). The ``corrupt`` run is the one of this checkout.
Under ``PYTHONDONTWRITEBYTECODE`` (said in the first line) every import
compiles from source unless compiled files already exist, about 0.25 s of a
warm run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

TARGETS = {"cold": 5.0, "warm": 1.0}
CHECKOUT = Path(__file__).resolve().parent.parent


def stdlib_corpus(folder: Path) -> Path:
    """A copy of the standard library's top-level modules (no packages)."""
    corpus = folder / "stdlib"
    corpus.mkdir()
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
        shutil.copyfile(path, corpus / path.name)
    return corpus


def run_graph(corpus: Path, cache: Path, out: Path) -> float:
    """Seconds one ``corrupt graph`` subprocess takes, start to exit."""
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    command = [sys.executable, "-m", "corrupt", "graph", str(corpus), "--json", str(out)]
    start = time.perf_counter()
    # -m puts the working folder first on sys.path: this checkout's package is the one run
    subprocess.run(command, env=env, cwd=CHECKOUT, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--corpus", type=Path, default=None, help="folder to use instead")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="graph-cli-bench-") as tmp:
        folder = Path(tmp)
        corpus = args.corpus.resolve() if args.corpus else stdlib_corpus(folder)
        files = sorted(corpus.rglob("*.py"))
        lines = sum(path.read_bytes().count(b"\n") for path in files)
        bytecode = "not written" if sys.dont_write_bytecode else "written"
        print(
            f"{corpus}: {len(files)} files, {lines} lines, load {os.getloadavg()[0]:.1f}, "
            f"bytecode {bytecode}"
        )
        seconds: dict[str, list[float]] = {"cold": [], "warm": []}
        for run in range(args.runs):
            cache = folder / f"cache-{run}"
            out = folder / "graph.json"
            seconds["cold"].append(run_graph(corpus, cache, out))
            seconds["warm"].append(run_graph(corpus, cache, out))
            shutil.rmtree(cache, ignore_errors=True)
        for label, times in seconds.items():
            median = statistics.median(times)
            verdict = "met" if median <= TARGETS[label] else "NOT met"
            runs = " ".join(f"{t:.2f}" for t in times)
            print(
                f"{label:<5} runs {runs} s  median {median:.2f} s  "
                f"(target <= {TARGETS[label]:g} s: {verdict})"
            )


if __name__ == "__main__":
    main()
