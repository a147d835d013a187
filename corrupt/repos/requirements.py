"""Requirement files read as a list of separately installable items.

When one install of everything fails (a stale pin whose metadata no longer
resolves, a git URL that cannot be fetched), the environment is built item by
item instead and what does not install is dropped and recorded. That needs the
items: the lines of a requirement file, with nested ``-r`` files followed and
pip's options (index URLs, hashes, constraints) left out.
"""

from __future__ import annotations

import re
from pathlib import Path

MAX_DEPTH = 8
_OPTION_WITH_VALUE = re.compile(
    r"^(-[ic]|--index-url|--extra-index-url|--constraint|-f|--find-links)\b"
)


def requirement_items(path: Path, depth: int = 0) -> list[list[str]]:
    """Each install item of ``path`` as pip arguments: ``[line]`` or ``["-e", target]``."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    items: list[list[str]] = []
    for line in re.sub(r"\\\r?\n", " ", text).splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        if not line:
            continue
        include = re.match(r"^(?:-r|--requirement)\s*=?\s*(\S+)$", line)
        if include:
            nested = path.parent / include[1]
            if depth < MAX_DEPTH and nested.is_file():
                items.extend(requirement_items(nested, depth + 1))
        elif line.startswith(("-e", "--editable")):
            items.append(["-e", line.split(None, 1)[-1].lstrip("=").strip()])
        elif not line.startswith("-") and not _OPTION_WITH_VALUE.match(line):
            items.append([line.split(" --hash", 1)[0].strip()])
    return items


# ``name @ URL``; ``git+URL#egg=name``; a VCS URL of a repository whose last path part is the name.
_NAMED_URL = re.compile(r"^(?P<name>[A-Za-z0-9][\w.-]*)(?P<extras>\[[\w,.\s-]+\])?\s*@\s*\S+")
_EGG = re.compile(r"#egg=(?P<name>[A-Za-z0-9][\w.-]*)(?P<extras>\[[\w,.-]+\])?")
_VCS_REPO = re.compile(
    r"^(?:git|hg|svn|bzr)\+\w+://[^#@\s]+/(?P<name>[A-Za-z0-9][\w.-]*?)(?:\.git)?(?:@[^#\s]*)?$"
)


def index_fallback(item: list[str]) -> str | None:
    """The package-index requirement for an item that names a URL (``name @ git+…``,
    ``git+…#egg=name``, ``git+https://host/owner/name.git``), or None when it names none.

    A URL that cannot be fetched (a private host, or none reachable at all) often
    points at a project the index publishes under the same name: that release is
    worth more to the suite than nothing.
    """
    text = item[-1].strip()
    if "://" not in text:
        return None
    for pattern in (_NAMED_URL, _EGG, _VCS_REPO):
        found = pattern.search(text) if pattern is _EGG else pattern.match(text)
        if found:
            extras = found.groupdict().get("extras") or ""
            return f"{found['name']}{extras.replace(' ', '')}"
    return None
