"""Green or red, with the cause, for `corrupt baseline` on a corpus of real repositories.

    python bench/intake_corpus.py [--corpus bench/corpus.txt] [--mirrors DIR]
                                  [--work DIR] [--jobs 2] [--only NAME ...] [--rerun]
                                  [--half tuned|held-out] [--time-limit S]

The corpus lists ``owner/name commit`` lines. Each repository is read from a
local mirror (``MIRRORS/owner+name/repo``, a bare clone with its tags, as
``fetch github:owner/name`` leaves it; submodules' GitHub URLs are sent to
the mirrors too, through git's ``insteadOf``), or from GitHub with ``--github``, and
run as a new user would: ``corrupt baseline URL@commit`` with no options and
no hand edits, in a cache of its own under ``--work``; ``--time-limit`` raises
the suite's budget from corrupt's default. How many suites fit DESIGN's 60 s
repository-selection limit is printed beside the figure. Lines the corpus marks
``held-out`` are reported apart: intake is never changed because of one of them.
Results go to
``WORK/results.jsonl`` one line per repository, so an interrupted run resumes
where it stopped; the table and the green figure are printed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The exit codes of corrupt.errors, read as the cause a user sees.
CAUSES = {0: "green", 13: "install", 14: "no tests", 15: "red", 16: "timeout", 12: "revision"}
REPO_TIMEOUT = 3600.0
# Repositories GitHub serves under a new name (it redirects the old one).
MOVED = {"BurntSushi/toml-test": "toml-lang/toml-test"}
SELECTION_LIMIT = 60.0  # DESIGN.md: a repository's suite runs in at most 60 s
SUITE_TIME = re.compile(r"^time: ([\d.]+) s per run$", re.MULTILINE)


def read_corpus(path: Path) -> tuple[list[tuple[str, str]], set[str]]:
    """The corpus's ``(name, commit)`` rows, and the names marked ``held-out``."""
    rows, held_out = [], set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, commit, *tags = line.split()
            rows.append((name, commit))
            if "held-out" in tags:
                held_out.add(name)
    return rows, held_out


def spec_for(name: str, commit: str, mirrors: Path | None) -> str:
    if mirrors is None:
        return f"github:{name}@{commit}"
    bare = mirrors / name.replace("/", "+") / "repo"
    return f"file://{bare}@{commit}"


def mirror_rewrites(mirrors: Path) -> dict[str, str]:
    """git config, as environment variables, that sends GitHub URLs (submodules') to mirrors."""
    pairs = []
    for bare in sorted(mirrors.glob("*+*/repo")):
        name = bare.parent.name.replace("+", "/")
        for alias in [name, *(old for old, new in MOVED.items() if new == name)]:
            pairs += [(f"url.file://{bare}.insteadOf", f"https://github.com/{alias}{end}")
                      for end in (".git", "")]  # fmt: skip
    env = {"GIT_CONFIG_COUNT": str(len(pairs))}
    for i, (key, value) in enumerate(pairs):
        env.update({f"GIT_CONFIG_KEY_{i}": key, f"GIT_CONFIG_VALUE_{i}": value})
    return env


# What `corrupt baseline` prints when it left out tests red in both runs for a cause it
# cannot name (up to 5 % of them, by default).
RED_LEFT_OUT = "left out, red in both runs"


