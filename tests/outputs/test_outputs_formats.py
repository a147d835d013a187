"""The export formats' registry: every module of ``corrupt.outputs.formats`` is a format, the
CLI lists them without importing their writers, and the audit tells each one's files apart."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from tasks_factory import ADVERSARIAL, make_task
from typer.testing import CliRunner

import corrupt.outputs.formats as formats_package
from corrupt.audit.exports import detect_format
from corrupt.cli import app
from corrupt.outputs.export import export_tasks
from corrupt.outputs.formats import export_formats, format_names

FORMATS = list(export_formats().values())


def test_each_module_is_the_format_it_names() -> None:
    modules = sorted(m.name for m in pkgutil.iter_modules(formats_package.__path__))
    assert sorted(format_names()) == modules
    assert len({f.listed for f in FORMATS}) == len(FORMATS)
    assert len({f.default_name for f in FORMATS}) == len(FORMATS)
    for fmt in FORMATS:
        assert (fmt.read is None) == fmt.folder, fmt.name
        assert fmt.folder == bool(fmt.marker), fmt.name


def test_the_cli_offers_every_format_in_order() -> None:
    result = CliRunner().invoke(app, ["export", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "|".join(format_names()) in result.output


def test_listing_the_formats_imports_no_writer() -> None:
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, corrupt.cli; print(sorted(m for m in sys.modules if m.startswith("
            "('pyarrow', 'corrupt.outputs.task_image', 'corrupt.outputs.swe', "
            "'corrupt.outputs.harbor', 'corrupt.outputs.schema'))))",
        ],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        check=True,
    )
    assert loaded.stdout.strip() == "[]"


@pytest.mark.parametrize("fmt", [f for f in FORMATS if not f.needs_images], ids=lambda f: f.name)
def test_the_audit_knows_what_wrote_each_file(tmp_path: Path, fmt) -> None:
    if fmt.name == "parquet":
        pytest.importorskip("pyarrow")
    task, files = make_task(ADVERSARIAL)
    out = tmp_path / fmt.default_name
    export_tasks([task], fmt.name, out, files_for=lambda t: files)
    assert detect_format(out) == fmt.name
