"""The task record users read: one JSON object per task (DESIGN.md, "Task record")."""

from __future__ import annotations

import json

from pydantic import BaseModel, Field, computed_field, field_validator, model_validator

from corrupt.corruptors.models import CorruptionKind
from corrupt.repos.models import harness_readable
from corrupt.selection.slices import band_of
from corrupt.tasks.modes import TaskMode


def _json_text(value: object) -> object:
    """Exports carry per-task maps as JSON text (see outputs/schema.py); read them back as maps."""
    return json.loads(value) if isinstance(value, str) else value


class RepoRef(BaseModel):
    name: str
    url: str
    commit: str
    stars: int | None = None
    # Whether the index publishes the project: at-version, other-versions, no or unknown.
    # A published release is a copy of the answer to an agent with network.
    published: str = "unknown"


class TargetRef(BaseModel):
    file: str
    qualname: str
    start_line: int
    end_line: int
    metrics: dict[str, float] = Field(default_factory=dict)

    _metrics_from_json = field_validator("metrics", mode="before")(_json_text)


class Difficulty(BaseModel):
    centrality_pct: float
    complexity_pct: float
    n_functions: int
    # The most call steps any bug's failure surfaces from its cause (EffectRecord.hop_distance);
    # None when no bug's is known.
    hops: int | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def slice(self) -> str:
        """The named band the task is in (selection/slices.py): one for every task,
        whatever slice it was built or chosen for, so records and scores group by it."""
        return band_of(self.centrality_pct, self.complexity_pct)


class EffectRecord(BaseModel):
    """How a bug shows itself (DSDBench): its first failing test's error, where the error
    surfaces, and how far that is from the cause (the bug's lines).

    ``file``/``line``/``function`` are the innermost frame of that test's traceback in the
    repository: the test's own assertion when the bad value travels out of the library, a
    raise inside it otherwise. ``hop_distance`` counts call steps on the test's real call
    chain between the corrupted function and that frame (0: it surfaces in the function),
    traced with the bug alone in the tree; ``hop_reason`` says why it is None.
    ``graph_distance`` is the static figure: the fewest call-graph steps from any function
    in the failing tests' tracebacks to the target (None when none reaches it).
    """

    exception: str | None = None
    message: str | None = None
    test: str | None = None
    file: str | None = None
    line: int | None = None
    function: str | None = None
    hop_distance: int | None = None
    hop_reason: str | None = None
    graph_distance: int | None = None
    manifest_frames: list[str] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _recorded_before_traces(cls, data: object) -> object:
        """Stores written before traced effects kept the static figure as ``hop_distance``."""
        if isinstance(data, dict) and "hop_distance" in data and "graph_distance" not in data:
            return {
                **data,
                "graph_distance": data["hop_distance"],
                "hop_distance": None,
                "hop_reason": "recorded before effects were traced",
            }
        return data


class BugRecord(BaseModel):
    target: str
    file: str
    lines: list[int]
    category: str
    subcategory: str = ""
    operator: str
    effect: EffectRecord = Field(default_factory=EffectRecord)


class TestsRecord(BaseModel):
    __test__ = False  # not a pytest test class

    command: str
    fail_to_pass: list[str]
    pass_to_pass: list[str]
    baseline_seconds: float
    # the test files the run is cut to when the suite is over the build's time budget
    # (the command names them too); empty: the whole suite
    subset: list[str] = Field(default_factory=list)
    # failed in one run of the corrupted tree and passed in the other (a random-input
    # test, say): in neither list, since it says nothing about a repair
    unstable: list[str] = Field(default_factory=list)

    def readable(self) -> tuple[list[str], list[str]]:
        """FAIL_TO_PASS and PASS_TO_PASS as a harness can read them back (see :func:`harness_readable`)."""
        return (
            [t for t in self.fail_to_pass if harness_readable(t)],
            [t for t in self.pass_to_pass if harness_readable(t)],
        )


class Task(BaseModel):
    task_id: str
    repo: RepoRef
    mode: TaskMode
    kind: CorruptionKind
    corruptor: str
    targets: list[TargetRef]
    difficulty: Difficulty
    corruption_patch: str
    fix_patch: str
    edit_script: dict[str, dict[str, dict[str, str]]]
    bugs: list[BugRecord]
    tests: TestsRecord
    problem_statement: str
    seed: int
    engine_version: str
    created_at: str
    image_name: str | None = None

    _script_from_json = field_validator("edit_script", mode="before")(_json_text)

    @model_validator(mode="before")
    @classmethod
    def _multi_is_a_mode(cls, data: object) -> object:
        """Records written before multi had its own mode said ``discovery`` for it."""
        if (
            isinstance(data, dict)
            and data.get("kind") == "multi"
            and data.get("mode") == "discovery"
        ):
            return {**data, "mode": "multi"}
        return data

    def edits_by_bug(self) -> list[dict[str, dict[str, dict[str, str]]]]:
        """The edit script split per bug (``file -> key -> edit`` each, in ``bugs`` order):
        each edit goes to the bug of its file whose changed lines are nearest (bugs of
        one file lie apart, PDB's stride); a file no bug names goes to the first."""
        per_bug: list[dict[str, dict[str, dict[str, str]]]] = [{} for _ in self.bugs]
        for file, script in sorted(self.edit_script.items()):
            owners = [i for i, bug in enumerate(self.bugs) if bug.file == file] or [0]
            for key, edit in script.items():
                line = int(key.strip())

                def distance(i: int, line: int = line) -> int:
                    return min(abs(line - other) for other in self.bugs[i].lines or [line])

                per_bug[min(owners, key=distance)].setdefault(file, {})[key] = edit
        return per_bug
