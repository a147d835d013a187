"""A solver's patch: applying it to the corrupted tree, and reading its edits as written.

Precision is about the edits a solver *made*, so they are read from the patch
text itself, not from a diff of the result: a patch that rewrites a whole file
to fix one line made as many edits as the file has lines, even though the
resulting text differs from the corrupted one in a single place. Each change
block of a hunk turns into edits the way an edit script pairs lines
(:func:`corrupt.source.edits.edit_script`): removed and added lines pair up as
``Modify``, the rest are ``Delete`` or ``Add``, all keyed by corrupted-file
line numbers, so they compare directly with the task's ground truth.

The patch comes from an agent and is applied on the host with ``git apply``,
which refuses paths outside the tree, paths through symbolic links and
``.git``; the tree is a throwaway working copy, never the cached clone.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from unidiff.errors import UnidiffParseError
from unidiff.patch import Hunk, PatchSet

from corrupt.errors import CorruptError
from corrupt.repos.gittool import OWN_GIT_ENV
from corrupt.repos.testsupport import is_test_support
from corrupt.source.edits import EditScript

# git apply first as it is, then with a fuzz of one context line, whitespace
# ignored and hunk headers recounted (hand-written and model-written patches
# often miscount their hunks).
APPLY_MODES = {
    "exact": ["--whitespace=nowarn"],
    "fuzzy": ["--whitespace=nowarn", "--recount", "--ignore-whitespace", "-C1"],
}


class PatchError(CorruptError):
    """The patch is not a diff, or does not apply to the corrupted tree."""

    exit_code = 28


@dataclass(frozen=True)
class Edit:
    """One line-level edit in PDB terms, keyed by a 1-based corrupted-file line."""

    file: str
    line: int
    kind: str  # Modify, Delete or Add
    original: str
    modified: str
    block: int = 0  # edits of one change block share it

    @property
    def content(self) -> tuple[str, str]:
        """What the edit leaves behind: the new text, or for a Delete the text removed,
        compared without its whitespace (the same fix indented otherwise is the same fix)."""
        text = self.original if self.kind == "Delete" else self.modified
        return (self.kind, " ".join(text.split()))


@dataclass(frozen=True)
class SolverPatch:
    text: str
    files: list[str]  # every path the patch touches (both names of a rename)
    edits: list[Edit]  # as written, in files that existed in the corrupted tree or are new

    def edits_in(self, files: set[str]) -> list[Edit]:
        return [e for e in self.edits if e.file in files]


def modules_of_tests(nodeids: Iterable[str]) -> set[str]:
    """The files test ids live in, less product modules whose doctests they name.

    ``pkg/mod.py::pkg.mod.func`` is a doctest in a product module: putting that
    module back as committed would undo the fix itself, so it is not a test
    file here (a test file by name, like ``tests/test_mod.py``, always is).
    """
    files = set()
    for nodeid in nodeids:
        path, _, name = nodeid.partition("::")
        stem = PurePosixPath(path).stem
        module = PurePosixPath(path).parent.name if stem == "__init__" else stem
        dotted = name.split("::", 1)[0].split("[", 1)[0].split(".")
        if is_test_support(path, set()) or module not in dotted:
            files.add(path)
    return files


def check_patch(tree: Path, text: str) -> str:
    """The first mode in which ``text`` applies in ``tree``, or a one-line :class:`PatchError`."""
    errors = []
    for mode, flags in APPLY_MODES.items():
        error = _git_apply(tree, text, [*flags, "--check"])
        if error is None:
            return mode
        errors.append(error)
    raise PatchError(f"the patch does not apply: {errors[0]}")


def apply_patch(tree: Path, text: str, mode: str) -> None:
    """Apply ``text`` in ``tree`` the way :func:`check_patch` found it applies."""
    error = _git_apply(tree, text, APPLY_MODES[mode])
    if error is not None:
        raise PatchError(f"the patch does not apply: {error}")


def _git_env(tree: Path) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        **OWN_GIT_ENV,
        "GIT_CEILING_DIRECTORIES": str(tree.parent),  # never a repository around the tree
    }


def _git_apply(tree: Path, text: str, flags: list[str]) -> str | None:
    """None when git applied (or would apply) the patch, else git's first error line."""
    result = subprocess.run(
        ["git", "-c", "core.hooksPath=/dev/null", "apply", *flags, "-"],
        cwd=tree,
        input=text.encode("utf-8", "surrogateescape"),
        env=_git_env(tree),
        capture_output=True,
    )
    if result.returncode == 0:
        return None
    lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
    errors = [line for line in lines if line.startswith("error:")] or lines or ["git apply failed"]
    return errors[0].removeprefix("error: ")


