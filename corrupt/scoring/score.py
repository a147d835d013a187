"""``corrupt score``: grade SWE-bench-format predictions against a build's tasks.

For each prediction: a fresh working copy of the pinned checkout with the
task's corrupted files written (the materialized task tree, less its git
history), the patch applied with ``git apply`` (exactly, then fuzzily), every
test file and pytest configuration the patch touched put back (a patch gains
nothing by editing tests, and is flagged), and the full suite run in the
sandbox. Resolved means every FAIL_TO_PASS test passes and every
PASS_TO_PASS test still does.

Beside pass/fail, PDB's precision and recall (:mod:`corrupt.scoring.pdb`) and
Breakpoint's right-function check: a discovery task is only solved in
Breakpoint's sense when the corrupted functions are the ones the patch edits.
A bug is recovered only if the edits aligned with it, applied alone to the
corrupted tree, make the tests that bug broke pass; for a multi-function task
those tests are found once per task, by applying that bug's ground-truth fix
alone.

Scores are appended to the output file as they finish, so a killed run picks
up where it stopped: a prediction already scored (same task, model, patch and
ε) is read back, never run again.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from corrupt.errors import InputError, SandboxError
from corrupt.repos.models import Checkout, Environment, TestReport
from corrupt.repos.testsupport import is_test_support
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.base import Sandbox
from corrupt.scoring.localization import localization_hits
from corrupt.scoring.models import Prediction, Score, load_predictions
from corrupt.scoring.patch import (
    Edit,
    PatchError,
    SolverPatch,
    apply_patch,
    check_patch,
    edit_script_of,
    modules_of_tests,
    read_patch,
)
from corrupt.scoring.pdb import Alignment, align, by_file, ground_truth
from corrupt.screening.screen import RunBudget, TreeScreener
from corrupt.source.edits import EditScriptError, apply_edit_script
from corrupt.source.functions import extent, function_at
from corrupt.tasks.models import Task
from corrupt.tasks.modes import TaskMode
from corrupt.tasks.store import STORE_NAME, Store
from corrupt.tasks.taskfile import listed_tasks

SCORES_DIR = "scores"


@dataclass
class ScoreOptions:
    build: Path  # a build folder (or its tasks.jsonl)
    predictions: Path
    out: Path | None = None  # default: BUILD/scores/<predictions stem>.jsonl
    jobs: int = 1
    sandbox: str = "local"
    base_image: str | None = None
    isolation: bool = True
    epsilon: int = 2
    tasks: Path | None = None  # a task JSONL (a slice): the task set instead of the whole build


class ScoreProgress:
    """What a scoring run tells its observer (the CLI renders it)."""

    def start(self, total: int, done: int) -> None: ...

    def scored(self, score: Score) -> None: ...

    def note(self, message: str) -> None: ...


@dataclass
class ScoreRun:
    scores: list[Score]
    out: Path
    reused: int  # read back from an earlier, interrupted run
    unknown: list[str] = field(default_factory=list)  # predicted ids the build does not hold
    missing: dict[str, int] = field(
        default_factory=dict
    )  # model -> tasks it gave no prediction for


@dataclass
class _Context:
    sandbox: Sandbox
    env: Environment
    checkout: Checkout
    epsilon: int
    bug_tests: dict[str, list[list[str]]] = field(default_factory=dict)
    locks: dict[str, threading.Lock] = field(default_factory=dict)
    guard: threading.Lock = field(default_factory=threading.Lock)

    def lock_for(self, task_id: str) -> threading.Lock:
        with self.guard:
            return self.locks.setdefault(task_id, threading.Lock())


def build_folder(path: Path) -> Path:
    """The build folder ``path`` names (the folder, or its tasks file)."""
    folder = path.parent if path.is_file() else path
    if not (folder / STORE_NAME).is_file():
        raise InputError(
            f"{path} is not a build folder (no {STORE_NAME}); pass the --out folder of corrupt build"
        )
    return folder


def score_predictions(options: ScoreOptions, progress: ScoreProgress | None = None) -> ScoreRun:
    from corrupt.repos.original import original_checkout
    from corrupt.sandboxes.registry import get_sandbox

    progress = progress or ScoreProgress()
    if options.jobs < 1:
        raise InputError("--jobs must be at least 1")
    if options.epsilon < 0:
        raise InputError("--epsilon must be 0 or more")
    folder = build_folder(Path(options.build))
    predictions = load_predictions(options.predictions)
    store = Store.open(folder)
    try:
        tasks = {t.task_id: t for t in listed_tasks(options.tasks, store.list_tasks(), folder)}
        known = [p for p in predictions if p.instance_id in tasks]
        files = {p.instance_id: store.task_files(p.instance_id) for p in known}
        info = store.checkout_info()
    finally:
        store.close()
    unknown = sorted({p.instance_id for p in predictions if p.instance_id not in tasks})
    if not known:
        raise InputError(
            f"none of the {len(predictions)} predictions names a task of {folder} "
            f"(first: {predictions[0].instance_id})"
        )
    if unknown:
        where = options.tasks or folder
        progress.note(f"{len(unknown)} predictions name tasks not in {where}; skipped")
    out = options.out or folder / SCORES_DIR / f"{Path(options.predictions).stem}.jsonl"
    _check_out(Path(out), Path(options.predictions))
    wanted = [(p, _key(p, options.epsilon)) for p in known]
    done = _read_back(out, {key for _, key in wanted})
    _write_all(out, [done[key] for _, key in wanted if key in done])
    todo = [p for p, key in wanted if key not in done]
    progress.start(len(wanted), len(wanted) - len(todo))
    if todo:
        sandbox = get_sandbox(
            options.sandbox, base_image=options.base_image, isolation=options.isolation
        )
        try:
            checkout = original_checkout(info)
            env = sandbox.prepare(checkout)
            context = _Context(sandbox, env, checkout, options.epsilon)
            write = _appender(out)

            def one(prediction: Prediction) -> None:
                task = tasks[prediction.instance_id]
                score = score_one(context, task, files[task.task_id], prediction)
                write(score)
                done[score.key] = score
                progress.scored(score)

            with ThreadPoolExecutor(max_workers=options.jobs) as pool:
                for future in [pool.submit(one, p) for p in todo]:
                    future.result()
        finally:
            sandbox.close()
    scores = [done[key] for _, key in wanted]
    absent = _missing(tasks, known, options.epsilon)
    missing = dict(Counter(s.model for s in absent))
    for model, count in sorted(missing.items()):
        progress.note(f"{model} gave no prediction for {count} of {len(tasks)} tasks: unresolved")
    scores += absent
    _write_all(out, scores)  # in prediction order, whatever order they finished in
    return ScoreRun(scores, out, len(wanted) - len(todo), unknown, missing)


def _missing(tasks: dict[str, Task], known: list[Prediction], epsilon: int) -> list[Score]:
    """For each model, a zero score per task of the set it gave no prediction for: a
    solver that gives up on hard tasks must not score higher than one that tries."""
    answered: dict[str, set[str]] = {}
    for prediction in known:
        answered.setdefault(prediction.model_name_or_path, set()).add(prediction.instance_id)
    absent = []
    for model, ids in answered.items():
        for task_id, task in tasks.items():
            if task_id not in ids:
                nothing = Prediction(instance_id=task_id, model_name_or_path=model)
                judged = _Judged(task, nothing, epsilon, len(task.bugs))
                score = judged.failed("no prediction", time.monotonic(), 0, applied=False)
                absent.append(score.model_copy(update={"missing": True}))
    return absent


def _check_out(out: Path, predictions: Path) -> None:
    """A one-line error now, not after the first prediction, for an output that cannot be written."""
    if out.resolve() == predictions.resolve():
        raise InputError(f"--out {out} is the predictions file; choose another file")
    if out.is_dir():
        raise InputError(f"--out {out} is a folder; name a file")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise InputError(f"cannot write scores to {out}: {exc.strerror or exc}") from None


def _key(prediction: Prediction, epsilon: int) -> tuple[str, str, str, int]:
    return (
        prediction.instance_id,
        prediction.model_name_or_path,
        prediction.patch_sha256,
        epsilon,
    )


def _read_back(
    out: Path, wanted: set[tuple[str, str, str, int]]
) -> dict[tuple[str, str, str, int], Score]:
    """Scores an earlier run wrote for these predictions; a line cut short by a kill is dropped."""
    found: dict[tuple[str, str, str, int], Score] = {}
    if not out.is_file():
        return found
    for line in out.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            score = Score.model_validate_json(line)
        except ValueError:
            continue
        if score.key in wanted:
            found[score.key] = score
    return found


def _write_all(out: Path, scores: list[Score]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.with_name(f".{out.name}.tmp")
    staging.write_text("".join(s.model_dump_json() + "\n" for s in scores), encoding="utf-8")
    staging.replace(out)


def _appender(out: Path) -> Callable[[Score], None]:
    lock = threading.Lock()

    def write(score: Score) -> None:
        with lock, out.open("a", encoding="utf-8") as handle:
            handle.write(score.model_dump_json() + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    return write


def score_one(
    context: _Context, task: Task, files: dict[str, tuple[str, str]], prediction: Prediction
) -> Score:
    """Score one prediction in a working copy of its own."""
    started = time.monotonic()
    corrupted = {path: pair[1] for path, pair in files.items()}
    test_files = modules_of_tests(task.tests.fail_to_pass + task.tests.pass_to_pass)
    truth = ground_truth(task)
    with Workspace(context.checkout) as workspace:
        workspace.put(dict(corrupted))
        screener = TreeScreener(
            context.sandbox, context.env, workspace, _budget(task), subset=task.tests.subset
        )
        judged = _Judged(task, prediction, context.epsilon, len(truth))
        try:
            patch = read_patch(prediction.model_patch, _reader(workspace), workspace.path)
            # parents first: a folder put back before the files in it
            tampered = sorted(
                (f for f in patch.files if is_test_support(f, test_files)),
                key=lambda f: (f.count("/"), f),
            )
            judged.tampered = tampered
            product = set(patch.files) - set(tampered)
            made = patch.edits_in(product)
            judged.edited = made
            mode = check_patch(workspace.path, patch.text) if patch.files else None
        except PatchError as exc:
            return judged.failed(exc.message, started, screener.runs, applied=False)
        alignment = align(made, truth, context.epsilon)
        bug_tests = functools.cache(lambda: _bug_tests(context, task, truth, corrupted, screener))
        recovered = _recovered_alone(
            alignment, patch, product, bug_tests, truth, corrupted, screener
        )
        originals = {f: workspace.read(f) for f in tampered}
        if mode is not None:
            apply_patch(workspace.path, patch.text, mode)
        try:
            workspace.put(originals)
        except (InputError, SandboxError) as exc:  # e.g. a test folder swapped for a link out
            return judged.failed(
                f"the tests could not be put back: {exc}", started, screener.runs, applied=True
            )
        report = screener.run({})
        if report.forged:  # code under test wrote into the run's report
            return judged.failed(
                f"the test report was tampered with: {report.forged}",
                started,
                screener.runs,
                applied=True,
                forged=True,
            )
        for bug, verdict in enumerate(recovered):
            if verdict is None:  # the whole patch is this bug's edits: the full run decides
                recovered[bug] = set(bug_tests()[bug]) <= report.passing()
        return judged.finished(
            report, alignment, [bool(r) for r in recovered], corrupted, mode, started, screener.runs
        )


def _reader(workspace: Workspace) -> Callable[[str], str]:
    def text_of(path: str) -> str:
        try:
            return workspace.read(path) or ""
        except (InputError, OSError, ValueError):  # out of the tree, or no name git accepts
            return ""

    return text_of


def _budget(task: Task) -> RunBudget:
    seconds = task.tests.baseline_seconds
    return RunBudget(timeout=max(60.0, 3 * seconds + 30), per_test_timeout=max(10.0, 2 * seconds))


def _bug_tests(
    context: _Context,
    task: Task,
    truth: list[list[Edit]],
    corrupted: dict[str, str],
    screener: TreeScreener,
) -> list[list[str]]:
    """Per bug, the FAIL_TO_PASS tests it broke: those its ground-truth fix alone repairs."""
    if len(truth) <= 1:
        return [list(task.tests.fail_to_pass)]
    with context.lock_for(task.task_id):
        if task.task_id not in context.bug_tests:
            found = []
            for edits in truth:
                report = screener.run(_applied(corrupted, edits), tests=task.tests.fail_to_pass)
                found.append(sorted(set(task.tests.fail_to_pass) & report.passing()))
            context.bug_tests[task.task_id] = found
        return context.bug_tests[task.task_id]


def _applied(corrupted: dict[str, str], edits: list[Edit]) -> dict[str, str]:
    """The corrupted files with ``edits`` applied (raises EditScriptError where they do not fit)."""
    return {
        file: apply_edit_script(corrupted.get(file, ""), edit_script_of(file_edits))
        for file, file_edits in by_file(edits).items()
    }


def _recovered_alone(
    alignment: Alignment,
    patch: SolverPatch,
    product: set[str],
    bug_tests: Callable[[], list[list[str]]],
    truth: list[list[Edit]],
    corrupted: dict[str, str],
    screener: TreeScreener,
) -> list[bool | None]:
    """Whether each bug's aligned edits alone repair it (None: the full run will tell)."""
    made = patch.edits_in(product)
    whole = {e.file for e in made} == product  # nothing but these edits outside the tests
    verdicts: list[bool | None] = []
    for bug, edits in enumerate(alignment.aligned):
        if not edits:
            verdicts.append(False)
            continue
        tests = bug_tests()[bug]  # found only for a bug the patch addresses
        if edits == made and whole and tests:
            verdicts.append(None)
            continue
        try:
            files = _applied(corrupted, edits)
        except EditScriptError:
            verdicts.append(False)
            continue
        if not tests:  # the bug breaks no test on its own: its fix must be the same text
            verdicts.append(files == _applied(corrupted, truth[bug]))
            continue
        report = screener.run(files, tests=tests)
        verdicts.append(set(tests) <= report.passing())
    return verdicts


