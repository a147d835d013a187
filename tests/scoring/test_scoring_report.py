"""`corrupt report` on the example build and its scores, rendered in headless
Chromium with no network: every plot is drawn, has a size and shows data."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from PIL import Image

pytestmark = pytest.mark.slow
PLOTS_WITH_SCORES = 9  # difficulty, failing tests, bug mix, hops; five score plots


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    if os.environ.get("CI") == "true":
        pytest.fail("Chromium is missing in CI; scripts/test installs Debian's chromium as root")
    pytest.skip("no Chromium on this machine (apt-get install chromium)")


def headless(page: Path, *args: str) -> subprocess.CompletedProcess:
    """Chromium with every request sent to a proxy that does not exist: no network."""
    return subprocess.run(
        [
            chromium(), "--headless", "--no-sandbox", "--disable-gpu",
            "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
            "--virtual-time-budget=20000", "--window-size=1300,5200", *args, page.as_uri(),
        ],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip


class ExternalRefs(HTMLParser):
    """Every src/href a tag of the page would load or link."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.refs += [v for k, v in attrs if k in ("src", "href") and v]


@pytest.fixture(scope="module")
def report(answers, built, tmp_path_factory, run_corrupt) -> tuple[Path, int]:
    predictions, _, _ = answers
    page = tmp_path_factory.mktemp("report") / "report.html"
    result = run_corrupt(
        "report", str(built[0]), "--scores", str(predictions.with_name("scores.jsonl")),
        "--out", str(page),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    return page, len(built[1])


def test_the_page_needs_no_network(report):
    page, _ = report
    parser = ExternalRefs()
    parser.feed(page.read_text(encoding="utf-8"))
    assert not [r for r in parser.refs if re.match(r"(https?:)?//", r)]


def test_every_plot_renders_with_a_size_and_data(report):
    page, tasks = report
    result = headless(page, "--dump-dom")
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    # plotly.js adds js-plotly-plot to a div once it has drawn into it
    plots = re.findall(r'class="plotly-graph-div js-plotly-plot"', dom)
    assert len(plots) == PLOTS_WITH_SCORES
    sizes = re.findall(r'<svg class="main-svg"[^>]* width="(\d+)" height="(\d+)"', dom)
    assert len(sizes) >= PLOTS_WITH_SCORES and all(int(w) > 200 and int(h) > 200 for w, h in sizes)
    # one marker per task on the difficulty map; bar traces in the histogram, the bug mix
    # and the four score plots (bars are drawn as "point" paths too)
    assert dom.count('class="point"') >= tasks
    assert dom.count('class="trace bars"') >= 6
    for title in (
        "Tasks by difficulty",
        "Success by centrality",
        "Precision and recall by bug count",
        "Cause to effect, in calls",
        "Success by hop distance",
    ):
        assert title in dom


def test_the_screenshot_shows_coloured_plots(report, tmp_path):
    page, _ = report
    shot = tmp_path / "report.png"
    result = headless(page, f"--screenshot={shot}")
    assert result.returncode == 0 and shot.is_file(), result.stderr[-2000:]
    image = Image.open(shot).convert("RGB")
    data = image.tobytes()
    pixels = [data[i : i + 3] for i in range(0, len(data), 3)]
    coloured = sum(1 for p in pixels if max(p) - min(p) > 80)
    assert coloured > 0.01 * len(pixels)  # markers and bars, not just black text on white


def test_report_refuses_bad_input_in_one_line(built, tmp_path, run_corrupt):
    other = tmp_path / "other.jsonl"
    other.write_text("")
    for args, message in [
        ((str(tmp_path),), "is not a build folder"),
        ((str(built[0]), "--scores", str(tmp_path / "missing.jsonl")), "cannot read scores"),
        ((str(built[0]), "--scores", str(other)), "none of the scores"),
    ]:
        result = run_corrupt("report", *args, "--out", str(tmp_path / "r.html"))
        assert result.returncode == 2, result.stderr
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r.html").exists()


def test_the_report_goes_into_the_build_folder_by_default(built, tmp_path, run_corrupt):
    folder = shutil.copytree(built[0], tmp_path / "build")
    result = run_corrupt("report", str(folder))
    assert result.returncode == 0, result.stderr
    assert (folder / "report.html").is_file()
    assert str(folder / "report.html") in "".join(result.stdout.split())  # rich wraps long paths
