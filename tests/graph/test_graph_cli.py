"""The ``corrupt graph`` command: table, JSON adjacency, CSV metrics, clear errors."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corrupt.cli import app
from corrupt.graph.report import METRICS

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
# What the other stages need: the graph command and --help start without them.
HEAVY = ("numpy", "scipy", "networkx", "docker", "git", "github", "openai", "libcst", "pyarrow")
HEAVY_OURS = (
    "corrupt.outputs.export",
    "corrupt.scoring",
    "corrupt.tasks.models",
    "corrupt.repos.checkout",
)


def project(root: Path) -> Path:
    (root / "shop.py").write_text(
        "class Cart:\n"
        "    def __init__(self):\n"
        "        self.items = []\n\n"
        "    def total(self):\n"
        "        return sum(price(i) for i in self.items)\n\n\n"
        "def price(item):\n"
        "    return discount(item) * 2\n\n\n"
        "def discount(item):\n"
        "    return item\n",
        encoding="utf-8",
    )
    (root / "broken.py").write_text("def nope(:\n", encoding="utf-8")
    return root


def test_graph_writes_json_and_csv(tmp_path):
    root = project(tmp_path)
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    out_json, out_csv = tmp_path / "g.json", tmp_path / "m.csv"
    result = runner.invoke(
        app,
        [
            "graph",
            str(root),
            "--json",
            str(out_json),
            "--csv",
            str(out_csv),
            "--no-cache",
            "--sort",
            "out_degree",
            "--top",
            "2",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Cart.total" in result.output
    assert result.output.count("skipped broken.py: syntax error at line 1") == 1
    adjacency = json.loads(out_json.read_text(encoding="utf-8"))
    assert set(adjacency) == {
        "shop",
        "shop.Cart",
        "shop.Cart.__init__",
        "shop.Cart.total",
        "shop.price",
        "shop.discount",
    }
    assert adjacency["shop.Cart.total"] == ["shop.price"]
    assert adjacency["shop.price"] == ["shop.discount"]
    with open(out_csv, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {r["qualname"] for r in rows} == {
        "shop.Cart.__init__",
        "shop.Cart.total",
        "shop.price",
        "shop.discount",
    }
    assert set(METRICS) <= set(rows[0])
    total = next(r for r in rows if r["qualname"] == "shop.Cart.total")
    assert float(total["harmonic"]) == 1.5


def test_unknown_sort_metric_is_a_usage_error(tmp_path):
    root = project(tmp_path)
    result = runner.invoke(app, ["graph", str(root), "--sort", "fame"])
    assert result.exit_code == 2
    assert "unknown --sort 'fame'" in result.output
    assert "Traceback" not in result.output


def test_empty_directory_exits_non_zero_with_one_line(tmp_path):
    result = runner.invoke(app, ["graph", str(tmp_path), "--no-cache"])
    assert result.exit_code == 20
    assert result.output.strip().count("\n") == 0
    assert "no Python files" in result.output


def test_missing_directory(tmp_path):
    result = runner.invoke(app, ["graph", str(tmp_path / "nowhere")])
    assert result.exit_code == 2
    assert "is not a directory" in result.output


def imported_by(args: list[str], cache: Path) -> set[str]:
    """Every module ``python -m corrupt ARGS`` imports (from ``-X importtime``)."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "corrupt", *args],
        cwd=ROOT,
        env={**os.environ, "XDG_CACHE_HOME": str(cache)},
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [line for line in result.stderr.splitlines() if line.startswith("import time:")]
    return {line.rsplit("|", 1)[1].strip() for line in lines[1:]}


@pytest.mark.parametrize("run", ["help", "cold", "warm"])
def test_graph_command_imports_no_other_stage(tmp_path, run):
    (tmp_path / "src").mkdir()
    root = project(tmp_path / "src")
    args = ["--help"] if run == "help" else ["graph", str(root), "--json", str(tmp_path / "g.json")]
    if run == "warm":
        imported_by(args, tmp_path / "cache")
    modules = imported_by(args, tmp_path / "cache")
    assert "typer" in modules
    assert not {m for m in modules if m.split(".")[0] in HEAVY}
    assert not {m for m in modules if m.startswith(HEAVY_OURS)}
    if run == "warm":  # a cached graph needs neither the extractor, the resolver nor the metrics
        extraction = {f"corrupt.graph.{m}" for m in ("extract", "expressions", "scopes", "facts")}
        assert not (extraction | {"corrupt.graph.resolve", "rustworkx"}) & modules


def test_json_to_stdout_alone_and_centrality_by_any_of_its_names(tmp_path):
    root = project(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "corrupt.cli", "graph", str(root), "--json", "-", "--sort", "reach",
         "--no-cache"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "shop.price" in json.loads(done.stdout)  # stdout is the JSON, the table went to stderr
    assert "harmonic" in done.stderr and not (Path.cwd() / "-").exists()


def test_version_and_flags_that_read_as_written():
    assert runner.invoke(app, ["--version"]).output.startswith("corrupt ")
    shown = runner.invoke(app, ["graph", "--help"], terminal_width=200).output
    assert "--no-cache" in shown and "--no-no-cache" not in shown