@dataclass
class _Judged:
    """Collects one prediction's verdicts and turns them into a :class:`Score`."""

    task: Task
    prediction: Prediction
    epsilon: int
    bugs: int
    tampered: list[str] = field(default_factory=list)
    edited: list[Edit] = field(default_factory=list)

    def _base(self, started: float, runs: int) -> dict[str, object]:
        task = self.task
        return {
            "task_id": task.task_id,
            "model": self.prediction.model_name_or_path,
            "tests_tampered": bool(self.tampered),
            "tampered_files": list(dict.fromkeys(self.tampered)),
            "edited_lines": len(self.edited),
            "mode": task.mode,
            "kind": task.kind,
            "slice": task.difficulty.slice,
            "n_functions": task.difficulty.n_functions,
            "centrality_pct": task.difficulty.centrality_pct,
            "complexity_pct": task.difficulty.complexity_pct,
            "hops": task.difficulty.hops,
            "bugs": self.bugs,
            "epsilon": self.epsilon,
            "patch_sha256": self.prediction.patch_sha256,
            "test_runs": runs,
            "seconds": round(time.monotonic() - started, 3),
            **self._localized(),
        }

    def _localized(self) -> dict[str, object]:
        given = self.prediction.localizations
        if given is None:
            return {}
        return vars(localization_hits(self.task, given))

    def failed(
        self, error: str, started: float, runs: int, *, applied: bool, forged: bool = False
    ) -> Score:
        """A score of 0: the patch did not apply, or the run cannot be trusted."""
        base = self._base(started, runs)
        if forged:
            base["tests_tampered"] = True
        return Score(
            **base,  # type: ignore[arg-type]
            applied=applied,
            resolved=False,
            f2p_fixed=0.0,
            p2p_broken=0,
            right_function=None if self.task.mode == TaskMode.REMOVE else False,
            precision=0.0,
            recall=0.0,
            error=error,
            bugs_recovered=0,
            functions_edited=[],
            edits_outside_targets=0,
            apply_mode=None,
        )

    def finished(
        self,
        report: TestReport,
        alignment: Alignment,
        recovered: list[bool],
        corrupted: dict[str, str],
        mode: str | None,
        started: float,
        runs: int,
    ) -> Score:
        task = self.task
        passing = report.passing()
        f2p, p2p = task.tests.fail_to_pass, task.tests.pass_to_pass
        fixed = sum(1 for t in f2p if t in passing)
        broken = sum(1 for t in p2p if t not in passing)
        edited, outside = _functions_edited(task, self.edited, corrupted)
        error = None
        if report.timed_out:
            error = "the suite timed out on the patched tree"
        return Score(
            **self._base(started, runs),  # type: ignore[arg-type]
            applied=True,
            resolved=fixed == len(f2p) and broken == 0,
            f2p_fixed=round(fixed / len(f2p), 4) if f2p else 1.0,
            p2p_broken=broken,
            right_function=None
            if task.mode == TaskMode.REMOVE
            else len(edited) == len(task.targets),
            precision=alignment.precision,
            recall=round(sum(recovered) / len(recovered), 4) if recovered else 0.0,
            error=error,
            bugs_recovered=sum(recovered),
            functions_edited=edited,
            edits_outside_targets=outside,
            apply_mode=mode,
        )


