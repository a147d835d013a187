"""Parse what a user types to name a repository into a :class:`RepoSpec`.

Three forms are accepted, tried in this order:

- ``github:owner/name[@rev]``
- a git URL (``https://``, ``http://``, ``ssh://``, ``git://``, ``file://`` or scp-like
  ``user@host:path``) with an optional trailing ``@rev``. Only an ``@`` inside the
  *path* starts a revision, so ``git@host:`` and ``user@`` in the authority are
  never mistaken for one.
- a local folder that exists (made absolute); ``folder@rev`` names a commit of
  a local git repository when ``folder@rev`` itself is not an existing path.

Parsing never touches the network; whether a repository or revision exists is
``checkout``'s business.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from corrupt.errors import InputError
from corrupt.repos.models import RepoSpec

URL_SCHEMES = ("https", "http", "ssh", "git", "file")
_GITHUB = re.compile(r"github:(?P<owner>[A-Za-z0-9][A-Za-z0-9-]*)/(?P<name>[A-Za-z0-9._-]+)")
_SCP_LIKE = re.compile(r"(?P<user>[A-Za-z0-9._-]+@)?(?P<host>[A-Za-z0-9.-]+):(?P<path>.+)")
# Branch, tag, sha or main~2; a leading "-" would be read by git as an option, so it is refused.
_REV = re.compile(r"[A-Za-z0-9_.+][A-Za-z0-9_./+~^-]*")


def check_rev(rev: str, spec_text: str) -> str:
    """Return ``rev`` if git can safely be handed it, else raise InputError."""
    if not _REV.fullmatch(rev) or ".." in rev or rev.endswith((".", "/", ".lock")):
        raise InputError(f"bad revision {rev!r} in {spec_text!r}: use a branch, tag or commit sha")
    return rev


def parse_spec(text: str) -> RepoSpec:
    """Turn ``github:owner/name[@rev]``, a git URL[@rev] or a local path into a RepoSpec."""
    text = text.strip()
    if not text:
        raise InputError("empty repository spec: give github:owner/name, a git URL or a path")
    if text.startswith("github:"):
        return _parse_github(text)
    scheme = text.split("://", 1)[0].lower() if "://" in text else None
    if scheme is not None:
        return _parse_url(text, scheme)
    if _SCP_LIKE.fullmatch(text) and not _exists(_expand(text)):
        return _parse_scp_like(text)
    return _parse_local(text)


def _split_rev(text: str, path_start: int) -> tuple[str, str | None]:
    """Split ``text`` at the first ``@`` of its path (which starts at ``path_start``).

    Revisions may contain ``/`` (``release/1.0``), so everything after that ``@`` is the rev.
    """
    at = text.find("@", path_start)
    if at < 0:
        return text, None
    return text[:at], text[at + 1 :]


def _parse_github(text: str) -> RepoSpec:
    body, rev = _split_rev(text, len("github:"))
    match = _GITHUB.fullmatch(body)
    if not match:
        raise InputError(
            f"bad GitHub spec {text!r}: expected github:owner/name or github:owner/name@rev"
        )
    name = match["name"].removesuffix(".git")
    if rev is not None:
        check_rev(rev, text)
    return RepoSpec("github", f"{match['owner']}/{name}", rev)


def _parse_url(text: str, scheme: str) -> RepoSpec:
    if scheme not in URL_SCHEMES:
        raise InputError(
            f"unsupported URL scheme {scheme!r} in {text!r}: use one of {', '.join(URL_SCHEMES)}"
        )
    authority_end = text.find("/", len(scheme) + 3)
    if authority_end < 0:
        raise InputError(f"bad git URL {text!r}: no repository path")
    url, rev = _split_rev(text, authority_end)
    parts = urlsplit(url)
    if parts.query or parts.fragment:
        raise InputError(f"bad git URL {text!r}: query strings and fragments are not allowed")
    if scheme != "file" and not parts.hostname:
        raise InputError(f"bad git URL {text!r}: no host")
    if parts.path.strip("/") == "":
        raise InputError(f"bad git URL {text!r}: no repository path")
    if rev is not None:
        check_rev(rev, text)
    return RepoSpec("git", url, rev)


def _parse_scp_like(text: str) -> RepoSpec:
    path_start = text.index(":") + 1
    url, rev = _split_rev(text, path_start)
    if rev is not None:
        check_rev(rev, text)
    return RepoSpec("git", url, rev)


def _expand(text: str) -> Path:
    return Path(os.path.expanduser(text))


def _exists(path: Path) -> bool:
    """Path.exists that answers False for names the OS cannot even look up (NUL, too long)."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def _parse_local(text: str) -> RepoSpec:
    path = _expand(text)
    rev = None
    if not _exists(path) and "@" in text:
        base, rev = text.rsplit("@", 1)
        path = _expand(base)
        check_rev(rev, text)
    if not _exists(path):
        raise InputError(
            f"no such repository path: {text} (nor a github:owner/name spec or git URL)"
        )
    if not path.is_dir():
        raise InputError(f"{text} is not a folder: give the repository's folder")
    if _is_bare(path):  # no files to read in place: cloned, as its file:// URL would be
        url = f"file://{path.resolve()}"
        return _parse_url(url if rev is None else f"{url}@{rev}", "file")
    return RepoSpec("local", str(path.resolve()), rev)


def _is_bare(path: Path) -> bool:
    """A bare git repository (a mirror, a server's copy): git's files, no work tree."""
    return (
        (path / "HEAD").is_file()
        and (path / "objects").is_dir()
        and (path / "refs").is_dir()
        and not (path / ".git").exists()
    )
