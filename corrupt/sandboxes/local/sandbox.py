"""The local sandbox: each command runs in a bubblewrap box (see :mod:`corrupt.sandboxes.local.bubblewrap`).

What a run gets, in order of what matters most:

- **a box**: its own user, mount, pid, ipc, uts and network namespaces (only a
  loopback), no capabilities, the system, the venv and the Python it runs on
  read-only, the working copy and the run's I/O folder writable, a private
  size-limited ``/tmp`` with a fresh HOME in it, and nothing else of the host;
- **an allowlisted environment** (PATH, locale, HOME, TMPDIR, the venv), so
  tokens and API keys in the user's environment never reach repository code;
- **limits**: address space, file size, processes and CPU time via
  ``setrlimit``, plus pids and memory cgroups where rlimits fall short
  (:mod:`corrupt.sandboxes.local.limits`);
- **an end**: when the command exits, or is killed at its deadline, the pid
  namespace takes every process it started with it, daemons included; if
  corrupt itself dies, the box dies with it.

``isolation=False`` (the CLI's ``--no-isolation``) keeps only the environment
allowlist, the limits and a process-group kill: repository code can then read
and write whatever the user can. It exists for machines where no box can be
built and the user has said they trust the repository.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import select
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from typing import Any

from corrupt.cache import cache_root
from corrupt.errors import SandboxError
from corrupt.repos.models import WORKDIR, Checkout, Command, CommandResult, Environment, Limits
from corrupt.sandboxes.base import (
    InFlight,
    JsonLines,
    Sandbox,
    Service,
    anchored_pythonpath,
    io_file_names,
    read_outputs,
    with_io_dir,
    write_inputs,
)
from corrupt.sandboxes.local.bubblewrap import HOME, Box, interpreter_roots, require_bwrap
from corrupt.sandboxes.local.environment import create_environment
from corrupt.sandboxes.local.launch import network_mode, started, unboxed
from corrupt.sandboxes.local.limits import confined
from corrupt.sandboxes.local.locales import locale_env
from corrupt.scratch import remove_tree, scratch_dir

PASSED_THROUGH = ("LANG", "LANGUAGE", "TZ", "TERM")
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
TAIL_BYTES = 200_000
# A process killed by one of these died of its memory limit; bwrap reports a
# child's signal as 128 + the signal number.
_KILL_SIGNALS = {signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS}
_KILL_CODES = {-s for s in _KILL_SIGNALS} | {128 + s for s in _KILL_SIGNALS}


class LocalSandbox(Sandbox):
    """Runs commands as local processes in bubblewrap boxes; environments are cached venvs."""

    name = "local"
    dates_packages = True  # uv's --exclude-newer
    picks_python = True  # venvs on any installed interpreter

    def __init__(self, *, cache_dir: Path | None = None, isolation: bool = True) -> None:
        self.cache_dir = Path(cache_dir or cache_root())
        self.isolation = isolation
        self.inflight = InFlight()
        self.name = "local" if isolation else "local-unisolated"  # baselines are cached per name
        if isolation:
            require_bwrap()  # refuse up front, before any work, where no box can be built

    def prepare(
        self, checkout: Checkout, *, progress: Callable[[str], None] | None = None
    ) -> Environment:
        return create_environment(
            checkout, cache_dir=self.cache_dir, progress=progress, isolation=self.isolation
        )

    def run(self, env: Environment, tree: Path, command: Command) -> CommandResult:
        io_file_names(command)
        scratch = scratch_dir("run-")
        try:
            launch, child_env, io = self._launcher(env, Path(tree).resolve(), command, scratch)
            result = _run(launch, child_env, command.limits, scratch, self.inflight)
            result.files = read_outputs(io, command.collect)
            if command.stores_bytecode:
                _keep(scratch / "bytecode", self._bytecode(env))
            return result
        finally:
            remove_tree(scratch)

    def stores_bytecode(self, env: Environment) -> bool:
        return not self._bytecode_off(env).exists() and not self._bytecode(env).is_dir()

    def forgo_bytecode(self, env: Environment) -> bool:
        """A suite that compiles or looks for ``.pyc`` files itself (alembic's tests compile
        scripts and load them from ``__pycache__``; pytest-randomly's look for that folder)
        sees them moved by ``PYTHONPYCACHEPREFIX`` and, when the cache is read-only, cannot
        write them: its runs then compile as Python does by default, into nothing."""
        off = self._bytecode_off(env)
        if off.exists():
            return False
        off.parent.mkdir(parents=True, exist_ok=True)
        off.touch()
        remove_tree(self._bytecode(env))
        return True

    def _bytecode(self, env: Environment) -> Path:
        """The environment's bytecode cache: what one run of the unchanged tree compiled
        (the standard library, the venv, the project and pytest's rewritten tests), so
        that later runs import instead of compiling. The key names a commit, so the
        cache holds one tree's files."""
        return self.cache_dir / "bytecode" / env.key

    def _bytecode_off(self, env: Environment) -> Path:
        """Marks an environment whose suite runs without the bytecode cache."""
        return self.cache_dir / "bytecode" / f"{env.key}.off"

    def serve(self, env: Environment, tree: Path, command: Command) -> LocalService:
        io_file_names(command)
        scratch = scratch_dir("serve-")
        try:
            launch, child_env, io = self._launcher(env, Path(tree).resolve(), command, scratch)
            return LocalService(launch, child_env, command.limits, scratch, io, self.inflight)
        except BaseException:
            remove_tree(scratch)
            raise

    def cancel(self) -> None:
        self.inflight.cancel()

    def _launcher(
        self, env: Environment, tree: Path, command: Command, scratch: Path
    ) -> tuple[
        Callable[..., AbstractContextManager[subprocess.Popen[bytes]]], dict[str, str], Path
    ]:
        """How to start ``command`` (in a box, or unboxed), its environment, and its I/O folder."""
        io = scratch / "io"
        io.mkdir()
        write_inputs(io, command.files)
        argv = with_io_dir(list(command.argv), str(io))
        if argv and argv[0] == "python":
            argv[0] = env.python
        launch: Callable[..., AbstractContextManager[subprocess.Popen[bytes]]]
        reads: tuple[Path, ...] = ()
        writes: tuple[Path, ...] = ()
        bytecode: Path | None = None  # no prefix: Python's own bytecode handling
        if command.stores_bytecode:  # into a folder of its own, kept once the run is over
            bytecode = scratch / "bytecode"
            bytecode.mkdir()
            writes = (bytecode,)
        elif self._bytecode(env).is_dir() and not self._bytecode_off(env).exists():
            bytecode = self._bytecode(env)
            reads = (bytecode,)
        if self.isolation:
            child_env = _scrubbed_env(env, home=HOME, tmp="/tmp", bytecode=bytecode)
            network = network_mode(child_env) if command.limits.network else "none"
            box = Box(
                read_only=(
                    Path(env.location),
                    *(env.interpreter_roots or interpreter_roots()),
                    *reads,
                    *([Path(env.locales)] if env.locales else []),
                ),
                writable=(io, *writes),
                workdir=(tree, WORKDIR),
                network=network,
                tmp_mb=command.limits.disk_mb,
            )
            launch = functools.partial(started, require_bwrap(), box, argv, tree)
        else:
            for name in ("home", "tmp"):
                (scratch / name).mkdir()
            child_env = _scrubbed_env(
                env, home=str(scratch / "home"), tmp=str(scratch / "tmp"), bytecode=bytecode
            )
            launch = functools.partial(unboxed, argv, tree)
        if command.stores_bytecode:
            del child_env["PYTHONDONTWRITEBYTECODE"]
        child_env.update(
            zip(command.env, with_io_dir(list(command.env.values()), str(io)), strict=True)
        )
        child_env = anchored_pythonpath(child_env, WORKDIR if self.isolation else str(tree))
        return launch, child_env, io


class LocalService(Service):
    """A long-lived command in a box, spoken to in JSON lines on its stdin and stdout."""

    def __init__(
        self,
        launch: Callable[..., AbstractContextManager[subprocess.Popen[bytes]]],
        env: dict[str, str],
        limits: Limits,
        scratch: Path,
        io: Path,
        inflight: InFlight,
    ) -> None:
        self.scratch, self.io = scratch, io
        self._stack = ExitStack()
        self._replies = JsonLines(self._ready, self._read, self._last_words)
        try:
            preexec = self._stack.enter_context(confined(limits))
            log = self._stack.enter_context(open(scratch / "stderr", "wb"))  # noqa: SIM115
            self.proc = self._stack.enter_context(
                launch(
                    env=env,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    start_new_session=True,
                    preexec_fn=preexec,
                )
            )
            self._stack.callback(self._end)
            self._stack.enter_context(
                inflight.tracked(functools.partial(_kill_group, self.proc.pid))
            )
        except BaseException:
            self._stack.close()
            raise

    def send(self, message: dict[str, Any]) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps(message).encode("utf-8") + b"\n")
            stdin.flush()
        except (BrokenPipeError, ValueError):
            raise SandboxError(f"the server ended: {self._last_words()}") from None

    def receive(self, timeout: float) -> dict[str, Any]:
        return self._replies.next(timeout)

    def _ready(self, seconds: float) -> bool:
        stdout = self.proc.stdout
        assert stdout is not None
        return bool(select.select([stdout], [], [], seconds)[0])

    def _read(self) -> bytes | None:
        stdout = self.proc.stdout
        assert stdout is not None
        return os.read(stdout.fileno(), 1 << 16) or None

    def outputs(self, names: list[str]) -> dict[str, bytes]:
        found = read_outputs(self.io, names)
        for name in names:
            with contextlib.suppress(OSError):
                (self.io / name).unlink()
        return found

    def close(self) -> None:
        self._stack.close()

    def _end(self) -> None:
        _kill_group(self.proc.pid)
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):  # nothing is left unflushed in stdin
                    pipe.close()
        remove_tree(self.scratch)

    def _last_words(self) -> str:
        with contextlib.suppress(OSError):
            tail = _tail(self.scratch / "stderr").strip().splitlines()
            return tail[-1] if tail else "no output"
        return "no output"


