"""The ``corrupt graph`` command: table, JSON adjacency, CSV metrics, clear errors."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from typer.testing import CliRunner

from corrupt.cli import app
from corrupt.graph.report import METRICS

runner = CliRunner()


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
