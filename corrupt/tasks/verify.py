"""Verification: what makes a candidate corruption a valid task (DESIGN.md).

Static checks first (cheap): the corrupted files parse, every changed line lies
inside a target function, signatures are kept, no comment was added, and both
repair forms (edit script, fix patch) restore the original byte for byte.

Then the suite. Why each run that remains is needed (``--verify fast``, the
default):

1. The whole suite on the corrupted tree, once, in a fresh process: it is what FAIL_TO_PASS and
   PASS_TO_PASS are read from (at least ``min_failing`` previously passing tests
   fail), and the floor of what a task costs.
2. The failing tests again, with every passing test that ran a corrupted function
   at baseline: a failure that does not repeat is not part of the task, and those
   are the only tests whose outcome the corruption can make unstable. A test whose
   outcome differs between the two runs is left out of FAIL_TO_PASS and
   PASS_TO_PASS (:class:`Repeats`), as baseline leaves out a flaky test: a test
   that feeds random input to a corrupted function fails in some runs only, and
   it says nothing about a repair either way. Every other test runs
   the code it ran at baseline, where it passed twice (flaky ones are out of
   ``baseline.tests``), and passed once more in run 1. When a changed statement ran
   outside any test (at import or collection), it reaches every test: the whole
   suite runs again. With warm screening this run goes to the warm server (a
   fork, not an interpreter start): whether a failure repeats depends on the code
   the tests run, which the server shows as a fresh process would (it was checked
   on the unchanged code, and re-imports or declines a change a fork cannot show).
   A discovery bug's function is traced in this run (its effect is read from it),
   in run 1's failing tests only: following every call slows a test two- to
   threefold, and only a FAIL_TO_PASS test's trace is read.

No run of the repaired tree: the static checks prove both repairs give back the
original bytes, and the original's suite ran green twice at baseline, so it
would tell the store what it already holds.

``--verify full`` (slow, paranoid) runs the whole suite twice on the corrupted
tree (the failures that repeat are the task, as in fast) and once on the repaired
tree. Both modes judge a rerun the same way, so a task fast writes is one full
writes too, whichever runs a random-input test happens to fail in.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import io
import re
import tokenize
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from corrupt.corruptors.anomalies import new_anomalies, tell_detail
from corrupt.corruptors.models import Corruption, Rejection, RejectionKind
from corrupt.corruptors.reach import ran_outside_tests
from corrupt.graph.models import Symbol
from corrupt.repos.models import Baseline, TestReport, TraceTarget, harness_readable
from corrupt.source.edits import (
    apply_edit_script,
    apply_unified_diff,
    edit_script,
    unified_diff,
)
from corrupt.source.functions import function_at
from corrupt.tasks.modes import VerifyMode

FullRun = Callable[[dict[str, str]], TestReport]
# the named tests only, failing ones traced for calls of the functions given
SomeRun = Callable[[dict[str, str], list[str], Sequence[TraceTarget]], TestReport]


@dataclass
class Repair:
    """The ground truth for one corruption: patches and the PDB edit script."""

    corruption_patch: str
    fix_patch: str
    edit_script: dict[str, dict[str, dict[str, str]]]


@dataclass
class Verification:
    ok: bool
    rejection: Rejection | None = None  # why not, when not ok
    fail_to_pass: list[str] = field(default_factory=list)
    pass_to_pass: list[str] = field(default_factory=list)
    # failed in one run of the corrupted tree and passed in the other: in neither list
    unstable: list[str] = field(default_factory=list)
    report: TestReport | None = None  # the corrupted full-suite run
    runs: int = 0
    rerun: TestReport | None = None  # fast: run 2, traced for ``trace`` (effects read it)


def make_repair(corruption: Corruption) -> Repair:
    files = sorted(corruption.files.items())
    return Repair(
        corruption_patch="".join(
            unified_diff(path, ch.original, ch.corrupted) for path, ch in files
        ),
        fix_patch="".join(unified_diff(path, ch.corrupted, ch.original) for path, ch in files),
        edit_script={path: edit_script(ch.original, ch.corrupted) for path, ch in files},
    )


def static_problems(
    corruption: Corruption, symbols: dict[str, Symbol], repair: Repair
) -> Rejection | None:
    """The first reason this corruption is not a fair task, found without running anything:
    a broken edit, else a mutation tell (:mod:`corrupt.corruptors.anomalies`)."""
    problem = _static_problem(corruption, symbols, repair)
    if problem:
        return Rejection(RejectionKind.UNFAIR, problem)
    tell = _tell(corruption)
    return Rejection(RejectionKind.TELL, tell) if tell else None


def _tell(corruption: Corruption) -> str | None:
    """``OPERATOR: CODE message (in PATH)`` for the first anomaly a corrupted file adds."""
    for path, change in corruption.files.items():
        added = new_anomalies(change.original, change.corrupted)
        if added:
            operators = sorted({b.operator for b in corruption.bugs if b.file == path})
            return tell_detail(operators, added[0], path)
    return None


def _static_problem(
    corruption: Corruption, symbols: dict[str, Symbol], repair: Repair
) -> str | None:
    if not corruption.files:
        return "the corruption changes no file"
    for path, change in corruption.files.items():
        if change.original == change.corrupted:
            return f"{path} is unchanged"
        try:
            corrupted_tree = ast.parse(change.corrupted)
        except SyntaxError as exc:
            return f"{path} does not parse after corruption (line {exc.lineno})"
        spans = [symbols[t] for t in corruption.targets if t in symbols and symbols[t].file == path]
        if not spans:
            return f"{path} is changed but holds no target"
        outside = _lines_changed_outside(change.original, change.corrupted, spans)
        if outside:
            return f"{path} changes line {outside} outside the target functions"
        if _comment_count(change.corrupted) > _comment_count(change.original):
            return f"{path} gains a comment"
        for sym in spans:
            before = _signature(ast.parse(change.original), sym)
            after = _signature(corrupted_tree, sym)
            if after is None:
                return f"{sym.qualname} is gone after corruption"
            if before != after:
                return f"{sym.qualname} changes its signature"
        if apply_edit_script(change.corrupted, repair.edit_script[path]) != change.original:
            return f"the edit script for {path} does not restore the original"
    restored = _apply_fix_patch(corruption, repair.fix_patch)
    if restored is None:
        return "the fix patch does not restore the original"
    return None


def verify_dynamic(
    corruption: Corruption,
    baseline: Baseline,
    run_full: FullRun,
    *,
    min_failing: int,
    mode: VerifyMode = VerifyMode.FULL,
    run_some: SomeRun | None = None,
    covering: Collection[str] = (),
    trace: Sequence[TraceTarget] = (),
) -> Verification:
    """Run 1, then (fast) the failing tests and those of ``covering`` (the tests that ran
    a target at baseline) that the corruption reaches, with ``run_some``; or (full) the
    corrupted suite again and the repaired suite."""
    trusted = set(baseline.tests)
    corrupted = {path: ch.corrupted for path, ch in corruption.files.items()}
    first = run_full(corrupted)
    failing = sorted(first.failing() & trusted)
    if first.timed_out:
        return Verification(
            False, _unverified("the corrupted suite timed out"), report=first, runs=1
        )
    readable = [t for t in failing if harness_readable(t)]
    if len(readable) < min_failing:
        unnamed = len(failing) - len(readable)
        detail = f"; {unnamed} more whose ids harnesses cannot read" if unnamed else ""
        return Verification(
            False,
            _unverified(
                f"only {len(readable)} previously passing tests fail (need {min_failing}){detail}"
            ),
            report=first,
            runs=1,
        )
    passing = sorted(trusted - set(failing))
    fast = mode == VerifyMode.FAST and run_some is not None
    reached = reached_tests(corruption, baseline, covering) if fast else None
    if run_some is not None and reached is not None:
        again = failing + sorted(reached & set(passing))
        # only run 1's failures can be FAIL_TO_PASS, whose traces effects read
        only = frozenset(failing)
        second = run_some(corrupted, again, [dataclasses.replace(t, tests=only) for t in trace])
        ran = second.passing() | second.failing()
    else:
        again, second = sorted(trusted), run_full(corrupted)
        ran = set(again)
    if second.timed_out:
        return Verification(False, _unverified("the rerun timed out"), report=first, runs=2)
    if not set(again) <= ran:
        return Verification(
            False, _unverified("the rerun did not run every test named"), report=first, runs=2
        )
    split = Repeats.of(failing, second.failing() & set(again))
    problem = split.problem(min_failing)
    if problem:
        return Verification(False, _unverified(problem), report=first, runs=2)
    accepted = Verification(
        True,
        None,
        fail_to_pass=split.repeated,
        pass_to_pass=sorted(set(passing) - set(split.unstable)),
        unstable=split.unstable,
        report=first,
        runs=2,
        rerun=second if reached is not None else None,
    )
    if mode == VerifyMode.FAST:
        return accepted
    repaired = run_full({path: ch.original for path, ch in corruption.files.items()})
    still = sorted(repaired.failing() & trusted)
    if still or not trusted <= repaired.passing():
        return Verification(
            False,
            _unverified(f"the suite is not green after the fix ({len(still)} failing)"),
            report=first,
            runs=3,
        )
    return dataclasses.replace(accepted, runs=3)


@dataclass(frozen=True)
class Repeats:
    """The two runs of the corrupted tree compared: a failure that repeats is part of the
    task; a test that failed in one run and passed in the other decides nothing either
    way, so it is left out of both lists, as baseline leaves out a flaky test. Run 2
    need not be whole (fast): a test it did not run is neither."""

    repeated: list[str]  # failed in both runs: FAIL_TO_PASS
    unstable: list[str]  # failed in one run only

    @classmethod
    def of(cls, first: Collection[str], second: Collection[str]) -> Repeats:
        both = set(first) & set(second)
        return cls(sorted(both), sorted((set(first) | set(second)) - both))

    def problem(self, min_failing: int) -> str | None:
        """Why these runs make no task: too few failures repeat, or more tests change their
        outcome than keep it failing (then the repeats are likely chance, not the bug)."""
        readable = sum(harness_readable(t) for t in self.repeated)
        if readable < min_failing:
            return (
                f"only {readable} failures that harnesses can name repeat on the rerun"
                f" (need {min_failing}; {len(self.unstable)} changed their outcome)"
            )
        if len(self.unstable) > len(self.repeated):
            return (
                f"{len(self.unstable)} tests change their outcome between the runs,"
                f" more than the {len(self.repeated)} that fail in both"
            )
        return None


def reached_tests(
    corruption: Corruption, baseline: Baseline, covering: Collection[str]
) -> set[str] | None:
    """The tests whose outcome the corruption can change: ``covering`` (those that ran a
    corrupted function at baseline), or None (every test) when a changed statement ran
    outside any test, at import or collection, or the baseline has no record of that."""
    if not baseline.outside_tests:
        return None
    for path, change in corruption.files.items():
        outside = baseline.outside_tests.get(path, ())
        if ran_outside_tests(change.original, change.corrupted, outside):
            return None
    return set(covering)


def _unverified(detail: str) -> Rejection:
    return Rejection(RejectionKind.NOT_VERIFIED, detail)


def _apply_fix_patch(corruption: Corruption, fix_patch: str) -> dict[str, str] | None:
    restored: dict[str, str] = {}
    for path, change in corruption.files.items():
        own = _file_section(fix_patch, path)
        text = apply_unified_diff(change.corrupted, own)
        if text != change.original:
            return None
        restored[path] = text
    return restored


def _file_section(patch: str, path: str) -> str:
    """The part of a multi-file git diff that touches ``path``."""
    for section in re.split(r"(?m)^(?=diff --git )", patch):
        if section.startswith(f"diff --git a/{path} b/{path}\n"):
            return section
    return ""


def _lines_changed_outside(original: str, corrupted: str, spans: list[Symbol]) -> int | None:
    """First original line (1-based) changed outside every target's span, if any."""
    before = original.splitlines(keepends=True)
    after = corrupted.splitlines(keepends=True)
    ranges = [((s.decorators[0] if s.decorators else s.start_line), s.end_line) for s in spans]
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag == "equal":
            continue
        first, last = i1 + 1, max(i1 + 1, i2)  # an insertion sits before line i1 + 1
        if not any(lo <= first and last <= hi + 1 for lo, hi in ranges):
            return first
    return None


def _comment_count(source: str) -> int:
    try:
        tokens = tokenize.generate_tokens(io.StringIO(source).readline)
        return sum(1 for tok in tokens if tok.type == tokenize.COMMENT)
    except (tokenize.TokenError, SyntaxError):
        return 0


def _signature(
    tree: ast.Module, sym: Symbol
) -> (
    tuple[
        tuple[str, ...],
        tuple[str, ...],
        str | None,
        tuple[str, ...],
        str | None,
        tuple[str, ...],
        bool,
    ]
    | None
):
    """Parameter names and kinds of the target (defaults ignored). The target is found
    by its def line, which a corruption never moves (lines outside the target are
    checked unchanged first): a name alone cannot tell a property's getter from its
    setter, or a redefinition from the definition it replaces."""
    node = function_at(tree, sym.start_line, sym.qualname)
    if node is None:
        return None
    a = node.args
    return (
        tuple(p.arg for p in a.posonlyargs),
        tuple(p.arg for p in a.args),
        a.vararg.arg if a.vararg else None,
        tuple(p.arg for p in a.kwonlyargs),
        a.kwarg.arg if a.kwarg else None,
        tuple(ast.dump(d) for d in node.decorator_list),
        isinstance(node, ast.AsyncFunctionDef),
    )
