"""Which files of a repository are its tests' support: what a fix may not change to pass.

One rule for every stage that asks: the graph leaves these files out of the
code under analysis, scoring puts back the ones a solver's patch touched,
the APR baseline never edits them, and the SWE-bench and SWE-smith exports
restore or branch them the same way.
"""

from __future__ import annotations

import fnmatch

# Where pytest finds tests and their fixtures. Patterns ending in "/" name a
# folder anywhere on the path; the others a file name.
TEST_PATTERNS: tuple[str, ...] = (
    "tests/",
    "test/",
    "testing/",
    "test_*.py",
    "*_test.py",
    "conftest.py",
)
# The tests, the files they import or read beside them, and pytest's configuration.
TEST_SUPPORT = (
    *TEST_PATTERNS,
    "pytest.ini",
    ".pytest.ini",
    "tox.ini",
    "setup.cfg",
    "pyproject.toml",
    "pytest.toml",
    ".pytest.toml",
    # what Python runs at start-up, before any test: it could rewrite the results
    "sitecustomize.py",
    "usercustomize.py",
    "*.pth",
)


def is_test_support(path: str, test_files: set[str]) -> bool:
    """Whether ``path`` is a test, a file beside the tests, or pytest configuration."""
    if path in test_files:
        return True
    *folders, name = path.split("/")
    for pattern in TEST_SUPPORT:
        if pattern.endswith("/"):
            # a folder of tests, or the folder itself (a link or a file put in its place)
            if any(fnmatch.fnmatchcase(part, pattern[:-1]) for part in (*folders, name)):
                return True
        elif fnmatch.fnmatchcase(name, pattern):
            return True
    return False
