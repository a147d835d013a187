"""``corrupt solve``: the APR baseline over a build's tasks, as SWE-bench predictions.

Each task is materialised into a scratch folder and handed to
:func:`~corrupt.solve.apr.solve_folder` with nothing else but a sandbox and the
repository's environment (what a harness image gives an agent). Only after
the solver is done does this module look at the task: where the first real
bug line sat in the solver's ranking (``bug_rank``) is difficulty measured by
the solver, and it is the scorer's knowledge, not the solver's.

Results are kept in the build's store as each task finishes (``apr`` in its
meta table, by task id, with the budget), so an interrupted run resumes
where it stopped and ``slice`` can read them; the predictions file (model
``apr``) is written whole at the end. Remove-mode tasks are not attempted and
get no prediction.
"""

from __future__ import annotations

import json
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corrupt.errors import InputError
from corrupt.outputs.files import write_output
from corrupt.outputs.materialize import materialize_task
from corrupt.repos.original import original_checkout
from corrupt.scoring.score import build_folder
from corrupt.screening.screen import RunBudget
from corrupt.solve.apr import DEFAULT_BUDGET, AprResult, AprStatus, solve_folder
from corrupt.solve.localize import RankedLine
from corrupt.tasks.models import Task
from corrupt.tasks.store import APR_KEY, Store
from corrupt.tasks.taskfile import listed_tasks

MODEL = "apr"


@dataclass
class SolveOptions:
    build: Path
    out: Path | None = None
    budget: int = DEFAULT_BUDGET
    jobs: int = 1
    sandbox: str = "local"
    base_image: str | None = None
    tasks: Path | None = None  # a task JSONL (a slice): solve those instead of the whole build

    def checked(self) -> SolveOptions:
        """These options, or a one-line error before any work starts."""
        if self.budget < 1 or self.jobs < 1:
            raise InputError("--budget and --jobs must be at least 1")
        self.build = build_folder(Path(self.build))
        return self


def bug_rank(task: Task, ranked: list[RankedLine]) -> int | None:
    """The 1-based rank of the first line that is a bug line of ``task`` (None: not ranked)."""
    bug_lines = {(bug.file, line) for bug in task.bugs for line in bug.lines}
    return next(
        (rank for rank, place in enumerate(ranked, 1) if (place.file, place.line) in bug_lines),
        None,
    )


def record(task: Task, result: AprResult, budget: int) -> dict[str, Any]:
    """What the store keeps of one task's APR run."""
    return {
        "status": str(result.status),
        "solved": result.solved,
        "patches_tried": result.patches_tried,
        "bug_rank": bug_rank(task, result.ranked),
        "seconds": result.seconds,
        "test_runs": result.test_runs,
        "operator": result.operator,
        "budget": budget,
        "reason": result.reason,
        "patch": result.patch,
    }


class SolveProgress:
    """What a long solve reports; the default reports nothing."""

    def start(self, total: int, done: int) -> None: ...

    def started(self, task_id: str) -> None: ...

    def finished(self, task_id: str, result: dict[str, Any]) -> None: ...


def solve_build(
    options: SolveOptions, progress: SolveProgress | None = None
) -> tuple[Path, dict[str, dict[str, Any]]]:
    """Solve every task of the build (resuming recorded ones); returns the predictions path and
    the results by task id."""
    from corrupt.sandboxes.registry import get_sandbox

    folder = options.checked().build
    store = Store.open(folder)
    try:
        tasks = listed_tasks(options.tasks, store.list_tasks(), folder)
        files = {t.task_id: store.task_files(t.task_id) for t in tasks}
        info = store.checkout_info()
        done = _recorded(store, options.budget)
    finally:
        store.close()
    if not tasks:
        raise InputError(f"{folder} holds no tasks yet; run corrupt build first")
    out = options.out or folder / "apr.predictions.jsonl"
    progress = progress or SolveProgress()
    todo = [t for t in tasks if t.task_id not in done]
    progress.start(len(tasks), len(tasks) - len(todo))
    if todo:
        lock = threading.Lock()
        sandbox = get_sandbox(options.sandbox, base_image=options.base_image)
        try:
            checkout = original_checkout(info)
            env = sandbox.prepare(checkout)

            def one(task: Task) -> None:
                progress.started(task.task_id)
                with tempfile.TemporaryDirectory(prefix="corrupt-solve-") as scratch:
                    given = materialize_task(
                        task, Path(scratch) / "task", tree=checkout.path, files=files[task.task_id]
                    )
                    result = solve_folder(
                        given, sandbox, env, budget=options.budget, run_budget=_run_budget(task)
                    )
                kept = record(task, result, options.budget)
                with lock:
                    _keep(folder, task.task_id, kept)
                    done[task.task_id] = kept
                progress.finished(task.task_id, kept)

            with ThreadPoolExecutor(max_workers=options.jobs) as pool:
                for future in [pool.submit(one, t) for t in todo]:
                    future.result()
        finally:
            sandbox.close()
    results = {t.task_id: done[t.task_id] for t in tasks}
    _write_predictions(out, results)
    return out, results


def _run_budget(task: Task) -> RunBudget:
    seconds = task.tests.baseline_seconds
    return RunBudget(timeout=max(60.0, 3 * seconds + 30), per_test_timeout=max(10.0, 2 * seconds))


def _recorded(store: Store, budget: int) -> dict[str, dict[str, Any]]:
    kept = store.get_meta(APR_KEY)
    if not isinstance(kept, dict):
        return {}
    return {t: r for t, r in kept.items() if isinstance(r, dict) and r.get("budget") == budget}


def _keep(folder: Path, task_id: str, result: dict[str, Any]) -> None:
    store = Store.open(folder)
    try:
        kept = store.get_meta(APR_KEY)
        results = kept if isinstance(kept, dict) else {}
        results[task_id] = result
        store.set_meta(APR_KEY, results)
    finally:
        store.close()


def _write_predictions(out: Path, results: dict[str, dict[str, Any]]) -> None:
    """SWE-bench predictions, one per attempted task (an unsolved one with an empty patch)."""
    lines = [
        json.dumps({"instance_id": task_id, "model_name_or_path": MODEL, "model_patch": r["patch"]})
        + "\n"
        for task_id, r in results.items()
        if r["status"] != AprStatus.NOT_ATTEMPTED
    ]
    write_output(out, lambda stream: stream.write("".join(lines).encode("utf-8")))


def apr_results(folder: Path) -> dict[str, dict[str, Any]]:
    """The APR results a build's store holds (any budget), by task id."""
    store = Store.open(folder)
    try:
        kept = store.get_meta(APR_KEY)
    finally:
        store.close()
    return kept if isinstance(kept, dict) else {}


def without_apr_solved(source: Path, tasks: list[Task]) -> list[Task]:
    """``tasks`` less those the APR baseline solved; every task needs a recorded result."""
    if not Path(source).is_dir():
        raise InputError("APR results live in a build folder's store, not in a task file")
    results = apr_results(build_folder(Path(source)))
    missing = [t.task_id for t in tasks if t.task_id not in results]
    if missing:
        raise InputError(
            f"{len(missing)} tasks have no APR result (first: {missing[0]}); "
            f"run corrupt solve {source} first"
        )
    return [t for t in tasks if not results[t.task_id]["solved"]]
