"""Image recipes for the docker sandbox: tag, Dockerfile and build context.

No image registry is needed: the build context (Dockerfile, a copy of the
checkout, the host's pip certificate) is streamed to the engine's build API,
which Docker and Podman both serve. The image mirrors the local sandbox's venv
(``corrupt.sandboxes.local.environment``): a regular install of the project plus the
test requirements that module discovers, in ``/opt/venv``. The install runs in
a first build stage and only the venv is carried into the image, so neither
the repository copy nor the certificate bundle sits in any of its layers, and
a run starts from an empty ``/testbed`` into which the sandbox copies the
working tree under test.

pip inside the build reaches the package index the host uses: index URLs,
trusted hosts and the CA bundle (which may include a proxy's certificate) are
read from the host's pip configuration and passed on. Local ``file://``
indexes are left out because the build container cannot see the host's disk.
"""

from __future__ import annotations

import configparser
import hashlib
import io
import os
import re
import shlex
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

from corrupt.repos.installplan import ALWAYS, PACKAGING_FILES, discover_test_requirements
from corrupt.repos.models import WORKDIR, Checkout
from corrupt.repos.versions import project_version_env

DEFAULT_BASE_IMAGE = "python:3.12-slim"
VENV = "/opt/venv"
PYTHON = f"{VENV}/bin/python"
BUILD_DIR = "/tmp/corrupt-build"
LABEL_RECIPE = "corrupt.recipe"
_SKIP_DIRS = {
    ".git",
    ".hg",
    ".svn",
    ".tox",
    ".nox",
    ".venv",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
}


def image_tag(checkout: Checkout) -> str:
    """``corrupt/<owner>__<name>:<sha12>`` (``<sha12>-<yyyymmdd>`` with the packages of that
    day), lowercased to what image references allow."""
    owner, _, name = checkout.name.rpartition("/")
    repo = f"{owner or 'local'}__{name}".lower()
    repo = re.sub(r"[^a-z0-9_.-]+", "-", repo).strip("-._") or "repo"
    tag = checkout.commit.rpartition(":")[2][:12].lower()
    if checkout.packages_as_of:
        tag += "-" + re.sub(r"\D", "", checkout.packages_as_of)[:8]
    return f"corrupt/{repo}:{tag}"


@dataclass
class PipSettings:
    """The host's package-index settings that make sense inside a build container."""

    index_url: str | None = None
    extra_index_urls: list[str] = field(default_factory=list)
    trusted_hosts: list[str] = field(default_factory=list)
    cert: Path | None = None

    def environment(self, cert_in_image: str | None) -> dict[str, str]:
        """As PIP_* variables, which (unlike options) reach pip's build-isolation subprocesses too."""
        env = {
            "PIP_INDEX_URL": self.index_url or "",
            "PIP_EXTRA_INDEX_URL": " ".join(self.extra_index_urls),
            "PIP_TRUSTED_HOST": " ".join(self.trusted_hosts),
            "PIP_CERT": cert_in_image or "",
        }
        return {k: v for k, v in env.items() if v}


def host_pip_settings(environ: dict[str, str] | None = None) -> PipSettings:
    """Read pip's config files (site, then user, then PIP_CONFIG_FILE) and PIP_* variables, later wins."""
    environ = dict(os.environ if environ is None else environ)
    values: dict[str, str] = {}
    home = Path(os.path.expanduser("~"))
    xdg = Path(environ.get("XDG_CONFIG_HOME") or home / ".config")
    files = [
        Path("/etc/xdg/pip/pip.conf"),
        Path("/etc/pip.conf"),
        Path(sys.prefix) / "pip.conf",
        home / ".pip" / "pip.conf",
        xdg / "pip" / "pip.conf",
    ]
    if environ.get("PIP_CONFIG_FILE"):
        files.append(Path(environ["PIP_CONFIG_FILE"]))
    for path in files:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read(path, encoding="utf-8")
        except (configparser.Error, UnicodeDecodeError):
            continue
        for section in ("global", "install"):
            if parser.has_section(section):
                values.update(parser.items(section))
    for key in ("index-url", "extra-index-url", "trusted-host", "cert"):
        env_value = environ.get("PIP_" + key.upper().replace("-", "_"))
        if env_value:
            values[key] = env_value
    cert_path = (
        values.get("cert") or environ.get("SSL_CERT_FILE") or environ.get("REQUESTS_CA_BUNDLE")
    )
    cert = Path(cert_path) if cert_path and Path(cert_path).is_file() else None
    index_urls = _reachable(values.get("index-url", "").split())
    return PipSettings(
        index_url=index_urls[0] if index_urls else None,
        extra_index_urls=_reachable(values.get("extra-index-url", "").split()),
        trusted_hosts=values.get("trusted-host", "").split(),
        cert=cert,
    )


