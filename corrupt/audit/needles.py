"""What the audit looks for: each task's original code, in pieces nothing innocent contains.

A needle is a block of the original's lines around each place the fix
changes, grown line by line until it occurs neither in the corrupted file nor
in any other file of the repository, so a hit is a copy of the answer and
never the code every copy of the repository shares. Where another file still
holds the block with eight lines of context each way, that file is itself a
copy of the original (a stale ``build/lib``, a vendored duplicate) and the
block is kept, so the audit names it. A change whose block the corrupted
file itself holds gets no needle; the audit says so rather than guessing.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from corrupt.audit.scan import Compiled, Needle, normalise
from corrupt.tasks.models import Task

MAX_CONTEXT = 8
TEXT_SUFFIXES = {
    ".py",
    ".pyi",
    ".txt",
    ".rst",
    ".md",
    ".cfg",
    ".toml",
    ".ini",
    ".json",
    ".yaml",
    ".yml",
}


def tree_texts(tree: Path) -> dict[str, str]:
    """The repository's text files by path, normalised: what a needle must not occur in."""
    texts = {}
    for path in sorted(tree.rglob("*")):
        if ".git" in path.parts or path.suffix not in TEXT_SUFFIXES:
            continue
        if path.is_file() and not path.is_symlink():
            relative = path.relative_to(tree).as_posix()
            texts[relative] = normalise(path.read_bytes().decode("utf-8", "replace"))
    return texts


def task_needles(
    task: Task, files: dict[str, tuple[str, str]], others: list[str]
) -> tuple[list[Needle], list[Compiled]]:
    """Needles and compiled targets of ``task``; ``others``: :func:`tree_texts` of its tree."""
    needles: list[Needle] = []
    compiled: list[Compiled] = []
    for path, (original, corrupted) in sorted(files.items()):
        needles += [Needle(task.task_id, path, b) for b in _blocks(original, corrupted, others)]
        qualnames = tuple(
            suffix
            for t in task.targets
            if t.file == path
            for suffix in _dotted_suffixes(t.qualname)
        )
        if path.endswith(".py") and qualnames:
            compiled.append(Compiled(task.task_id, path, qualnames, original, corrupted))
    return needles, compiled


def _blocks(original: str, corrupted: str, others: list[str]) -> list[str]:
    old, new = original.splitlines(), corrupted.splitlines()
    in_corrupted = normalise(corrupted)
    blocks = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag == "equal":
            continue
        block = ""
        for context in range(1, MAX_CONTEXT + 1):
            grown = normalise("\n".join(old[max(0, i1 - context) : i2 + context]))
            if grown and grown not in in_corrupted:
                block = grown
                if not any(grown in text for text in others):
                    break
        if block:
            blocks.append(block)
    return blocks


def _dotted_suffixes(qualname: str) -> list[str]:
    """``pkg.mod.Class.method`` → every tail: byte-code names a function without its module."""
    parts = qualname.split(".")
    return [".".join(parts[i:]) for i in range(len(parts))]
