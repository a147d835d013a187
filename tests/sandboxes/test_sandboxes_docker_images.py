"""Image recipes and engine errors that need no container engine."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest
from docker_engine import folder_checkout, write_files
from repos_run_support import FIXTURES

from corrupt.errors import SandboxError
from corrupt.repos.models import Checkout, RepoSpec
from corrupt.sandboxes.docker.images import (
    PipSettings,
    build_context,
    dockerfile,
    host_pip_settings,
    image_tag,
    recipe_digest,
)
from corrupt.sandboxes.docker.sandbox import DockerSandbox
from corrupt.sandboxes.registry import get_sandbox


def checkout(name: str, commit: str) -> Checkout:
    return Checkout(
        spec=RepoSpec("github", name), name=name, url="", commit=commit, path=Path("/nowhere")
    )


def test_image_tag_is_predictable_and_valid():
    sha = "0123456789abcdef0123456789abcdef01234567"
    assert (
        image_tag(checkout("Pallets/ItsDangerous", sha))
        == "corrupt/pallets__itsdangerous:0123456789ab"
    )
    assert (
        image_tag(checkout("my folder", "tree:ABCDEF0123456789"))
        == "corrupt/local__my-folder:abcdef012345"
    )


def test_pip_settings_follow_config_files_then_environment(tmp_path):
    conf = tmp_path / "pip.conf"
    cert = tmp_path / "ca.pem"
    cert.write_text("-----BEGIN CERTIFICATE-----\n")
    conf.write_text(
        "[global]\nindex-url = https://mirror.example/simple\n"
        "extra-index-url = file:///opt/local/simple https://extra.example/simple\n"
        f"cert = {cert}\n"
    )
    settings = host_pip_settings(
        {"PIP_CONFIG_FILE": str(conf), "PIP_TRUSTED_HOST": "mirror.example"}
    )
    assert settings.index_url == "https://mirror.example/simple"
    assert settings.extra_index_urls == [
        "https://extra.example/simple"
    ]  # file:// is not visible in a build
    assert settings.trusted_hosts == ["mirror.example"]
    assert settings.cert == cert
    assert host_pip_settings(
        {"PIP_CONFIG_FILE": str(conf), "PIP_INDEX_URL": "https://env.example/s"}
    ).index_url == ("https://env.example/s")


def test_recipe_installs_project_and_discovered_test_requirements(tmp_path):
    repo = write_files(
        tmp_path / "r",
        {
            "pyproject.toml": '[project]\nname = "p"\nversion = "1"\n'
            '[project.optional-dependencies]\ntest = ["hypothesis>=6"]\n',
            "requirements-test.txt": "freezegun\n",
            ".git/HEAD": "ref: refs/heads/main\n",
        },
    )
    pip = PipSettings(
        index_url="https://mirror.example/simple", cert=tmp_path / "r" / "pyproject.toml"
    )
    recipe = dockerfile(repo, "corrupt/base:bookworm", pip)
    assert recipe.startswith("FROM corrupt/base:bookworm AS install\n")
    assert (
        "\nFROM corrupt/base:bookworm\nCOPY --from=install /opt/venv /opt/venv\n" in recipe
    )  # no repo, no cert
    assert "pip install --no-cache-dir --disable-pip-version-check --progress-bar off ." in recipe
    assert "off 'hypothesis>=6' -r requirements-test.txt" in recipe
    # corrupt's own tools last, so a version the project pins is kept
    assert recipe.index("requirements-test.txt") < recipe.index("off pytest 'coverage>=5'")
    assert "uploaded-prior-to" not in recipe and "pip>=26" not in recipe
    assert "PIP_INDEX_URL=https://mirror.example/simple" in recipe and "PIP_CERT=" in recipe
    with tarfile.open(fileobj=build_context(repo, recipe, pip)) as tar:
        names = set(tar.getnames())
    assert {
        "Dockerfile",
        "pip-cert.pem",
        "repo/pyproject.toml",
        "repo/requirements-test.txt",
    } <= names
    assert not any(n.startswith("repo/.git") for n in names)


def test_no_engine_says_how_to_point_docker_host_at_one(tmp_path):
    repo = write_files(tmp_path / "r", {"requirements.txt": "\n"})
    box = get_sandbox(
        "docker", base_image="corrupt/base:bookworm", docker_host=f"unix://{tmp_path}/none.sock"
    )
    assert isinstance(box, DockerSandbox) and box.base_image == "corrupt/base:bookworm"
    with pytest.raises(
        SandboxError, match=r"no container engine reachable at unix://.*none\.sock.*DOCKER_HOST="
    ):
        box.prepare(folder_checkout(repo, "tests/noengine"))


def test_recipe_hands_the_commits_version_to_vcs_versioned_builds(tmp_path):
    repo = write_files(tmp_path / "r", {"setup.py": "import setuptools\nsetuptools.setup()\n"})
    recipe = dockerfile(repo, "corrupt/base:bookworm", PipSettings(), version="2.1.dev3+gabc")
    exported = recipe.split("export ", 1)[1].split(" \\\n", 1)[0]
    for name in ("SETUPTOOLS_SCM_PRETEND_VERSION", "PBR_VERSION", "PDM_BUILD_SCM_VERSION"):
        assert f"{name}=2.1.dev3+gabc" in exported.split()
    assert recipe.index("export ") < recipe.index("--progress-bar off .")
    # no version from git: the builds still get one, as local environments do
    assert "PBR_VERSION=0.0.0" in dockerfile(repo, "b", PipSettings())


def test_recipe_installs_the_uv_lock_pins_before_the_project():
    recipe = dockerfile(FIXTURES / "locked", "corrupt/base:bookworm", PipSettings())
    pinned = recipe.index("--progress-bar off six==1.16.0")
    assert pinned < recipe.index("--progress-bar off .")


def test_recipe_with_the_packages_of_a_date_leaves_later_releases_out(tmp_path):
    repo = write_files(
        tmp_path / "r",
        {
            "pyproject.toml": '[project]\nname = "p"\nversion = "1"\n',
            "requirements-test.txt": "freezegun\n",
        },
    )
    when = "2024-10-17T17:04:16Z"
    recipe = dockerfile(repo, "corrupt/base:bookworm", PipSettings(), as_of=when)
    dated = f"--uploaded-prior-to={when}"
    # pip learnt --uploaded-prior-to in 26.0: upgraded, undated, before any dated step
    assert recipe.index("--upgrade 'pip>=26'") < recipe.index(dated)
    assert f"{dated} ." in recipe and f"{dated} -r requirements-test.txt" in recipe
    assert "off pytest 'coverage>=5'" in recipe  # corrupt's tools: undated
    assert recipe_digest(recipe) != recipe_digest(dockerfile(repo, "b", PipSettings()))
    checkout = folder_checkout(repo, "tests/dated")
    today = image_tag(checkout)
    checkout.commit = "0123456789abcdef"
    checkout.packages_as_of = when
    assert image_tag(checkout).endswith(":0123456789ab-20241017") and today != image_tag(checkout)
