"""The locales a project's tests set, read from its files (no code runs).

A suite that calls ``locale.setlocale(locale.LC_ALL, "de_DE.UTF-8")`` is green
on its CI, whose set-up generates that locale (``sudo locale-gen de_DE.UTF-8``)
or whose runner image carries it (GitHub's Ubuntu runners have en_US.UTF-8),
and red with ``locale.Error: unsupported locale setting`` on a machine that
has only C.UTF-8. The names come from the lines of CI and runner files that
speak of locales, and from the test files' string literals that spell a locale
with its codeset (``"ko_KR.UTF-8"``); a project whose tests set a locale at all
also gets en_US.UTF-8, as on those runners.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from corrupt.repos.mentions import python_texts
from corrupt.repos.projectfiles import read_text

# Where CI and runners set up a machine; the workflows folder is read whole.
SETUP_FILES = (".travis.yml", ".gitlab-ci.yml", "azure-pipelines.yml", ".circleci/config.yml",
               "tox.ini", "noxfile.py", "Makefile", "makefile", "GNUmakefile", "Dockerfile")  # fmt: skip
RUNNER_DEFAULT = "en_US.UTF-8"
MAX_LOCALES = 8  # past that, a file names locales as data (a locale library's tables), not set-up

# A POSIX locale name: language, territory, optional codeset and modifier.
NAME = r"[a-z]{2,3}_[A-Z]{2}(?:\.[A-Za-z0-9-]{3,15})?(?:@[a-z]{3,12})?"
IN_SETUP = re.compile(rf"(?<![\w.-])({NAME})(?![\w-])")
SETUP_LINE = re.compile(r"locale|\bLANG=|\bLC_ALL=", re.IGNORECASE)
# In test code only a name with its codeset is taken: "de_DE" alone is as often a
# language tag (babel's, a translation catalogue's) as a C library locale.
QUOTED_WITH_CODESET = re.compile(
    r"""["']([a-z]{2,3}_[A-Z]{2}\.(?:UTF-?8|utf-?8|ISO-?8859-\d{1,2}|iso-?8859-\d{1,2}))["']"""
)
SETS_LOCALE = re.compile(r"\bsetlocale\s*\(")


def wanted_locales(root: Path) -> list[str]:
    """The locales the project's tests expect the machine to have, most certain first."""
    named: list[str] = []
    for text in _setup_texts(root):
        for line in text.splitlines():
            if SETUP_LINE.search(line):
                named += IN_SETUP.findall(line)
    literals: Counter[str] = Counter()
    sets_locale = False
    for text in python_texts(root, tests_only=True):
        literals.update(QUOTED_WITH_CODESET.findall(text))
        sets_locale = sets_locale or bool(SETS_LOCALE.search(text))
    if named or literals or sets_locale:
        named.append(RUNNER_DEFAULT)
    named += [name for name, _ in literals.most_common()]
    return list(dict.fromkeys(named))[:MAX_LOCALES]


def _setup_texts(root: Path) -> Iterator[str]:
    workflows = root / ".github" / "workflows"
    paths = [root / name for name in SETUP_FILES]
    if workflows.is_dir():
        paths += sorted(p for p in workflows.iterdir() if p.suffix in (".yml", ".yaml"))
    for path in paths:
        if path.is_file() and not path.is_symlink():
            text = read_text(path)
            if text is not None:
                yield text
