"""Ground-truth repairs: PDB edit scripts and git-style unified diffs.

A corruption is only useful as a task if we can say *exactly* how to undo it,
so both formats must reproduce the original file byte for byte.

Line model of an edit script (the rule that makes the round trip exact):

* A file is split at every line terminator (``\\r\\n``, ``\\n`` or a lone ``\\r``,
  the ones Python itself counts as line ends) into pieces; a file of ``k``
  terminators has ``k + 1`` pieces, the last of which carries no terminator
  (it is ``""`` when the file ends with a newline). Line ``n`` of the script is
  piece ``n``, so "line count + 1" of a newline-terminated file is that empty
  last piece and an ``Add`` there appends.
* Edit values hold a line's text without its terminator. A ``Modify``d line keeps
  its own terminator, an ``Add``ed line gets the corrupted file's most common
  terminator, and the last piece of the result never has one. When the original
  needs a different terminator on some line (mixed-ending files only), the
  ``modified`` value ends with that terminator spelled out; since line texts
  never contain ``\\r`` or ``\\n`` this is unambiguous.
* So a lost or added final newline shows up as an edit of the empty last
  piece: ``Delete`` of it when the original lacks the newline, ``Add ""`` at
  line count + 1 when the original has it.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterator, Sequence

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from corrupt.errors import CorruptError

Edit = dict[str, str]
EditScript = dict[str, Edit]

_TERMINATOR = re.compile(r"\r\n|\n|\r")


class EditScriptError(CorruptError):
    """An edit script or diff does not fit the file it is applied to."""

    exit_code = 26


_SPLIT = re.compile(r"(\r\n|\n|\r)")
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\n|\r)|[^\r\n]+$")


def _pieces(text: str) -> list[tuple[str, str]]:
    """``(text, terminator)`` per line; the last piece's terminator is ``""``."""
    parts = _SPLIT.split(text)
    parts.append("")
    return list(zip(parts[::2], parts[1::2], strict=True))


def split_lines(text: str) -> list[str]:
    """Lines with their terminators, numbered as Python numbers them (no empty last line)."""
    return _LINES.findall(text)


def _default_terminator(pieces: list[tuple[str, str]]) -> str:
    counts = Counter(term for _, term in pieces if term)
    return counts.most_common(1)[0][0] if counts else "\n"


def _value(text: str, wanted: str, default: str, is_last: bool) -> str:
    """The edit value for ``text``, spelling out its terminator only when needed."""
    return text if is_last or wanted == default else text + wanted


def edit_script(original: str, corrupted: str) -> EditScript:
    """The PDB script that turns ``corrupted`` back into ``original`` (see module doc)."""
    old, new = _pieces(corrupted), _pieces(original)
    default = _default_terminator(old)
    last = len(new) - 1
    script: EditScript = {}

    def put(line: int, edit: Edit) -> None:
        key = str(line)
        while key in script:
            key += " "
        script[key] = edit

    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        paired = min(i2 - i1, j2 - j1)
        for k in range(paired):
            (c_text, c_term), (o_text, o_term) = old[i1 + k], new[j1 + k]
            kept = c_term or default
            value = _value(o_text, o_term, kept, j1 + k == last)
            if value != c_text:
                put(i1 + k + 1, {"type": "Modify", "original": c_text, "modified": value})
        for i in range(i1 + paired, i2):
            put(i + 1, {"type": "Delete", "original": old[i][0], "modified": ""})
        for j in range(j1 + paired, j2):
            value = _value(new[j][0], new[j][1], default, j == last)
            put(i2 + 1, {"type": "Add", "original": "", "modified": value})
    return script


def _split_value(value: str) -> tuple[str, str | None]:
    match = _TERMINATOR.search(value)
    if match is None:
        return value, None
    if match.end() != len(value):
        raise EditScriptError(f"edit value {value!r} has a line break inside it")
    return value[: match.start()], match.group()


