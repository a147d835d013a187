"""Which locales a project's tests expect, read from its CI and its test files."""

from __future__ import annotations

import functools

from tasks_factory import write_repo

from corrupt.repos.locales import MAX_LOCALES, wanted_locales

write = functools.partial(write_repo, git=False)  # a folder of files, no git


def test_the_ci_s_locale_gen_lines_come_first_then_the_runners_default(tmp_path):
    root = write(
        tmp_path,
        {
            ".github/workflows/ci.yml": "steps:\n"
            "  - run: |\n      sudo locale-gen de_DE.UTF-8\n      sudo locale-gen ko_KR.UTF-8\n"
            "  - run: pip install -e . && echo en_GB.UTF-8\n",
            "tests/test_money.py": "NUMBER = Number(locale='fr_FR.UTF-8')\n",
        },
    )
    assert wanted_locales(root) == ["de_DE.UTF-8", "ko_KR.UTF-8", "en_US.UTF-8", "fr_FR.UTF-8"]


def test_tests_that_set_a_locale_get_the_runners_default(tmp_path):
    """natsort's conftest builds the name (``f"{x}.UTF-8"``): no literal names one."""
    root = write(
        tmp_path,
        {"tests/conftest.py": "def load(x):\n    locale.setlocale(locale.LC_ALL, f'{x}.UTF-8')\n"},
    )
    assert wanted_locales(root) == ["en_US.UTF-8"]


def test_language_tags_without_a_codeset_are_not_locales(tmp_path):
    """A translation library's tests name ``de_DE`` as its own identifier, not glibc's."""
    root = write(
        tmp_path,
        {
            "tests/test_catalog.py": "CATALOG = {'de_DE': 'Hallo', 'pt_BR': 'Olá'}\n",
            "src/pkg/i18n.py": "DEFAULT = 'de_DE.UTF-8'  # not a test file\n",
        },
    )
    assert wanted_locales(root) == []


def test_a_file_of_locale_tables_is_cut_short(tmp_path):
    names = [
        f"'{lang}_XX.UTF-8'" for lang in ("aa", "bb", "cc", "dd", "ee", "ff", "gg", "hh", "ii")
    ]
    root = write(tmp_path, {"tests/test_tables.py": f"ALL = [{', '.join(names)}]\n"})
    wanted = wanted_locales(root)
    assert len(wanted) == MAX_LOCALES
    assert wanted[0] == "en_US.UTF-8"
