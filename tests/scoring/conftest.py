"""One scoring run over every kind of answer, shared by the scoring and report tests."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from corrupt.repos.original import original_checkout
from corrupt.tasks.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import solver_patches as sp  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CORRUPT = [sys.executable, "-m", "corrupt.cli"]


def _run_corrupt(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CORRUPT, *args], cwd=ROOT, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="session")
def run_corrupt():
    """``run_corrupt(*args)``: the corrupt command line in a child process."""
    return _run_corrupt


def _single(tasks: list[dict], mode: str) -> list[dict]:
    return [t for t in tasks if t["mode"] == mode and t["difficulty"]["n_functions"] == 1]


@pytest.fixture(scope="session")
def answers(built, tmp_path_factory) -> tuple[Path, dict[str, dict], dict[str, dict]]:
    """(predictions file, scenario -> task, scenario -> score) from one scoring run."""
    out, tasks = built
    store = Store.open(out)
    files = {t["task_id"]: store.task_files(t["task_id"]) for t in tasks}
    tree = original_checkout(store.checkout_info()).path
    store.close()
    discovery = _single(tasks, "discovery")[0]
    multi = next(t for t in tasks if len(t["bugs"]) == 2)
    bug_file = discovery["bugs"][0]["file"]
    original, corrupted = files[discovery["task_id"]][bug_file]
    failing_module = discovery["tests"]["fail_to_pass"][0].split("::")[0]
    scenarios: dict[str, tuple[dict, str]] = {
        "gold-" + t["task_id"]: (t, t["fix_patch"]) for t in tasks
    }
    scenarios.update(
        {
            "empty": (discovery, ""),
            "fix-plus-unrelated": (
                discovery,
                discovery["fix_patch"] + sp.unrelated_edit(tree, set(discovery["edit_script"])),
            ),
            "regenerated": (discovery, sp.rewritten(bug_file, corrupted, original)),
            "half": (multi, sp.part_of_fix(multi, files[multi["task_id"]], 0)),
            "deleted-tests": (
                discovery,
                sp.deletion(failing_module, (tree / failing_module).read_text()),
            ),
            "report-forger": (discovery, sp.report_forger(discovery, tree)),
            "does-not-apply": (
                discovery,
                re.sub(r"\n-(?!--)", "\n-missing ", discovery["fix_patch"], count=1),
            ),
        }
    )
    for task in _single(tasks, "discovery") + _single(tasks, "remove"):
        patch = sp.workaround(task, files[task["task_id"]])
        if patch:
            scenarios["workaround"] = (task, patch)
            break
    assert "workaround" in scenarios, "no target of the example build could be worked around"
    bug = discovery["bugs"][0]
    effect = bug["effect"]
    localized = {  # DSDBench-style localizations: the gold answer's right, the empty one's wrong
        "gold-" + discovery["task_id"]: {
            "cause": [f"{bug['file']}:{bug['lines'][0]}"],
            "effect": f"{effect['file']}:{effect['line']}",
            "error": f"{effect['exception']}: whatever the message",
        },
        "empty": [{"cause": [f"{bug['file']}:1"], "effect": "tests/nowhere.py:3", "error": "Zzz"}],
    }
    predictions = tmp_path_factory.mktemp("score") / "predictions.jsonl"
    predictions.write_text(
        "".join(
            json.dumps(
                {
                    "instance_id": task["task_id"],
                    "model_name_or_path": name,
                    "model_patch": patch,
                    **({"localization": localized[name]} if name in localized else {}),
                }
            )
            + "\n"
            for name, (task, patch) in scenarios.items()
        )
    )
    scores_path = predictions.with_name("scores.jsonl")
    result = _run_corrupt(
        "score", str(out), str(predictions), "--out", str(scores_path), "--jobs", "2", "--json"
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    lines = list(map(json.loads, scores_path.read_text().splitlines()))
    scores = {s["model"]: s for s in lines if not s["missing"]}
    return predictions, {k: v[0] for k, v in scenarios.items()}, scores
