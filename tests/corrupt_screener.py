"""A test-only Screener: runs a fixture repository's pytest suite with some files replaced.

The build supplies the real screener (runner + sandbox + workspace); the corrupt
stage only needs "patch these files, run these tests with this failure budget,
give me a TestReport", so tests of that stage run the real pytest on a private
copy of a fixture repository through this small class.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from corrupt.repos.models import Frame, TestReport, TestResult

PLUGIN = """
import json, os

_results = {}


def _frames(excinfo, root):
    out = []
    for entry in excinfo.traceback:
        path = str(entry.path)
        if path.startswith(root):
            out.append({"file": os.path.relpath(path, root), "line": entry.lineno + 1,
                        "function": entry.name})
    return out


def pytest_runtest_makereport(item, call):
    if call.excinfo is not None and call.when in ("setup", "call"):
        root = str(item.config.rootpath)
        exc = call.excinfo
        _results.setdefault(item.nodeid, {})["exc"] = {
            "exc_type": exc.type.__name__, "message": str(exc.value).splitlines()[0][:200]
            if str(exc.value) else "", "frames": _frames(exc, root)}


def pytest_runtest_logreport(report):
    entry = _results.setdefault(report.nodeid, {})
    if report.failed:
        entry["outcome"] = "failed" if report.when == "call" else "error"
    elif report.skipped and "outcome" not in entry:
        entry["outcome"] = "skipped"
    elif report.when == "call" and report.passed:
        entry["outcome"] = "passed"
    entry["duration"] = entry.get("duration", 0.0) + report.duration


def pytest_sessionfinish(session):
    with open(os.environ["CORRUPT_REPORT"], "w") as fh:
        json.dump(_results, fh)
"""


class FixtureScreener:
    """Screener over a private copy of ``fixture``; counts its runs for tests to inspect."""

    def __init__(self, fixture: Path, workdir: Path) -> None:
        self.tree = workdir / fixture.name
        shutil.copytree(fixture, self.tree)
        (self.tree / "_corrupt_report.py").write_text(PLUGIN)
        self.runs = 0

    def __call__(
        self, files: dict[str, str], tests: Sequence[str] | None, max_failures: int | None
    ) -> TestReport:
        self.runs += 1
        saved = {rel: (self.tree / rel).read_bytes() for rel in files}
        try:
            for rel, text in files.items():
                with open(self.tree / rel, "w", encoding="utf-8", newline="") as fh:
                    fh.write(text)
            return self._run(tests, max_failures)
        finally:
            for rel, data in saved.items():
                (self.tree / rel).write_bytes(data)

    def _run(self, tests: Sequence[str] | None, max_failures: int | None) -> TestReport:
        report_path = self.tree / "_report.json"
        argv = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "_corrupt_report",
            *(tests or []),
        ]
        if max_failures:
            argv.append(f"--maxfail={max_failures}")
        env = {
            **os.environ,
            "CORRUPT_REPORT": str(report_path),
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        proc = subprocess.run(
            argv, cwd=self.tree, env=env, capture_output=True, text=True, timeout=60
        )
        raw = json.loads(report_path.read_text()) if report_path.exists() else {}
        results = {}
        for nodeid, entry in raw.items():
            exc = entry.get("exc") or {}
            results[nodeid] = TestResult(
                nodeid=nodeid,
                outcome=entry.get("outcome", "error"),
                duration=entry.get("duration", 0.0),
                exc_type=exc.get("exc_type"),
                message=exc.get("message"),
                frames=[Frame(**f) for f in exc.get("frames", [])],
            )
        failing = sum(r.outcome in ("failed", "error") for r in results.values())
        return TestReport(
            results=results,
            duration=0.0,
            exit_code=proc.returncode,
            collected=len(results),
            stopped_early=bool(max_failures) and failing >= max_failures,
            output_tail=proc.stdout[-2000:],
        )


FIXTURE = Path(__file__).parent / "fixtures" / "corrupt_search" / "inventory"
CORE = "inventory/core.py"


@pytest.fixture(scope="session")
def inventory(tmp_path_factory) -> tuple[FixtureScreener, set[str]]:
    """A screener over the inventory fixture and its baseline passing tests."""
    screener = FixtureScreener(FIXTURE, tmp_path_factory.mktemp("corrupt_search"))
    report = screener({}, None, None)
    assert report.passing() and not report.failing(), report.output_tail
    return screener, report.passing()


def core_source() -> str:
    with open(FIXTURE / CORE, encoding="utf-8", newline="") as fh:
        return fh.read()


def def_line(source: str, name: str) -> int:
    """1-based line of ``def name`` in ``source``."""
    for number, line in enumerate(source.splitlines(), 1):
        if line.lstrip().startswith(f"def {name}("):
            return number
    raise LookupError(name)


def replace_once(source: str, old: str, new: str) -> str:
    assert source.count(old) == 1, old
    return source.replace(old, new)
