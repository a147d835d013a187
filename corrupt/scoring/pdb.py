"""PDB's edit-level precision and the alignment bug-level recall is checked on.

The ground truth of a task is its edit script (corrupted → original), split
into one group of edits per bug. A solver's edit *aligns* with a bug when, in
the same file, it

1. stands on a line the bug's ground truth edits (exact line), or
2. belongs to a change block that holds such an edit (containing: a hunk
   that rewrites a region around the bug), or
3. lies within ε lines of one of the bug's edits and leaves the same content,
   whitespace aside (nearby with identical content: the same fix one line off,
   or indented otherwise).

An edit aligned with several bugs goes to the nearest. A bug needs as many
edits as its ground truth has; up to ε extra aligned edits per bug are
tolerated, so

    precision = Σ_bugs min(aligned_b, needed_b + ε) / edits made

(None when no edit was made). An unaligned edit is never necessary. Recall is
decided by tests, not here: a bug counts as recovered only if its aligned
edits alone, applied to the corrupted tree, make the tests that bug broke
pass (:mod:`corrupt.scoring.score`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from corrupt.scoring.patch import Edit
from corrupt.tasks.models import Task


@dataclass(frozen=True)
class Alignment:
    made: int  # edits the solver made outside test support
    aligned: list[list[Edit]]  # per bug, in task.bugs order
    precision: float | None


def ground_truth(task: Task) -> list[list[Edit]]:
    """The task's edit script split per bug (:meth:`Task.edits_by_bug`), as edits."""
    return [
        [
            Edit(
                file,
                int(key.strip()),
                edit["type"],
                edit.get("original", ""),
                edit.get("modified", ""),
            )
            for file, script in sorted(scripts.items())
            for key, edit in script.items()
        ]
        for scripts in task.edits_by_bug()
    ]


def align(made: list[Edit], truth: list[list[Edit]], epsilon: int) -> Alignment:
    """Assign each made edit to at most one bug and compute precision (module doc)."""
    exact_lines = [{(e.file, e.line) for e in edits} for edits in truth]
    blocks_of: list[set[int]] = [set() for _ in truth]
    for edit in made:
        for bug, lines in enumerate(exact_lines):
            if (edit.file, edit.line) in lines:
                blocks_of[bug].add(edit.block)
    aligned: list[list[Edit]] = [[] for _ in truth]
    for edit in made:
        owners = [
            bug
            for bug, edits in enumerate(truth)
            if (edit.file, edit.line) in exact_lines[bug]
            or edit.block in blocks_of[bug]
            or any(
                g.file == edit.file
                and abs(g.line - edit.line) <= epsilon
                and g.content == edit.content
                for g in edits
            )
        ]
        if owners:
            nearest = min(
                owners,
                key=lambda bug: _distance(
                    edit.line, [g.line for g in truth[bug] if g.file == edit.file] or [10**9]
                ),
            )
            aligned[nearest].append(edit)
    necessary = sum(min(len(a), len(t) + epsilon) for a, t in zip(aligned, truth, strict=True))
    precision = round(necessary / len(made), 4) if made else None
    return Alignment(len(made), aligned, precision)


def _distance(line: int, lines: list[int]) -> int:
    return min(abs(line - other) for other in lines)


def by_file(edits: list[Edit]) -> dict[str, list[Edit]]:
    grouped: dict[str, list[Edit]] = defaultdict(list)
    for edit in edits:
        grouped[edit.file].append(edit)
    return dict(grouped)
