"""Index, discovery, bad input, serialisation and caching of the code graph."""

from __future__ import annotations

import gc
import textwrap
from pathlib import Path

import pytest

from corrupt.errors import NoPythonError
from corrupt.graph import DEFAULT_EXCLUDES, build_code_graph
from corrupt.graph.build import _Cache, parse_all, read_sources
from corrupt.graph.discover import discover


def write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


SPANS = '''\
"""Module docstring."""


@first
@second(
    1,
)
def decorated(
    a,
    b,
):  # trailing comment
    """Docstring
    over two lines."""
    return a + b


class Box:
    """A box."""

    size = 1

    async def open(self):
        def inner():
            return 1

        return inner()


def only_doc():
    """Nothing else."""
'''


@pytest.fixture(scope="module")
def src_layout(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("srclayout")
    return write(
        root,
        {
            "src/pkg/__init__.py": "from .spans import decorated\n",
            "src/pkg/spans.py": SPANS,
            "src/pkg/sub/__init__.py": "",
            "src/pkg/sub/deep.py": "def leaf():\n    return 1\n",
            "tests/test_pkg.py": "def test_x():\n    pass\n",
            "src/pkg/conftest.py": "def fixture():\n    pass\n",
            "src/pkg/helpers_test.py": "def check():\n    pass\n",
            "docs/conf.py": "project = 'x'\n",
            "setup.py": "def setup():\n    pass\n",
        },
    )


def test_src_layout_names_modules_from_the_import_root(src_layout):
    graph = build_code_graph(src_layout, use_cache=False)
    assert graph.import_root == "src"
    modules = {q for q, s in graph.symbols.items() if s.kind == "module"}
    assert modules == {"pkg", "pkg.spans", "pkg.sub", "pkg.sub.deep"}
    assert graph.symbols["pkg"].file == "src/pkg/__init__.py"
    assert graph.symbols["pkg.sub.deep.leaf"].file == "src/pkg/sub/deep.py"


def test_default_excludes_leave_out_tests_docs_and_setup(src_layout):
    _, files = discover(src_layout)
    paths = {f.path for f in files}
    assert not any("test" in p or "conftest" in p or p.startswith("docs") for p in paths)
    _, everything = discover(src_layout / "src", exclude=())
    assert any(f.path == "pkg/conftest.py" for f in everything)


def test_extra_exclude_rules(src_layout):
    graph = build_code_graph(src_layout, exclude=(*DEFAULT_EXCLUDES, "sub/"), use_cache=False)
    assert "pkg.sub.deep.leaf" not in graph.symbols


def test_loose_folder_is_its_own_root(tmp_path):
    write(tmp_path, {"tool.py": "def run():\n    helper()\n\ndef helper():\n    pass\n"})
    graph = build_code_graph(tmp_path, use_cache=False)
    assert graph.import_root == ""
    assert ("tool.run", "tool.helper") in graph.edges


def test_symbol_spans(src_layout):
    graph = build_code_graph(src_layout, use_cache=False)
    module = graph.symbols["pkg.spans"]
    assert (module.kind, module.docstring, module.start_line) == ("module", (1, 1), 1)
    func = graph.symbols["pkg.spans.decorated"]
    assert func.kind == "function" and func.parent == "pkg.spans"
    assert func.decorators == (4, 7)
    assert (func.start_line, func.end_line) == (8, 14)
    assert func.signature == (8, 11)
    assert func.docstring == (12, 13)
    assert func.body_start == 14
    box = graph.symbols["pkg.spans.Box"]
    assert (box.kind, box.docstring, box.body_start) == ("class", (18, 18), 20)
    method = graph.symbols["pkg.spans.Box.open"]
    assert (method.kind, method.is_async, method.parent) == ("method", True, "pkg.spans.Box")
    assert method.signature == (22, 22) and method.body_start == 23
    inner = graph.symbols["pkg.spans.Box.open.inner"]
    assert (inner.kind, inner.parent, inner.is_async) == ("nested", "pkg.spans.Box.open", False)
    assert graph.symbols["pkg.spans.only_doc"].body_start is None
    assert ("pkg.spans.Box.open", "pkg.spans.Box.open.inner") in graph.edges


def test_broken_files_are_skipped_and_the_rest_builds(tmp_path):
    write(tmp_path, {"good.py": "def ok():\n    return 1\n", "bad.py": "def broken(:\n    pass\n"})
    (tmp_path / "latin.py").write_bytes(b"# caf\xe9\ndef f():\n    pass\n")
    graph = build_code_graph(tmp_path, use_cache=False)
    assert "good.ok" in graph.symbols
    reasons = {s.file: s.reason for s in graph.skipped}
    assert reasons["latin.py"] == "not UTF-8"
    assert reasons["bad.py"].startswith("syntax error at line 1")
    assert len(graph.skipped) == 2


def test_a_file_too_deep_to_walk_is_skipped_not_a_crash(tmp_path):
    """``ast.parse`` accepts a 2,500-term sum; walking it recursively would overflow."""
    write(tmp_path, {"good.py": "def ok():\n    return 1\n"})
    (tmp_path / "deep.py").write_text("x = " + " + ".join(["1"] * 2500) + "\n")
    graph = build_code_graph(tmp_path, use_cache=False)
    assert "good.ok" in graph.symbols
    assert {s.file: s.reason for s in graph.skipped} == {"deep.py": "nested too deeply to analyse"}


@pytest.mark.parametrize("files", [{}, {"notes.txt": "hello"}, {"tests/test_a.py": "x = 1\n"}])
def test_no_python_code_is_a_clear_error(tmp_path, files):
    write(tmp_path, files)
    with pytest.raises(NoPythonError, match="no Python files"):
        build_code_graph(tmp_path, use_cache=False)


def test_only_broken_files_is_a_clear_error(tmp_path):
    write(tmp_path, {"bad.py": "def (\n"})
    with pytest.raises(NoPythonError, match="no parsable Python files"):
        build_code_graph(tmp_path, use_cache=False)
    assert gc.isenabled()  # the build pauses the collector, and resumes it on errors too


def test_the_collector_resumes_after_a_build(tmp_path):
    write(tmp_path, {"m.py": "def a():\n    pass\n"})
    build_code_graph(tmp_path, use_cache=False)
    assert gc.isenabled()


def test_crlf_and_bom_sources_keep_their_line_numbers(tmp_path):
    (tmp_path / "win.py").write_bytes(
        b"\xef\xbb\xbfdef a():\r\n    return b()\r\n\r\n\r\ndef b():\r\n    return 1"
    )
    graph = build_code_graph(tmp_path, use_cache=False)
    assert graph.symbols["win.b"].start_line == 5
    assert graph.symbols["win.b"].end_line == 6
    assert ("win.a", "win.b") in graph.edges


def test_adjacency_and_function_order(src_layout):
    graph = build_code_graph(src_layout, use_cache=False)
    adjacency = graph.adjacency()
    assert set(adjacency) == set(graph.symbols)
    assert sum(len(v) for v in adjacency.values()) == len(graph.edges)
    assert [f.qualname for f in graph.functions()] == sorted(
        (f.qualname for f in graph.functions()),
        key=lambda q: (graph.symbols[q].file, graph.symbols[q].start_line, q),
    )
    digraph = graph.digraph()
    assert digraph.number_of_nodes() == len(graph.symbols)
    assert digraph.nodes["pkg.spans.Box"]["kind"] == "class"


def test_cache_reuses_results_and_sees_changes(tmp_path):
    project = write(tmp_path / "p", {"m.py": "def a():\n    b()\n\ndef b():\n    pass\n"})
    cache = tmp_path / "cache"
    first = build_code_graph(project, cache_dir=cache)
    assert any(cache.rglob("*.pkl"))
    assert build_code_graph(project, cache_dir=cache) == first
    (project / "m.py").write_text("def a():\n    pass\n\ndef b():\n    a()\n", encoding="utf-8")
    changed = build_code_graph(project, cache_dir=cache)
    assert changed.edges == [("m.b", "m.a")]


def test_parallel_parsing_gives_the_same_facts(src_layout):
    _, sources = discover(src_layout)
    contents, keys = read_sources(src_layout, sources)
    serial = parse_all(sources, contents, keys, _Cache(None), workers=1)
    parallel = parse_all(sources, contents, keys, _Cache(None), workers=2, parallel_min_lines=0)
    assert parallel == serial
    assert len(serial) == len(sources)


def test_parallel_workers_fill_the_cache(src_layout, tmp_path):
    _, sources = discover(src_layout)
    contents, keys = read_sources(src_layout, sources)
    cache = _Cache(tmp_path / "cache")
    parsed = parse_all(sources, contents, keys, cache, workers=2, parallel_min_lines=0)
    assert [cache.get(key) for key in keys] == parsed


def test_committed_links_are_never_read(tmp_path):
    """A repository may commit ``mod.py -> /dev/zero`` (a hang) or a link to a secret."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "real.py").write_text("def f():\n    return 1\n")
    (tmp_path / "pkg" / "zero.py").symlink_to("/dev/zero")
    (tmp_path / "pkg" / "alias.py").symlink_to(tmp_path / "pkg" / "real.py")
    _, files = discover(tmp_path)
    assert [f.path for f in files] == ["pkg/__init__.py", "pkg/real.py"]
