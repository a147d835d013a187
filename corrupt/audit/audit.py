"""The leak audit: a scripted cheater looking for the answer where an agent could.

Each audit reads one written target — a materialised task folder, a Harbor
task folder, the records of a file export, an image — with the needles of the
tasks it holds (:mod:`corrupt.audit.needles`), and returns plain
:class:`Leak` records. Evidence is per task: a task's image holds the other
tasks' functions as the repository has them, and that is no leak.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from corrupt.audit.needles import task_needles, tree_texts
from corrupt.audit.scan import Compiled, Hit, Needle, Scanner, normalise
from corrupt.tasks.models import Task


@dataclass(frozen=True)
class Leak:
    task_id: str
    path: str
    route: str  # file, archive, compiled, git, text
    where: str

    def line(self) -> str:
        return f"task {self.task_id}: the original of {self.path} is readable in {self.where} ({self.route})"


@dataclass
class AuditResult:
    """What one audit read and found; ``unchecked`` names tasks or files it could not judge."""

    target: str
    task_ids: list[str] = field(default_factory=list)
    needles: int = 0
    images: list[str] = field(default_factory=list)
    leaks: list[Leak] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.leaks

    @property
    def tasks(self) -> int:
        return len(set(self.task_ids))

    def as_dict(self) -> dict[str, object]:
        return {
            "target": self.target,
            "passed": self.passed,
            "tasks": self.tasks,
            "needles": self.needles,
            "images": self.images,
            "leaks": [leak.line() for leak in self.leaks],
            "unchecked": self.unchecked,
        }

    def merge(self, part: AuditResult) -> None:
        """Fold in the audit of a part (a task folder, an image) of this target."""
        self.task_ids += [t for t in part.task_ids if t not in self.task_ids]
        self.images += part.images
        self.unchecked += part.unchecked
        self.leaks += [leak for leak in part.leaks if leak not in self.leaks]

    def add(self, hits: Iterable[Hit]) -> None:
        for hit in hits:
            leak = Leak(hit.task_id, hit.path, hit.route, hit.where)
            if leak not in self.leaks:
                self.leaks.append(leak)


class Evidence:
    """Each task's needles and compiled targets, worked out when a target first needs them.

    The repository's own text files are read once; a task's needles must occur
    in none of them but its own corrupted files.
    """

    def __init__(
        self,
        tasks: dict[str, Task],
        files_for: Callable[[str], dict[str, tuple[str, str]]],
        tree: Path,
    ) -> None:
        self.tasks = tasks
        self.files_for = files_for
        self.tree = tree
        self._texts: dict[str, str] | None = None
        self._found: dict[str, tuple[list[Needle], list[Compiled]]] = {}

    def _of(self, task_id: str) -> tuple[list[Needle], list[Compiled]]:
        if task_id not in self._found:
            if self._texts is None:
                self._texts = tree_texts(self.tree)
            files = self.files_for(task_id)
            others = [text for path, text in self._texts.items() if path not in files]
            self._found[task_id] = task_needles(self.tasks[task_id], files, others)
        return self._found[task_id]

    def needles(self, task_id: str) -> list[Needle]:
        return self._of(task_id)[0]

    def scanner(self, task_ids: Iterable[str]) -> Scanner:
        ids = list(task_ids)
        return Scanner(
            [n for t in ids for n in self._of(t)[0]], [c for t in ids for c in self._of(t)[1]]
        )

    def result(self, target: str, task_ids: Iterable[str]) -> AuditResult:
        """An empty result for ``target`` and what it looks for."""
        ids = list(dict.fromkeys(task_ids))
        return AuditResult(target, ids, sum(len(self.needles(t)) for t in ids))

    def without_needles(self, task_ids: Iterable[str]) -> list[str]:
        return [f"task {t}: no line of its fix is unique" for t in task_ids if not self.needles(t)]


def audit_folder(
    root: Path, evidence: Evidence, task_ids: list[str], *, leave_out: Iterable[str] = ()
) -> AuditResult:
    """Every file and git object under ``root`` except the top-level entries ``leave_out``."""
    result = evidence.result(str(root), task_ids)
    scanner = evidence.scanner(task_ids)
    skipped = set(leave_out)
    for entry in sorted(root.iterdir()):
        if entry.name in skipped:
            continue
        if entry.is_dir() and not entry.is_symlink():
            result.add(scanner.scan_tree(entry))
        elif entry.is_file() and not entry.is_symlink():
            result.add(scanner.scan_bytes(str(entry), entry.read_bytes()))
    result.add(_foreign(scanner))
    result.unchecked += [f"{where} (too large to read)" for where in scanner.skipped]
    return result


def audit_texts(target: str, evidence: Evidence, texts: list[tuple[str, str, str]]) -> AuditResult:
    """``texts``: (task id, where, text) of what a harness shows the agent (instructions, prompts)."""
    result = evidence.result(target, [t for t, _, _ in texts])
    for task_id, where, text in texts:
        flat = normalise(text)
        result.add(
            Hit(task_id, n.path, "text", where)
            for n in evidence.needles(task_id)
            if n.block in flat
        )
    return result


def _foreign(scanner: Scanner) -> list[Hit]:
    """Byte-code of a corrupted module compiled by another Python: it cannot be told apart, so it fails."""
    return [
        Hit(c.task_id, c.path, "compiled", f"{where} (compiled by another Python)")
        for where, _ in scanner.foreign
        for c in scanner.modules_named_as(where)
    ]
