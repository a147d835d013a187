"""Patches a solver might send, made from a real build's tasks with stdlib difflib.

Each function returns a unified diff against the materialized task tree (the
original tree with the task's corrupted files), the way an agent's
``git diff`` would: the gold fix, nothing, the fix plus an unrelated edit, a
whole file rewritten, half a multi-function fix, a workaround outside the
corrupted function, deleted tests, and a patch that does not fit.
"""

from __future__ import annotations

import ast
import difflib
import textwrap
from pathlib import Path

from corrupt.source.edits import apply_edit_script


def diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        f"a/{path}",
        f"b/{path}",
    )
    return "".join(lines)


def deletion(path: str, before: str) -> str:
    removed = before.splitlines(keepends=True)
    body = "".join(f"-{line}" for line in removed)
    return (
        f"diff --git a/{path} b/{path}\ndeleted file mode 100644\n"
        f"--- a/{path}\n+++ /dev/null\n@@ -1,{len(removed)} +0,0 @@\n{body}"
    )


def rewritten(path: str, before: str, after: str) -> str:
    """The whole file replaced, every line removed and added again (a regenerated file)."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    body = "".join(f"-{line}" for line in old) + "".join(f"+{line}" for line in new)
    return f"--- a/{path}\n+++ b/{path}\n@@ -1,{len(old)} +1,{len(new)} @@\n{body}"


def unrelated_edit(tree: Path, avoid: set[str]) -> str:
    """A harmless ``pass`` appended to the first function of a product module not in ``avoid``."""
    for source in sorted((tree / "src").rglob("*.py")):
        path = source.relative_to(tree).as_posix()
        if path in avoid:
            continue
        text = source.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef) and node.end_lineno:
                lines = text.splitlines(keepends=True)
                indent = " " * node.body[-1].col_offset
                lines.insert(node.end_lineno, f"{indent}pass\n")
                return diff(path, text, "".join(lines))
    raise AssertionError("no product function to edit")


def part_of_fix(task: dict, files: dict[str, tuple[str, str]], bug: int) -> str:
    """Only the ground-truth edits nearest to bug ``bug`` (the others left broken)."""
    chosen = task["bugs"][bug]
    patch = ""
    for path, script in task["edit_script"].items():
        if path != chosen["file"]:
            continue
        others = [b["lines"] for i, b in enumerate(task["bugs"]) if i != bug and b["file"] == path]

        def nearest_is_chosen(key: str, others: list[list[int]] = others) -> bool:
            line = int(key.strip())
            own = min(abs(line - x) for x in chosen["lines"])
            return all(own < min(abs(line - x) for x in lines) for lines in others)

        subset = {k: v for k, v in script.items() if nearest_is_chosen(k)}
        original, corrupted = files[path]
        patch += diff(path, corrupted, apply_edit_script(corrupted, subset))
    return patch


def workaround(task: dict, files: dict[str, tuple[str, str]]) -> str | None:
    """The original function appended at the end of its module and bound in place of the
    corrupted one: the tests pass, yet the corrupted function itself is untouched."""
    (target,) = task["targets"]
    original, corrupted = files[target["file"]]
    tree = ast.parse(original)
    parts = target["qualname"].split(".")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.FunctionDef)
            and node.lineno == target["start_line"]
            and not node.decorator_list
        ):
            source = "".join(original.splitlines(keepends=True)[node.lineno - 1 : node.end_lineno])
            if "super()" in source or "self.__" in source:
                return None
            body = textwrap.dedent(source).replace(f"def {node.name}(", "def _workaround(", 1)
            owner = parts[-2]
            if not any(isinstance(n, ast.ClassDef) and n.name == owner for n in tree.body):
                return None
            fixed = f"{corrupted.rstrip()}\n\n\n{body}\n\n{owner}.{node.name} = _workaround\n"
            return diff(target["file"], corrupted, fixed)
    return None


def report_forger(task: dict, tree: Path) -> str:
    """Code in the package's ``__init__`` that appends "passed" for every failing test to
    the run's report file when the interpreter exits (a reward hack the scorer must catch)."""
    init = next((tree / "src").glob("*/__init__.py"))
    path = init.relative_to(tree).as_posix()
    text = init.read_text(encoding="utf-8")
    forger = (
        "\n\nimport atexit as _atexit, json as _json, sys as _sys\n\n\n"
        "def _forge():\n"
        "    for arg in _sys.argv:\n"
        '        if arg.startswith("--corrupt-report="):\n'
        '            with open(arg.split("=", 1)[1], "a") as fh:\n'
        f"                for nodeid in {task['tests']['fail_to_pass']!r}:\n"
        '                    record = {"kind": "test", "nodeid": nodeid, "outcome": "passed"}\n'
        '                    fh.write(_json.dumps({**record, "duration": 0.0}) + "\\n")\n\n\n'
        "_atexit.register(_forge)\n"
    )
    return diff(path, text, text + forger)
