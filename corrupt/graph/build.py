"""Build a :class:`CodeGraph` for a repository: discover, parse (cached, parallel), resolve, measure.

Parsing dominates cold runs, so each file's facts are cached by a hash of its
content (plus its module name and the extractor version) and files that miss
the cache are parsed in a process pool when there are enough of them to
repay the pool's start-up. A finished graph is cached too, keyed by every
file's hash and the exclude rules, so an unchanged repository costs only
hashing its files; such a run imports neither the extractor, the resolver nor
the metrics (each is imported where it is first needed).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import gc
import hashlib
import importlib.metadata
import os
import pickle
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from corrupt.cache import cache_root
from corrupt.errors import NoPythonError
from corrupt.graph.discover import DEFAULT_EXCLUDES, SourceFile, discover
from corrupt.graph.models import CodeGraph, SkippedFile

if TYPE_CHECKING:
    from corrupt.graph.facts import ModuleFacts

PARALLEL_MIN_LINES = 8_000


@functools.cache
def code_version() -> str:
    """A digest of this stage's own source and the libraries that shape its output,
    so a cached parse or graph is never reused after the code that made it changed."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    for library in ("radon", "rustworkx"):
        digest.update(f"{library}={importlib.metadata.version(library)}".encode())
    digest.update(sys.version.encode())
    return digest.hexdigest()[:16]


def default_cache_dir() -> Path:
    return cache_root() / "graph"


def split_lines(text: str) -> list[str]:
    """Lines as ``ast`` numbers them (``\\n``, ``\\r\\n`` and ``\\r`` all end a line)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def parse_source(source: SourceFile, data: bytes) -> ModuleFacts | SkippedFile:
    """Facts of one file, or the reason it cannot be read as Python."""
    from corrupt.graph.extract import extract

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return SkippedFile(source.path, "not UTF-8")
    text = text.removeprefix("\ufeff")
    try:
        tree = ast.parse(text, filename=source.path)
    except SyntaxError as exc:
        return SkippedFile(source.path, f"syntax error at line {exc.lineno}: {exc.msg}")
    except (ValueError, RecursionError, MemoryError) as exc:
        return SkippedFile(source.path, f"cannot parse: {exc}")
    try:
        return extract(tree, source.module, source.path, source.is_package, split_lines(text))
    except RecursionError:  # ``ast.parse`` allows deeper nesting than a recursive walk
        return SkippedFile(source.path, "nested too deeply to analyse")


def _parse_job(job: tuple[_Cache, str, SourceFile, bytes]) -> bytes:
    """A worker's share: the facts pickled once, both for the cache and for the trip back."""
    cache, key, source, data = job
    pickled = pickle.dumps(parse_source(source, data), protocol=pickle.HIGHEST_PROTOCOL)
    cache.put_pickled(key, pickled)
    return pickled


