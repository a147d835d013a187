"""The exports run by the harnesses themselves: SWE-bench 5, SWE-smith and Harbor, on Podman.

    eval "$(bash scripts/container-engine.sh)" && eval "$(bash scripts/harness-envs.sh)"
    python bench/harness_bench.py [BUILD_DIR] [--work DIR]

Without BUILD_DIR it first builds the example with the docker sandbox
(``corrupt build examples/minishop --sandbox docker --mode all --n 1``).
Then, timing each step:

- ``corrupt export --format swebench`` (per-task images), and SWE-bench 5's
  ``run_evaluation`` on the gold predictions and on empty ones;
- ``--format swesmith`` and SWE-smith's ``eval`` (gold, empty) and ``valid``,
  through the generated ``swesmith_profiles.py``;
- ``--format harbor`` and ``harbor run`` with the ``oracle`` and ``nop``
  agents, Harbor running in its Debian trixie root with the docker CLI and
  Compose v2 (installed into that root from Debian on first use) on the
  Podman socket.

Gold must be resolved everywhere, empty/nop nowhere. Prints one line per step.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORRUPT = [sys.executable, "-m", "corrupt.cli"]
ENVS = Path(os.environ.get("CORRUPT_HARNESS_ENVS", ROOT / ".cache" / "harness"))
HARBOR_ROOT = Path(os.environ.get("CORRUPT_HARBOR_ROOT", "/var/cache/corrupt/rootfs-trixie-harbor"))
SOCKET = os.environ.get("DOCKER_HOST", "unix:///tmp/podman.sock").removeprefix("unix://")


def timed(label: str, command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    started = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    seconds = time.monotonic() - started
    if result.returncode != 0:
        sys.exit(
            f"{label} failed ({result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        )
    print(f"{label:<44} {seconds:7.1f} s", flush=True)
    return result


def write_predictions(gold: Path, out: Path, model: str) -> None:
    rows = [json.loads(line) for line in gold.read_text().splitlines()]
    out.write_text(
        "".join(
            json.dumps({**r, "model_name_or_path": model, "model_patch": ""}) + "\n" for r in rows
        )
    )


def swebench(build: Path, work: Path) -> None:
    instances, gold = work / "swebench.jsonl", work / "gold.jsonl"
    timed(
        "export --format swebench (task images)",
        [*CORRUPT, "export", str(build), "--format", "swebench", "--out", str(instances)],
    )
    timed(
        "export --format gold",
        [*CORRUPT, "export", str(build), "--format", "gold", "--out", str(gold)],
    )
    write_predictions(gold, work / "empty.jsonl", "empty")
    python = str(ENVS / "swebench" / "bin" / "python")
    for model, predictions in (("gold", gold), ("empty", work / "empty.jsonl")):
        run_id = f"bench-{model}-{int(time.time())}"
        timed(
            f"SWE-bench run_evaluation, {model}",
            [
                python,
                "-m",
                "swebench.harness.run_evaluation",
                "-d",
                str(instances),
                "-p",
                str(predictions),
                "--max_workers",
                "2",
                "--run_id",
                run_id,
                "--timeout",
                "900",
                "--report_dir",
                "reports",
            ],
            cwd=work,
        )
        report = json.loads((work / "reports" / f"{model}.{run_id}.json").read_text())
        print(
            f"  {model}: {report['resolved_instances']} of {report['total_instances']} resolved, "
            f"{report['empty_patch_instances']} empty, {report['error_instances']} errors"
        )


def swesmith(build: Path, work: Path) -> None:
    instances = work / "swesmith.json"
    timed(
        "export --format swesmith (branched image)",
        [*CORRUPT, "export", str(build), "--format", "swesmith", "--out", str(instances)],
    )
    records = json.loads(instances.read_text())
    (work / "swesmith-empty.jsonl").write_text(
        "".join(
            json.dumps(
                {"instance_id": r["instance_id"], "model_name_or_path": "empty", "model_patch": ""}
            )
            + "\n"
            for r in records
        )
    )
    python = str(ENVS / "swesmith" / "bin" / "python")
    profiles = str(work / "swesmith_profiles.py")
    for model, predictions in (("gold", "gold"), ("empty", str(work / "swesmith-empty.jsonl"))):
        run_id = f"bench-{model}-{int(time.time())}"
        result = timed(
            f"SWE-smith eval, {model}",
            [
                python,
                profiles,
                "eval",
                "-d",
                str(instances),
                "-p",
                predictions,
                "--run_id",
                run_id,
                "-w",
                "2",
            ],
            cwd=work,
        )
        print(
            "  " + next(line for line in result.stdout.splitlines() if line.startswith("Resolved"))
        )
    timed("SWE-smith valid", [python, profiles, "valid", str(instances), "-w", "2"], cwd=work)
    for record in records:
        report = next(
            (work / "logs" / "run_validation").glob(f"*/{record['instance_id']}/report.json")
        )
        broke = len(json.loads(report.read_text())["FAIL_TO_PASS"])
        print(
            f"  valid {record['instance_id']}: {broke} tests fail with the bug, {len(record['FAIL_TO_PASS'])} exported"
        )


def in_harbor_root(*args: str) -> list[str]:
    """A command in Harbor's trixie root (bubblewrap), with ``args`` before it (binds, env)."""
    return [
        "bwrap", "--bind", str(HARBOR_ROOT), "/", "--proc", "/proc", "--dev", "/dev",
        "--tmpfs", "/tmp", "--ro-bind", "/etc/resolv.conf", "/etc/resolv.conf", *args,
    ]  # fmt: skip


