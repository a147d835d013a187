"""Exporters: each format checked the way its consumer reads it (git apply, PDB edit scripts, HF datasets)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from tasks_factory import ADVERSARIAL, MULTI, ORIGINAL, make_task, write_repo

from corrupt.errors import InputError, StoreError
from corrupt.outputs.export import export_tasks, runnable
from corrupt.outputs.swesmith import swesmith_record
from corrupt.source.edits import apply_edit_script
from corrupt.tasks.models import Task


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def files_lookup(*pairs):
    table = {task.task_id: files for task, files in pairs}
    return lambda task: table[task.task_id]


def test_jsonl_is_the_task_record_with_maps_as_json_text(tmp_path: Path) -> None:
    tasks = [make_task(ADVERSARIAL)[0], make_task(MULTI, kind="multi")[0]]
    assert export_tasks(tasks, "jsonl", tmp_path / "out.jsonl") == 2
    rows = read_jsonl(tmp_path / "out.jsonl")
    assert [json.loads(r["edit_script"]) for r in rows] == [t.edit_script for t in tasks]
    assert json.loads(rows[0]["targets"][0]["metrics"]) == tasks[0].targets[0].metrics
    assert [Task.model_validate(r) for r in rows] == tasks  # the task model reads it back
    features = json.loads((tmp_path / "out.features.json").read_text())
    assert features["edit_script"] == {"dtype": "string", "_type": "Value"}
    assert list(features) == list(Task.model_fields)


def test_swesmith_patch_introduces_the_bug_in_the_clean_repository(tmp_path: Path) -> None:
    task, files = make_task(MULTI, kind="multi", image="corrupt/acme__shop:0123")
    plain, _ = make_task(ADVERSARIAL)
    record, other = swesmith_record(task, "agent-a"), swesmith_record(plain, "agent-b")
    assert record["instance_id"] == f"acme__shop.01234567.multi__{task.task_id[:12]}"
    assert record["repo"] == "acme__shop.01234567"
    dotted = task.model_copy(
        update={
            "task_id": "shop.5f2a9c",
            "repo": task.repo.model_copy(update={"commit": "tree:ab12cd34ef"}),
        }
    )
    assert swesmith_record(dotted, "agent")["instance_id"].rsplit(".", 1) == [
        "acme__shop.ab12cd34",
        "multi__5f2a9c",
    ]
    assert record["FAIL_TO_PASS"] == ["tests/test_shop.py::test_total"]
    assert record["PASS_TO_PASS"] == ["tests/test_shop.py::test_empty"]
    # the agent works in its task's image; the profile's image (graded in) holds every branch
    assert (record["image_name"], other["image_name"]) == ("agent-a", "agent-b")
    assert {"problem_statement", "created_at"} <= record.keys()
    repo = write_repo(tmp_path / "repo", ORIGINAL)
    (tmp_path / "bug.diff").write_text(record["patch"], encoding="utf-8", newline="")
    subprocess.run(["git", "apply", str(tmp_path / "bug.diff")], cwd=repo, check=True)
    for path, (_, corrupted) in files.items():
        assert (repo / path).read_bytes().decode("utf-8") == corrupted


def test_pdb_records_round_trip_per_file(tmp_path: Path) -> None:
    multi = make_task(MULTI, kind="multi")
    single = make_task(ADVERSARIAL)
    count = export_tasks(
        [multi[0], single[0]], "pdb", tmp_path / "pdb.json", files_for=files_lookup(multi, single)
    )
    records = json.loads((tmp_path / "pdb.json").read_text(encoding="utf-8"))  # one JSON array
    assert isinstance(records, list) and count == len(records) == 3
    assert [r["target_file"] for r in records[:2]] == ["src/shop/pricing.py", "src/shop/tax.py"]
    assert len({r["task_id"] for r in records}) == 3
    for record in records:
        assert "/" not in record["task_id"] and record["task_id"].startswith(
            record["source_task_id"]
        )
        assert record["buggy_code"] != record["gt_solution"]
        assert isinstance(record["gt_diff"], dict)
        assert apply_edit_script(record["buggy_code"], record["gt_diff"]) == record["gt_solution"]
        assert record["bug_count"] == 1 and record["bug_type"] == "Algorithm"
        assert record["repo"] == "acme/shop" and record["is_buggy"] is True
    tax = records[1]
    assert tax["gt_solution"] == ORIGINAL["src/shop/tax.py"] and "\r\n" in tax["buggy_code"]
    modify = next(iter(tax["gt_diff"].values()))
    assert modify == {
        "type": "Modify",
        "original": "    return round(amount - extra, 2)",
        "modified": "    return round(amount + extra, 2)",
    }


def test_pdb_refuses_scripts_that_do_not_restore(tmp_path: Path) -> None:
    task, files = make_task(ADVERSARIAL)
    out = tmp_path / "pdb.json"
    out.write_text("previous\n", encoding="utf-8")
    wrong = {
        path: (original + "# extra\n", corrupted) for path, (original, corrupted) in files.items()
    }
    with pytest.raises(StoreError, match="does not restore the original"):
        export_tasks([task], "pdb", out, files_for=lambda t: wrong)
    assert out.read_text(encoding="utf-8") == "previous\n"  # never half-written
    assert [p.name for p in tmp_path.iterdir()] == ["pdb.json"]
    with pytest.raises(InputError, match="needs the corrupted files"):
        export_tasks([task], "pdb", out)


def test_parquet_loads_with_hf_datasets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    tasks = [make_task(ADVERSARIAL)[0], make_task(MULTI, kind="multi", image="img:1")[0]]
    out = tmp_path / "tasks.parquet"
    assert export_tasks(tasks, "parquet", out) == 2
    ds = datasets.load_dataset(
        "parquet", data_files=str(out), split="train", cache_dir=str(tmp_path / "c")
    )
    assert ds.num_rows == 2
    for row, task in zip(ds, tasks, strict=True):
        assert row["task_id"] == task.task_id and row["kind"] == task.kind
        assert row["repo"]["name"] == "acme/shop" and row["difficulty"]["centrality_pct"] == 95.0
        assert row["tests"]["fail_to_pass"] == task.tests.fail_to_pass
        assert json.loads(row["edit_script"]) == task.edit_script
        assert json.loads(row["targets"][0]["metrics"]) == task.targets[0].metrics
        assert row["bugs"][0]["lines"] == task.bugs[0].lines
        assert row["image_name"] == task.image_name


def test_json_exports_are_ascii_so_line_splitters_cannot_cut_a_record(tmp_path: Path) -> None:
    """SWE-bench reads JSONL with str.splitlines(), which also splits at U+2028 and U+0085."""
    task = make_task(ADVERSARIAL)[0]
    task = task.model_copy(update={"problem_statement": "Broken\u2028pricing\x85 caf\u00e9"})
    for fmt in ("gold", "jsonl"):
        out = tmp_path / f"{fmt}.jsonl"
        export_tasks([task, task], fmt, out)
        lines = out.read_text(encoding="utf-8").splitlines()
        assert len(lines) == 2 and all(line.isascii() for line in lines)
    row = json.loads((tmp_path / "jsonl.jsonl").read_text().splitlines()[0])
    assert row["problem_statement"] == task.problem_statement


def test_tasks_no_harness_can_grade_are_left_out() -> None:
    named, _ = make_task(ADVERSARIAL)
    spaced = named.model_copy(
        update={"tests": named.tests.model_copy(update={"fail_to_pass": ["tests/t.py::f[a b]"]})}
    )
    assert runnable([named, spaced]) == [named]
    with pytest.raises(InputError, match="no task has a FAIL_TO_PASS test"):
        runnable([spaced])


def test_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown export format 'csv'"):
        export_tasks([], "csv", tmp_path / "x")


def test_pdb_counts_bugs_per_file_and_swesmith_loads_with_hf_datasets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    task, files = make_task(MULTI, kind="multi")
    pricing_bug = task.bugs[0].model_copy(
        update={"category": "Checking", "subcategory": "negation error"}
    )
    task = task.model_copy(update={"bugs": [*task.bugs, pricing_bug]})  # two bugs in one file
    single = make_task(ADVERSARIAL, image="img:1")
    lookup = files_lookup((task, files), single)
    pdb = tmp_path / "pdb.json"
    export_tasks([task, single[0]], "pdb", pdb, files_for=lookup)
    rows = json.loads(pdb.read_text(encoding="utf-8"))
    assert [r["bug_count"] for r in rows] == [2, 1, 1]
    assert [r["bug_type"] for r in rows] == [None, "Algorithm", "Algorithm"]
    assert rows[0]["bug_categories"] == ["Algorithm", "Checking"]
    swesmith = tmp_path / "sw.jsonl"
    swesmith.write_text(
        "".join(
            json.dumps(swesmith_record(t, f"agent-{t.task_id}")) + "\n" for t in (task, single[0])
        )
    )
    loaded = datasets.load_dataset(
        "json", data_files=str(swesmith), split="train", cache_dir=str(tmp_path / "c")
    )
    assert loaded["FAIL_TO_PASS"][1] == ["tests/test_shop.py::test_total"]
