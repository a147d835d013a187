"""Pin a repository at one commit in the local cache.

Cache layout (``cache_dir`` defaults to ``$XDG_CACHE_HOME/corrupt``, else ``~/.cache/corrupt``)::

    repos/<host>/<owner>/<name>/repo.git       bare clone, only ever fetched into
    repos/<host>/<owner>/<name>/trees/<sha>    the files of one commit
    repos/local/<name>-<hash of its path>/trees/...   trees of local folders

A checkout's ``path`` is a ``trees/<sha>`` folder: plain files (no ``.git``)
extracted from git's objects with a throw-away index, so commits of one
repository coexist and nothing a run does can reach the clone. Trees are
read-only by convention: runs copy them into their own working copy.

Revisions are resolved against the cached clone first and fetched only when
unknown (or with ``refresh=True``), so a branch name keeps meaning the commit it
meant when first cached: checkouts are reproducible without a network.

Local folders: the root of a clean git work tree is pinned at ``HEAD`` (or the
given ``@rev``). A folder with uncommitted changes, a folder inside a git
repository, or a folder outside git is used *as it is on disk*: its files (for
git, those git does not ignore) are copied into the cache and identified by a
content hash, ``tree:<sha256>``, because no commit describes them.

Submodules are filled as ``git clone --recursive`` would: each gitlink of the
commit is extracted at its pinned commit from its own cached bare clone
(``repos/<host>/<path>/repo.git``, keyed by the URL in the commit's
``.gitmodules``, relative URLs resolved against the superproject's URL). One
that cannot be cloned or lacks its commit is left an empty folder with a
warning, and tried again on the next checkout of that tree, as are the empty
submodule folders of trees extracted before submodules were filled.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

import git

from corrupt.cache import cache_root
from corrupt.errors import CloneError, InputError, RepoNotFound, RevisionError, StarsError
from corrupt.repos.github import repo_meta
from corrupt.repos.gittool import USER_GIT_ENV
from corrupt.repos.models import Checkout, RepoMeta, RepoSpec
from corrupt.repos.specs import check_rev
from corrupt.repos.versions import describe_version, write_version_files

log = logging.getLogger(__name__)

FETCH_REFSPECS = ("+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*")
# Folders never copied from a plain (non-git) folder: caches and environments, not source.
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".eggs",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".hypothesis",
        "node_modules",
    }
)
_NOT_FOUND = re.compile(
    r"not found|returned error: 404|does not appear to be a git repository|does not exist|no such file",
    re.I,
)
_FULL_SHA = re.compile(r"[0-9a-f]{40}")
# Submodule URLs we clone: git's network transports, scp-like ``[user@]host:path``, file://
# and absolute paths. Not ``ext::``/``fd::`` (they run commands), option-like hosts or paths
# relative to our working directory, which a repository's .gitmodules must not choose.
_SUBMODULE_URL = re.compile(
    r"(?:(?:https?|ssh|git|git\+ssh|ssh\+git|file)://(?!-)|(?:\w[\w.+~-]*@)?\w[\w.-]*:(?!:|//)|/)\S*"
)


@dataclass(frozen=True)
class _Source:
    """What filling a tree's submodules needs to know about the repository it came from."""

    url: str  # relative submodule URLs are resolved against it, as git does
    repos: Path  # the cache's repos/ folder: each submodule gets its own cached clone there
    held: frozenset[Path]  # cache entries locked by this call chain: locking one again deadlocks
    prefix: str = ""  # where the tree being filled sits in the top tree, for messages