class _Cache:
    """Pickled results in ``cache_dir``, one file per key; I/O errors only cost speed."""

    def __init__(self, directory: Path | None):
        self.directory = directory

    def path(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / key[:2] / f"{key}.pkl"

    def get(self, key: str) -> Any:
        if self.directory is None:
            return None
        try:
            with open(self.path(key), "rb") as handle:
                return pickle.load(handle)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, TypeError):
            return None

    def put(self, key: str, value: object) -> None:
        if self.directory is not None:
            self.put_pickled(key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def put_pickled(self, key: str, pickled: bytes) -> None:
        if self.directory is None:
            return
        target = self.path(key)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_bytes(pickled)
            os.replace(temporary, target)
        except OSError:
            pass


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a graph is built (pool workers inherit the pause).

    Parsing and resolving allocate millions of objects that are kept until the
    graph is done, so the collector's full passes over the growing heap find
    little and cost about a tenth of the parse and a third of the resolution
    (stdlib, one core); garbage in cycles, if any, is collected after the pause.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _file_key(source: SourceFile, data: bytes) -> str:
    digest = hashlib.sha256()
    for part in (code_version(), source.path, source.module, str(source.is_package)):
        digest.update(part.encode())
        digest.update(b"\0")
    digest.update(data)
    return digest.hexdigest()


def read_sources(root: Path, sources: list[SourceFile]) -> tuple[list[bytes], list[str]]:
    """Every file's bytes and content key (what the caches are keyed by)."""
    contents = [(root / source.path).read_bytes() for source in sources]
    keys = [_file_key(s, data) for s, data in zip(sources, contents, strict=True)]
    return contents, keys


def parse_all(
    sources: list[SourceFile],
    contents: list[bytes],
    keys: list[str],
    cache: _Cache,
    workers: int | None = None,
    parallel_min_lines: int = PARALLEL_MIN_LINES,
) -> list[ModuleFacts | SkippedFile]:
    """Facts for every source, from the cache where possible, in a process pool
    when there is enough to parse (the workers write the cache entries)."""
    results: dict[int, ModuleFacts | SkippedFile] = {}
    misses: list[tuple[int, str, SourceFile, bytes]] = []
    for position, (source, data, key) in enumerate(zip(sources, contents, keys, strict=True)):
        cached = cache.get(key)
        if cached is not None:
            results[position] = cached
        else:
            misses.append((position, key, source, data))
    workers = workers or os.cpu_count() or 1
    miss_lines = sum(data.count(b"\n") for *_, data in misses)
    if workers > 1 and len(misses) > 1 and miss_lines >= parallel_min_lines:
        misses.sort(key=lambda m: -len(m[3]))
        jobs = [(cache, key, source, data) for _, key, source, data in misses]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            chunksize = max(1, len(jobs) // (workers * 8))
            for (position, *_), pickled in zip(
                misses, pool.map(_parse_job, jobs, chunksize=chunksize), strict=True
            ):
                results[position] = pickle.loads(pickled)
    else:
        for position, key, source, data in misses:
            results[position] = parse_source(source, data)
            cache.put(key, results[position])
    return [results[i] for i in range(len(sources))]


def build_code_graph(
    root: Path,
    *,
    exclude: tuple[str, ...] | list[str] = DEFAULT_EXCLUDES,
    cache_dir: Path | None = None,
    use_cache: bool = True,
    workers: int | None = None,
) -> CodeGraph:
    """Index, call graph and metrics of the Python code under ``root``.

    Raises :class:`NoPythonError` when there is no Python file to analyse.
    Unreadable files are recorded in ``CodeGraph.skipped`` and left out.
    """
    root = Path(root)
    if not root.is_dir():
        raise NoPythonError(f"{root} is not a directory")
    exclude = tuple(exclude)
    import_root, sources = discover(root, exclude)
    if not sources:
        raise NoPythonError(f"no Python files to analyse under {root}")
    cache = _Cache((cache_dir or default_cache_dir()) if use_cache else None)
    contents, keys = read_sources(root, sources)
    graph_key = hashlib.sha256(repr((code_version(), import_root, keys)).encode()).hexdigest()
    cached = cache.get(f"g{graph_key}")
    if isinstance(cached, CodeGraph):
        return cached
    from corrupt.graph.facts import ModuleFacts
    from corrupt.graph.metrics import function_metrics
    from corrupt.graph.resolve import resolve_calls

    with collector_paused():
        results = parse_all(sources, contents, keys, cache, workers)
        facts = [r for r in results if isinstance(r, ModuleFacts)]
        skipped = [r for r in results if isinstance(r, SkippedFile)]
        if not facts:
            raise NoPythonError(f"no parsable Python files under {root} ({len(skipped)} skipped)")
        symbols = {s.qualname: s for f in facts for s in f.symbols}
        edges = resolve_calls(facts)
        local = {name: m for f in facts for name, m in f.metrics.items()}
        graph = CodeGraph(
            import_root=import_root,
            symbols=symbols,
            edges=edges,
            metrics=function_metrics(symbols, edges, local),
            skipped=skipped,
            lines_of_code=sum(f.lines for f in facts),
        )
    cache.put(f"g{graph_key}", graph)
    return graph
