"""Records of the corrupt stage: what a corruptor is asked, and what it answers.

Every corruptor (deletion, adversarial search, the LLM, multi-function
composition) implements :class:`Corruptor`: one :class:`CorruptionRequest`
in, one :class:`CorruptionOutcome` out, holding either a :class:`Corruption`
or a :class:`Rejection` that says, as data, why there is none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from corrupt.repos.coverage import LineTests
from corrupt.repos.models import TestReport

# Call-graph steps from a failure to the target: a callback over the qualified
# names of the failure's frames (fewest hops, None if unreachable), or a map
# from qualified name to hop distance.
DistanceTo = Callable[[list[str]], "int | None"] | Mapping[str, int]


class CorruptionKind(StrEnum):
    DELETION = "deletion"  # the body is gone; the solver re-implements it
    ADVERSARIAL = "adversarial"  # a subtle bug in one function
    MULTI = "multi"  # subtle bugs in several functions


class CorruptorName(StrEnum):
    """``corrupt build --corruptor``: who writes discovery-mode bugs."""

    PROCEDURAL = "procedural"  # adversarial search over the operator catalogue
    LLM = "llm"  # a model behind an OpenAI-compatible endpoint


class DeletionStyle(StrEnum):
    RAISE = "raise"  # the body becomes `raise NotImplementedError`
    PASS = "pass"


class RejectionKind(StrEnum):
    """Why a candidate gave no task; the build's summary counts candidates by these."""

    NOT_FOUND = (
        "target not found"  # the file does not parse, or the def is not where the graph said
    )
    NO_COVERING_TESTS = "no covering tests"
    NO_MUTANTS = "no mutants"  # no operator applies
    NO_VALID_MUTANT = (
        "no valid mutant"  # every candidate was a no-op, left a tell or did not compile
    )
    NO_SURVIVOR = "too few failing tests"  # the valid candidates did not fail enough tests reliably
    LLM_UNAVAILABLE = "LLM unavailable"  # the endpoint failed; the candidate was not judged
    MEMBER = "member without corruption"  # a multi-function task's member has none
    NOT_COMPOSABLE = "members do not compose"
    SCREEN_ERROR = "screening failed"
    UNFAIR = "fails a static check"  # verification: an edit outside the targets, a comment, ...
    TELL = "mutation tell"  # verification: code no person writes, a linter finds it (anomalies)
    NOT_VERIFIED = "did not verify"  # verification: the full suite did not confirm it
    DUPLICATE = "duplicate task"
    HOPS = "outside the hop band"  # --min-hops/--max-hops: its failure surfaces too near or far
    OTHER = "other"  # recorded by a version that did not keep the kind


@dataclass(frozen=True)
class Rejection:
    kind: RejectionKind
    detail: str  # one line for people, e.g. "only 3 previously passing tests fail, 5 needed"

    def __str__(self) -> str:
        return self.detail


@dataclass(frozen=True)
class TargetSource:
    """One function to corrupt, as its file stands in the pinned checkout."""

    file: str  # relative path
    qualname: str  # a label; the def line identifies the function
    def_line: int
    source: str  # the whole file's text
    covering_tests: tuple[str, ...] = ()
    distance_to: DistanceTo | None = None  # hop distances from failures to this target
    # which baseline tests ran each of the function's lines (None: not known, so every
    # covering test screens every candidate)
    line_tests: LineTests | None = None


@dataclass(frozen=True)
class CorruptionRequest:
    """What a corruptor is asked: built once per candidate by the build.

    Single-function corruptors take the one target; multi-function composition
    takes several. ``baseline_passing`` are the tests that pass on the pinned
    checkout: only they count as failing because of a corruption.
    """

    targets: tuple[TargetSource, ...]
    baseline_passing: frozenset[str]
    min_failing: int = 5
    seed: int = 0

    @property
    def target(self) -> TargetSource:
        if len(self.targets) != 1:
            raise ValueError(f"a single-function corruptor got {len(self.targets)} targets")
        return self.targets[0]

    def covered(self, target: TargetSource) -> list[str]:
        """The target's covering tests that pass on the baseline, sorted."""
        return sorted(set(target.covering_tests) & self.baseline_passing)


@dataclass
class Mutant:
    """One single-site change to one function, produced by one operator."""

    target: str  # qualname
    file: str  # relative path
    operator: str  # catalogue name, e.g. "flip_comparison"
    # Assignment | Checking | Algorithm | Build/Package/Merge | Timing/Serialization
    odc_category: str
    odc_subcategory: str  # off-by-one, negation error, missing check, ...
    # value misuse | missing logic | excess logic | operator misuse | variable misuse | function misuse
    hef_category: str
    original: str  # whole file text before
    corrupted: str  # whole file text after
    lines: list[int]  # 1-based lines of the corrupted file that differ
    description: str = ""  # human-readable, never shown to solvers

    def bug(self, effect: Effect | None = None) -> Bug:
        """The bug this mutant plants, as a task records it."""
        return Bug(
            target=self.target,
            file=self.file,
            lines=list(self.lines),
            category=self.odc_category,
            subcategory=self.odc_subcategory,
            operator=self.operator,
            hef_category=self.hef_category,
            effect=effect or Effect(),
        )


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
    stats: dict[str, Any] = field(default_factory=dict)  # screening statistics


@dataclass
class CorruptionOutcome:
    """What happened for one request: a corruption, or the rejection saying why there is none."""

    target: str
    corruption: Corruption | None = None
    rejection: Rejection | None = None
    candidates: int = 0
    screened: int = 0
    # per candidate: operator, lines, outcome, failing
    tried: list[dict[str, Any]] = field(default_factory=list)


class Screener(Protocol):
    """Runs tests on the repository with some files replaced (supplied by the build)."""

    runs: int  # test runs so far, for the build's accounting

    def __call__(
        self, files: dict[str, str], tests: Sequence[str] | None, max_failures: int | None
    ) -> TestReport: ...


class Corruptor(Protocol):
    """Deletion, adversarial search, the LLM and composition: one request in, one outcome out.

    A corruptor never raises for a target it cannot handle; it answers with a
    :class:`Rejection`, so one bad target never aborts a build.
    """

    @property
    def name(self) -> str: ...  # "deletion", "procedural", "llm:<model>", "multi"

    def corrupt(self, request: CorruptionRequest, screener: Screener) -> CorruptionOutcome: ...
