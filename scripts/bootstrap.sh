#!/usr/bin/env bash
# Create .venv (with uv, fetched from PyPI into a bootstrap venv) and install
# corrupt with its development extras; install bubblewrap (the local sandbox
# builds its boxes with it) and slirp4netns (the install box's network) where
# this machine lets us (root and apt-get), and the C library's locale sources.
# Idempotent: reruns are fast.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
if [ ! -x .venv/bin/uv ]; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check uv
fi
stamp=.venv/.corrupt-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    .venv/bin/uv pip install --quiet --python .venv/bin/python -e ".[dev]"
    touch "$stamp"
fi
if ! command -v bwrap >/dev/null || ! command -v slirp4netns >/dev/null; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        echo "bootstrap: installing bubblewrap and slirp4netns (the local sandbox) from Debian" >&2
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap slirp4netns; } >&2 \
            || echo "bootstrap: could not install bubblewrap and slirp4netns; see ARCHITECTURE.md, Running untrusted code" >&2
    else
        echo "bootstrap: the local sandbox needs bubblewrap (bwrap) and, for install steps, slirp4netns:" \
             "install them (apt-get/dnf/pacman install bubblewrap slirp4netns), or use --sandbox docker" >&2
    fi
fi
# The C library's locale sources, from which intake compiles the locales a suite sets
# and the host lacks (Debian's slim images leave them out); optional: without them
# such suites stay red and --explain names the locales it could not make.
if [ ! -f /usr/share/i18n/SUPPORTED ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "bootstrap: installing the C library's locale sources (Debian's locales package)" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends locales; } >&2 \
        || echo "bootstrap: could not install the locales package; suites that set a locale the host lacks stay red" >&2
fi
