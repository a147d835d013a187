"""Aggregates of scores: per model, and per mode, kind, slice and number of functions."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from corrupt.scoring.models import Score

ALL = "all"


@dataclass(frozen=True)
class ScoreGroup:
    model: str
    mode: str
    kind: str
    slice: str
    n_functions: int | str
    tasks: int
    resolved_pct: float
    right_function_pct: float | None  # over tasks where it applies (not remove mode)
    precision: float | None  # mean over tasks where an edit was made
    recall: float
    applied_pct: float
    tampered: int
    # DSDBench localization, % of bugs hit where predictions localized them (None: none did)
    cause_pct: float | None = None
    effect_pct: float | None = None
    error_pct: float | None = None

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def summarize(scores: list[Score]) -> list[ScoreGroup]:
    """One group per (model, mode, kind, slice, functions), then one ``all`` row per model."""
    groups: dict[tuple[str, str, str, str, int | str], list[Score]] = defaultdict(list)
    for score in scores:
        groups[(score.model, score.mode, score.kind, score.slice, score.n_functions)].append(score)
        groups[(score.model, ALL, ALL, ALL, ALL)].append(score)
    rows = [_group(key, members) for key, members in groups.items()]
    return sorted(
        rows, key=lambda g: (g.model, g.mode == ALL, g.mode, g.kind, g.slice, str(g.n_functions))
    )


def _group(key: tuple[str, str, str, str, int | str], scores: list[Score]) -> ScoreGroup:
    rights = [s.right_function for s in scores if s.right_function is not None]
    precisions = [s.precision for s in scores if s.precision is not None]
    return ScoreGroup(
        *key,
        tasks=len(scores),
        resolved_pct=_pct(sum(s.resolved for s in scores), len(scores)),
        right_function_pct=_pct(sum(rights), len(rights)) if rights else None,
        precision=round(sum(precisions) / len(precisions), 4) if precisions else None,
        recall=round(sum(s.recall for s in scores) / len(scores), 4),
        applied_pct=_pct(sum(s.applied for s in scores), len(scores)),
        tampered=sum(s.tests_tampered for s in scores),
        cause_pct=_share(s.cause_hit for s in scores),
        effect_pct=_share(s.effect_hit for s in scores),
        error_pct=_share(s.error_match for s in scores),
    )


def _share(per_score: Iterable[list[bool] | list[bool | None] | None]) -> float | None:
    """Percent of the judged bugs (not None) hit, over the scores that carry a verdict."""
    judged = [hit for hits in per_score if hits is not None for hit in hits if hit is not None]
    return _pct(sum(judged), len(judged)) if judged else None


def _pct(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0
