"""User-facing errors.

Every failure a user can cause (bad spec, red baseline, impossible slice...) is
raised as a :class:`CorruptError` subclass carrying a one-line message and a
distinct exit code; ``cli.py`` prints the message and exits with the code, so no
traceback ever reaches the user for bad input.
"""

from __future__ import annotations

import re

# What a failed step printed when the machine, not the project, lacks something: a
# network the step wanted (a build backend that downloads, a test calling a web
# service; older packages or another Python would not bring it, so those retries
# are not tried), git, or a compiler a build needs (the project is then left
# unbuilt: sandboxes/local/environment.py).
NETWORK_FAILURE = re.compile(
    r"ConnectionError|ConnectTimeout|ConnectionRefused|NewConnectionError|MaxRetryError"
    r"|gaierror|Name or service not known|Temporary failure in name resolution"
    r"|Network is unreachable|No address associated with hostname|getaddrinfo failed"
)
# A build that asks git about the tree (hatch-vcs's commit-hash URL hook): the build
# copy has no .git, by design (the cached clone keeps none).
NO_GIT = re.compile(
    r"fatal: not a git repository|\['git', 'rev-parse'|\['git', 'describe'|"
    r"Command '\['git'[^\]]*\]' returned non-zero exit status|No such file or directory: 'git'"
    # dunamai's (poetry- and uv-dynamic-versioning) when no override variable reached it
    r"|Unable to detect version control system"
)
NO_COMPILER = re.compile(
    r"can't find Rust compiler|Cargo, the Rust package manager, is not installed"
    r"|command '[\w./-]*(?:gcc|cc|clang|g\+\+|c\+\+)' failed: No such file"
    r"|unable to execute '[\w./-]*(?:gcc|cc|clang)'|No CMAKE_C_COMPILER could be found"
    # meson-python's: a Rust or C part the build compiles (pipdeptree's), no toolchain
    r"|ERROR: Program '(?:cargo|rustc|cc|gcc|clang|c\+\+|g\+\+)' not found"
    r"|ERROR: Unknown compiler\(s\)"
)
# A build that compiles its web assets with Node.js packages (sphinx-theme-builder's
# nodeenv, an ``npm install`` step): the packages come from npm's registry, and the
# Node.js it finds is not the one it pins.
NODE_BUILD = re.compile(r"error: nodeenv-[\w-]+|\[stb\] \(nodeenv\)|npm ERR! ")


class CorruptError(Exception):
    """Base class: a clear one-line message and a process exit code."""

    exit_code = 1
    # The class of failure a user (or a corpus report) sorts by: "install",
    # "collection", "red test", "timeout", "flaky", "no tests"; None for the rest.
    cause: str | None = None

    def __init__(self, message: str, *, cause: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if cause is not None:
            self.cause = cause


class InputError(CorruptError):
    """Bad command-line input: unknown option values, missing paths, bad specs."""

    exit_code = 2


class RepoNotFound(CorruptError):
    exit_code = 10


class CloneError(CorruptError):
    exit_code = 11


class RevisionError(CorruptError):
    exit_code = 12


class InstallError(CorruptError):
    exit_code = 13
    cause = "install"


class NoTestsError(CorruptError):
    exit_code = 14
    cause = "no tests"


class RedBaselineError(CorruptError):
    exit_code = 15
    cause = "red test"


class SuiteTooSlowError(CorruptError):
    exit_code = 16
    cause = "timeout"


class StarsError(CorruptError):
    exit_code = 17


class GitHubError(CorruptError):
    exit_code = 18


class RateLimitError(GitHubError):
    exit_code = 19


class NoPythonError(CorruptError):
    """The target has no Python code to analyse."""

    exit_code = 20


class SelectionError(CorruptError):
    """An impossible slice or group request."""

    exit_code = 21


class StoreError(CorruptError):
    """Output folder belongs to a different repo, or the store is unusable."""

    exit_code = 22


class SandboxError(CorruptError):
    """A sandbox cannot be provided (no container engine, missing image...)."""

    exit_code = 23


class LLMError(CorruptError):
    exit_code = 24


class TaskNotFound(CorruptError):
    exit_code = 25


class LeakError(CorruptError):
    """An export or a materialised task holds the original code where an agent can read it."""

    exit_code = 26
