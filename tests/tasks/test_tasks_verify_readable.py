"""A task needs --min-failing failing tests that harnesses can name (ids without whitespace)."""

from __future__ import annotations

from corrupt.corruptors.models import Corruption, FileChange
from corrupt.corruptors.screening import screen
from corrupt.repos.models import Baseline, TestReport, TestResult, harness_readable
from corrupt.tasks.models import TestsRecord
from corrupt.tasks.verify import verify_dynamic

PLAIN = [f"tests/test_a.py::test_{i}" for i in range(3)]
SPACED = [f"tests/test_a.py::test_p[case {i}]" for i in range(3)]
ORIGINAL, BROKEN = "x = 1\n", "x = 2\n"


def run_full(files: dict[str, str]) -> TestReport:
    """The suite's outcome as a function of the tree: every listed test fails on the broken one."""
    outcome = "failed" if files["a.py"] == BROKEN else "passed"
    results = {t: TestResult(t, outcome) for t in PLAIN + SPACED}
    results["tests/test_a.py::test_other"] = TestResult("tests/test_a.py::test_other", "passed")
    return TestReport(results=results, duration=0.1, exit_code=1 if outcome == "failed" else 0)


def verify(min_failing: int):  # type: ignore[no-untyped-def]
    corruption = Corruption(
        kind="adversarial",
        corruptor="procedural:test",
        targets=["a.f"],
        files={"a.py": FileChange(ORIGINAL, BROKEN)},
        bugs=[],
    )
    baseline = Baseline(
        commit="c",
        tests=[*PLAIN, *SPACED, "tests/test_a.py::test_other"],
        flaky=[],
        skipped=[],
        seconds=0.1,
        durations={},
        line_coverage={},
    )
    return verify_dynamic(corruption, baseline, run_full, min_failing=min_failing)


def test_ids_with_whitespace_do_not_count_toward_min_failing() -> None:
    assert [harness_readable(t) for t in PLAIN + SPACED] == [True] * 3 + [False] * 3
    refused = verify(4)  # six tests fail, but only three are readable
    assert not refused.ok and refused.rejection is not None
    assert (
        "only 3 previously passing tests fail (need 4); 3 more whose ids"
        in refused.rejection.detail
    )
    accepted = verify(3)
    assert accepted.ok and sorted(accepted.fail_to_pass) == sorted(PLAIN + SPACED)


def test_exports_read_only_what_harnesses_can_name() -> None:
    record = TestsRecord(
        command="python -m pytest",
        fail_to_pass=PLAIN + SPACED,
        pass_to_pass=[
            "tests/test_b.py::test_q[a b]",
            "tests/test_b.py::test_r",
            "tests/test_b.py::test_t[5m]",  # SWE-bench's v2 parser strips it as a colour code
        ],
        baseline_seconds=1.0,
    )
    assert record.readable() == (PLAIN, ["tests/test_b.py::test_r"])


def test_screening_counts_only_what_verification_counts() -> None:
    """A candidate short of readable failures is dropped at screening, not after a whole
    verification run; the budget goes to the run as it is, and the run counts only
    failures harnesses can name against it (tests/suites/test_suites_runner.py)."""
    budgets: list[int | None] = []

    def screener(files: dict[str, str], tests, budget):  # type: ignore[no-untyped-def]
        budgets.append(budget)
        return run_full(files)

    result = screen(screener, {"a.py": BROKEN}, PLAIN + SPACED, set(PLAIN + SPACED), 4)
    assert len(result.failing) == 6 and result.counted == 3
    assert budgets == [4]
