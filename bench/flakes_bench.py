"""The pyflakes tell on real mutants: scoped check against the whole-file check.

    python bench/flakes_bench.py [--repos toolz,marshmallow,...] [--targets 40]
        [--seed 0] [--mirrors /work/.mirror]

For each repository (pinned as in bench/corpus.txt, read from a local
mirror) it prepares the checkout as ``corrupt build`` does, generates every
operator mutant of the first ``--targets`` targets of the build's seeded
order, and asks :func:`corrupt.corruptors.validate.new_pyflakes_findings`
for each mutant's new findings twice: on the whole file, and scoped to the
target (:mod:`corrupt.corruptors.flakes`). It prints how many mutants, how
many have new findings, how many answers differ (there must be none) and the
CPU seconds of each way.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from intake_corpus import read_corpus, spec_for  # noqa: E402
from screening_bench import CORPUS, _no_stage, first_targets  # noqa: E402

from corrupt.corruptors.operators import generate_mutants  # noqa: E402
from corrupt.corruptors.validate import new_pyflakes_findings  # noqa: E402
from corrupt.errors import CorruptError  # noqa: E402
from corrupt.prepare import prepare  # noqa: E402
from corrupt.sandboxes.registry import get_sandbox  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", default="toolz,marshmallow,sqlparse,markdown,structlog")
    parser.add_argument("--targets", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    args = parser.parse_args()
    corpus = dict(read_corpus(CORPUS)[0])
    sandbox = get_sandbox("local")
    differ_total = 0
    for short in args.repos.split(","):
        name = next(n for n in corpus if n.split("/")[1].removeprefix("python-") == short)
        ready = prepare(
            spec_for(name, corpus[name], args.mirrors), sandbox, time_limit=300, stage=_no_stage
        )
        targets = first_targets(ready, args.targets, args.seed)
        mutants = found = differ = 0
        whole_s = scoped_s = 0.0
        for target in targets:
            source = (ready.checkout.path / target.file).read_text(encoding="utf-8")
            where = (target.qualname, target.start_line)
            try:
                generated = generate_mutants(source, target.file, *where, seed=args.seed)
            except CorruptError:
                continue
            for mutant in generated:
                began = time.process_time()
                whole = new_pyflakes_findings(source, mutant.corrupted)
                middle = time.process_time()
                scoped = new_pyflakes_findings(source, mutant.corrupted, where)
                whole_s += middle - began
                scoped_s += time.process_time() - middle
                mutants, found = mutants + 1, found + bool(whole)
                if scoped != whole:
                    differ += 1
                    print(f"  DIFFERS {target.file} {target.qualname}: {whole} vs {scoped}")
        differ_total += differ
        print(
            f"{name}: {len(targets)} targets, {mutants} mutants, "
            f"{found} with new findings, {differ} answers differ; whole file {whole_s:.2f} "
            f"CPU s, scoped {scoped_s:.2f} CPU s ({whole_s / max(scoped_s, 1e-9):.1f}x)",
            flush=True,
        )
    if differ_total:
        raise SystemExit(f"{differ_total} answers differ")


if __name__ == "__main__":
    main()
