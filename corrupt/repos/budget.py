"""Cut a suite over its time budget to the test files (and tests) that fit; not refuse it.

Suites over the budget mostly spend their time in a few files: integration,
typing, diagram or style tests. Keeping the quickest files that fit keeps the
most files, and test files mostly map onto the modules they exercise, so most of
the code stays covered; the slow files are left out, named, and every later run
(screening, verification, scoring, the task's own command) runs the kept files
only. The cut is chosen from one measuring run of the whole suite, without
coverage, given :data:`MEASURE_FACTOR` times the budget: a file that did not
finish in it, or never started, is left out. Time the kept files leave goes to
single tests of the others, the quickest first, so a suite of one slow file
keeps part of it.
"""

from __future__ import annotations

from pathlib import Path

from corrupt.repos.models import Baseline, TestReport

MEASURE_FACTOR = 5.0
# The kept files' tests take at most this share of the budget: the rest is for
# starting Python, collecting, and a slower or busier machine on a later run.
SHARE = 0.5
UNFINISHED = "Timeout"  # runner._mark_unfinished's exc_type for a test the run's timeout cut


def quickest_cut(report: TestReport, tree: Path, seconds: float) -> list[str]:
    """What a suite over budget is cut to, in the order ``report``'s run ran it: the test
    files whose tests all finished, the quickest first as long as their tests' time adds
    up to at most ``seconds``; then, in the time left, the quickest finished tests of the
    files left out, by node id. A suite that is one slow file (pytest-cov's: 115 tests
    that each start pytest, 300 s) keeps part of it rather than nothing. Files that are
    not paths in ``tree`` (a nodeid under another rootdir) are skipped."""
    by_file: dict[str, float] = {}
    unfinished: set[str] = set()
    for nodeid, result in report.results.items():
        file = nodeid.split("::", 1)[0]
        by_file[file] = by_file.get(file, 0.0) + result.duration
        if result.exc_type == UNFINISHED:
            unfinished.add(file)
    in_tree = {file for file in by_file if (tree / file).is_file()}
    spent = 0.0
    kept: set[str] = set()
    for file in sorted(in_tree - unfinished, key=lambda f: (by_file[f], f)):
        if spent + by_file[file] > seconds:
            break
        spent += by_file[file]
        kept.add(file)
    left = in_tree - kept
    tests = {
        nodeid: result.duration
        for nodeid, result in report.results.items()
        if nodeid.split("::", 1)[0] in left and result.exc_type != UNFINISHED
    }
    for nodeid in sorted(tests, key=lambda n: (tests[n], n)):
        if spent + tests[nodeid] > seconds:
            break
        spent += tests[nodeid]
        kept.add(nodeid)
    # a kept file where its first test ran, a kept single test where it ran
    order = (file if (file := nodeid.split("::", 1)[0]) in kept else nodeid
             for nodeid in report.results)  # fmt: skip
    return [entry for entry in dict.fromkeys(order) if entry in kept]


def kept_files(subset: list[str]) -> list[str]:
    """The whole files of a cut (its other entries are single tests, by node id)."""
    return [entry for entry in subset if "::" not in entry]


def suite_cut(baseline: Baseline) -> str:
    """What a user reads about a cut suite: how much of it is kept, and how to keep it all."""
    files = len(kept_files(baseline.subset))
    tests = len(baseline.subset) - files
    ran = f"of the {baseline.suite_files} test files it ran"
    kept = f"{files} quickest {ran}" if files else f"{tests} single tests {ran}"
    if files and tests:
        kept += f" and {tests} single tests of the others"
    return (
        f"the suite is over the {baseline.cut_at:g} s time budget: every run is cut to the "
        f"{kept} ({len(baseline.tests)} passing tests); --time-limit raises the budget"
    )