def apply_edit_script(corrupted: str, script: EditScript) -> str:
    """Apply ``script`` to ``corrupted`` bottom-to-top; the inverse of :func:`edit_script`."""
    pieces: list[tuple[str, str | None]] = list(_pieces(corrupted))
    default = _default_terminator(_pieces(corrupted))
    entries = []
    for key, edit in script.items():
        try:
            line = int(key.strip())
        except ValueError:
            raise EditScriptError(f"edit script key {key!r} is not a line number") from None
        if not 1 <= line <= len(pieces) + 1:
            raise EditScriptError(f"edit script line {line} is outside the file")
        entries.append((line, len(key), edit))
    # Bottom-to-top; at one line the Modify/Delete goes first, then the Adds in key order,
    # each inserted after the previous so they keep their order.
    entries.sort(key=lambda e: (-e[0], e[2].get("type") == "Add", e[1]))
    added_at: Counter[int] = Counter()
    for line, _, edit in entries:
        kind, index = edit.get("type"), line - 1
        if kind == "Add":
            text, term = _split_value(edit.get("modified", ""))
            pieces.insert(index + added_at[line], (text, term))
            added_at[line] += 1
            continue
        if index >= len(pieces) or pieces[index][0] != edit.get("original"):
            raise EditScriptError(f"edit script line {line} does not match the file")
        if kind == "Delete":
            del pieces[index]
        elif kind == "Modify":
            text, term = _split_value(edit.get("modified", ""))
            pieces[index] = (text, term if term is not None else pieces[index][1])
        else:
            raise EditScriptError(f"unknown edit type {kind!r} at line {line}")
    out = []
    for position, (text, term) in enumerate(pieces):
        out.append(text)
        if position < len(pieces) - 1:
            out.append(term or default)
    return "".join(out)


def common_ends(old: Sequence[str], new: Sequence[str]) -> tuple[int, int]:
    """How many lines two versions share at their start, and then at their end: a
    corruption changes one function, so only what lies between needs comparing."""
    shortest = min(len(old), len(new))
    head = 0
    while head < shortest and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < shortest - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return head, tail


def changed_lines(original: str, corrupted: str) -> list[int]:
    """1-based lines of ``corrupted`` that differ from ``original``.

    Modified and extra lines count as themselves; lines missing from
    ``corrupted`` are charged to the changed line just above them, else to the
    line now standing where they were.
    """
    count = len(_pieces(corrupted))
    script = edit_script(original, corrupted)
    lines = {int(key) for key, edit in script.items() if edit["type"] != "Add"}
    for key, edit in script.items():
        line = int(key)
        if edit["type"] == "Add" and line - 1 not in lines:
            lines.add(min(line, count))
    return sorted(lines)


def _git_lines(text: str) -> list[str]:
    """Lines as git sees them: split after ``\\n`` only (a ``\\r`` is content), ends kept."""
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def _range(start: int, length: int) -> str:
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _body_line(prefix: str, line: str) -> Iterator[str]:
    yield prefix + line
    if not line.endswith("\n"):
        yield "\n\\ No newline at end of file\n"


def unified_diff(path: str, before: str, after: str, *, context: int = 3) -> str:
    """A git-format diff of one file (``git apply`` accepts it); ``""`` when nothing changed."""
    a, b = _git_lines(before), _git_lines(after)
    if a == b:
        return ""
    out = [f"diff --git a/{path} b/{path}\n", f"--- a/{path}\n", f"+++ b/{path}\n"]
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        old = _range(first[1], last[2] - first[1])
        new = _range(first[3], last[4] - first[3])
        out.append(f"@@ -{old} +{new} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for line in a[i1:i2]:
                    out.extend(_body_line(" ", line))
                continue
            for line in a[i1:i2]:
                out.extend(_body_line("-", line))
            for line in b[j1:j2]:
                out.extend(_body_line("+", line))
    return "".join(out)


def apply_unified_diff(text: str, diff: str) -> str:
    """Apply a one-file unified diff to ``text`` exactly (no fuzz: context must match)."""
    if not diff:
        return text
    try:
        patch = PatchSet(diff)
    except UnidiffParseError as exc:
        raise EditScriptError(f"not a unified diff: {exc}") from None
    if len(patch) != 1:
        raise EditScriptError(f"expected a diff of one file, got {len(patch)}")
    source = _git_lines(text)
    out: list[str] = []
    cursor = 0
    for hunk in patch[0]:
        start = hunk.source_start - 1 if hunk.source_length else hunk.source_start
        if start < cursor or start > len(source):
            raise EditScriptError(f"hunk at line {hunk.source_start} does not fit the file")
        out.extend(source[cursor:start])
        cursor = start
        lines = list(hunk)
        for index, line in enumerate(lines):
            if line.line_type == "\\":
                continue
            value = line.value
            if index + 1 < len(lines) and lines[index + 1].line_type == "\\":
                value = value[:-1] if value.endswith("\n") else value
            if line.line_type in (" ", "-"):
                if cursor >= len(source) or source[cursor] != value:
                    raise EditScriptError(f"diff does not match the file at line {cursor + 1}")
                cursor += 1
            if line.line_type in (" ", "+"):
                out.append(value)
    out.extend(source[cursor:])
    return "".join(out)
