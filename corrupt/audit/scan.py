"""Look for a task's original code in bytes, archives, compiled files and git objects.

Standard library only, and runnable as a script (``python scan.py NEEDLES.json
ROOT...`` prints the hits as JSON), so the same code reads a folder on the host
and, where byte-code must be compiled by the image's own interpreter, runs
inside a container.

Two kinds of evidence. A *needle* is a block of the original's lines that the
fix restores, with enough context around them that it occurs nowhere in the
corrupted tree (whitespace at line ends and starts is ignored, so a copy
indented differently still counts). A *compiled* target is a function whose
byte-code, compiled from the original, differs from the corrupted one's: a
``.pyc`` holding the original's byte-code is a copy of the answer even though
no line of source is in it. Archives (wheels, sdists, zips, gzip, tars, also
inside a cache file's body) are opened, up to a few levels deep; git
directories are read through ``git cat-file --batch-all-objects``, which shows
every object whether packed, loose, reachable or not.
"""

from __future__ import annotations

import bz2
import functools
import gzip
import importlib.util
import io
import json
import lzma
import marshal
import os
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path
from types import CodeType
from typing import Any

MAX_BYTES = 512 * 1024 * 1024  # larger files are listed as skipped, not read
MAX_DEPTH = 3  # archives inside archives
PYC_HEADER = 16


@dataclass(frozen=True)
class Needle:
    """Lines the fix of ``path`` restores, normalised (each stripped, blank lines dropped)."""

    task_id: str
    path: str
    block: str

    @functools.cached_property
    def anchor(self) -> bytes:
        """The block's longest line: a fast byte search finds candidates before the block is checked."""
        return max(self.block.splitlines(), key=len).encode("utf-8")


@dataclass(frozen=True)
class Compiled:
    """A corrupted module: the original and corrupted text, and the functions the task changed."""

    task_id: str
    path: str
    qualnames: tuple[str, ...]
    original: str
    corrupted: str


@dataclass(frozen=True)
class Hit:
    """Where an original was found: ``route`` is file, archive, compiled or git."""

    task_id: str
    path: str
    route: str
    where: str


def normalise(text: str) -> str:
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


class Scanner:
    def __init__(self, needles: list[Needle], compiled: list[Compiled]) -> None:
        self.needles = needles
        # per corrupted module, per changed function: the original's byte-code signatures
        self.originals = {c: {q: _original_signatures(c, q) for q in c.qualnames} for c in compiled}
        self.skipped: list[str] = []  # files too large to read
        self.foreign: list[tuple[str, bytes]] = []  # byte-code of another Python, to be read by it

    # -- bytes -------------------------------------------------------------------------
    def scan_bytes(self, where: str, data: bytes, depth: int = 0, route: str = "file") -> list[Hit]:
        hits = self._needles_in(where, data, route)
        if where.endswith((".pyc", ".pyo")):
            hits += self._compiled_in(where, data)
        if depth < MAX_DEPTH:
            for name, member in _members(data):
                hits += self.scan_bytes(f"{where}!{name}", member, depth + 1, "archive")
        return hits

    def _needles_in(self, where: str, data: bytes, route: str) -> list[Hit]:
        candidates = [n for n in self.needles if n.anchor in data]
        if not candidates:
            return []
        text = normalise(data.decode("utf-8", "replace"))
        return [Hit(n.task_id, n.path, route, where) for n in candidates if n.block in text]

    def modules_named_as(self, where: str) -> list[Compiled]:
        """The corrupted modules a byte-code file at ``where`` would be compiled from, by name."""
        stem = Path(where.rsplit("!", 1)[-1]).name.split(".", 1)[0]
        return [c for c in self.originals if Path(c.path).stem == stem]

    def _compiled_in(self, where: str, data: bytes) -> list[Hit]:
        relevant = self.modules_named_as(where)
        if not relevant:
            return []
        if data[:4] != importlib.util.MAGIC_NUMBER:
            self.foreign.append((where, data))
            return []
        try:
            code = marshal.loads(data[PYC_HEADER:])
        except (ValueError, EOFError, TypeError):
            return []
        found = _function_signatures(code)
        return [
            Hit(c.task_id, c.path, "compiled", where)
            for c in relevant
            if any(found.get(q) in signatures for q, signatures in self.originals[c].items())
        ]

    # -- folders -----------------------------------------------------------------------
    def scan_tree(self, root: Path, shown_as: str | None = None) -> list[Hit]:
        """Every file under ``root``; git directories through git. Symlinks are not followed."""
        hits: list[Hit] = []
        shown = shown_as if shown_as is not None else str(root)
        for folder, dirs, names in os.walk(root):
            here = Path(folder)
            if is_git_dir(here):
                hits += self.scan_git(here, _shown(shown, root, here))
                dirs[:] = [d for d in dirs if d != "objects"]
            for name in names:
                path = here / name
                if path.is_symlink() or not path.is_file():
                    continue
                if path.stat().st_size > MAX_BYTES:
                    self.skipped.append(_shown(shown, root, path))
                    continue
                hits += self.scan_bytes(_shown(shown, root, path), path.read_bytes())
        return hits

    def scan_git(self, git_dir: Path, shown: str) -> list[Hit]:
        """Every object of the repository at ``git_dir``, reachable or not."""
        listing = _git(git_dir, "cat-file", "--batch-all-objects", "--batch", "--unordered")
        hits = []
        for sha, content in _objects(listing):
            for hit in self.scan_bytes(f"git object {sha[:12]} in {shown}", content, route="git"):
                reach = _reach(git_dir, sha)
                hits.append(Hit(hit.task_id, hit.path, hit.route, f"{hit.where} ({reach})"))
        return hits


