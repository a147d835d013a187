"""Real small repositories and tasks built from them, for tests of exporters and materialisation.

Tasks are assembled the way the build assembles them: real diffs and edit
scripts from ``corrupt.source.edits`` over real file contents, so every
exporter test checks what a real task would carry.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from corrupt.source.edits import edit_script, unified_diff
from corrupt.tasks.models import (
    BugRecord,
    Difficulty,
    RepoRef,
    TargetRef,
    Task,
    TestsRecord,
)

PRICING = '''\
"""Prices of baskets."""


def total(items, discount=0):
    """Sum of price * quantity, less a percentage discount."""
    subtotal = 0
    for price, qty in items:
        subtotal += price * qty
    if discount:
        subtotal -= subtotal * discount / 100
    return round(subtotal, 2)
'''

TAX = "def with_tax(amount, rate=20):\r\n    extra = amount * rate / 100\r\n    return round(amount + extra, 2)\r\n"

TESTS = """\
from shop.pricing import total
from shop.tax import with_tax


def test_total():
    assert total([(2, 3), (4, 5)]) == 26


def test_discount():
    assert total([(10, 1)], discount=50) == 5


def test_empty():
    assert total([]) == 0


def test_tax():
    assert with_tax(10) == 12
"""

ORIGINAL = {
    "src/shop/__init__.py": "",
    "src/shop/pricing.py": PRICING,
    "src/shop/tax.py": TAX,
    "tests/test_shop.py": TESTS,
    "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
}
BODY_MARKER = "subtotal += price * qty"
ADVERSARIAL = {"src/shop/pricing.py": PRICING.replace(BODY_MARKER, "subtotal += price + qty")}
MULTI = {
    **ADVERSARIAL,
    "src/shop/tax.py": TAX.replace("amount + extra", "amount - extra"),
}


def write_repo(
    root: Path, files: dict[str, str], *, git: bool = True, modes: dict[str, int] | None = None
) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
    for rel, mode in (modes or {}).items():
        (root / rel).chmod(mode)
    if git:
        run = {"cwd": root, "check": True, "capture_output": True}
        subprocess.run(["git", "init", "-q"], **run)
        subprocess.run(["git", "add", "-A"], **run)
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"], **run
        )
    return root


def make_task(
    corrupted: dict[str, str],
    *,
    kind: str = "adversarial",
    image: str | None = None,
    centrality: float = 95.0,
    complexity: float = 92.0,
) -> tuple[Task, dict[str, tuple[str, str]]]:
    """A task corrupting ``corrupted`` paths of ORIGINAL, and its ``files_for`` contents."""
    files = {path: (ORIGINAL[path], text) for path, text in corrupted.items()}
    patch = "".join(unified_diff(p, o, c) for p, (o, c) in sorted(files.items()))
    fix = "".join(unified_diff(p, c, o) for p, (o, c) in sorted(files.items()))
    script = {p: edit_script(o, c) for p, (o, c) in files.items()}
    bugs = [
        BugRecord(
            target=f"shop.{Path(p).stem}",
            file=p,
            lines=[int(k) for k in script[p]],
            category="Algorithm",
            subcategory="wrong math expression",
            operator="swap_binop",
        )
        for p in sorted(files)
    ]
    return (
        Task(
            task_id=hashlib.sha256(patch.encode()).hexdigest()[:16],
            repo=RepoRef(
                name="acme/shop",
                url="https://example.invalid/acme/shop.git",
                commit="0123456789abcdef0123456789abcdef01234567",
                stars=1234,
            ),
            mode={"deletion": "remove", "adversarial": "discovery"}.get(kind, kind),
            kind=kind,
            corruptor="procedural:swap_binop",
            targets=[
                TargetRef(
                    file="src/shop/pricing.py",
                    qualname="shop.pricing.total",
                    start_line=4,
                    end_line=11,
                    metrics={"code_lines": 7.0, "harmonic": 1.5},
                )
            ],
            difficulty=Difficulty(
                centrality_pct=centrality,
                complexity_pct=complexity,
                n_functions=len(files),
            ),
            corruption_patch=patch,
            fix_patch=fix,
            edit_script=script,
            bugs=bugs,
            tests=TestsRecord(
                command="PYTHONHASHSEED=0 PYTHONPATH=. python -m pytest -q tests",  # as builds write it
                fail_to_pass=["tests/test_shop.py::test_total"],
                pass_to_pass=["tests/test_shop.py::test_empty"],
                baseline_seconds=0.4,
            ),
            problem_statement="Some tests fail:\n- tests/test_shop.py::test_total\n",
            seed=7,
            engine_version="0.1.0",
            created_at="2026-11-22T02:00:00+00:00",
            image_name=image,
        ),
        files,
    )