def checkout(
    spec: RepoSpec,
    *,
    cache_dir: Path | None = None,
    min_stars: int = 0,
    api_url: str | None = None,
    token: str | None = None,
    refresh: bool = False,
) -> Checkout:
    """Pin ``spec`` at one commit in the cache and return where its files are.

    ``min_stars`` is enforced for ``github:`` specs (other specs have no star
    count). ``refresh`` fetches from the remote even when the revision is known,
    e.g. to move a branch name to its newest commit.
    """
    repos = Path(cache_dir or cache_root()) / "repos"
    if spec.rev is not None:
        check_rev(spec.rev, str(spec))
    if spec.kind == "local":
        return _checkout_local(spec, repos)
    meta: RepoMeta | None = None
    url = spec.location
    if spec.kind == "github":
        meta = repo_meta(spec.location, api_url=api_url, token=token)
        if meta.stars < min_stars:
            raise StarsError(
                f"{meta.full_name} has {meta.stars} stars, fewer than --min-stars {min_stars}"
            )
        url = meta.clone_url or f"https://github.com/{spec.location}.git"
    elif min_stars > 0:
        log.warning("%s is not a github: spec, so its stars are unknown; --min-stars ignored", spec)
    key_dir = repos / cache_key(url)
    with _locked(key_dir):
        repo = _ensure_clone(url, key_dir / "repo.git")
        sha = _resolve_remote(repo, url, spec.rev, refresh)
        version = describe_version(repo, sha)
        source = _Source(url, repos, frozenset({key_dir}))
        tree = _ensure_tree(repo, sha, key_dir / "trees" / sha, version, source)
        committed = commit_time(repo, sha)
    return Checkout(
        spec=spec,
        name=meta.full_name if meta else display_name(url),
        url=url,
        commit=sha,
        path=tree,
        stars=meta.stars if meta else None,
        meta=meta,
        version=version,
        committed=committed,
    )


