"""What scoring costs, and whether the gold patches score perfectly.

    python bench/score_bench.py BUILD_DIR [--jobs 1] [--epsilon 2]

Scores the build's gold patches (``export --format gold``) and an empty patch
per task into a throwaway output file, then prints seconds per prediction,
test runs per prediction, and the aggregate: every gold prediction should be
resolved with precision and recall 1, every empty one unresolved.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from corrupt.scoring.score import ScoreOptions, score_predictions
from corrupt.scoring.summary import summarize
from corrupt.tasks.store import Store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--epsilon", type=int, default=2)
    args = parser.parse_args()
    store = Store.open(args.build)
    tasks = store.list_tasks()
    store.close()
    with tempfile.TemporaryDirectory() as scratch:
        predictions = Path(scratch) / "predictions.jsonl"
        predictions.write_text(
            "".join(
                json.dumps(
                    {"instance_id": t.task_id, "model_name_or_path": model, "model_patch": patch}
                )
                + "\n"
                for t in tasks
                for model, patch in (("gold", t.fix_patch), ("empty", ""))
            )
        )
        started = time.monotonic()
        run = score_predictions(
            ScoreOptions(
                args.build, predictions, out=Path(scratch) / "scores.jsonl", jobs=args.jobs,
                epsilon=args.epsilon,
            )
        )  # fmt: skip
        wall = time.monotonic() - started
    scores = run.scores
    print(f"{len(scores)} predictions on {len(tasks)} tasks, --jobs {args.jobs}: {wall:.1f} s wall")
    print(
        f"per prediction: median {statistics.median(s.seconds for s in scores):.2f} s, "
        f"max {max(s.seconds for s in scores):.2f} s; "
        f"test runs: {sum(s.test_runs for s in scores)} "
        f"({statistics.mean(s.test_runs for s in scores):.2f} per prediction)"
    )
    for group in summarize(scores):
        if group.mode == "all":
            print(
                f"{group.model}: {group.tasks} tasks, resolved {group.resolved_pct}%, "
                f"precision {group.precision}, recall {group.recall}"
            )


if __name__ == "__main__":
    main()
