"""The host's git: the environments corrupt runs it in, and one git command run in a tree.

Two environments, on purpose. git on the user's repositories and their
remotes (clone, fetch, status, a commit's files extracted) keeps the user's
own configuration, which may hold credentials, proxies and URL rewrites.
git on trees corrupt makes its own (a task's one-commit history, a solver's
patch applied) reads none of it, so no hook, signing key, template or
identity of the user's reaches them. Neither ever prompts: a prompt would
hang a batch run.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from corrupt.errors import CorruptError

# Give up on stalled transfers, and do not run LFS downloads while extracting trees.
USER_GIT_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_SSH_COMMAND": os.environ.get("GIT_SSH_COMMAND", "ssh -o BatchMode=yes"),
    "GIT_HTTP_LOW_SPEED_LIMIT": "1000",
    "GIT_HTTP_LOW_SPEED_TIME": "60",
    "GIT_LFS_SKIP_SMUDGE": "1",
    "GIT_OPTIONAL_LOCKS": "0",
}
OWN_GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "corrupt",
    "GIT_AUTHOR_EMAIL": "corrupt@localhost",
    "GIT_COMMITTER_NAME": "corrupt",
    "GIT_COMMITTER_EMAIL": "corrupt@localhost",
    "GIT_TERMINAL_PROMPT": "0",
}


def run_git(args: list[str], cwd: Path, env: dict[str, str]) -> None:
    """Run git in a tree of corrupt's own; its last error line becomes a one-line error."""
    result = subprocess.run(
        ["git", "-c", "core.autocrlf=false", "-c", "core.hooksPath=/dev/null", *args],
        cwd=cwd,
        env={**os.environ, **OWN_GIT_ENV, **env},
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        reason = (result.stderr.strip().splitlines() or ["git failed"])[-1]
        raise CorruptError(f"git {args[0]} failed in {cwd}: {reason}")