def is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir() and (path / "refs").is_dir()


def _shown(shown: str, root: Path, path: Path) -> str:
    relative = path.relative_to(root).as_posix()
    return shown if relative == "." else f"{shown.rstrip('/')}/{relative}"


def _git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args],
        capture_output=True,
        check=True,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull},
    ).stdout


def _objects(listing: bytes) -> list[tuple[str, bytes]]:
    objects, at = [], 0
    while at < len(listing):
        end = listing.index(b"\n", at)
        sha, _, size = listing[at:end].decode().split()
        start = end + 1
        objects.append((sha, listing[start : start + int(size)]))
        at = start + int(size) + 1
    return objects


def _reach(git_dir: Path, sha: str) -> str:
    """Which ref reaches a blob: a branch, tag, stash or note; else the reflog; else nothing."""
    refs = _git(git_dir, "for-each-ref", "--format=%(refname)").decode().split()
    for ref in refs + ["HEAD", "ORIG_HEAD", "FETCH_HEAD"]:
        try:
            if sha.encode() in _git(git_dir, "rev-list", "--objects", ref):
                return f"reachable from {ref}"
        except subprocess.CalledProcessError:
            continue
    if sha.encode() in _git(git_dir, "rev-list", "--objects", "--reflog"):
        return "reachable from the reflog"
    return "unreachable"


def _members(data: bytes) -> list[tuple[str, bytes]]:
    """The files inside ``data`` if it is an archive or compressed; else nothing."""
    try:
        if data[:2] == b"\x1f\x8b":
            inner = gzip.decompress(data)
        elif data[:3] == b"BZh":
            inner = bz2.decompress(data)
        elif data[:6] == b"\xfd7zXZ\x00":
            inner = lzma.decompress(data)
        else:
            inner = None
        if inner is not None:
            return _tar_members(inner) or [("(decompressed)", inner)]
        if data[257:262] == b"ustar":
            return _tar_members(data)
        if b"PK\x05\x06" in data[-66_000:]:  # a zip's end record, also after a cache header
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                return [
                    (i.filename, archive.read(i))
                    for i in archive.infolist()
                    if not i.is_dir() and i.file_size <= MAX_BYTES
                ]
    except (OSError, EOFError, ValueError, zipfile.BadZipFile, tarfile.TarError, lzma.LZMAError):
        return []
    return []


def _tar_members(data: bytes) -> list[tuple[str, bytes]]:
    if data[257:262] != b"ustar":
        return []
    members = []
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        for info in archive:
            handle = archive.extractfile(info) if info.isfile() and info.size <= MAX_BYTES else None
            if handle is not None:
                members.append((info.name, handle.read()))
    return members


# -- byte-code ---------------------------------------------------------------------------
def _signature(code: CodeType) -> Any:
    """What a function does, without where it sits: byte-code, constants, names."""
    consts = tuple(_signature(c) if isinstance(c, CodeType) else repr(c) for c in code.co_consts)
    return (code.co_code, consts, code.co_names, code.co_varnames)


def _function_signatures(module: CodeType) -> dict[str, Any]:
    found: dict[str, Any] = {}

    def walk(code: CodeType, prefix: str) -> None:
        for const in code.co_consts:
            if isinstance(const, CodeType):
                name = getattr(const, "co_qualname", f"{prefix}{const.co_name}")
                found.setdefault(name.replace(".<locals>", ""), _signature(const))
                walk(const, f"{prefix}{const.co_name}.")

    walk(module, "")
    return found


@functools.lru_cache(maxsize=64)  # a module is compiled once per level, whatever asks
def _compiled(text: str, path: str, optimize: int) -> dict[str, Any]:
    try:
        return _function_signatures(
            compile(text, path, "exec", dont_inherit=True, optimize=optimize)
        )
    except (SyntaxError, ValueError):
        return {}


def _original_signatures(target: Compiled, qualname: str) -> list[Any]:
    signatures = []
    for optimize in (0, 1, 2):
        original = _compiled(target.original, target.path, optimize).get(qualname)
        if original is not None and original != _compiled(
            target.corrupted, target.path, optimize
        ).get(qualname):
            signatures.append(original)
    return signatures


def main(argv: list[str]) -> int:
    """``scan.py NEEDLES.json ROOT...``: the hits, and what could not be read, as JSON on stdout."""
    spec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    scanner = Scanner(
        [Needle(**n) for n in spec["needles"]],
        [Compiled(**{**c, "qualnames": tuple(c["qualnames"])}) for c in spec["compiled"]],
    )
    hits = [asdict(h) for root in argv[1:] for h in scanner.scan_tree(Path(root))]
    foreign = [where for where, _ in scanner.foreign]
    json.dump({"hits": hits, "skipped": scanner.skipped, "foreign": foreign}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
