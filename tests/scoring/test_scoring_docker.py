"""`corrupt score --sandbox docker`: the same predictions get the same scores in
a container (Podman through the Docker API) as in the local sandbox."""

from __future__ import annotations

import json

import pytest
from docker_engine import find_engine

from corrupt.scoring.score import ScoreOptions, score_predictions

pytestmark = pytest.mark.docker
COMPARED = (
    "applied",
    "resolved",
    "f2p_fixed",
    "p2p_broken",
    "right_function",
    "precision",
    "recall",
)


def test_docker_scores_agree_with_local_ones(answers, built, tmp_path, monkeypatch):
    host, base = find_engine()
    monkeypatch.setenv("DOCKER_HOST", host)
    predictions, tasks, local = answers
    chosen = ["empty", "fix-plus-unrelated", "gold-" + tasks["empty"]["task_id"]]
    subset = tmp_path / "predictions.jsonl"
    subset.write_text(
        "".join(
            line + "\n"
            for line in predictions.read_text().splitlines()
            if json.loads(line)["model_name_or_path"] in chosen
        )
    )
    run = score_predictions(
        ScoreOptions(
            built[0], subset, out=tmp_path / "scores.jsonl", sandbox="docker", base_image=base
        )
    )
    scored = [s for s in run.scores if not s.missing]  # each model answered one task
    assert sorted(s.model for s in scored) == sorted(chosen)
    for score in scored:
        expected = local[score.model]
        assert {k: getattr(score, k) for k in COMPARED} == {k: expected[k] for k in COMPARED}
    assert any(s.resolved for s in scored) and not all(s.resolved for s in scored)