def commit_time(repo: git.Repo, sha: str) -> str:
    """When ``sha`` was committed, in UTC (``2024-10-17T17:04:16Z``): the moment its CI saw the index."""
    moment = datetime.fromtimestamp(repo.commit(sha).committed_date, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def cache_key(url: str) -> Path:
    """``<host>/<path segments>`` for a git URL, e.g. ``github.com/owner/name``."""
    scp = re.fullmatch(r"(?:[^@/:]+@)?([^/:]+):(.+)", url) if "://" not in url else None
    if scp:
        host, path = scp.group(1), scp.group(2)
    else:
        parts = urlsplit(url)
        host = "file" if parts.scheme == "file" else (parts.hostname or "unknown")
        if parts.port:
            host = f"{host}_{parts.port}"
        path = unquote(parts.path)
    host = host.lower()
    if host == "github.com":  # GitHub names are case-insensitive: one clone per repository
        path = path.lower()
    segments = [_safe(s) for s in path.split("/") if s not in ("", ".", "..")] or ["repo"]
    segments[-1] = segments[-1].removesuffix(".git") or "repo"
    return Path(_safe(host), *segments)


def display_name(url: str) -> str:
    """``owner/name`` from the last two path segments of a URL (or just ``name``)."""
    return "/".join(cache_key(url).parts[1:][-2:])


def _safe(segment: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", segment)


@contextmanager
def _locked(key_dir: Path) -> Iterator[None]:
    """Serialise work on one cache entry across processes (parallel builds share the cache)."""
    key_dir.mkdir(parents=True, exist_ok=True)
    with open(key_dir / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _ensure_clone(url: str, dest: Path) -> git.Repo:
    """The cached bare clone of ``url``, cloning it first if needed (atomically: tmp + rename)."""
    if (dest / "HEAD").is_file():
        return git.Repo(dest)
    log.info("cloning %s", url)
    tmp = Path(tempfile.mkdtemp(prefix=".clone-", dir=dest.parent))
    try:
        git.Repo.clone_from(url, tmp, bare=True, env=USER_GIT_ENV)
    except git.GitCommandError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        reason = _git_reason(exc)
        if _NOT_FOUND.search(str(exc.stderr)):
            raise RepoNotFound(f"no git repository at {url}: {reason}") from None
        raise CloneError(f"cannot clone {url}: {reason}") from None
    tmp.rename(dest)
    return git.Repo(dest)


def _resolve_remote(repo: git.Repo, url: str, rev: str | None, refresh: bool) -> str:
    """The commit sha of ``rev`` (default: the clone's HEAD, the remote's default branch).

    Fetches only when ``rev`` is unknown to the clone, or when asked to ``refresh``.
    """
    wanted = rev or "HEAD"
    sha = None if refresh else _rev_parse(repo, wanted)
    if sha:
        return sha
    log.info("fetching %s to find %s", url, wanted)
    try:
        repo.git.fetch(url, *FETCH_REFSPECS, env=USER_GIT_ENV)
    except git.GitCommandError as exc:
        raise CloneError(f"cannot fetch from {url}: {_git_reason(exc)}") from None
    sha = _rev_parse(repo, wanted)
    if sha is None and _FULL_SHA.fullmatch(wanted):
        # A commit no branch or tag points at: ask for it by name (servers may refuse).
        with suppress(git.GitCommandError):
            repo.git.fetch(url, wanted, env=USER_GIT_ENV)
        sha = _rev_parse(repo, wanted)
    if sha is None:
        raise RevisionError(f"revision {wanted!r} not found in {url}")
    return sha


def _rev_parse(repo: git.Repo, rev: str) -> str | None:
    try:
        sha: str = repo.git.rev_parse("--verify", "--quiet", f"{rev}^{{commit}}")
        return sha
    except git.GitCommandError:
        return None


def _ensure_tree(
    repo: git.Repo, sha: str, dest: Path, version: str | None, source: _Source
) -> Path:
    """Extract commit ``sha`` into ``dest`` once, without touching ``repo``'s own index or HEAD,
    with its submodules and the version files a VCS plugin would generate at that commit
    (see :mod:`versions`). Everything happens in a tmp folder renamed into place at the end,
    so a half-made tree is never seen."""
    if dest.is_dir():
        if version is not None:  # a tree extracted before version files were written
            write_version_files(dest, version)
        _fill_submodules(repo, sha, dest, source)  # extracted before submodules were filled
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tree-", dir=dest.parent))
    try:
        _extract(repo, sha, tmp, dest.parent)
        _fill_submodules(repo, sha, tmp, source)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, git.GitCommandError):
            raise CloneError(f"cannot extract commit {sha[:12]}: {_git_reason(exc)}") from None
        raise
    if version is not None:
        write_version_files(tmp, version)
    tmp.rename(dest)
    return dest


def _extract(repo: git.Repo, sha: str, work_tree: Path, scratch: Path) -> None:
    """Write the files of ``sha`` into ``work_tree`` through a throw-away index in ``scratch``:
    the repository's own index (a bare clone has none; a local one is the user's) stays as is."""
    with tempfile.TemporaryDirectory(prefix=".index-", dir=scratch) as index_dir:
        env = {**USER_GIT_ENV, "GIT_INDEX_FILE": str(Path(index_dir) / "index")}
        base = [
            "git",
            f"--git-dir={repo.git_dir}",
            f"--work-tree={work_tree}",
            "-c",
            "core.autocrlf=false",
        ]
        repo.git.execute([*base, "read-tree", sha], env=env)
        repo.git.execute([*base, "checkout-index", "--all", "--force"], env=env)


def _fill_submodules(repo: git.Repo, sha: str, root: Path, source: _Source) -> None:
    """Fill the empty gitlink folders of ``root`` (the files of ``sha``) with their submodules.

    Cheap when there is nothing to do, as on every later checkout of a tree: no
    ``.gitmodules`` file, or no submodule folder of it empty, means no git call
    beyond reading ``.gitmodules``.
    """
    if not (root / ".gitmodules").is_file():
        return
    modules = _gitmodules(repo, sha)
    if not any(_is_empty_dir(root, path) for path in modules):
        return
    for path, pin in _gitlinks(repo, sha).items():
        if _is_empty_dir(root, path):
            _fill_submodule(path, pin, modules.get(path), root, source)


def _gitmodules(repo: git.Repo, sha: str) -> dict[str, dict[str, str]]:
    """``{path: {"url": …, "update": …}}`` from the ``.gitmodules`` of commit ``sha``.

    Read from the commit's blob, not the extracted file, so it is what git would read;
    an unreadable or malformed file counts as naming no submodules.
    """
    try:
        out = repo.git.config(
            "-z",
            "--blob",
            f"{sha}:.gitmodules",
            "--get-regexp",
            r"^submodule\..*\.(path|url|update)$",
        )
    except git.GitCommandError:
        return {}
    by_name: dict[str, dict[str, str]] = {}
    for entry in filter(None, out.split("\0")):
        key, _, value = entry.partition("\n")
        name, _, var = key.removeprefix("submodule.").rpartition(".")
        by_name.setdefault(name, {})[var] = value
    return {fields["path"].strip("/"): fields for fields in by_name.values() if fields.get("path")}


def _gitlinks(repo: git.Repo, sha: str) -> dict[str, str]:
    """``{path: pinned commit}`` of the submodules (mode 160000 entries) of commit ``sha``."""
    found = {}
    for entry in repo.git.ls_tree("-r", "-z", sha).split("\0"):
        meta, _, path = entry.partition("\t")
        mode, _, pin = meta.partition(" commit ")
        if mode == "160000" and path:
            found[path] = pin
    return found


def _is_empty_dir(root: Path, path: str) -> bool:
    """Whether ``path`` is an empty folder inside ``root``: what git leaves for a submodule.

    ``path`` comes from a repository's files, so anything leaving ``root`` is never true.
    """
    parts = PurePosixPath(path).parts
    if not parts or PurePosixPath(path).is_absolute() or {"..", ".git"} & set(parts):
        return False
    folder = root.joinpath(*parts)
    if (
        folder.is_symlink()
        or not folder.is_dir()
        or not folder.resolve().is_relative_to(root.resolve())
    ):
        return False
    return not any(folder.iterdir())


def _fill_submodule(
    path: str, pin: str, module: dict[str, str] | None, root: Path, source: _Source
) -> None:
    """Extract one submodule at its pinned commit into ``root/path``.

    A submodule that cannot be had is no reason to fail a checkout (many are docs
    themes): warn, leave its folder empty and go on. ``update = none`` submodules are
    skipped, as ``git clone --recursive`` skips them.
    """
    if module is not None and module.get("update") == "none":
        return
    target = root.joinpath(*PurePosixPath(path).parts)
    try:
        url = _submodule_url((module or {}).get("url"), source.url)
        _extract_submodule(url, pin, target, replace(source, prefix=f"{source.prefix}{path}/"))
    except (CloneError, RepoNotFound) as exc:
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(exist_ok=True)
        log.warning("submodule %s%s left empty: %s", source.prefix, path, exc)


def _submodule_url(url: str | None, base: str) -> str:
    """The URL git would clone a submodule from, refusing those a repository must not choose."""
    if not url:
        raise CloneError("no url for it in .gitmodules")
    resolved = _relative_url(url, base) if url.startswith(("./", "../")) else url
    if not _SUBMODULE_URL.fullmatch(resolved):
        raise CloneError(f"refusing to clone from {resolved!r}")
    if _is_local(resolved) and not _is_local(base):
        # git's protocol.file.allow=user: a remote repository must not pull
        # this machine's other repositories into a tree whose tests will run
        raise CloneError(f"refusing a local submodule URL {resolved!r} of a remote repository")
    return resolved


def _is_local(url: str) -> bool:
    return url.startswith(("/", "file:"))


def _relative_url(url: str, base: str) -> str:
    """``./x`` and ``../x`` against the superproject's URL, as git's ``relative_url`` does:
    each ``../`` drops the last ``/`` segment, else the ``:path`` of an scp-like URL."""
    base = base.removesuffix("/")
    colon = False
    while url.startswith(("./", "../")):
        if url.startswith("./"):
            url = url[2:]
            continue
        url = url[3:]
        cut = base.rfind("/")
        if cut < 0:
            cut = base.rfind(":")
            colon = colon or cut >= 0
        if cut < 0:
            raise CloneError(f"cannot resolve a relative url against {base!r}")
        base = base[:cut]
    return f"{base}{':' if colon else '/'}{url}"


def _extract_submodule(url: str, pin: str, target: Path, source: _Source) -> None:
    """Extract commit ``pin`` of ``url`` into ``target`` from its own cached clone, then its
    own submodules. Its cache entry is locked like any checkout's (the caller holds ours)."""
    key_dir = source.repos / cache_key(url)
    if key_dir in source.held:
        raise CloneError(f"{url} is a submodule of itself")
    with _locked(key_dir):
        repo = _ensure_clone(url, key_dir / "repo.git")
        _fetch_commit(repo, url, pin)
        try:
            _extract(repo, pin, target, key_dir)
            _fill_submodules(
                repo, pin, target, replace(source, url=url, held=source.held | {key_dir})
            )
        except git.GitCommandError as exc:
            raise CloneError(f"cannot extract commit {pin[:12]}: {_git_reason(exc)}") from None


def _fetch_commit(repo: git.Repo, url: str, sha: str) -> None:
    """Make sure commit ``sha`` is in the clone: ask for it by name (cheap, but servers may
    refuse), else fetch every branch and tag."""
    reason = "no branch or tag has it"
    for refspecs in ((sha,), FETCH_REFSPECS):
        if _rev_parse(repo, sha):
            return
        log.info("fetching %s to find %s", url, sha[:12])
        try:
            repo.git.fetch(url, *refspecs, env=USER_GIT_ENV)
        except git.GitCommandError as exc:
            reason = _git_reason(exc)
    if _rev_parse(repo, sha) is None:
        raise CloneError(f"commit {sha[:12]} not found in {url}: {reason}")


def _origin_url(repo: git.Repo, folder: Path) -> str:
    """What a local repository's relative submodule URLs are relative to: its ``origin``
    remote, as ``git submodule update`` in it would use, else the folder itself."""
    with suppress(git.GitCommandError):
        url: str = repo.git.config("--get", "remote.origin.url")
        if url:
            return url
    return str(folder)


def _git_reason(exc: git.GitCommandError) -> str:
    """The first ``fatal:``/``error:``/``remote:`` line of git's stderr: a short reason, not a dump."""
    lines = [line.strip() for line in str(exc.stderr or "").splitlines()]
    lines = [line.removeprefix("stderr: ").strip("'").strip() for line in lines]
    marked = [line for line in lines if line.startswith(("fatal:", "error:", "remote:", "ssh:"))]
    reason = (
        marked or [line for line in lines if line] or [f"git exited with status {exc.status}"]
    )[0]
    return re.sub(r"^(fatal|error|remote):\s*", "", reason)[:200]


def _checkout_local(spec: RepoSpec, repos: Path) -> Checkout:
    folder = Path(spec.location)
    if not folder.is_dir():
        raise InputError(f"no such repository folder: {folder}")
    key_dir = (
        repos / "local" / f"{_safe(folder.name)}-{hashlib.sha256(bytes(folder)).hexdigest()[:12]}"
    )
    repo = _git_repo_at(folder)
    if repo is not None and (spec.rev or not _is_dirty(repo)):
        sha = _rev_parse(repo, spec.rev or "HEAD")
        if sha is None:
            raise RevisionError(f"revision {spec.rev or 'HEAD'!r} not found in {folder}")
        version = describe_version(repo, sha)
        source = _Source(_origin_url(repo, folder), repos, frozenset({key_dir}))
        with _locked(key_dir):
            tree = _ensure_tree(repo, sha, key_dir / "trees" / sha, version, source)
        return Checkout(
            spec=spec,
            name=folder.name,
            url=str(folder),
            commit=sha,
            path=tree,
            version=version,
            committed=commit_time(repo, sha),
        )
    if spec.rev:
        raise RevisionError(
            f"{folder} is not the root of a git repository, so @{spec.rev} has no meaning"
        )
    files = _folder_files(folder, in_git=repo is not None or _inside_git(folder))
    digest = _digest(folder, files)
    if repo is not None:
        log.warning(
            "%s has uncommitted changes: using its files as they are (tree:%s), not HEAD",
            folder,
            digest[:12],
        )
    with _locked(key_dir):
        tree = _ensure_copy(folder, files, key_dir / "trees" / f"tree-{digest}", digest)
    return Checkout(
        spec=spec, name=folder.name, url=str(folder), commit=f"tree:{digest}", path=tree
    )


def _git_repo_at(folder: Path) -> git.Repo | None:
    """The git repository whose work tree root is ``folder`` and has a commit, else None."""
    try:
        repo = git.Repo(folder)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    if repo.bare or Path(repo.working_tree_dir or "").resolve() != folder:
        return None
    return repo if _rev_parse(repo, "HEAD") else None


def _inside_git(folder: Path) -> bool:
    try:
        git.Repo(folder, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return False
    return True


def _is_dirty(repo: git.Repo) -> bool:
    # core.fsmonitor from a repository's own config would run a program: switch it off
    status = [
        "git",
        "-c",
        "core.fsmonitor=false",
        "status",
        "--porcelain",
        "--untracked-files=normal",
    ]
    return bool(repo.git.execute(status, env=USER_GIT_ENV))


def _folder_files(folder: Path, *, in_git: bool) -> list[str]:
    """Relative POSIX paths of the files that make up ``folder``, sorted."""
    names: set[str] = set()
    if in_git:
        with suppress(git.GitCommandError):  # e.g. git refuses a repository owned by another user
            out = git.Git(folder).ls_files(
                "-z", "--cached", "--others", "--exclude-standard", env=USER_GIT_ENV
            )
            names = {name for name in out.split("\0") if name}
    if not names:
        for root, dirs, filenames in os.walk(folder):
            dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info")]
            rel = Path(root).relative_to(folder)
            names.update(
                (rel / f).as_posix() for f in filenames if not f.endswith((".pyc", ".pyo"))
            )
    return sorted(n for n in names if (folder / n).is_symlink() or (folder / n).is_file())


def _digest(folder: Path, files: list[str], copy_to: Path | None = None) -> str:
    """sha256 over each file's path, kind (file, executable, symlink) and bytes; optionally copying."""
    digest = hashlib.sha256()
    for name in files:
        src = folder / name
        if src.is_symlink():
            kind, data = b"L", os.readlink(src).encode()
        else:
            data = src.read_bytes()
            kind = b"X" if src.stat().st_mode & stat.S_IXUSR else b"F"
        digest.update(b"%s\0%s %d\0" % (name.encode(), kind, len(data)))
        digest.update(data)
        if copy_to is not None:
            target = copy_to / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target, follow_symlinks=False)
    return digest.hexdigest()


def _ensure_copy(folder: Path, files: list[str], dest: Path, digest: str) -> Path:
    """Copy ``files`` into ``dest`` once; if they changed since hashing, file them under the new hash."""
    if dest.is_dir():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".copy-", dir=dest.parent))
    copied = _digest(folder, files, copy_to=tmp)
    if copied != digest:
        shutil.rmtree(tmp, ignore_errors=True)
        raise InputError(f"{folder} changed while it was being copied; run again once it is stable")
    tmp.rename(dest)
    return dest
