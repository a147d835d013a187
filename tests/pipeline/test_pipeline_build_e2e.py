"""End to end: `corrupt build` on the bundled example, then every written task
checked independently of the build code (git apply, our own edit-script
applier written here, plain pytest in a fresh copy)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "minishop"
CORRUPT = [sys.executable, "-m", "corrupt.cli"]
IGNORE = shutil.ignore_patterns("__pycache__", "*.egg-info", ".pytest_cache")

pytestmark = pytest.mark.slow


def run_corrupt(
    *args: str, env: dict | None = None, timeout: float = 900
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CORRUPT, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env
    )


def pytest_outcomes(tree: Path, known: set[str]) -> dict[str, str]:
    """Run the example's suite with plain pytest; nodeid -> PASSED/FAILED/ERROR.

    Node ids may hold spaces, so each summary line is matched against the
    longest known node id it starts with.
    """
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider"],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(tree / "src"), "COLUMNS": "10000"},
    )
    outcomes = {}
    for line in proc.stdout.splitlines():
        match = re.match(r"^(PASSED|FAILED|ERROR) (.+)$", line)
        if match:
            rest = match.group(2)
            ids = [n for n in known if rest == n or rest.startswith(n + " - ")]
            if ids:
                outcomes[max(ids, key=len)] = match.group(1)
    assert outcomes, proc.stdout[-2000:]
    return outcomes


def apply_script(text: str, script: dict) -> str:
    """An independent PDB edit-script applier: bottom-to-top, 1-based lines of the corrupted file."""
    lines = text.splitlines(keepends=True)
    newline = "\r\n" if "\r\n" in text else "\n"
    keyed = sorted(script.items(), key=lambda kv: (int(kv[0]), len(kv[0])), reverse=True)
    for key, edit in keyed:
        index = int(key) - 1
        if edit["type"] == "Modify":
            old = lines[index]
            ending = old[len(old.rstrip("\r\n")) :]
            assert old.rstrip("\r\n") == edit["original"]
            lines[index] = edit["modified"] + ending
        elif edit["type"] == "Delete":
            assert lines[index].rstrip("\r\n") == edit["original"]
            del lines[index]
        else:
            lines.insert(index, edit["modified"] + newline)
    return "".join(lines)


def fresh_copy(source: Path, dest: Path) -> Path:
    shutil.copytree(source, dest, ignore=IGNORE)
    subprocess.run(["git", "init", "-q"], cwd=dest, check=True)
    return dest


def test_build_writes_tasks_of_every_mode(built):
    out, tasks = built
    kinds = {(t["mode"], t["kind"]) for t in tasks}
    assert ("remove", "deletion") in kinds
    assert ("discovery", "adversarial") in kinds
    assert ("multi", "multi") in kinds
    assert len({t["task_id"] for t in tasks}) == len(tasks)
    for task in tasks:
        assert len(task["tests"]["fail_to_pass"]) >= 5
        assert not set(task["tests"]["fail_to_pass"]) & set(task["tests"]["pass_to_pass"])
        assert task["edit_script"] and task["bugs"]
        if task["mode"] == "remove":
            assert task["targets"][0]["qualname"] in task["problem_statement"]
        else:
            for target in task["targets"]:
                assert (
                    target["qualname"].rsplit(".", 1)[-1]
                    not in task["problem_statement"].split("fail:")[0]
                )
    multi = [t for t in tasks if t["kind"] == "multi"]
    assert all(len(t["targets"]) >= 2 and len(t["bugs"]) == len(t["targets"]) for t in multi)


def verify_independently(source: Path, tasks: list[dict], tmp_path: Path) -> None:
    """Every task, checked with git apply, our own edit-script applier and plain pytest."""
    known = {n for t in tasks for n in t["tests"]["fail_to_pass"] + t["tests"]["pass_to_pass"]}
    baseline = pytest_outcomes(fresh_copy(source, tmp_path / "baseline"), known)
    assert set(baseline) == known and set(baseline.values()) == {"PASSED"}
    for i, task in enumerate(tasks):
        tree = fresh_copy(source, tmp_path / f"task{i}")
        patch = tmp_path / f"task{i}.diff"
        patch.write_text(task["corruption_patch"])
        subprocess.run(["git", "apply", str(patch)], cwd=tree, check=True)
        corrupted = pytest_outcomes(tree, known)
        for nodeid in task["tests"]["fail_to_pass"]:
            assert corrupted.get(nodeid) in ("FAILED", "ERROR"), (task["task_id"], nodeid)
        for nodeid in task["tests"]["pass_to_pass"]:
            assert corrupted.get(nodeid) == "PASSED", (task["task_id"], nodeid)
        # the edit script, applied by our own applier, restores every file byte for byte
        for path, script in task["edit_script"].items():
            corrupted_text = (tree / path).read_bytes().decode("utf-8")
            original = (source / path).read_bytes().decode("utf-8")
            assert apply_script(corrupted_text, script) == original
        fix = tmp_path / f"task{i}.fix.diff"
        fix.write_text(task["fix_patch"])
        subprocess.run(["git", "apply", str(fix)], cwd=tree, check=True)
        for path in task["edit_script"]:
            assert (tree / path).read_bytes() == (source / path).read_bytes()
        restored = pytest_outcomes(tree, known)
        assert restored == baseline


def test_every_task_verifies_independently(example, built, tmp_path):
    verify_independently(example, built[1], tmp_path)


def test_definitions_sharing_a_name_build_in_every_mode_and_verify(tmp_path):
    """A property setter, a redefinition, overloads, a conditional definition, nested
    functions of one name and decorated ones are each their own target (the graph
    names the later ones ``name#2``); none aborts the build, and every task verifies."""
    source = shutil.copytree(
        ROOT / "tests" / "fixtures" / "identity" / "shapes", tmp_path / "shapes", ignore=IGNORE
    )
    out = tmp_path / "out"
    result = run_corrupt("build", str(source), "--mode", "all", "--n", "4", "--out", str(out))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    tasks = [json.loads(line) for line in (out / "tasks.jsonl").read_text().splitlines()]
    assert {t["kind"] for t in tasks} == {"deletion", "adversarial", "multi"}
    told = {"remove": "remove", "discovery": "discovery", "multi": "discovery"}
    targets = {(told[t["mode"]], target["qualname"]) for t in tasks for target in t["targets"]}
    for mode in ("remove", "discovery"):
        assert (mode, "shapes.geometry.Rect.width#2") in targets  # the setter, not the getter
        assert (mode, "shapes.geometry.scale#2") in targets  # the redefinition that counts
    verify_independently(source, tasks, tmp_path / "check")


def test_rerun_resumes_without_duplicates(example, built, tmp_path):
    out, tasks = built[0], built[1]
    out = shutil.copytree(out, tmp_path / "minishop")  # the shared build stays as it was
    with sqlite3.connect(
        out / "store.sqlite"
    ) as db:  # as if an older corrupt had built this folder
        db.execute(
            "UPDATE meta SET value = ? WHERE key = 'engine'",
            (json.dumps({"version": "0.0.1", "code": "0ld"}),),
        )
    result = run_corrupt(
        "build", str(example), "--mode", "all", "--n", "2", "--seed", "7", "--out", str(out)
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "was built by corrupt 0.0.1 (code 0ld)" in " ".join(result.stdout.split())
    again = [json.loads(line) for line in (out / "tasks.jsonl").read_text().splitlines()]
    assert [t["task_id"] for t in again] == [t["task_id"] for t in tasks]
    assert "0 test runs" in result.stdout.replace("\n", " ")


def test_killed_build_resumes_to_the_same_tasks(example, built, tmp_path):
    reference_out, reference = built
    wanted = {t["task_id"] for t in reference if t["kind"] != "multi"}
    out = tmp_path / "killed"
    args = [
        *CORRUPT,
        "build",
        str(example),
        "--mode",
        "remove",
        "--n",
        "2",
        "--seed",
        "7",
        "--out",
        str(out),
    ]
    proc = subprocess.Popen(
        args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    store = out / "store.sqlite"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if store.exists() and _candidates(store) >= 1:
            break
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    for mode in (
        "remove",
        "discovery",
    ):  # resumed with two workers: acceptance stays in candidate order
        result = run_corrupt(
            "build",
            str(example),
            "--mode",
            mode,
            "--n",
            "2",
            "--seed",
            "7",
            "--jobs",
            "2",
            "--out",
            str(out),
        )
        assert result.returncode == 0, result.stderr[-2000:]
    resumed = [json.loads(line) for line in (out / "tasks.jsonl").read_text().splitlines()]
    assert {t["task_id"] for t in resumed} == wanted
    assert len(resumed) == len(wanted)


def _candidates(store: Path) -> int:
    import sqlite3

    try:
        with sqlite3.connect(store) as db:
            return db.execute("SELECT COUNT(*) FROM candidates WHERE mode = 'remove'").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_output_folder_of_another_repo_is_refused(example, built, tmp_path):
    out, _ = built
    other = tmp_path / "other"
    shutil.copytree(example, other, ignore=IGNORE)
    (other / "README.md").write_text("changed\n")
    result = run_corrupt("build", str(other), "--n", "1", "--out", str(out))
    assert result.returncode != 0
    assert "choose another --out" in result.stderr
    assert "Traceback" not in result.stderr


def test_impossible_slice_is_a_clear_error(example, built, tmp_path):
    result = run_corrupt(
        "build",
        str(example),
        "--centrality-pct",
        "99.9",
        "--complexity-pct",
        "0:1",
        "--out",
        str(tmp_path / "o"),
    )
    assert result.returncode == 21, result.stderr
    assert "holds none of the" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "o").exists()  # nothing was tried: no empty store is left behind


def test_a_refused_repository_leaves_no_build_folder(tmp_path):
    red = shutil.copytree(
        ROOT / "tests" / "fixtures" / "repos_run" / "red", tmp_path / "red", ignore=IGNORE
    )
    out = tmp_path / "builds" / "red"
    result = run_corrupt("build", str(red), "--out", str(out))
    assert result.returncode == 15, result.stderr
    assert "baseline is red" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "builds").exists()
    (tmp_path / "kept").mkdir()  # a folder the user made stays, only the store goes
    result = run_corrupt("build", str(red), "--out", str(tmp_path / "kept"))
    assert result.returncode == 15 and (tmp_path / "kept").is_dir()
    assert list((tmp_path / "kept").iterdir()) == []


def test_a_suite_over_budget_builds_tasks_that_run_the_cut(tmp_path):
    """The slow file left out of the baseline stays out of the task: its command, its
    record, its tests; the build says so on stderr."""
    from gitrepos import make_repo

    make_repo(
        tmp_path / "slowish",
        {
            "pyproject.toml": (
                '[build-system]\nrequires = ["setuptools>=64"]\n'
                'build-backend = "setuptools.build_meta"\n'
                '[project]\nname = "slowish"\nversion = "1"\n'
            ),
            "slowish.py": (
                "def total(xs):\n    out = 0\n    for x in xs:\n        out += 2 * x\n"
                "    return out\n"
            ),
            "tests/test_total.py": (
                "import pytest\nfrom slowish import total\n\n\n"
                "@pytest.mark.parametrize('n', range(8))\n"
                "def test_total(n):\n    assert total(range(n)) == n * (n - 1)\n"
            ),
            "tests/test_slow.py": (
                "import time\nfrom slowish import total\n\n\n"
                "def test_slowly():\n    time.sleep(8)\n    assert total([1, 2]) == 6\n"
            ),
        },
    )
    out = tmp_path / "out"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    result = run_corrupt(
        "build", str(tmp_path / "slowish"), "--time-limit", "5", "--mode", "remove",
        "--n", "1", "--out", str(out), env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    said = " ".join((result.stdout + result.stderr).split())
    assert "cut to the 1 quickest of the 2 test files" in said
    tasks = [json.loads(line) for line in (out / "tasks.jsonl").read_text().splitlines()]
    assert len(tasks) == 1
    tests = tasks[0]["tests"]
    assert tests["subset"] == ["tests/test_total.py"]
    assert tests["command"].endswith("python -m pytest tests/test_total.py")
    named = {n.split("::")[0] for n in tests["fail_to_pass"] + tests["pass_to_pass"]}
    assert named == {"tests/test_total.py"}


def test_every_traced_bug_has_an_effect_and_a_hop_distance_or_its_reason(built, tmp_path):
    out, tasks = built
    traced = [t for t in tasks if t["mode"] != "remove"]
    assert traced and any(t["kind"] == "multi" for t in traced)
    for task in traced:
        for bug in task["bugs"]:
            effect = bug["effect"]
            assert effect["test"] in task["tests"]["fail_to_pass"], effect
            assert effect["file"] and effect["line"] and effect["exception"], effect
            assert (effect["hop_distance"] is None) == bool(effect["hop_reason"]), effect
        known = [b["effect"]["hop_distance"] for b in task["bugs"]]
        assert task["difficulty"]["hops"] == max((h for h in known if h is not None), default=None)
    hops = sorted({t["difficulty"]["hops"] for t in traced if t["difficulty"]["hops"] is not None})
    assert hops, "no traced distance on the example"
    # slice by hops: the tasks at most the smallest distance, then the rest
    low = tmp_path / "near.jsonl"
    result = run_corrupt("slice", str(out), "--out", str(low), "--max-hops", str(hops[0]))
    assert result.returncode == 0, result.stderr
    near = [json.loads(line) for line in low.read_text().splitlines()]
    assert near and all(t["difficulty"]["hops"] <= hops[0] for t in near)
    assert all(t["mode"] != "remove" for t in near)  # remove tasks have no distance
    bad = run_corrupt("slice", str(out), "--out", str(low), "--min-hops", "3", "--max-hops", "1")
    assert bad.returncode == 2 and "--min-hops 3 is above --max-hops 1" in bad.stderr
    refused = run_corrupt("build", str(out), "--mode", "remove", "--min-hops", "1")
    assert refused.returncode == 2 and "remove tasks are not traced" in refused.stderr


def test_a_materialized_task_runs_in_its_own_environment_from_a_bare_shell(built, tmp_path):
    out, tasks = built
    task = next(t for t in tasks if t["mode"] == "discovery")
    folder = tmp_path / "task"
    done = run_corrupt("materialize", task["task_id"], "--build", str(out), "--out", str(folder))
    assert done.returncode == 0, done.stderr
    assert "git diff" in done.stdout and "git diff" in (folder / "PROBLEM.md").read_text()
    site = next((folder / ".venv").glob("lib/python*/site-packages"))
    # the project's metadata stays, its installed (original) code does not
    assert list(site.glob("minishop-*.dist-info")) and not (site / "minishop").exists()
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=folder, capture_output=True, text=True
    )
    assert status.stdout == ""  # .venv is excluded like the task's own notes
    bare = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    ran = subprocess.run(
        [str(folder / "run_tests.sh"), "-rA", "-p", "no:cacheprovider"],
        cwd=tmp_path, env=bare, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    failed = set(re.findall(r"^(?:FAILED|ERROR) (\S+)", ran.stdout, re.MULTILINE))
    assert ran.returncode == 1 and failed == set(task["tests"]["fail_to_pass"]), ran.stdout[-2000:]
    version = subprocess.run(
        [str(folder / ".venv/bin/python"), "-c", "import importlib.metadata as m; print(m.version('minishop'))"],
        capture_output=True, text=True, env=bare,
    )  # fmt: skip
    assert version.returncode == 0 and version.stdout.strip()


def _task_runs(out: Path) -> int:
    """Test runs the build's tasks took, as the store records them: the candidates that
    became tasks (a build with two workers also ran candidates past the last it needed)."""
    with sqlite3.connect(out / "store.sqlite") as db:
        query = "SELECT sum(screened) FROM candidates WHERE status = 'verified'"
        return db.execute(query).fetchone()[0]


def test_every_fast_verified_task_is_one_the_full_verification_writes(
    example, built, example_build_options, tmp_path
):
    """The default verification (the corrupted suite once, then the tests the corruption
    reaches, which is a discovery task's effect run too) against --verify full (the
    corrupted suite twice, the repaired suite once, then the effect run): the same
    candidates become the same tasks, with the same tests and effects, for fewer runs.
    The shared build ran two workers, four candidates in flight; this one walks the
    candidates one at a time: acceptance in candidate order gives the same tasks."""
    fast_out, fast = built
    out = tmp_path / "full"
    at = example_build_options.index("--jobs")
    serial = [*example_build_options[:at], *example_build_options[at + 2 :], "--jobs", "1"]
    result = run_corrupt("build", str(example), *serial, "--verify", "full", "--out", str(out))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    full = [json.loads(line) for line in (out / "tasks.jsonl").read_text().splitlines()]
    assert [(t["task_id"], t["tests"]) for t in full] == [(t["task_id"], t["tests"]) for t in fast]
    # a discovery bug's effect comes from the fast rerun, traced; the full build traces it
    # in a run of its own: the same effect either way
    seen = ("test", "exception", "file", "line", "function", "hop_distance", "hop_reason")
    effects = [[{k: b["effect"][k] for k in seen} for b in t["bugs"]] for t in fast]
    assert effects == [[{k: b["effect"][k] for k in seen} for b in t["bugs"]] for t in full]
    assert any(t["mode"] == "discovery" and t["difficulty"]["hops"] is not None for t in fast)
    assert _task_runs(out) - _task_runs(fast_out) >= len(fast)
