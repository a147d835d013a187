"""The task record users read: one JSON object per task (DESIGN.md, "Task record")."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from corrupt.corruptors.models import CorruptionKind


class TaskMode(StrEnum):
    """What the solver is told: which function to re-implement, or only that tests fail."""

    REMOVE = "remove"
    DISCOVERY = "discovery"


class BuildMode(StrEnum):
    """``corrupt build --mode``: multi-function tasks are discovery tasks built their own way."""

    REMOVE = "remove"
    DISCOVERY = "discovery"
    MULTI = "multi"

    @property
    def task_mode(self) -> TaskMode:
        return TaskMode.REMOVE if self is BuildMode.REMOVE else TaskMode.DISCOVERY


class RepoRef(BaseModel):
    name: str
    url: str
    commit: str
    stars: int | None = None


class TargetRef(BaseModel):
    file: str
    qualname: str
    start_line: int
    end_line: int
    metrics: dict[str, float] = Field(default_factory=dict)


class Difficulty(BaseModel):
    centrality_pct: float
    complexity_pct: float
    n_functions: int
    slice: str


class EffectRecord(BaseModel):
    exception: str | None = None
    message: str | None = None
    manifest_frames: list[str] = Field(default_factory=list)
    hop_distance: int | None = None


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
