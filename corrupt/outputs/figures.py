"""The report's plots, as Plotly figures built from task records and scores.

Each function takes plain records and returns one figure, so the page
(:mod:`corrupt.outputs.report`) only lays them out. The figures are the ones
the seed papers show: where tasks sit on the two difficulty axes (Breakpoint),
how many tests each breaks, which operators and defect categories made them,
and for scored builds the success rate along each difficulty axis and the
number of corrupted functions, and precision/recall by bug count (PDB).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable

import plotly.graph_objects as go

from corrupt.scoring.models import Score
from corrupt.selection.slices import BANDS, NAMED_SLICES
from corrupt.tasks.models import Task

MODE_COLOURS = {"remove": "#1f77b4", "discovery": "#d62728", "multi": "#2ca02c"}
BAND_COLOURS = {
    "easy": "rgba(44,160,44,0.08)",
    "medium": "rgba(255,127,14,0.08)",
    "hard": "rgba(214,39,40,0.10)",
}
BINS = [(0, 50, "0–50"), (50, 90, "50–90"), (90, 101, "90–100")]  # the slice bands' edges


def _layout(fig: go.Figure, title: str, x: str, y: str) -> go.Figure:
    fig.update_layout(
        title=title,
        xaxis_title=x,
        yaxis_title=y,
        height=420,
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        legend={"orientation": "h", "y": -0.2},
        template="plotly_white",
    )
    return fig


def difficulty_map(tasks: list[Task]) -> go.Figure:
    """Tasks on complexity × centrality percentiles, coloured by mode, over the slice bands."""
    fig = go.Figure()
    for band in BANDS:  # each the square from its floor up, less the next band's square
        lo, hi = NAMED_SLICES[band].lower
        fig.add_shape(
            type="path",
            path=f"M {lo} {lo} L 100 {lo} L 100 {hi} L {hi} {hi} L {hi} 100 L {lo} 100 Z",
            line={"width": 0},
            fillcolor=BAND_COLOURS[band],
            layer="below",
        )
        fig.add_annotation(
            x=lo + 2, y=lo + 2, text=band, showarrow=False, xanchor="left", yanchor="bottom"
        )
    by_mode: dict[str, list[Task]] = defaultdict(list)
    for task in tasks:
        by_mode[str(task.mode)].append(task)
    for mode, members in sorted(by_mode.items()):
        fig.add_trace(
            go.Scatter(
                x=[t.difficulty.complexity_pct for t in members],
                y=[t.difficulty.centrality_pct for t in members],
                mode="markers",
                name=mode,
                marker={
                    "size": 10,
                    "color": MODE_COLOURS.get(mode),
                    "line": {"width": 1, "color": "white"},
                },
                text=[
                    f"{t.task_id}<br>{', '.join(x.qualname for x in t.targets)}" for t in members
                ],
                hoverinfo="text",
            )
        )
    fig.update_xaxes(range=[0, 100])
    fig.update_yaxes(range=[0, 100])
    return _layout(fig, "Tasks by difficulty", "complexity percentile", "centrality percentile")


def hops_map(tasks: list[Task]) -> go.Figure:
    """Discovery and multi tasks on the difficulty plane, coloured by how many calls their
    failures surface from their causes (``difficulty.hops``; grey where unknown)."""
    traced = [t for t in tasks if t.mode != "remove"]
    known = [t for t in traced if t.difficulty.hops is not None]
    unknown = [t for t in traced if t.difficulty.hops is None]
    fig = go.Figure()
    for members, marker, name in (
        (known, {"color": [t.difficulty.hops for t in known], "colorscale": "Viridis",
                 "showscale": True, "colorbar": {"title": "hops"}}, "hops known"),
        (unknown, {"color": "#bbbbbb"}, "hops unknown"),
    ):  # fmt: skip
        if not members:
            continue
        fig.add_trace(
            go.Scatter(
                x=[t.difficulty.complexity_pct for t in members],
                y=[t.difficulty.centrality_pct for t in members],
                mode="markers",
                name=name,
                marker={"size": 10, "line": {"width": 1, "color": "white"}, **marker},
                text=[f"{t.task_id}<br>hops: {t.difficulty.hops}" for t in members],
                hoverinfo="text",
            )
        )
    fig.update_xaxes(range=[0, 100])
    fig.update_yaxes(range=[0, 100])
    return _layout(
        fig, "Cause to effect, in calls", "complexity percentile", "centrality percentile"
    )


def failing_tests(tasks: list[Task]) -> go.Figure:
    fig = go.Figure()
    by_mode: dict[str, list[int]] = defaultdict(list)
    for task in tasks:
        by_mode[str(task.mode)].append(len(task.tests.fail_to_pass))
    for mode, counts in sorted(by_mode.items()):
        fig.add_trace(
            go.Histogram(x=counts, name=mode, marker_color=MODE_COLOURS.get(mode), opacity=0.8)
        )
    fig.update_layout(barmode="stack")
    return _layout(fig, "Failing tests per task", "FAIL_TO_PASS tests", "tasks")


def bug_mix(tasks: list[Task]) -> go.Figure:
    """Bugs by operator, stacked by defect category (ODC)."""
    counts: Counter[tuple[str, str]] = Counter(
        (bug.operator, bug.category or "uncategorised") for task in tasks for bug in task.bugs
    )
    operators = sorted(
        {op for op, _ in counts}, key=lambda op: -sum(n for (o, _), n in counts.items() if o == op)
    )
    fig = go.Figure()
    for category in sorted({c for _, c in counts}):
        fig.add_trace(
            go.Bar(x=operators, y=[counts[(op, category)] for op in operators], name=category)
        )
    fig.update_layout(barmode="stack")
    return _layout(fig, "Bugs by operator and category", "operator", "bugs")


def _rate_by(
    scores: list[Score], key: Callable[[Score], str], order: list[str], title: str, axis: str
) -> go.Figure:
    fig = go.Figure()
    for model in sorted({s.model for s in scores}):
        groups: dict[str, list[bool]] = defaultdict(list)
        for score in scores:
            if score.model == model:
                groups[key(score)].append(score.resolved)
        present = [label for label in order if label in groups]
        fig.add_trace(
            go.Bar(
                x=present,
                y=[100.0 * sum(groups[b]) / len(groups[b]) for b in present],
                name=model,
                text=[f"n={len(groups[b])}" for b in present],
                textposition="outside",
            )
        )
    fig.update_yaxes(range=[0, 110])
    fig.update_layout(barmode="group")
    return _layout(fig, title, axis, "resolved %")


def _band(value: float) -> str:
    return next(label for lo, hi, label in BINS if lo <= value < hi)


def success_by_percentile(scores: list[Score], axis: str) -> go.Figure:
    """Resolved % per slice band of one difficulty axis (``centrality`` or ``complexity``)."""
    return _rate_by(
        scores,
        lambda s: _band(getattr(s, f"{axis}_pct")),
        [label for *_, label in BINS],
        f"Success by {axis}",
        f"{axis} percentile",
    )


def success_by_functions(scores: list[Score]) -> go.Figure:
    order = [str(n) for n in sorted({s.n_functions for s in scores})]
    return _rate_by(
        scores,
        lambda s: str(s.n_functions),
        order,
        "Success by corrupted functions",
        "functions corrupted",
    )


def success_by_hops(scores: list[Score]) -> go.Figure:
    """Resolved % by the calls between a task's bugs and where they surface (remove tasks aside)."""
    traced = [s for s in scores if s.mode != "remove"]
    known = sorted({s.hops for s in traced if s.hops is not None})
    return _rate_by(
        traced,
        lambda s: "unknown" if s.hops is None else str(s.hops),
        [str(h) for h in known] + ["unknown"],
        "Success by hop distance",
        "calls from cause to effect",
    )


def precision_recall_by_bugs(scores: list[Score]) -> go.Figure:
    fig = go.Figure()
    counts = sorted({s.bugs for s in scores})
    for model in sorted({s.model for s in scores}):
        mine = [s for s in scores if s.model == model]
        for metric in ("precision", "recall"):
            means = []
            for count in counts:
                values = [
                    getattr(s, metric)
                    for s in mine
                    if s.bugs == count and getattr(s, metric) is not None
                ]
                means.append(sum(values) / len(values) if values else None)
            fig.add_trace(go.Bar(x=[str(c) for c in counts], y=means, name=f"{model} {metric}"))
    fig.update_yaxes(range=[0, 1.05])
    fig.update_layout(barmode="group")
    return _layout(fig, "Precision and recall by bug count", "bugs in the task", "mean")