def run_one(name: str, commit: str, args: argparse.Namespace) -> dict[str, object]:
    spec = spec_for(name, commit, None if args.github else args.mirrors)
    env = dict(os.environ, XDG_CACHE_HOME=str(args.work / "cache"), COLUMNS="200")
    if not args.github:
        env.update(mirror_rewrites(args.mirrors))
    started = time.monotonic()
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "corrupt.cli",
                "baseline",
                spec,
                "--explain",
                *([] if args.time_limit is None else ["--time-limit", str(args.time_limit)]),
            ],  # fmt: skip
            env=env,
            capture_output=True,
            text=True,
            timeout=REPO_TIMEOUT,
        )
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired:
        code, out, err = None, "", f"no answer within {REPO_TIMEOUT:g} s"
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    cause = CAUSES.get(code, "error") if code is not None else "timeout"
    if cause == "green" and RED_LEFT_OUT in out:  # what --strict-baseline refuses
        cause = "green (red left out)"
    elif cause == "green" and "flaky:" in out:
        cause = "green (flaky excluded)"
    suite = SUITE_TIME.search(out)
    return {
        "repo": name,
        "commit": commit,
        "exit": code,
        "cause": cause,
        "seconds": round(time.monotonic() - started, 1),
        "suite_seconds": float(suite.group(1)) if suite else None,
        "error": ""
        if code == 0
        else lines[-1]
        if lines
        else (err.strip().splitlines() or [""])[-1],
        "summary": out.strip(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=HERE / "corpus.txt")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--github", action="store_true", help="clone from GitHub, not mirrors")
    parser.add_argument("--work", type=Path, default=Path("/tmp/intake-corpus"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=None, help="owner/name to run")
    parser.add_argument("--half", choices=["tuned", "held-out"], help="run only this half")
    parser.add_argument("--rerun", action="store_true", help="forget earlier results")
    parser.add_argument(
        "--time-limit", type=float, default=None,
        help="seconds a suite may take (default: corrupt's own, as a new user runs it)",
    )  # fmt: skip
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    results_path = args.work / "results.jsonl"
    if args.rerun:
        results_path.unlink(missing_ok=True)
    done = {}
    if results_path.exists():
        for line in results_path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            done[row["repo"]] = row
    corpus, held_out = read_corpus(args.corpus)
    if args.half:
        corpus = [(n, c) for n, c in corpus if (n in held_out) == (args.half == "held-out")]
    if args.only:
        corpus = [(n, c) for n, c in corpus if n in args.only]
        for name, _ in corpus:
            done.pop(name, None)
    todo = [(n, c) for n, c in corpus if n not in done]
    print(f"{len(corpus)} repositories, {len(todo)} to run, {args.jobs} at a time", flush=True)

    def work(item: tuple[str, str]) -> dict[str, object]:
        row = run_one(*item, args)
        with results_path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
        print(
            f"{row['cause']:<24} {row['seconds']:>7.1f} s  {row['repo']}  {row['error']}",
            flush=True,
        )
        return row

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for row in pool.map(work, todo):
            done[str(row["repo"])] = row
    rows = [done[n] for n, _ in corpus if n in done]
    print()
    print(f"{'repository':<40} {'result':<24} {'seconds':>8} {'suite s':>8}  cause")
    for row in rows:
        suite_s = "" if row.get("suite_seconds") is None else f"{row['suite_seconds']:.1f}"
        cause = "" if row["exit"] == 0 else row["error"]
        print(f"{row['repo']:<40} {row['cause']:<24} {row['seconds']:>8} {suite_s:>8}  {cause}")
    for label, part in halves(rows, held_out):
        summarize(label, part)


def halves(
    rows: list[dict[str, object]], held_out: set[str]
) -> list[tuple[str, list[dict[str, object]]]]:
    """All rows, then (where the corpus marks some held-out) the tuned and held-out halves."""
    if not held_out:
        return [("all", rows)]
    tuned = [row for row in rows if row["repo"] not in held_out]
    kept = [row for row in rows if row["repo"] in held_out]
    return [("all", rows), ("tuned (intake may change for these)", tuned),
            ("held-out (never tuned for)", kept)]  # fmt: skip


def summarize(label: str, rows: list[dict[str, object]]) -> None:
    green = [row for row in rows if str(row["cause"]).startswith("green")]
    fast = [row for row in green if (row.get("suite_seconds") or 0) <= SELECTION_LIMIT]
    share = 100 * len(green) / max(len(rows), 1)
    print(f"\n{label}: green {len(green)} of {len(rows)} ({share:.0f}%)")
    # A clone that fails is the source's fault (a mirror missing objects), not intake's.
    cloned = [row for row in rows if "cannot clone" not in str(row["error"])]
    if len(cloned) < len(rows):
        share = 100 * len(green) / max(len(cloned), 1)
        print(f"  green of the {len(cloned)} that could be cloned: {len(green)} ({share:.0f}%)")
    print(f"  green and within the {SELECTION_LIMIT:g} s selection limit: {len(fast)}")
    strict = [row for row in green if row["cause"] != "green (red left out)"]
    share = 100 * len(strict) / max(len(rows), 1)
    print(f"  green with no red test left out (as --strict-baseline): {len(strict)} ({share:.0f}%)")


if __name__ == "__main__":
    main()
