#!/usr/bin/env bash
# Start a Docker-compatible container engine for the docker sandbox and its tests.
#
# Why: CI machines of this project have no Docker daemon and reach no image
# registry, but Debian's Podman serves the Docker Engine API on a unix socket,
# and a base image can be built locally with debootstrap. Every step is
# idempotent and cached, so a second run costs about a second.
#
# Prints one line on stdout, `export DOCKER_HOST=unix://... CORRUPT_BASE_IMAGE=...`,
# for `eval`: the docker sandbox then defaults to the locally built base image.
# Progress goes to stderr. Exits non-zero with a one-line reason when the
# engine cannot be made to work on this machine.
set -euo pipefail

socket="${CORRUPT_PODMAN_SOCKET:-/tmp/podman.sock}"
base_image="${CORRUPT_BASE_IMAGE:-corrupt/base:bookworm}"
rootfs_cache="${CORRUPT_ROOTFS_CACHE:-/var/cache/corrupt/rootfs-bookworm}"
service_log="${socket%.sock}-service.log"

say() { echo "container-engine: $*" >&2; }
fail() { say "cannot provide a container engine: $*"; exit 1; }

engine_answers() {
    curl -sf --max-time 5 --unix-socket "$socket" http://d/_ping >/dev/null 2>&1
}

install_packages() {
    local missing=()
    command -v podman >/dev/null || missing+=(podman)
    command -v runc >/dev/null || missing+=(runc)
    command -v debootstrap >/dev/null || missing+=(debootstrap)
    [ ${#missing[@]} -eq 0 ] && return
    [ "$(id -u)" -eq 0 ] || fail "needs root to apt-get install ${missing[*]}"
    command -v apt-get >/dev/null || fail "no apt-get to install ${missing[*]} (install them by hand)"
    say "installing ${missing[*]} from Debian"
    apt-get update -qq >&2 || fail "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc debootstrap >&2 \
        || fail "apt-get install podman runc debootstrap failed"
}

configure_podman() {
    # runc: crun's cgroup handling fails on this machine kind; no default
    # ulimits: the host's hard limits are lower than Podman's defaults.
    local conf=/etc/containers/containers.conf
    local want
    want=$'[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"'
    if [ "$(cat "$conf" 2>/dev/null)" != "$want" ]; then
        mkdir -p /etc/containers
        printf '%s\n' "$want" >"$conf"
        say "wrote $conf"
    fi
    # Image import and build refuse to run without a signature policy; Debian
    # ships one, but a machine whose /etc/containers was cleared has none.
    if [ ! -f /etc/containers/policy.json ]; then
        printf '%s\n' '{"default": [{"type": "insecureAcceptAnything"}]}' >/etc/containers/policy.json
        say "wrote /etc/containers/policy.json"
    fi
}

start_service() {
    engine_answers && return
    rm -f "$socket"
    say "starting podman system service on $socket (log: $service_log)"
    # From /: the runtime drops files (an `oom` marker after a memory kill) in the service's cwd.
    # Every descriptor of the detached group is redirected: a caller reading this
    # script's stdout through `$(...)` waits until no process holds it open.
    (cd / && exec setsid podman system service --time=0 "unix://$socket") >"$service_log" 2>&1 </dev/null &
    for _ in $(seq 1 60); do
        engine_answers && return
        sleep 0.5
    done
    fail "podman system service did not answer on $socket; last log lines: $(tail -n 5 "$service_log" | tr '\n' ' ')"
}

build_base_image() {
    timeout 120 podman image exists "$base_image" && return
    if [ ! -f "$rootfs_cache/.complete" ]; then
        say "debootstrap bookworm into $rootfs_cache (about 90 s)"
        rm -rf "$rootfs_cache"
        mkdir -p "$rootfs_cache"
        timeout 900 debootstrap --variant=minbase --include=python3,python3-venv,git bookworm \
            "$rootfs_cache" ${CORRUPT_DEBIAN_MIRROR:+"$CORRUPT_DEBIAN_MIRROR"} >"$rootfs_cache.log" 2>&1 \
            || fail "debootstrap failed; see $rootfs_cache.log: $(tail -n 3 "$rootfs_cache.log" | tr '\n' ' ')"
        rm -rf "$rootfs_cache"/var/cache/apt/archives/*.deb "$rootfs_cache"/var/lib/apt/lists/*
        touch "$rootfs_cache/.complete"
    fi
    say "importing $rootfs_cache as $base_image"
    tar -C "$rootfs_cache" --exclude=./.complete -c . \
        | timeout 600 podman import --change 'CMD ["/bin/bash"]' - "$base_image" >&2 \
        || fail "podman import of $rootfs_cache failed"
}

prune_build_leftovers() {
    # Each image build leaves its install stage behind as an untagged image.
    timeout 120 podman image prune -f >/dev/null 2>&1 || true
}

install_packages
configure_podman
start_service
build_base_image
prune_build_leftovers
echo "export DOCKER_HOST=unix://$socket CORRUPT_BASE_IMAGE=$base_image"