def _run(
    launch: Callable[..., AbstractContextManager[subprocess.Popen[bytes]]],
    env: dict[str, str],
    limits: Limits,
    scratch: Path,
    inflight: InFlight,
) -> CommandResult:
    with (
        confined(limits) as preexec,
        open(scratch / "stdout", "wb") as out,
        open(scratch / "stderr", "wb") as err,
    ):
        began = time.monotonic()
        timed_out = False
        with launch(
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
            preexec_fn=preexec,
        ) as proc:
            try:
                with inflight.tracked(functools.partial(_kill_group, proc.pid)):
                    proc.wait(timeout=limits.timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                _kill_group(proc.pid)  # unboxed runs: also reaps daemons a finished run left behind
                proc.wait()
        duration = time.monotonic() - began
    stderr = _tail(scratch / "stderr")
    return CommandResult(
        exit_code=proc.returncode,
        stdout=_tail(scratch / "stdout"),
        stderr=stderr,
        duration=duration,
        timed_out=timed_out,
        killed="timeout" if timed_out else _memory_kill(proc.returncode, stderr),
    )


def _scrubbed_env(
    env: Environment, *, home: str, tmp: str, bytecode: Path | None
) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k in PASSED_THROUGH or k.startswith("LC_")}
    base.update(
        PATH=f"{Path(env.location) / 'bin'}:{SYSTEM_PATH}",
        HOME=home,
        TMPDIR=tmp,
        VIRTUAL_ENV=env.location,
        PYTHONDONTWRITEBYTECODE="1",
        **locale_env(env.locales),
    )
    if bytecode is not None:
        # With a prefix Python looks for bytecode nowhere else: an empty one would
        # make every run compile the standard library.
        base["PYTHONPYCACHEPREFIX"] = str(bytecode)
    return base


