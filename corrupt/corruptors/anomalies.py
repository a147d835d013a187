"""Mutation tells: code no person writes, that a grep or a linter finds without running it.

An operand compared with itself (``a < a``), a negative zero (``xs[-0]``), ``x - x``,
``not not x``, a self-assignment, a repeated dictionary key: a corruption that leaves
one is found and fixed in one step by an agent that searches the tree for anomalies,
whatever the task's centrality and complexity say. A finding the corrupted file has
and the original does not is a tell.

Two checkers, as messages without positions so two versions of a file compare:

- :func:`own_findings`, an ``ast`` walk for the anomalies the operators could make
  (compared with itself, ``x - x``, ``x and x``, a signed zero, both branches alike):
  in-process and cheap, so every mutant a search tries is checked;
- :func:`ruff_findings`, ruff's rules for the same family and the rest (pylint's,
  bugbear's, flake8-simplify's, pyflakes'): a process per file, so it runs once per
  corruption, in verification, before any test run.
"""

from __future__ import annotations

import ast
import functools
import json
import shutil
import subprocess
from collections import Counter

# ruff's rules for code no person means (``ruff rule CODE`` explains each)
RUFF_RULES = (
    "PLR0124",  # comparison with itself
    "PLR0133",  # comparison of two constants
    "PLW0127",  # self-assignment
    "PLW0128",  # a name assigned twice in one statement
    "B018",  # useless expression
    "B015",  # useless comparison
    "B014",  # duplicate exception in one handler
    "B025",  # duplicate exception handler
    "B033",  # duplicate value in a set
    "F601",  # repeated dictionary key (literal)
    "F602",  # repeated dictionary key (variable)
    "F632",  # ``is`` with a literal
    "F811",  # redefinition while unused
    "F841",  # a variable assigned and never used
    "SIM208",  # ``not not x``
    "SIM222",  # ``x or True``
    "SIM223",  # ``x and False``
    "RUF034",  # an if-expression whose branches are the same
)
RUFF_TIMEOUT = 30.0
# the arithmetic on two equal operands that is a constant (0, 1, x itself)
_CONSTANT_ARITHMETIC = (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.BitXor, ast.BitAnd, ast.BitOr)


def new_anomalies(original: str, corrupted: str, *, ruff: bool = True) -> list[str]:
    """The findings ``corrupted`` has that ``original`` lacks (own checks, and ruff's rules
    unless ``ruff`` is false), sorted; empty when either does not parse."""
    added = _own(corrupted) - _own(original)
    if ruff:
        added += ruff_findings(corrupted) - _ruff(original)
    return sorted(added.elements())


def tell_detail(operators: list[str], finding: str, path: str) -> str:
    """A tell rejection's detail, ``OPERATOR[+OPERATOR]: CODE message (in PATH)``."""
    return f"{'+'.join(operators) or 'unknown'}: {finding} (in {path})"


def tell_operators(detail: str) -> list[str]:
    """The operators a :func:`tell_detail` names (the report counts tells per operator)."""
    return detail.split(":", 1)[0].split("+")


def own_findings(source: str) -> Counter[str]:
    """``CT`` findings of :mod:`ast`'s view of ``source`` (empty when it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return Counter()
    found: Counter[str] = Counter()
    for node in ast.walk(tree):
        match node:
            case ast.Compare(left=left, comparators=comparators):
                operands = [left, *comparators]
                for a, b in zip(operands, operands[1:], strict=False):
                    if _same(a, b):
                        found[f"CT001 compared with itself: {ast.unparse(a)}"] += 1
            case ast.BinOp(left=left, op=op, right=right) if isinstance(
                op, _CONSTANT_ARITHMETIC
            ) and _same(left, right):
                found[f"CT002 constant arithmetic: {ast.unparse(node)}"] += 1
            case ast.BoolOp(values=values):
                dumps = [ast.dump(v) for v in values if not _calls(v)]
                if len(dumps) != len(set(dumps)):
                    found[f"CT003 repeated operand: {ast.unparse(node)}"] += 1
            case ast.UnaryOp(op=ast.USub() | ast.UAdd(), operand=ast.Constant(value=value)) if (
                type(value) in (int, float) and value == 0
            ):
                found[f"CT004 signed zero: {ast.unparse(node)}"] += 1
            case ast.IfExp(body=body, orelse=orelse) if _same(body, orelse):
                found[f"CT005 both branches alike: {ast.unparse(node)}"] += 1
    return found


def ruff_findings(source: str) -> Counter[str]:
    """ruff's :data:`RUFF_RULES` findings of ``source`` as ``CODE message`` (empty when ruff
    is missing or cannot read it: the own checks still run)."""
    ruff = _ruff_binary()
    if ruff is None:
        return Counter()
    argv = [ruff, "check", "--isolated", "--no-cache", "--exit-zero", "--output-format", "json"]
    argv += ["--select", ",".join(RUFF_RULES), "--stdin-filename", "corrupted.py", "-"]
    try:
        proc = subprocess.run(
            argv, input=source, capture_output=True, text=True, timeout=RUFF_TIMEOUT
        )
        found = json.loads(proc.stdout or "[]")
    except (OSError, subprocess.SubprocessError, ValueError):
        return Counter()
    return Counter(f"{f.get('code')} {f.get('message')}" for f in found if f.get("code"))


@functools.lru_cache(maxsize=1)
def _ruff_binary() -> str | None:
    try:
        from ruff.__main__ import find_ruff_bin

        return str(find_ruff_bin())
    except (ImportError, FileNotFoundError):
        return shutil.which("ruff")


@functools.lru_cache(maxsize=16)
def _own(source: str) -> Counter[str]:
    """:func:`own_findings`, once per original: a search checks dozens of mutants against it."""
    return own_findings(source)


@functools.lru_cache(maxsize=16)
def _ruff(source: str) -> Counter[str]:
    return ruff_findings(source)


def _same(a: ast.expr, b: ast.expr) -> bool:
    """The same expression, free of calls (``f() - f()`` may well differ)."""
    return not _calls(a) and ast.dump(a) == ast.dump(b)


def _calls(node: ast.expr) -> bool:
    return any(
        isinstance(n, ast.Call | ast.Await | ast.Yield | ast.YieldFrom) for n in ast.walk(node)
    )
