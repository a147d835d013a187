"""The local sandbox: a child process with a scrubbed environment and limits.

Isolation, in order of what matters most:

- **environment**: an allowlist (PATH, locale, a fresh HOME and TMPDIR, the
  venv) so tokens and API keys in the user's environment never reach
  repository code;
- **network**: the child enters a new Linux network namespace (only its own
  loopback, brought up so suites that serve on 127.0.0.1 still work) when the
  kernel lets us; otherwise one warning is logged and the run goes ahead;
- **the cache**: in a private mount namespace corrupt's cache (cached clones,
  venvs) is bind-mounted read-only, so even a test running as root cannot
  change a cached clone (same fallback: one warning);
- **limits**: address space, process count and CPU time via ``setrlimit``;
- **timeouts**: the child leads its own process group and the whole group is
  killed, so forked servers and pytest-xdist workers die with it.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from corrupt.cache import cache_root
from corrupt.repos.environment import create_environment
from corrupt.repos.isolation import available, enter_network_namespace, read_only
from corrupt.repos.models import Checkout, Command, CommandResult, Environment, Limits
from corrupt.repos.sandbox import Sandbox

PASSED_THROUGH = ("PATH", "LANG", "LANGUAGE", "TZ", "TERM")
TAIL_BYTES = 200_000
_KILL_SIGNALS = {-signal.SIGKILL, -signal.SIGSEGV, -signal.SIGABRT, -signal.SIGBUS}


class LocalSandbox(Sandbox):
    """Runs commands as local processes; environments are cached venvs."""

    name = "local"

    def __init__(self, *, cache_dir: Path | None = None, isolate_network: bool = True) -> None:
        self.cache_dir = Path(cache_dir or cache_root())
        self.isolate_network = isolate_network

    def prepare(self, checkout: Checkout, *, progress=None) -> Environment:
        return create_environment(checkout, cache_dir=self.cache_dir, progress=progress)

    def _isolation_steps(self, limits: Limits) -> list:
        steps = []
        if self.isolate_network and not limits.network and available(
            "network namespace", enter_network_namespace, "repository tests will have network access"
        ):
            steps.append(enter_network_namespace)
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        protect = read_only(self.cache_dir)
        if available("mount namespace", protect, "the cache is protected only by working copies"):
            steps.append(protect)
        return steps

    def run(self, env: Environment, tree: Path, command: Command) -> CommandResult:
        argv = list(command.argv)
        if argv and argv[0] == "python":
            argv[0] = env.python
        limits = command.limits
        steps = self._isolation_steps(limits)
        scratch = Path(tempfile.mkdtemp(prefix="corrupt-run-"))
        try:
            (scratch / "home").mkdir()
            (scratch / "tmp").mkdir()
            child_env = _scrubbed_env(env, scratch)
            child_env.update(command.env)
            with open(scratch / "stdout", "wb") as out, open(scratch / "stderr", "wb") as err:
                started = time.monotonic()
                proc = subprocess.Popen(
                    argv,
                    cwd=tree,
                    env=child_env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    start_new_session=True,
                    preexec_fn=_limiter(limits, steps),
                )
                timed_out = False
                try:
                    proc.wait(timeout=limits.timeout)
                except subprocess.TimeoutExpired:
                    timed_out = True
                finally:
                    _kill_group(proc.pid)  # also reaps daemons a finished run left behind
                    proc.wait()
                duration = time.monotonic() - started
            stdout = _tail(scratch / "stdout")
            stderr = _tail(scratch / "stderr")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return CommandResult(
            exit_code=proc.returncode,
            stdout=stdout,
            stderr=stderr,
            duration=duration,
            timed_out=timed_out,
            killed="timeout" if timed_out else _memory_kill(proc.returncode, stderr),
        )


def _scrubbed_env(env: Environment, scratch: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k in PASSED_THROUGH or k.startswith("LC_")}
    venv_bin = str(Path(env.location) / "bin")
    base["PATH"] = os.pathsep.join(p for p in (venv_bin, base.get("PATH", "/usr/bin:/bin")) if p)
    base.update(
        HOME=str(scratch / "home"),
        TMPDIR=str(scratch / "tmp"),
        VIRTUAL_ENV=env.location,
        PYTHONDONTWRITEBYTECODE="1",
    )
    return base


def _limiter(limits: Limits, steps: list):
    def apply() -> None:
        for step in steps:
            step()
        memory = limits.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_processes, limits.max_processes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if limits.cpu_seconds:
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))

    return apply


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _tail(path: Path) -> str:
    with open(path, "rb") as fh:
        fh.seek(max(0, path.stat().st_size - TAIL_BYTES))
        return fh.read().decode("utf-8", errors="replace")


def _memory_kill(exit_code: int | None, stderr: str) -> str | None:
    """A process that died of a signal or on an uncaught MemoryError hit the memory limit."""
    if exit_code in _KILL_SIGNALS:
        return "memory"
    if exit_code and stderr.rstrip().rsplit("\n", 1)[-1].startswith("MemoryError"):
        return "memory"
    return None