def _keep(staged: Path, cache: Path) -> None:
    """Make what a run compiled into ``staged`` the cache, unless another run was first.

    Only folders and regular files are copied: the run could leave a FIFO there
    (opening it would block) or a link (the cache never points out of itself)."""
    cache.parent.mkdir(parents=True, exist_ok=True)
    moved = cache.with_name(f"{cache.name}.{os.getpid()}.part")
    remove_tree(moved)
    try:
        shutil.copytree(staged, moved, ignore=_not_plain)
        moved.rename(cache)
    except (OSError, RecursionError, shutil.Error):  # another build was first, or it cannot copy
        remove_tree(moved)


def _not_plain(folder: str, names: list[str]) -> set[str]:
    kinds = {name: os.lstat(os.path.join(folder, name)).st_mode for name in names}
    return {name for name, mode in kinds.items() if not (S_ISREG(mode) or S_ISDIR(mode))}


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _tail(path: Path) -> str:
    with open(path, "rb") as fh:
        fh.seek(max(0, path.stat().st_size - TAIL_BYTES))
        return fh.read().decode("utf-8", errors="replace")


def _memory_kill(exit_code: int | None, stderr: str) -> str | None:
    """A process that died of a signal or on an uncaught MemoryError hit the memory limit."""
    if exit_code in _KILL_CODES:
        return "memory"
    if exit_code and stderr.rstrip().rsplit("\n", 1)[-1].startswith("MemoryError"):
        return "memory"
    return None
