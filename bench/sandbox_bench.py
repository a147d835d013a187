"""Docker sandbox costs: image build time and per-run container overhead versus the local sandbox.

    eval "$(bash scripts/container-engine.sh)"
    python bench/sandbox_bench.py [REPO] [--runs 10] [--base-image corrupt/base:bookworm]

REPO (default: examples/minishop) is pinned with ``checkout``. Prints the cold
image build (layer cache off, of a marked copy so it gets its own tag), the warm ``prepare``
(image reused), and for each sandbox the mean and spread of N runs of a
trivial command (``python -c pass``) and of a one-test pytest run through the
runner; the difference is what a container costs per command.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from corrupt.repos.checkout import checkout
from corrupt.repos.models import Command
from corrupt.repos.specs import parse_spec
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.docker.sandbox import DockerSandbox
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.suites.runner import run_tests

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "minishop"


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def summary(samples: list[float]) -> str:
    return (
        f"mean {statistics.mean(samples):6.3f}s  min {min(samples):6.3f}s  max {max(samples):6.3f}s"
    )


def measure(sandbox, env, tree: Path, nodeid: str, runs: int) -> tuple[list[float], list[float]]:
    """N runs of a trivial command, then N one-test pytest runs through the runner."""
    trivial = [
        timed(lambda: sandbox.run(env, tree, Command(["python", "-c", "pass"])))
        for _ in range(runs)
    ]
    one_test = [timed(lambda: run_tests(sandbox, env, tree, select=[nodeid])) for _ in range(runs)]
    return trivial, one_test


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", default=str(EXAMPLE))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--base-image", default="corrupt/base:bookworm")
    args = parser.parse_args()

    pinned = checkout(parse_spec(args.repo))
    docker = DockerSandbox(base_image=args.base_image, layer_cache=False)
    local = LocalSandbox()
    with tempfile.TemporaryDirectory() as tmp:
        # A copy with one extra file is a new commit, hence a new tag: the cold
        # build never touches the image other runs of this repository use.
        shutil.copytree(pinned.path, Path(tmp) / "repo")
        (Path(tmp) / "repo" / "BENCH_MARKER").write_text(uuid.uuid4().hex)
        fresh = checkout(parse_spec(str(Path(tmp) / "repo")))
        cold = timed(lambda: docker.prepare(fresh))
        warm = timed(lambda: docker.prepare(fresh))
        docker.client.images.remove(docker.prepare(fresh).location)
    local_env = local.prepare(pinned)
    print(f"repo {pinned.name} at {pinned.commit[:17]}, base image {args.base_image}")
    print(
        f"image build (cold, no layer cache): {cold:6.1f}s   prepare (image reused): {warm:6.3f}s"
    )

    envs = {"local": (local, local_env), "docker": (docker, docker.prepare(pinned))}
    means: dict[tuple[str, str], float] = {}
    with Workspace(pinned) as ws:
        first = next(iter(run_tests(local, local_env, ws.path).results))
        for name, (sandbox, env) in envs.items():
            trivial, one_test = measure(sandbox, env, ws.path, first, args.runs)
            means[name, "trivial"], means[name, "pytest"] = (
                statistics.mean(trivial),
                statistics.mean(one_test),
            )
            print(f"{name:6} python -c pass   x{args.runs}: {summary(trivial)}")
            print(f"{name:6} pytest, 1 test   x{args.runs}: {summary(one_test)}")
    for kind in ("trivial", "pytest"):
        extra = means["docker", kind] - means["local", kind]
        print(f"container overhead per run ({kind}): {extra:+.3f}s")
    docker.close()


if __name__ == "__main__":
    main()
