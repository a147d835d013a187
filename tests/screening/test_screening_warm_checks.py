"""Which test a failed warm check names: the one that failed, not one left unrun after it."""

from __future__ import annotations

from corrupt.repos.models import TestReport, TestResult
from corrupt.screening.warm_checks import first_not_passed

MODULE = "tests/test_tracebacks.py::"
# sorted, as the check lists them: the class's test comes before the module-level one
CHECKED = [f"{MODULE}TestLogException::test_log", f"{MODULE}test_ok", f"{MODULE}test_recursive"]


def report(**outcomes: str) -> TestReport:
    results = {f"{MODULE}{name}": TestResult(f"{MODULE}{name}", o) for name, o in outcomes.items()}
    return TestReport(results=results, duration=1.0, exit_code=1, stopped_early=True)


def test_a_failure_is_named_before_a_test_the_budget_left_unrun():
    ran = report(test_ok="passed", test_recursive="failed")  # stopped there: the class's unrun
    assert first_not_passed(ran, CHECKED) == (f"{MODULE}test_recursive", "failed")


def test_an_unrun_test_is_named_when_nothing_failed():
    ran = report(test_ok="passed", test_recursive="passed")
    assert first_not_passed(ran, CHECKED) == (f"{MODULE}TestLogException::test_log", "not run")


def test_a_check_that_held_names_nothing():
    ran = report(
        **{"TestLogException::test_log": "passed", "test_ok": "passed"}, test_recursive="passed"
    )
    assert first_not_passed(ran, CHECKED) is None
