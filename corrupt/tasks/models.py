"""The task record users read: one JSON object per task (DESIGN.md, "Task record")."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


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
    mode: Literal["remove", "discovery"]
    kind: Literal["deletion", "adversarial", "multi"]
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
