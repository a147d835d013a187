"""Cut a suite over its time budget to the test files that fit, instead of refusing it.

Suites over the budget mostly spend their time in a few files: integration,
typing, diagram or style tests. Keeping the quickest files that fit keeps the
most files, and test files mostly map onto the modules they exercise, so most of
the code stays covered; the slow files are left out, named, and every later run
(screening, verification, scoring, the task's own command) runs the kept files
only. The cut is chosen from one measuring run of the whole suite, without
coverage, given :data:`MEASURE_FACTOR` times the budget: a file that did not
finish in it, or never started, is left out.
"""

from __future__ import annotations

from pathlib import Path

from corrupt.repos.models import Baseline, TestReport

MEASURE_FACTOR = 5.0
# The kept files' tests take at most this share of the budget: the rest is for
# starting Python, collecting, and a slower or busier machine on a later run.
SHARE = 0.5
UNFINISHED = "Timeout"  # runner._mark_unfinished's exc_type for a test the run's timeout cut


def quickest_files(report: TestReport, tree: Path, seconds: float) -> list[str]:
    """The test files of ``report`` whose tests all finished, the quickest first as long
    as their tests' time adds up to at most ``seconds``, in the order the run ran them;
    files that are not paths in ``tree`` (a nodeid under another rootdir) are skipped."""
    by_file: dict[str, float] = {}
    unfinished: set[str] = set()
    for nodeid, result in report.results.items():
        file = nodeid.split("::", 1)[0]
        by_file[file] = by_file.get(file, 0.0) + result.duration
        if result.exc_type == UNFINISHED:
            unfinished.add(file)
    spent = 0.0
    kept: set[str] = set()
    for file in sorted(by_file, key=lambda f: (by_file[f], f)):
        if file in unfinished or not (tree / file).is_file():
            continue
        if spent + by_file[file] > seconds:
            break
        spent += by_file[file]
        kept.add(file)
    return [file for file in by_file if file in kept]


def suite_cut(baseline: Baseline) -> str:
    """What a user reads about a cut suite: how much of it is kept, and how to keep it all."""
    return (
        f"the suite is over the {baseline.cut_at:g} s time budget: every run is cut to the "
        f"{len(baseline.subset)} quickest of the {baseline.suite_files} test files it ran "
        f"({len(baseline.tests)} passing tests); --time-limit raises the budget"
    )
