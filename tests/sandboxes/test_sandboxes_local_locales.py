"""Locales the suite needs and the host lacks, compiled for its runs alone."""

from __future__ import annotations

import locale
import os
import subprocess
import sys
from pathlib import Path

import pytest
from repos_run_support import fixture_checkout

from corrupt.sandboxes.local.environment import recipe_for
from corrupt.sandboxes.local.locales import I18N, locale_env, provide_locales
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.suites.baseline import compute_baseline

needs_sources = pytest.mark.skipif(
    not (I18N / "SUPPORTED").is_file(), reason="the C library's locale sources are not installed"
)


def host_has(name: str) -> bool:
    try:
        before = locale.setlocale(locale.LC_ALL)
        locale.setlocale(locale.LC_ALL, name)
    except locale.Error:
        return False
    locale.setlocale(locale.LC_ALL, before)
    return True


def formats_in(folder: Path | None, name: str) -> str:
    """How Python, given the compiled folder, writes 1234.5 in locale ``name``."""
    code = (
        "import locale, sys; locale.setlocale(locale.LC_ALL, sys.argv[1]); "
        "print(locale.format_string('%.2f', 1234.5, grouping=True))"
    )
    env = {**os.environ, **locale_env(folder)}
    done = subprocess.run(
        [sys.executable, "-c", code, name], capture_output=True, text=True, env=env, check=False
    )
    return done.stdout.strip() or done.stderr.strip().splitlines()[-1]


@needs_sources
def test_missing_locales_are_compiled_into_the_folder_and_found_through_it(tmp_path):
    if host_has("de_DE.UTF-8"):
        pytest.skip("this host has de_DE.UTF-8 already")
    made = provide_locales(["de_DE.UTF-8", "xx_YY.UTF-8"], tmp_path / "locales")
    assert made.folder == tmp_path / "locales"
    assert made.made == ["de_DE.UTF-8"]
    assert made.unmade == [f"xx_YY.UTF-8 (not among {I18N / 'SUPPORTED'})"]
    assert formats_in(made.folder, "de_DE.UTF-8") == "1.234,50"
    assert formats_in(made.folder, "de_DE.utf8") == "1.234,50"
    assert formats_in(made.folder, "C.UTF-8") == "1234.50"  # the system's, still found
    assert "unsupported locale setting" in formats_in(None, "de_DE.UTF-8")


def test_nothing_is_compiled_when_the_host_has_every_locale(tmp_path):
    assert provide_locales(["C.UTF-8"], tmp_path / "locales").folder is None
    assert not (tmp_path / "locales").exists()


def test_without_the_sources_the_locales_are_named_as_not_made(tmp_path):
    made = provide_locales(["zz_QQ.UTF-8"], tmp_path / "locales", sources=tmp_path / "none")
    assert made.folder is None
    assert made.unmade == [f"zz_QQ.UTF-8 (no localedef or {tmp_path / 'none'})"]


@needs_sources
def test_a_suite_that_sets_its_ci_s_locale_is_green(tmp_path_factory, tmp_path):
    """tests/fixtures/repos_run/localized (written here): a test formats an amount in
    de_DE.UTF-8, which its CI generates with ``locale-gen``."""
    if host_has("de_DE.UTF-8"):
        pytest.skip("this host has de_DE.UTF-8 already")
    checkout = fixture_checkout("localized", tmp_path_factory)
    sandbox = LocalSandbox(cache_dir=tmp_path)
    env = sandbox.prepare(checkout)
    recipe = recipe_for(checkout, cache_dir=tmp_path)
    assert recipe["locales"] == ["de_DE.UTF-8", "en_US.UTF-8"]
    assert env.locales is not None
    assert Path(env.locales).parent == Path(env.location).parent  # beside the venv, not in it
    baseline = compute_baseline(checkout, sandbox, env, cache_dir=tmp_path / "baselines")
    assert baseline.tests == [
        "tests/test_amount.py::test_german_grouping",
        "tests/test_amount.py::test_plain",
    ]
