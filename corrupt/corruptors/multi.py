"""Multi-function composition: several single-target corruptions in one task.

PDB composes atomic bugs only when they are independent: each bug alone is
detectable, no bug is redundant (undoing any one still leaves failures, so a
solver must fix every one), and bugs in one file are at least a few lines
apart, so each keeps its own edit-script block and fixing one neither adds nor
removes edits needed by another. :func:`compose` merges the members' edits and
checks exactly that, reusing what is already known (a member's failing tests
from its own screening) instead of rerunning it. :class:`MultiCorruptor` is
the :class:`~corrupt.corruptors.models.Corruptor` over it: it asks a
single-function corruptor for each member, then composes.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from corrupt.corruptors.models import (
    Bug,
    Corruption,
    CorruptionKind,
    CorruptionOutcome,
    CorruptionRequest,
    FileChange,
    Rejection,
    RejectionKind,
    Screener,
    TargetSource,
)
from corrupt.corruptors.screening import screen
from corrupt.repos.models import harness_readable
from corrupt.source.edits import changed_lines


@dataclass(frozen=True)
class _Hunk:
    """One member's change to a file, in original-file coordinates (0-based, end exclusive)."""

    member: int
    start: int
    end: int
    lines: tuple[str, ...]  # replacement lines, terminators kept


MemberSearch = Callable[[TargetSource, Screener], CorruptionOutcome]


@dataclass(frozen=True)
class MultiCorruptor:
    """Corrupts each target with ``member`` (the build's cached single-function search), then composes."""

    member: MemberSearch
    min_stride: int = 3
    name: str = "multi"

    def corrupt(self, request: CorruptionRequest, screener: Screener) -> CorruptionOutcome:
        label = "+".join(t.qualname for t in request.targets)
        members = []
        for target in request.targets:
            outcome = self.member(target, screener)
            if outcome.corruption is None:
                detail = f"member {target.qualname}: {outcome.rejection or 'no corruption found'}"
                return CorruptionOutcome(label, rejection=Rejection(RejectionKind.MEMBER, detail))
            members.append(outcome.corruption)
        result = compose(
            members,
            screener,
            set(request.baseline_passing),
            min_failing=request.min_failing,
            min_stride=self.min_stride,
        )
        if isinstance(result, Rejection):
            return CorruptionOutcome(label, rejection=result)
        return CorruptionOutcome(label, corruption=result)


def compose(
    members: list[Corruption],
    screener: Screener,
    baseline_passing: set[str],
    *,
    min_failing: int = 5,
    min_stride: int = 3,
    tests: Sequence[str] | None = None,
) -> Corruption | Rejection:
    """The composite corruption, or the rejection saying why these members do not compose.

    ``tests`` limits every screening run (e.g. to the union of the members'
    covering tests); ``None`` runs the whole suite.
    """
    if len(members) < 2:
        return Rejection(RejectionKind.NOT_COMPOSABLE, "a composition needs at least two members")
    targets = [t for m in members for t in m.targets]
    if len(set(targets)) != len(targets):
        return Rejection(RejectionKind.NOT_COMPOSABLE, "members corrupt the same function twice")
    files = _merge(members, range(len(members)), min_stride)
    if isinstance(files, str):
        return Rejection(RejectionKind.NOT_COMPOSABLE, files)

    try:
        checked = _independence(
            members, files, screener, baseline_passing, min_failing, min_stride, tests
        )
    except _ScreenError as exc:
        return Rejection(RejectionKind.SCREEN_ERROR, f"screening failed: {exc}")
    if isinstance(checked, Rejection):
        return checked
    composite, alone, leave_one_out = checked
    return Corruption(
        kind=CorruptionKind.MULTI,
        corruptor="multi:" + "+".join(m.corruptor for m in members),
        targets=targets,
        files={
            path: FileChange(original=_original(members, path), corrupted=text)
            for path, text in files.items()
        },
        bugs=_bugs(members, files, min_stride),
        stats={
            "failing": composite,
            "members_failing": alone,
            "leave_one_out_failing": leave_one_out,
            "members": [m.stats for m in members],
        },
    )


