"""The checkout a build was made from, reopened from what its store recorded.

Everything after a build that needs the original tree (scoring, solving,
exports with images, materialising, the leak audit) reopens it here, from
``Store.checkout_info()``, and refuses a repository that moved on since.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corrupt.errors import StoreError
from corrupt.repos.models import Checkout, RepoSpec


def original_checkout(info: dict[str, Any], *, cache_dir: Path | None = None) -> Checkout:
    """The cached checkout of the commit a store was built from (``Store.checkout_info()``).

    A ``github:`` repository is reopened through its clone URL, so the cached
    clone answers and no GitHub API call is needed.
    """
    from corrupt.repos.checkout import checkout
    from corrupt.repos.specs import parse_spec

    spec = parse_spec(info["spec"])
    commit = str(info["commit"])
    pinned = None if commit.startswith("tree:") else commit
    if spec.kind == "github":
        spec = RepoSpec("git", info["url"], pinned)
    else:
        spec = RepoSpec(spec.kind, spec.location, pinned)
    pinned_checkout = checkout(spec, cache_dir=cache_dir)
    # the build's environment: today's packages, or those of the date it was green with,
    # on corrupt's own Python or the one it was green on
    pinned_checkout.packages_as_of = info.get("packages_as_of")
    pinned_checkout.python = info.get("python")
    if pinned_checkout.commit != commit:
        raise StoreError(
            f"{info['spec']} is now {pinned_checkout.commit[:17]}, not {commit[:17]} as built; "
            "the folder changed since the build"
        )
    return pinned_checkout
