"""``corrupt report``: one self-contained HTML page about a build and its scores.

Everything the page needs is inside it: Plotly's JavaScript is embedded once
and every figure's data with it, so the file opens from disk, in an archive or
on an air-gapped machine, with no network at view time.
"""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import plotly.graph_objects as go

from corrupt.corruptors.anomalies import tell_operators
from corrupt.corruptors.models import RejectionKind
from corrupt.errors import InputError
from corrupt.outputs import figures
from corrupt.scoring.models import Score
from corrupt.scoring.score import build_folder, load_scores
from corrupt.scoring.summary import ScoreGroup, summarize
from corrupt.tasks.models import Task
from corrupt.tasks.store import APR_KEY, AUDITS_KEY, CandidateRow, Store
from corrupt.tasks.taskfile import listed_tasks

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1200px; color: #222; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2.5rem; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 1rem; }
pre { background: #f6f8fa; padding: 0.6rem; overflow-x: auto; font-size: 0.8rem; max-width: 1100px; }
.del { color: #b31d28; } .add { color: #22863a; } .hunk { color: #6f42c1; }
"""


@dataclass
class ReportData:
    info: dict[str, object]
    tasks: list[Task]
    candidates: list[CandidateRow]
    scores: list[Score]
    audits: dict[str, dict[str, Any]] = field(default_factory=dict)  # target -> last leak audit
    apr: dict[str, dict[str, Any]] = field(default_factory=dict)  # task id -> APR baseline result


def load_report_data(
    build: Path, score_files: list[Path], task_set: Path | None = None
) -> ReportData:
    """The build's record, over the tasks ``task_set`` (a slice's JSONL) lists if given."""
    folder = build_folder(Path(build))
    store = Store.open(folder)
    try:
        tasks = listed_tasks(task_set, store.list_tasks(), folder)
        data = ReportData(store.checkout_info(), tasks, store.candidates(), [])
        audits, apr = store.get_meta(AUDITS_KEY), store.get_meta(APR_KEY)
        data.audits = audits if isinstance(audits, dict) else {}
        data.apr = apr if isinstance(apr, dict) else {}
    finally:
        store.close()
    if not data.tasks:
        raise InputError(f"{folder} holds no tasks yet; run corrupt build first")
    known = {t.task_id for t in data.tasks}
    data.scores = [s for s in load_scores(score_files) if s.task_id in known]
    if score_files and not data.scores:
        raise InputError(
            f"none of the scores in {', '.join(map(str, score_files))} is for a task of {folder}"
        )
    return data


def write_report(data: ReportData, out: Path) -> Path:
    """Write the page to ``out`` (through a temporary file, so a failure leaves nothing half-written)."""
    plots = [
        figures.difficulty_map(data.tasks),
        figures.failing_tests(data.tasks),
        figures.bug_mix(data.tasks),
        figures.hops_map(data.tasks),
    ]
    scored = []
    if data.scores:
        scored = [
            figures.success_by_percentile(data.scores, "centrality"),
            figures.success_by_percentile(data.scores, "complexity"),
            figures.success_by_functions(data.scores),
            figures.success_by_hops(data.scores),
            figures.precision_recall_by_bugs(data.scores),
        ]
    rendered = iter(_embed(fig, first=i == 0) for i, fig in enumerate(plots + scored))
    body = [
        f"<h1>corrupt report: {_e(data.info.get('name'))}</h1>",
        _summary(data),
        "<h2>Tasks</h2>",
        '<div class="grid">',
        *(next(rendered) for _ in plots),
        "</div>",
    ]
    if data.scores:
        body += [
            "<h2>Scores</h2>",
            _score_table(summarize(data.scores)),
            '<div class="grid">',
            *(next(rendered) for _ in scored),
            "</div>",
        ]
    body += ["<h2>Task list</h2>", _task_table(data)]
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>corrupt report: {_e(data.info.get('name'))}</title><style>{STYLE}</style></head>"
        f"<body>{''.join(body)}</body></html>\n"
    )
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.with_name(f".{out.name}.tmp")
    staging.write_text(page, encoding="utf-8")
    staging.replace(out)
    return out


def _embed(fig: go.Figure, *, first: bool) -> str:
    """The figure as a div; the first one carries plotly.js for the whole page."""
    return str(
        fig.to_html(
            full_html=False,
            include_plotlyjs=first,
            default_width="100%",
            config={"displaylogo": False, "responsive": True},
        )
    )


def _e(value: object) -> str:
    return html.escape(str(value))


def _summary(data: ReportData) -> str:
    modes = Counter(str(t.mode) for t in data.tasks)
    tried = Counter(c.mode for c in data.candidates if c.mode != "member")
    rejected = Counter(
        str(c.rejection.kind) for c in data.candidates if c.rejection and c.mode != "member"
    )
    tells = Counter(
        operator
        for c in data.candidates
        if c.rejection and c.rejection.kind == RejectionKind.TELL
        for operator in tell_operators(c.rejection.detail)
    )
    rows = [
        ("repository", f"{data.info.get('name')} ({data.info.get('spec')})"),
        ("commit", data.info.get("commit")),
        ("tasks", ", ".join(f"{n} {m}" for m, n in sorted(modes.items()))),
        ("candidates tried", ", ".join(f"{n} {m}" for m, n in sorted(tried.items()))),
        ("rejections", ", ".join(f"{n} {k}" for k, n in rejected.most_common()) or "none"),
        (
            "mutation tells by operator",
            ", ".join(f"{n} {k}" for k, n in tells.most_common()) or "none",
        ),
        ("APR baseline", _apr(data.apr)),
        ("leak audits", _audits(data.audits)),
        ("engine", ", ".join(sorted({t.engine_version for t in data.tasks}))),
    ]
    if data.scores:
        rows.append(
            (
                "scored",
                f"{len(data.scores)} predictions by {len({s.model for s in data.scores})} models",
            )
        )
    cells = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows)
    return f"<table>{cells}</table>"


def _apr(results: dict[str, dict[str, Any]]) -> str:
    """What the APR baseline solved; the scores of its predictions plot it as a model."""
    if not results:
        return "not run (corrupt solve BUILD, or build --apr-budget N)"
    attempted = [r for r in results.values() if r["status"] != "not attempted"]
    solved = sum(r["solved"] for r in attempted)
    skipped = len(results) - len(attempted)
    return (
        f"{solved} of {len(attempted)} attempted tasks solved (plausible), "
        f"{skipped} not attempted (a deleted body); budgets {sorted({r['budget'] for r in results.values()})}"
    )


def _audits(audits: dict[str, dict[str, Any]]) -> str:
    """Each audited export's last status, or how to audit them."""
    if not audits:
        return "none run (corrupt audit BUILD)"
    return "; ".join(
        f"{target} ({a['format']}): "
        + ("passed" if a["passed"] else f"LEAK ({a['leaks']})")
        + f", {a['tasks']} tasks, {a['images']} images, {a['at']}"
        for target, a in sorted(audits.items())
    )


def _score_table(groups: list[ScoreGroup]) -> str:
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "model",
            "mode",
            "kind",
            "slice",
            "functions",
            "tasks",
            "resolved",
            "right function",
            "precision",
            "recall",
        )
    )
    rows = []
    for g in groups:
        cells = [
            g.model,
            g.mode,
            g.kind,
            g.slice,
            g.n_functions,
            g.tasks,
            f"{g.resolved_pct:.1f}%",
            "–" if g.right_function_pct is None else f"{g.right_function_pct:.1f}%",
            "–" if g.precision is None else f"{g.precision:.3f}",
            f"{g.recall:.3f}",
        ]
        rows.append("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _diff_html(patch: str) -> str:
    lines = []
    for line in patch.splitlines():
        css = (
            "hunk"
            if line.startswith("@@")
            else "del"
            if line.startswith("-")
            else "add"
            if line.startswith("+")
            else ""
        )
        lines.append(f'<span class="{css}">{_e(line)}</span>' if css else _e(line))
    return "<pre>" + "\n".join(lines) + "</pre>"


def _task_table(data: ReportData) -> str:
    resolved: dict[str, list[str]] = {}
    for score in data.scores:
        resolved.setdefault(score.task_id, []).append(
            f"{score.model}: {'✓' if score.resolved else '✗'}"
        )
    head = "<tr><th>task</th><th>mode</th><th>targets</th><th>centrality</th><th>complexity</th><th>failing</th><th>bugs</th><th>scores</th></tr>"
    rows = []
    for task in data.tasks:
        bugs = ", ".join(f"{b.operator} ({b.category})" for b in task.bugs)
        rows.append(
            "<tr>"
            f"<td>{_e(task.task_id)}<details><summary>corruption diff</summary>{_diff_html(task.corruption_patch)}</details></td>"
            f"<td>{_e(str(task.mode))}</td>"
            f"<td>{'<br>'.join(_e(t.qualname) for t in task.targets)}</td>"
            f"<td>{task.difficulty.centrality_pct:.0f}</td><td>{task.difficulty.complexity_pct:.0f}</td>"
            f"<td>{len(task.tests.fail_to_pass)}</td><td>{_e(bugs)}</td>"
            f"<td>{_e(', '.join(resolved.get(task.task_id, [])))}</td>"
            "</tr>"
        )
    return f"<table>{head}{''.join(rows)}</table>"
