"""Records of the corrupt stage: mutants, bugs and corruptions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from corrupt.repos.models import TestReport

CorruptionKind = Literal["deletion", "adversarial", "multi"]


@dataclass
class Mutant:
    """One single-site change to one function, produced by one operator."""

    target: str  # qualname
    file: str  # relative path
    operator: str  # catalogue name, e.g. "flip_comparison"
    odc_category: str  # Assignment | Checking | Algorithm | Build/Package/Merge | Timing/Serialization
    odc_subcategory: str  # off-by-one, negation error, missing check, ...
    hef_category: str  # value misuse | missing logic | excess logic | operator misuse | variable misuse | function misuse
    original: str  # whole file text before
    corrupted: str  # whole file text after
    lines: list[int]  # 1-based lines of the corrupted file that differ
    description: str = ""  # human-readable, never shown to solvers


@dataclass
class Effect:
    """How a bug shows itself (DSDBench): the error and where it manifests."""

    exception: str | None = None
    message: str | None = None
    manifest_frames: list[str] = field(default_factory=list)  # "file:line:function"
    hop_distance: int | None = None  # call-graph steps from the failing frames to the target


@dataclass
class Bug:
    target: str
    file: str
    lines: list[int]
    category: str  # ODC category
    subcategory: str
    operator: str
    hef_category: str = ""
    effect: Effect = field(default_factory=Effect)


@dataclass
class FileChange:
    original: str
    corrupted: str


@dataclass
class Corruption:
    """A candidate corruption of one or more functions, not yet verified."""

    kind: CorruptionKind
    corruptor: str  # "deletion", "procedural:flip_comparison", "llm:<model>"
    targets: list[str]
    files: dict[str, FileChange]
    bugs: list[Bug]
    stats: dict = field(default_factory=dict)  # screening statistics


@dataclass
class CorruptionOutcome:
    """What happened for one target: a corruption, or why there is none."""

    target: str
    corruption: Corruption | None
    reason: str = ""  # "no covering tests", "no surviving mutant", ... when corruption is None
    candidates: int = 0
    screened: int = 0
    tried: list[dict] = field(default_factory=list)  # per candidate: operator, lines, outcome, failing


class Screener(Protocol):
    """Runs tests on the repository with some files replaced (supplied by the build)."""

    def __call__(
        self, files: dict[str, str], tests: Sequence[str] | None, max_failures: int | None
    ) -> TestReport: ...
