"""Every harness export read by the harness's own code: SWE-bench 5, SWE-smith, Harbor, HF datasets 3.x and 5.x.

The tests run real pytest on a real small repository (with a parametrized id
holding a space), hand the logs to each harness's own parser and grader, and
load the files with each project's own loader, in the environments
scripts/harness-envs.sh makes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from harness_envs import run_harbor, run_side, side_python
from tasks_factory import ADVERSARIAL, MULTI, ORIGINAL, make_task, write_repo

from corrupt.outputs.export import export_tasks
from corrupt.outputs.harbor import GRADE, write_harbor_tasks
from corrupt.outputs.swebench import swebench_instance
from corrupt.outputs.swesmith import image_name, profiles_module, swesmith_record
from corrupt.outputs.task_image import TaskImage
from corrupt.tasks.models import Task

RATES = {
    "tests/test_rates.py": (
        "import pytest\n"
        "from shop.tax import with_tax\n\n\n"
        '@pytest.mark.parametrize("label", ["ten percent", "plain"])\n'
        "def test_zero(label):\n"
        "    assert with_tax(0) == 0\n"
    )
}
SPACED = "tests/test_rates.py::test_zero[ten percent]"
F2P = [f"tests/test_shop.py::{name}" for name in ("test_discount", "test_tax", "test_total")]
P2P = ["tests/test_shop.py::test_empty", SPACED, "tests/test_rates.py::test_zero[plain]"]
IMAGE = TaskImage("corrupt/task.acme__shop.0123:latest", "c0ffee" * 6 + "c0ff")


def harness_task() -> Task:
    task, _ = make_task(MULTI, kind="multi")
    tests = task.tests.model_copy(update={"fail_to_pass": F2P, "pass_to_pass": P2P})
    return task.model_copy(update={"tests": tests})


def make_testbed(root: Path, task: Task, *, fixed: bool) -> Path:
    """The corrupted tree committed, as in the per-task image; ``fixed`` applies the gold patch."""
    tree = write_repo(root, {**ORIGINAL, **RATES, **MULTI})
    if fixed:
        (root / "fix.diff").write_text(task.fix_patch, encoding="utf-8", newline="")
        subprocess.run(["git", "apply", "fix.diff"], cwd=tree, check=True)
        (root / "fix.diff").unlink()
    return tree


def git(tree: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=tree, capture_output=True, text=True, check=True
    ).stdout.strip()


def run_script(script: str, tree: Path) -> str:
    """A harness script as the container would run it, with /testbed being ``tree``."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    result = subprocess.run(
        ["bash", "-c", script.replace("/testbed", str(tree))],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    return result.stdout + result.stderr


SWEBENCH_GRADE = """
import json, sys
from swebench.harness.utils import make_test_spec
from swebench.harness.grading import get_eval_report
instance = json.load(open(sys.argv[1]))
spec = make_test_spec(instance)
if len(sys.argv) == 2:
    print(json.dumps(spec.eval_script))
else:
    prediction = {"instance_id": instance["instance_id"], "model_name_or_path": "t", "model_patch": "x"}
    report = get_eval_report(spec, prediction, sys.argv[2], include_tests_status=True)
    print(json.dumps(report[instance["instance_id"]]))
"""


@pytest.mark.parametrize("fixed", [True, False], ids=["gold", "corrupted"])
def test_swebench_5_runs_the_eval_script_and_grades_its_log(tmp_path: Path, fixed: bool) -> None:
    task = harness_task()
    tree = make_testbed(tmp_path / "testbed", task, fixed=fixed)
    image = TaskImage(IMAGE.tag, git(tree, "rev-parse", "HEAD"))
    instance = swebench_instance(task, image)
    assert instance["image"] == IMAGE.tag and instance["base_commit"] == image.base_commit
    assert instance["FAIL_TO_PASS"] == F2P and SPACED not in instance["PASS_TO_PASS"]
    assert instance["version"] == task.repo.commit[:12] and instance["patch"] == task.fix_patch
    (tmp_path / "instance.json").write_text(json.dumps(instance), encoding="utf-8")
    script = run_side("swebench", SWEBENCH_GRADE, str(tmp_path / "instance.json"))
    assert isinstance(script, str) and ">>>>> Start Test Output" in script
    # An agent that weakened the tests, added a conftest.py, and committed it all.
    (tree / "tests" / "test_shop.py").write_text("def test_total():\n    pass\n")
    (tree / "tests" / "conftest.py").write_text("collect_ignore = ['test_shop.py']\n")
    git(tree, "add", "-A")
    git(tree, "-c", "user.name=a", "-c", "user.email=a@a", "commit", "-qm", "agent")
    log = tmp_path / "test_output.txt"
    log.write_text(run_script(script, tree), encoding="utf-8")
    report = run_side("swebench", SWEBENCH_GRADE, str(tmp_path / "instance.json"), str(log))
    assert isinstance(report, dict)
    assert report["resolved"] is fixed, log.read_text()[-2000:]
    statuses = report["tests_status"]
    if fixed:
        assert sorted(statuses["FAIL_TO_PASS"]["success"]) == F2P
    else:
        assert sorted(statuses["FAIL_TO_PASS"]["failure"]) == F2P
    assert statuses["PASS_TO_PASS"]["failure"] == []
    assert not (tree / "tests" / "conftest.py").exists()  # the eval script removed the added file