def _functions_edited(
    task: Task, edits: list[Edit], corrupted: dict[str, str]
) -> tuple[list[str], int]:
    """The targets with an edit inside them, and how many edits fall outside every target."""
    spans: list[tuple[str, str, int, int]] = []
    for target in task.targets:
        start, end = target.start_line, target.end_line
        text = corrupted.get(target.file)
        if text is not None:
            node = function_at(ast.parse(text), target.start_line, target.qualname)
            if node is not None:
                start, end = extent(node)
        spans.append((target.qualname, target.file, start, end))

    def inside(edit: Edit, file: str, start: int, end: int) -> bool:
        if edit.file != file:
            return False
        if start <= edit.line <= end:
            return True
        # an indented line added right after the function's last line extends its body
        return edit.kind == "Add" and edit.line == end + 1 and edit.modified[:1] in (" ", "\t")

    edited = [q for q, f, s, e in spans if any(inside(x, f, s, e) for x in edits)]
    outside = sum(1 for x in edits if not any(inside(x, f, s, e) for _, f, s, e in spans))
    return edited, outside


def load_scores(paths: list[Path]) -> list[Score]:
    """Score lines from ``corrupt score`` output files."""
    scores: list[Score] = []
    for path in paths:
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise InputError(f"cannot read scores {path}: {exc.strerror or exc}") from None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                scores.append(Score.model_validate(json.loads(line)))
            except ValueError:
                raise InputError(f"{path} line {number} is not a corrupt score record") from None
    return scores