def read_patch(text: str, text_of: Callable[[str], str], tree: Path) -> SolverPatch:
    """The files a patch touches and its edits as written, located in the corrupted
    ``tree``, whose files ``text_of(path)`` reads ("" for a file that is not there).

    Which files a patch touches is git's answer, the one that counts when it
    is applied: rename and copy headers, quoted and escaped names all name
    files that the ``---``/``+++`` lines do not. The text is normalised as
    models' patches need: a missing final newline added, blank context lines
    given their space, and hunk headers recounted from their bodies (the
    edits counted are the lines the hunks hold, whatever the header claims).
    """
    if not text.strip():
        return SolverPatch("", [], [])
    if "\0" in text:
        raise PatchError("the patch holds a NUL character")
    text = normalized(text)
    try:
        patch = PatchSet(text)
    except UnidiffParseError as exc:
        raise PatchError(f"the patch is not a unified diff: {exc}") from None
    if not len(patch):
        raise PatchError("the patch is not a unified diff: it names no file")
    files: list[str] = []
    for name in _git_paths(tree, text):
        if name not in files:
            files.append(name)
    edits: list[Edit] = []
    blocks = itertools.count()
    for patched in patch:
        source, target = _name(patched.source_file), _name(patched.target_file)
        files += [name for name in (source, target) if name and name not in files]
        if any(name and name.startswith('"') for name in (source, target)):
            continue  # a quoted name: git named the file above, its text is not ours to read
        path = source or target
        if path is None or patched.is_binary_file:
            continue
        lines = [piece.removesuffix("\r") for piece in text_of(path).split("\n")]
        for hunk in patched:
            edits += _hunk_edits(path, hunk, lines, blocks)
    return SolverPatch(text, files, edits)


_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$", re.DOTALL)


def normalized(text: str) -> str:
    """``text`` with a final newline, blank context lines as " ", and hunks recounted."""
    lines = (text if text.endswith("\n") else text + "\n").splitlines(keepends=True)
    out: list[str] = []
    i = 0
    while i < len(lines):
        match = _HUNK.match(lines[i])
        if match is None:
            out.append(lines[i])
            i += 1
            continue
        body: list[str] = []
        i += 1
        while i < len(lines) and _in_hunk(lines, i):
            line = lines[i]
            body.append(" " + line if line in ("\n", "\r\n") else line)
            i += 1
        old = sum(1 for line in body if line[0] in " -")
        new = sum(1 for line in body if line[0] in " +")
        start, new_start, rest = match.groups()
        out.append(f"@@ -{start},{old} +{new_start},{new} @@{rest}")
        out += body
    return "".join(out)


def _in_hunk(lines: list[str], i: int) -> bool:
    line = lines[i]
    if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
        return False  # the next file's header
    return line[:1] in (" ", "-", "+", "\\") or line in ("\n", "\r\n")


def _git_paths(tree: Path, text: str) -> list[str]:
    """Every path git would touch applying ``text`` (both names of a rename or copy)."""
    result = subprocess.run(
        ["git", "apply", "--numstat", "-z", "--recount", "-"],
        cwd=tree,
        input=text.encode("utf-8", "surrogateescape"),
        env=_git_env(tree),
        capture_output=True,
    )
    if result.returncode != 0:
        lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PatchError(f"the patch is not a diff git reads: {(lines or ['git failed'])[0]}")
    fields = result.stdout.decode("utf-8", "surrogateescape").split("\0")
    paths = []
    for field in fields:
        if "\t" in field:  # "added<TAB>deleted<TAB>path", path empty for a rename or copy
            field = field.split("\t", 2)[2]
        if field:
            paths.append(field)
    return paths


def _name(diff_name: str | None) -> str | None:
    if not diff_name or diff_name == "/dev/null":
        return None
    return diff_name.split("/", 1)[1] if diff_name[:2] in ("a/", "b/") else diff_name


def _hunk_edits(path: str, hunk: Hunk, lines: list[str], blocks: Iterator[int]) -> list[Edit]:
    """The hunk's change blocks as edits, shifted to where its old lines really are."""
    body = list(hunk)
    old = [_text(line.value) for line in body if not line.is_added]
    # "@@ -5,0 +6,2 @@" inserts after line 5.
    start = hunk.source_start if hunk.source_length else hunk.source_start + 1
    line_no = _locate(old, lines, start)
    edits: list[Edit] = []
    removed: list[str] = []
    added: list[str] = []

    def flush() -> None:
        block = next(blocks)
        first = line_no - len(removed)
        paired = min(len(removed), len(added))
        for k in range(paired):
            edits.append(Edit(path, first + k, "Modify", removed[k], added[k], block))
        for k in range(paired, len(removed)):
            edits.append(Edit(path, first + k, "Delete", removed[k], "", block))
        for text in added[paired:]:
            edits.append(Edit(path, line_no, "Add", "", text, block))
        removed.clear()
        added.clear()

    for line in body:
        if line.is_removed:
            if added:  # a removal after additions starts a new pairing
                flush()
            removed.append(_text(line.value))
            line_no += 1
        elif line.is_added:
            added.append(_text(line.value))
        elif line.is_context:
            if removed or added:
                flush()
            line_no += 1
    if removed or added:
        flush()
    return edits


def _text(value: str) -> str:
    return value.removesuffix("\n").removesuffix("\r")


def _locate(old: list[str], lines: list[str], start: int) -> int:
    """The line where the hunk's old lines stand, nearest ``start`` (``start`` if nowhere)."""
    if not old:
        return start
    width = len(old)
    for offset in sorted(range(-len(lines), len(lines) + 1), key=abs):
        at = start + offset
        if at >= 1 and lines[at - 1 : at - 1 + width] == old:
            return at
    return start


def edit_script_of(edits: list[Edit]) -> EditScript:
    """``edits`` of one file as a PDB edit script (several Adds at a line keyed ``"n"``, ``"n "``, ...)."""
    script: EditScript = {}
    for edit in edits:
        key = str(edit.line)
        while key in script:
            key += " "
        script[key] = {"type": edit.kind, "original": edit.original, "modified": edit.modified}
    return script
