#!/usr/bin/env bash
# The harnesses our exports are checked against, each in its own environment:
# SWE-bench 5, SWE-smith 0.0.9, HF datasets 3.x and 5.x (side venvs made with uv),
# and Harbor, which needs Python >= 3.12: a Debian trixie root file system
# (Python 3.13) run with bubblewrap. Idempotent; a second run costs a second.
#
# Prints one line for `eval`: `export CORRUPT_HARNESS_ENVS=... CORRUPT_HARBOR_ROOT=...`.
# Progress goes to stderr. Without root (debootstrap) Harbor's root is left out.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
envs="${CORRUPT_HARNESS_ENVS:-$root/.cache/harness}"
harbor_root="${CORRUPT_HARBOR_ROOT:-/var/cache/corrupt/rootfs-trixie-harbor}"
uv="$root/.venv/bin/uv"
python="$root/.venv/bin/python"
say() { echo "harness-envs: $*" >&2; }

side_venv() {  # name, requirements...
    local name="$1"; shift
    local stamp="$envs/$name/.requirements"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$*" ]; then return; fi
    say "making $envs/$name: $*"
    rm -rf "$envs/$name"
    "$uv" venv -q --python "$("$python" -c 'import sys; print(sys.executable)')" "$envs/$name" >&2
    VIRTUAL_ENV="$envs/$name" "$uv" pip install -q "$@" >&2
    echo "$*" > "$stamp"
}

side_venv swebench "swebench==5.0.2"
side_venv swesmith "swesmith==0.0.9" "swebench==4.1.0" docker ghapi python-dotenv unidiff tqdm rich "datasets>=3"
side_venv datasets3 "datasets>=3,<4"
side_venv datasets5 "datasets>=5,<6"

harbor_ready() { [ -x "$harbor_root/opt/harbor/bin/harbor" ]; }
in_root() {
    bwrap --bind "$harbor_root" / --proc /proc --dev /dev --tmpfs /tmp \
        --ro-bind /etc/resolv.conf /etc/resolv.conf \
        --ro-bind /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/host-ca.crt \
        --ro-bind "$uv" /usr/local/bin/uv \
        --setenv SSL_CERT_FILE /etc/ssl/certs/host-ca.crt --setenv UV_NATIVE_TLS 1 \
        --setenv HOME /root --setenv PATH /usr/local/bin:/usr/bin:/bin "$@"
}
if ! harbor_ready; then
    if [ "$(id -u)" -ne 0 ] || ! command -v bwrap >/dev/null; then
        say "no Harbor root (needs root and bwrap); Harbor tests will skip"
    else
        command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; } >&2
        say "debootstrapping Debian trixie (Python 3.13) for Harbor into $harbor_root"
        rm -rf "$harbor_root.tmp"
        mkdir -p "$(dirname "$harbor_root")"
        debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates,git \
            trixie "$harbor_root.tmp" http://deb.debian.org/debian > "$harbor_root.log" 2>&1 \
            || { say "debootstrap failed (log: $harbor_root.log)"; exit 1; }
        harbor_root_final="$harbor_root"; harbor_root="$harbor_root.tmp"
        # Harbor 0.25.0 asks for a certifi newer than the package index may hold; any certifi works.
        echo "certifi<2026.10.19" > "$harbor_root/tmp-override.txt"
        in_root --ro-bind "$harbor_root/tmp-override.txt" /override.txt sh -c \
            'python3 -m venv /opt/harbor && uv pip install -q --python /opt/harbor/bin/python --override /override.txt harbor==0.25.0' >&2
        rm -f "$harbor_root/tmp-override.txt"
        mv "$harbor_root" "$harbor_root_final"; harbor_root="$harbor_root_final"
    fi
fi
printf 'export CORRUPT_HARNESS_ENVS=%q' "$envs"
harbor_ready && printf ' CORRUPT_HARBOR_ROOT=%q' "$harbor_root"
echo