def _reachable(urls: list[str]) -> list[str]:
    return [u for u in urls if u.startswith(("http://", "https://"))]


def dockerfile(
    checkout_root: Path,
    base_image: str,
    pip: PipSettings,
    as_of: str | None = None,
    version: str | None = None,
) -> str:
    """The recipe; its hash is stored as a label so a changed recipe rebuilds the image.

    With ``as_of``, the project and its test dependencies leave out releases uploaded
    after it (pip 26's ``--uploaded-prior-to``, so pip itself is upgraded first), as
    local environments do with uv; pytest and coverage.py come after, undated. The
    build context carries no ``.git``, so VCS-versioned builds (setuptools-scm, pbr,
    ...) get ``version``, git's description of the pinned commit, as local ones do.
    """
    found = discover_test_requirements(checkout_root)
    pip_install = [
        PYTHON,
        "-m",
        "pip",
        "install",
        "--no-cache-dir",
        "--disable-pip-version-check",
        "--progress-bar",
        "off",
    ]
    pip_env = {
        **project_version_env(checkout_root, version),
        **pip.environment(f"{BUILD_DIR}/pip-cert.pem" if pip.cert else None),
    }
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in pip_env.items())
    steps = [f"python3 -m venv {VENV}", f"cd {BUILD_DIR}/repo"]
    if exports:
        steps.append(f"export {exports}")
    dated = pip_install
    if as_of:
        steps.append(shlex.join([*pip_install, "--upgrade", "pip>=26"]))
        dated = [*pip_install, f"--uploaded-prior-to={as_of}"]
    if found.locked:  # as in local environments: the versions the project tests with, first
        steps.append(shlex.join([*dated, *found.locked]))
    if any((checkout_root / name).is_file() for name in PACKAGING_FILES):
        steps.append(shlex.join([*dated, "."]))
    elif (checkout_root / "requirements.txt").is_file():
        steps.append(shlex.join([*dated, "-r", "requirements.txt"]))
    tests = list(dict.fromkeys(found.packages))
    for req in found.files:
        tests += ["-r", req.relative_to(checkout_root).as_posix()]
    if tests:
        steps.append(shlex.join([*dated, *tests]))
    steps.append(shlex.join([*pip_install, *ALWAYS]))
    return "\n".join(
        [
            f"FROM {base_image} AS install",
            f"COPY . {BUILD_DIR}/",
            "RUN " + " \\\n && ".join(steps),
            f"FROM {base_image}",
            f"COPY --from=install {VENV} {VENV}",
            f"WORKDIR {WORKDIR}",
            f"ENV PATH={VENV}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "",
        ]
    )


def recipe_digest(recipe: str) -> str:
    return hashlib.sha256(recipe.encode()).hexdigest()[:16]


def build_context(checkout_root: Path, recipe: str, pip: PipSettings) -> io.BytesIO:
    """A gzip-free tar: Dockerfile, ``repo/`` (the checkout without VCS and caches), the CA bundle."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        _add_bytes(tar, "Dockerfile", recipe.encode())
        if pip.cert:
            _add_bytes(tar, "pip-cert.pem", pip.cert.read_bytes())
        add_tree(tar, checkout_root, "repo")
    buffer.seek(0)
    return buffer


def tree_archive(root: Path) -> bytes:
    """The working tree as a tar whose members land directly in the target folder."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        add_tree(tar, root, ".", skip=set())
    return buffer.getvalue()


def add_tree(tar: tarfile.TarFile, root: Path, arcroot: str, skip: set[str] = _SKIP_DIRS) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in skip)
        for name in sorted(dirnames + filenames):
            path = Path(dirpath, name)
            arcname = f"{arcroot}/{path.relative_to(root).as_posix()}"
            tar.add(path, arcname=arcname, recursive=False, filter=_owned_by_root)


def _owned_by_root(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    tar.addfile(info, io.BytesIO(data))
