"""What the package index publishes of a project, asked through PyPI's JSON API.

The index is a local HTTP server answering ``/pypi/<name>/json`` as PyPI does
(a 404 for an unknown project), reached by the real client over a socket.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from corrupt.repos.published import Published, project_name_and_version, published

RELEASES = {
    "shop-lib": {"1.2.0": [{"filename": "x.whl"}], "1.3.0": [{"filename": "y.whl"}], "2.0.0": []}
}


class Index(BaseHTTPRequestHandler):
    asked: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 -- http.server's name
        Index.asked.append(self.path)
        name = self.path.removeprefix("/pypi/").removesuffix("/json")
        if name not in RELEASES:
            self.send_error(404)
            return
        body = json.dumps({"info": {"name": name}, "releases": RELEASES[name]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def index():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Index)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    Index.asked = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize(
    "files, scm, expected",
    [
        (
            {"pyproject.toml": '[project]\nname = "Shop_Lib"\nversion = "1.3.0"\n'},
            None,
            ("Shop_Lib", "1.3.0"),
        ),
        (
            {"pyproject.toml": '[tool.poetry]\nname = "shop-lib"\nversion = "1.2.0"\n'},
            None,
            ("shop-lib", "1.2.0"),
        ),
        (
            {"setup.cfg": "[metadata]\nname = shop-lib\n"},
            "1.3.1.dev4+g1a2b3c4",
            ("shop-lib", "1.3.1.dev4+g1a2b3c4"),
        ),
        (
            {"setup.py": "from setuptools import setup\nsetup(name='shop-lib', version='1.2.0')\n"},
            None,
            ("shop-lib", "1.2.0"),
        ),
        (
            {"pyproject.toml": '[project]\nname = "shop-lib"\ndynamic = ["version"]\n'},
            None,
            ("shop-lib", None),
        ),
        ({"pyproject.toml": "[project\n"}, "1.0", (None, "1.0")),
    ],
    ids=["project", "poetry", "setup.cfg+scm", "setup.py", "dynamic", "broken"],
)
def test_the_declared_name_and_version(tmp_path: Path, files, scm, expected) -> None:
    assert project_name_and_version(project(tmp_path, files), scm) == expected


@pytest.mark.parametrize(
    "version, expected",
    [
        ("1.3.0", Published.AT_VERSION),
        ("1.3.1.dev4+g1a2b3c4", Published.OTHER_VERSIONS),  # five commits after a release
        ("2.0.0", Published.OTHER_VERSIONS),  # listed, but no file was ever uploaded
    ],
)
def test_what_the_index_holds(tmp_path: Path, index: str, version: str, expected) -> None:
    root = project(tmp_path, {"pyproject.toml": '[project]\nname = "Shop.Lib"\n'})
    assert published(root, version, cache_dir=tmp_path / "cache", index_url=index) == expected
    assert Index.asked == ["/pypi/shop-lib/json"]  # the normalised name


def test_an_unknown_project_and_an_unreachable_index(tmp_path: Path, index: str) -> None:
    root = project(tmp_path, {"pyproject.toml": '[project]\nname = "not-on-the-index"\n'})
    assert published(root, "1.0", cache_dir=tmp_path / "cache", index_url=index) == Published.NO
    closed = "http://127.0.0.1:9"  # discard port: nothing listens
    assert (
        published(root, "1.0", cache_dir=tmp_path / "other", index_url=closed) == Published.UNKNOWN
    )
    assert not (tmp_path / "other").exists(), "an unreachable index must not be cached"


def test_answers_are_cached(tmp_path: Path, index: str) -> None:
    root = project(tmp_path, {"pyproject.toml": '[project]\nname = "shop-lib"\n'})
    for _ in range(3):
        assert (
            published(root, "1.2.0", cache_dir=tmp_path / "c", index_url=index)
            == Published.AT_VERSION
        )
    assert len(Index.asked) == 1