SWESMITH_LOAD = """
import json, sys
sys.path.insert(0, sys.argv[1])
import swesmith_profiles
from swesmith.profiles import registry
record = json.load(open(sys.argv[2]))
profile = registry.get_from_inst(record)
command, _ = profile.get_test_cmd(record)
statuses = profile.log_parser(open(sys.argv[3]).read()) if len(sys.argv) > 3 else {}
print(json.dumps({"image": profile.image_name, "key": profile.repo_name, "command": command,
                  "statuses": statuses, "private": profile._is_repo_private()}))
"""


def test_swesmith_registers_the_generated_profile_and_parses_its_log(tmp_path: Path) -> None:
    task = harness_task()
    record = swesmith_record(task, "corrupt/swesmith-task.shop:latest")
    assert record["instance_id"].rsplit(".", 1)[0] == record["repo"] == "acme__shop.01234567"
    assert record["patch"] == task.corruption_patch and SPACED not in record["PASS_TO_PASS"]
    (tmp_path / "swesmith_profiles.py").write_text(profiles_module([task]), encoding="utf-8")
    (tmp_path / "record.json").write_text(json.dumps(record), encoding="utf-8")
    seen = {}
    for fixed in (False, True):
        tree = make_testbed(tmp_path / f"tree{fixed}", task, fixed=fixed)
        loaded = run_side(
            "swesmith", SWESMITH_LOAD, str(tmp_path), str(tmp_path / "record.json"), "/dev/null"
        )
        assert isinstance(loaded, dict)
        log = tmp_path / f"log{fixed}.txt"
        log.write_text(run_script(loaded["command"], tree), encoding="utf-8")
        parsed = run_side(
            "swesmith", SWESMITH_LOAD, str(tmp_path), str(tmp_path / "record.json"), str(log)
        )
        assert isinstance(parsed, dict)
        seen[fixed] = parsed["statuses"]
    assert (
        loaded["image"] == image_name(task) != record["image_name"]
    )  # graded apart from the agent
    assert loaded["key"] == record["repo"] and loaded["private"] is False
    assert {seen[False][t] for t in F2P} == {"FAILED"} and {seen[True][t] for t in F2P} == {
        "PASSED"
    }
    assert all(seen[True][t] == "PASSED" for t in record["PASS_TO_PASS"])
    usage = subprocess.run(
        [side_python("swesmith"), "swesmith_profiles.py", "eval", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert usage.returncode == 0 and "--predictions_path" in usage.stdout, usage.stderr[-2000:]


HARBOR_LOAD = """
import json, sys
from pathlib import Path
from harbor.models.task.task import Task
out = []
for folder in sorted(p for p in Path(sys.argv[1]).iterdir() if p.is_dir()):
    task = Task(folder)
    out.append({"valid": Task.is_valid_dir(folder), "image": task.config.environment.docker_image,
                "verifier": task.config.verifier.timeout_sec, "instruction": task.instruction,
                "metadata": task.config.metadata,
                "agent_network": (task.config.agent.explicit_phase_policy()
                                  or task.config.environment.resolve_baseline()).network_mode.value})
print(json.dumps(out))
"""


def test_harbor_loads_the_task_folders(tmp_path: Path) -> None:
    other = make_task(ADVERSARIAL)[0]
    odd = 'acme/shop \U0001f600 \x7f "quoted"'  # TOML wants these as themselves or escaped
    tasks = [
        harness_task(),
        other.model_copy(update={"repo": other.repo.model_copy(update={"name": odd})}),
    ]
    out = tmp_path / "harbor"
    assert write_harbor_tasks(tasks, out, lambda task: IMAGE) == 2
    code = HARBOR_LOAD.replace("sys.argv[1]", repr(str(out)))
    loaded = run_harbor(code, tmp_path)
    assert isinstance(loaded, list) and len(loaded) == 2
    by_id = {entry["metadata"]["task_id"]: entry for entry in loaded}
    assert set(by_id) == {t.task_id for t in tasks}
    for task in tasks:
        entry = by_id[task.task_id]
        assert entry["valid"] and entry["image"] == IMAGE.tag and entry["verifier"] >= 600
        assert entry["agent_network"] == "no-network"  # a published release is the answer
        assert task.problem_statement.strip() in entry["instruction"]
        assert entry["metadata"]["repo"] == task.repo.name
        folder = out / task.task_id
        assert (folder / "environment" / "Dockerfile").read_text().startswith(f"FROM {IMAGE.tag}")
        assert os.access(folder / "tests" / "test.sh", os.X_OK)
        assert (folder / "solution" / "fix.patch").read_bytes().decode() == task.fix_patch


@pytest.mark.parametrize("fixed", [True, False], ids=["gold", "corrupted"])
def test_harbor_grader_reads_ids_with_spaces(tmp_path: Path, fixed: bool) -> None:
    task = harness_task()
    tree = make_testbed(tmp_path / "tree", task, fixed=fixed)
    log = tmp_path / "pytest.log"
    log.write_text(run_script(f"cd /testbed && env {task.tests.command} -rA", tree))
    assert f"PASSED {SPACED}" in log.read_text()
    (tmp_path / "expected.json").write_text(json.dumps({"FAIL_TO_PASS": F2P, "PASS_TO_PASS": P2P}))
    (tmp_path / "grade.py").write_text(GRADE)
    reward = subprocess.run(
        [sys.executable, tmp_path / "grade.py", tmp_path / "expected.json", log],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert reward == ("1" if fixed else "0")


DATASETS_LOAD = """
import json, sys
import datasets
from datasets import Features, concatenate_datasets, load_dataset
local, docker, cache = sys.argv[1], sys.argv[2], sys.argv[3]
parquet = [load_dataset("parquet", data_files=f"{d}/tasks.parquet", split="train", cache_dir=cache)
           for d in (local, docker)]
features = Features.from_dict(json.load(open(f"{local}/tasks.export.features.json")))
jsonl = [load_dataset("json", data_files=f"{d}/tasks.export.jsonl", split="train", features=features,
                      cache_dir=cache) for d in (local, docker)]
plain = load_dataset("json", data_files=f"{local}/tasks.export.jsonl", split="train", cache_dir=cache)
both = concatenate_datasets(parquet)
both_jsonl = concatenate_datasets(jsonl)
print(json.dumps({
    "version": datasets.__version__,
    "rows": both.num_rows, "rows_jsonl": both_jsonl.num_rows,
    "same_features": parquet[0].features == parquet[1].features == jsonl[0].features,
    "scripts": [json.loads(s) for s in list(both["edit_script"])],
    "scripts_jsonl": [json.loads(s) for s in list(both_jsonl["edit_script"])],
    "plain_script": plain[0]["edit_script"],
    "metrics": json.loads(both[0]["targets"][0]["metrics"]),
    "images": list(both["image_name"]),
    "f2p": both_jsonl[0]["tests"]["fail_to_pass"],
}))
"""


@pytest.mark.parametrize("major", ["datasets3", "datasets5"])
def test_parquet_and_jsonl_load_and_concatenate_in_hf_datasets(tmp_path: Path, major: str) -> None:
    local_tasks = [make_task(ADVERSARIAL)[0]]
    docker_tasks = [make_task(MULTI, kind="multi", image="corrupt/acme__shop:0123")[0]]
    for name, tasks in (("local", local_tasks), ("docker", docker_tasks)):
        export_tasks(tasks, "parquet", tmp_path / name / "tasks.parquet")
        export_tasks(tasks, "jsonl", tmp_path / name / "tasks.export.jsonl")
    loaded = run_side(
        major,
        DATASETS_LOAD,
        str(tmp_path / "local"),
        str(tmp_path / "docker"),
        str(tmp_path / "cache"),
    )
    assert isinstance(loaded, dict)
    assert loaded["version"].split(".")[0] == major[-1]
    tasks = local_tasks + docker_tasks
    assert loaded["rows"] == loaded["rows_jsonl"] == 2 and loaded["same_features"]
    assert loaded["scripts"] == loaded["scripts_jsonl"] == [t.edit_script for t in tasks]
    assert json.loads(loaded["plain_script"]) == tasks[0].edit_script  # text, never a null struct
    assert loaded["metrics"] == tasks[0].targets[0].metrics
    assert loaded["images"] == [None, "corrupt/acme__shop:0123"]
    assert loaded["f2p"] == tasks[0].tests.fail_to_pass
