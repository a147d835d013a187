"""Mutation tells: code no person writes is found, in the corrupted file only, and the
operators that made the two tells seen on real builds no longer make them."""

from __future__ import annotations

import ast
import textwrap

import pytest

from corrupt.corruptors.anomalies import new_anomalies, own_findings, ruff_findings
from corrupt.corruptors.models import Bug, Corruption, CorruptionKind, FileChange, RejectionKind
from corrupt.corruptors.operators import generate_mutants
from corrupt.corruptors.validate import tells
from corrupt.graph.models import Symbol
from corrupt.tasks.verify import make_repair, static_problems

ORIGINAL = (
    "def overlap(start, end, other_start, other_end, states):\n"
    "    overlap_start = max(start, other_start)\n"
    "    overlap_end = min(end, other_end)\n"
    "    if overlap_start < overlap_end:\n"
    "        return states[-1]\n"
    "    while True:\n"
    "        if not states:\n"
    "            break\n"
    "        states = states[1:]\n"
    "    width = overlap_end - overlap_start\n"
    "    return width if width > 0 else 0\n"
)


@pytest.mark.parametrize(
    ("before", "after", "code"),
    [
        ("overlap_start < overlap_end", "overlap_start < overlap_start", "CT001"),
        ("states[-1]", "states[-0]", "CT004"),
        ("overlap_end - overlap_start", "overlap_end - overlap_end", "CT002"),
        ("width if width > 0 else 0", "width if width > 0 else width", "CT005"),
        ("overlap_start < overlap_end", "overlap_start < overlap_end and overlap_start < overlap_end", "CT003"),
    ],
)  # fmt: skip
def test_own_checks_find_what_only_the_mutant_has(before, after, code):
    mutant = ORIGINAL.replace(before, after, 1)
    added = new_anomalies(ORIGINAL, mutant, ruff=False)
    assert [a.split()[0] for a in added] == [code]
    assert not own_findings(ORIGINAL)


def test_a_call_twice_is_not_an_anomaly():
    assert not own_findings("def f(g):\n    return g() - g()\n")


def test_ruff_finds_its_rules_and_an_anomaly_the_original_has_is_not_new():
    mutant = ORIGINAL.replace("overlap_end = min", "overlap_end = overlap_end = min", 1)
    mutant = mutant.replace("return states[-1]", "states = states\n        return states[-1]")
    codes = {f.split()[0] for f in ruff_findings(mutant)}
    assert {"PLW0127", "PLW0128"} <= codes
    assert not ruff_findings(ORIGINAL)
    both = "def f(a):\n    return {1: a, 1: a}\n"
    assert [f.split()[0] for f in ruff_findings(both).elements()] == ["F601"]
    assert new_anomalies(both, both.replace("return", "a = a\n    return")) == [
        "PLW0127 Self-assignment of variable `a`"
    ]


def _mutants(operator: str) -> list[str]:
    node = ast.parse(ORIGINAL).body[0]
    assert isinstance(node, ast.FunctionDef)
    made = generate_mutants(ORIGINAL, "m.py", "m.overlap", 1, operators=[operator])
    return [m.corrupted for m in made]


@pytest.mark.parametrize("operator", ["wrong_variable", "nudge_constant", "none_vs_falsy"])
def test_the_operators_that_made_tells_make_none(operator):
    mutants = _mutants(operator)
    assert mutants  # they still corrupt the function, elsewhere
    for mutant in mutants:
        assert not new_anomalies(ORIGINAL, mutant), mutant
    made = "".join(mutants)
    assert "states[-0]" not in made and "start < overlap_start" not in made
    assert "True is not None" not in made


def test_screening_tells_name_the_anomaly_of_one_function():
    where = ("m.overlap", 1)
    source = "X = 1\n\n\n" + ORIGINAL
    mutant = source.replace("states[-1]", "states[-0]")
    assert tells(source, mutant, ("m.overlap", 4)) == ["anomaly: CT004 signed zero: -0"]
    nested = textwrap.indent(ORIGINAL, "    ")
    wrapped = "class C:\n" + nested
    assert tells(wrapped, wrapped.replace("[-1]", "[-0]"), ("m.C.overlap", 2)) == [
        "anomaly: CT004 signed zero: -0"
    ]
    assert tells(ORIGINAL, ORIGINAL.replace("[-1]", "[-2]"), where) == []


def test_verification_rejects_a_tell_as_its_own_kind_naming_operator_and_rule():
    mutant = ORIGINAL.replace("overlap_start < overlap_end", "overlap_start < overlap_start")
    corruption = Corruption(
        kind=CorruptionKind.ADVERSARIAL,
        corruptor="procedural:wrong_variable",
        targets=["m.overlap"],
        files={"m.py": FileChange(ORIGINAL, mutant)},
        bugs=[Bug("m.overlap", "m.py", [4], "Assignment", "wrong variable", "wrong_variable")],
    )
    symbols = {"m.overlap": Symbol("m.overlap", "function", "m.py", 1, 11)}
    rejection = static_problems(corruption, symbols, make_repair(corruption))
    assert rejection is not None and rejection.kind == RejectionKind.TELL
    assert rejection.detail.startswith("wrong_variable: CT001 compared with itself")
    assert rejection.detail.endswith("(in m.py)")
    fair = Corruption(
        kind=CorruptionKind.ADVERSARIAL,
        corruptor="procedural:nudge_constant",
        targets=["m.overlap"],
        files={"m.py": FileChange(ORIGINAL, ORIGINAL.replace("[-1]", "[-2]"))},
        bugs=[Bug("m.overlap", "m.py", [5], "Assignment", "wrong constant", "nudge_constant")],
    )
    assert static_problems(fair, symbols, make_repair(fair)) is None


def test_the_report_counts_tells_per_operator():
    from corrupt.corruptors.anomalies import tell_detail
    from corrupt.corruptors.models import Rejection
    from corrupt.outputs.report import ReportData, _summary
    from corrupt.tasks.store import CandidateRow, CandidateStatus

    def rejected(key: str, kind: RejectionKind, detail: str) -> CandidateRow:
        return CandidateRow(
            key, "discovery", ["m.f"], CandidateStatus.REJECTED, "procedural", 1, 0.1, None, None,
            Rejection(kind, detail),
        )  # fmt: skip

    candidates = [
        rejected("a", RejectionKind.TELL, tell_detail(["wrong_variable"], "CT001 x", "m.py")),
        rejected("b", RejectionKind.TELL, tell_detail(["nudge_constant", "wrong_variable"], "F841 y", "m.py")),
        rejected("c", RejectionKind.NOT_VERIFIED, "wrong_variable: only 2 tests fail"),
    ]  # fmt: skip
    page = _summary(ReportData({"name": "m"}, [], candidates, []))
    assert "<th>mutation tells by operator</th><td>2 wrong_variable, 1 nudge_constant</td>" in page