def harbor_tools(work: Path) -> Path:
    """Docker CLI and Compose v2 from Debian, in Harbor's root (Harbor shells out to `docker compose`)."""
    if not (HARBOR_ROOT / "usr/libexec/docker/cli-plugins/docker-compose").exists():
        install = (
            "apt-get -q -o APT::Sandbox::User=root update && apt-get -q -y -o "
            "APT::Sandbox::User=root install --no-install-recommends docker-cli docker-compose"
        )
        timed(
            "apt-get install docker-cli docker-compose (root)",
            in_harbor_root("--setenv", "DEBIAN_FRONTEND", "noninteractive", "sh", "-c", install),
        )
    config = work / "docker-config"
    config.mkdir(exist_ok=True)
    return config


def harbor(build: Path, work: Path) -> None:
    tasks = work / "harbor"
    timed(
        "export --format harbor",
        [*CORRUPT, "export", str(build), "--format", "harbor", "--out", str(tasks)],
    )
    config = harbor_tools(work)
    for agent in ("oracle", "nop"):
        jobs = work / f"jobs-{agent}"
        timed(
            f"harbor run -a {agent}",
            in_harbor_root(
                "--bind",
                str(work),
                str(work),
                "--bind",
                SOCKET,
                "/tmp/podman.sock",
                "--setenv",
                "HOME",
                "/root",
                "--setenv",
                "PATH",
                "/opt/harbor/bin:/usr/bin:/bin",
                "--setenv",
                "DOCKER_BUILDKIT",
                "0",
                "--setenv",
                "DOCKER_HOST",
                "unix:///tmp/podman.sock",
                "--setenv",
                "DOCKER_CONFIG",
                str(config),
                "--chdir",
                str(work),
                "harbor",
                "run",
                "-p",
                str(tasks),
                "-a",
                agent,
                "-e",
                "docker",
                "-o",
                str(jobs),
                "-y",
            ),  # fmt: skip
        )
        result = json.loads(next(jobs.glob("*/result.json")).read_text())
        rewards = [
            json.loads(p.read_text()).get("verifier_result", {}).get("rewards", {}).get("reward")
            for p in jobs.glob("*/*/result.json")
        ]
        print(
            f"  {agent}: rewards {sorted(rewards, key=str)}; "
            f"{result.get('n_total_trials', len(rewards))} trials"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path, nargs="?")
    parser.add_argument("--work", type=Path, default=Path("/tmp/corrupt-harness-bench"))
    args = parser.parse_args()
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    for stale in ("logs", "reports", "jobs-oracle", "jobs-nop"):  # results of an earlier run
        shutil.rmtree(work / stale, ignore_errors=True)
    build = args.build
    if build is None:
        build = work / "build"
        timed(
            "corrupt build (docker sandbox, 1 per mode)",
            [
                *CORRUPT,
                "build",
                str(ROOT / "examples" / "minishop"),
                "--sandbox",
                "docker",
                "--mode",
                "all",
                "--n",
                "1",
                "--seed",
                "3",
                "--out",
                str(build),
            ],
        )
    swebench(build.resolve(), work)
    swesmith(build.resolve(), work)
    harbor(build.resolve(), work)


if __name__ == "__main__":
    main()