def _independence(
    members: list[Corruption],
    files: dict[str, str],
    screener: Screener,
    baseline_passing: set[str],
    min_failing: int,
    min_stride: int,
    tests: Sequence[str] | None,
) -> Rejection | tuple[list[str], list[list[str]], list[list[str]]]:
    """PDB independence: (composite failing, each member's failing, failing with each undone)."""
    alone: dict[int, list[str]] = {}
    for i, member in enumerate(members):
        known = member.stats.get("failing")
        failing = sorted(set(known) & baseline_passing) if known else None
        if not failing:
            failing = _failing(screener, _texts(member.files), tests, baseline_passing, 1)
        if not failing:
            detail = (
                f"member {i} ({', '.join(member.targets)}) fails no previously passing test alone"
            )
            return Rejection(RejectionKind.NOT_COMPOSABLE, detail)
        alone[i] = failing

    composite = _failing(screener, files, tests, baseline_passing, None)
    counted = sum(harness_readable(t) for t in composite)
    if counted < min_failing:
        detail = f"the composite fails {counted} previously passing test(s), {min_failing} needed"
        return Rejection(RejectionKind.NO_SURVIVOR, detail)

    leave_one_out: dict[int, list[str]] = {}
    for i in range(len(members)):
        rest = [j for j in range(len(members)) if j != i]
        if len(rest) == 1:
            leave_one_out[i] = alone[rest[0]]  # undoing i leaves exactly the other member
            continue
        partial = _merge(members, rest, min_stride)
        assert not isinstance(partial, str)  # a subset of a valid merge is valid
        leave_one_out[i] = _failing(screener, partial, tests, baseline_passing, 1)
        if not leave_one_out[i]:
            detail = f"undoing member {i} alone leaves no failing test: the other members mask each other"
            return Rejection(RejectionKind.NOT_COMPOSABLE, detail)

    n = range(len(members))
    return composite, [alone[i] for i in n], [leave_one_out[i] for i in n]


def _texts(files: dict[str, FileChange]) -> dict[str, str]:
    return {path: change.corrupted for path, change in files.items()}


def _original(members: list[Corruption], path: str) -> str:
    return next(m.files[path].original for m in members if path in m.files)


class _ScreenError(Exception):
    """A screening run failed; compose turns it into its reason string."""


def _failing(
    screener: Screener,
    files: dict[str, str],
    tests: Sequence[str] | None,
    baseline_passing: set[str],
    budget: int | None,
) -> list[str]:
    result = screen(screener, files, tests, baseline_passing, budget)
    if result.error or result.timed_out:
        raise _ScreenError(result.error or "the tests timed out")
    return result.failing


def _hunks(member: int, change: FileChange) -> list[_Hunk]:
    old = change.original.splitlines(keepends=True)
    new = change.corrupted.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [
        _Hunk(member, i1, i2, tuple(new[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _merge(
    members: list[Corruption], chosen: Iterable[int], min_stride: int
) -> dict[str, str] | str:
    """Apply the chosen members' hunks to each file's original, checking they keep apart."""
    by_file: dict[str, list[_Hunk]] = {}
    originals: dict[str, str] = {}
    for i in chosen:
        for path, change in members[i].files.items():
            if originals.setdefault(path, change.original) != change.original:
                return f"members start from different versions of {path}"
            by_file.setdefault(path, []).extend(_hunks(i, change))
    files: dict[str, str] = {}
    for path, hunks in by_file.items():
        hunks.sort(key=lambda h: (h.start, h.end))
        for a, b in zip(hunks, hunks[1:], strict=False):
            # Line-number distance from a's last changed line to b's first.
            gap = b.start + 1 - a.end
            if a.member != b.member and gap < min_stride:
                return (
                    f"edits of members {a.member} and {b.member} in {path} are "
                    f"{max(gap, 0)} line(s) apart, {min_stride} needed"
                )
        lines = originals[path].splitlines(keepends=True)
        for hunk in reversed(hunks):
            lines[hunk.start : hunk.end] = hunk.lines
        files[path] = "".join(lines)
    return files


def _bugs(members: list[Corruption], files: dict[str, str], min_stride: int) -> list[Bug]:
    """One bug per member, its lines in the composite's numbering.

    A member's lines are those that change when only that member is undone,
    measured the way single-target tasks measure them (``changed_lines``).
    """
    bugs: list[Bug] = []
    for i, member in enumerate(members):
        rest = [j for j in range(len(members)) if j != i]
        merged = _merge(members, rest, min_stride)
        assert not isinstance(merged, str)  # a subset of a valid merge is valid
        for bug in member.bugs:
            undone = merged.get(bug.file, member.files[bug.file].original)
            bugs.append(replace(bug, lines=changed_lines(undone, files[bug.file])))
    return bugs
