"""The installer's host side: where uv is, and the configuration install steps keep.

Install steps and the host's own reading of a ``uv.lock`` both need these;
neither needs the other, so they live here, apart from both.
"""

from __future__ import annotations

import os
import re
import shutil

# Install steps need the package index, so they keep the user's installer
# configuration (index URLs, certificates, proxies) but nothing else.
_INSTALL_ENV_PREFIXES = ("PIP_", "UV_", "SSL_CERT", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
_INSTALL_ENV_NAMES = (
    "PATH",
    "LANG",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
)
# Variables that carry credentials, and URLs with user information or a token
# in them, are not passed to install steps: the build backends that run there
# are repository code.
_CREDENTIAL_WORDS = (
    "TOKEN",
    "PASSWORD",
    "SECRET",
    "CREDENTIAL",
    "AUTH",
    "PUBLISH",
    "KEYRING",
    "USERNAME",
    "_PAT",
    "KEY",
)
_URL_WITH_CREDENTIALS = re.compile(
    r"://[^/\s]*@|[?&](token|key|password|secret|auth)[^=&]*=", re.IGNORECASE
)


def install_env() -> dict[str, str]:
    """The user's installer configuration (index URLs, certificates, proxies) and nothing else:
    no credentials, which a build backend could read."""
    chosen = {
        k: v
        for k, v in os.environ.items()
        if k in _INSTALL_ENV_NAMES or k.startswith(_INSTALL_ENV_PREFIXES)
    }
    return {k: v for k, v in chosen.items() if not _is_credential(k, v)}


def _is_credential(name: str, value: str) -> bool:
    return any(word in name.upper() for word in _CREDENTIAL_WORDS) or bool(
        _URL_WITH_CREDENTIALS.search(value)
    )


def find_uv() -> str | None:
    try:
        import uv

        return uv.find_uv_bin()
    except (ImportError, FileNotFoundError):
        return shutil.which("uv")
