"""How long Ctrl-C takes to stop a build in the middle of screening.

    python bench/interrupt_bench.py [--runs 3] [--screening warm|fresh]

Builds tests/fixtures/repos_run/sleepy, whose every corruption sleeps a
minute (the per-test timeout is 10 s), sends SIGINT two seconds after
screening begins, and prints the seconds from the signal to the exit, the
exit code, and whether any process of the build outlived it. Target: 2 s.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "repos_run" / "sleepy"


def processes() -> dict[int, tuple[int, bytes]]:
    """pid -> (parent pid, command line) of every process."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text()
                parent = int(stat.rsplit(")", 1)[1].split()[1])
                found[int(entry.name)] = (parent, (entry / "cmdline").read_bytes())
    return found


def descendants(pid: int) -> list[bytes]:
    """Command lines of every process below ``pid``."""
    table = processes()
    below, frontier = [], {pid}
    while frontier:
        frontier = {p for p, (parent, _) in table.items() if parent in frontier}
        below += [table[p][1] for p in frontier]
    return below


def once(work: Path, screening: str) -> tuple[float, int, int]:
    source = shutil.copytree(FIXTURE, work / "sleepy")
    argv = [sys.executable, "-m", "corrupt", "build", str(source), "--mode", "discovery",
            "--n", "1", "--out", str(work / "out"), "--min-lines", "3", "--min-covering", "3",
            "--screening", screening]  # fmt: skip
    child = subprocess.Popen(
        argv,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as in a terminal
    )
    try:
        # screening has begun once a warm server or a selected run appears below the build
        while not any(
            b"_corrupt_warm_" in argv or b"--corrupt-select" in argv
            for argv in descendants(child.pid)
        ):
            if child.poll() is not None:
                raise SystemExit(f"the build ended before screening (exit {child.returncode})")
            time.sleep(0.1)
        time.sleep(2)
        began = time.monotonic()
        child.send_signal(signal.SIGINT)
        below = [p for p, (parent, _) in processes().items() if parent == child.pid]
        child.wait(timeout=120)
        took = time.monotonic() - began
        time.sleep(0.5)
        alive = set(processes())
        return took, child.returncode, sum(p in alive for p in below)
    finally:
        if child.poll() is None:
            child.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--screening", default="warm")
    args = parser.parse_args()
    took = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            seconds, code, left = once(Path(tmp), args.screening)
        took.append(seconds)
        print(
            f"run {run + 1}: stopped {seconds:.2f} s after SIGINT, exit {code}, {left} processes left"
        )
    print(
        f"screening {args.screening}: worst {max(took):.2f} s, median {sorted(took)[len(took) // 2]:.2f} s (target 2 s)"
    )


if __name__ == "__main__":
    main()
