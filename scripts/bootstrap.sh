#!/usr/bin/env bash
# Create .venv (with uv, fetched from PyPI into a bootstrap venv) and install
# corrupt with its development extras. Idempotent: reruns are fast.
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
