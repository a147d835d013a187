"""The build display: a live bar on a terminal, one line per event anywhere else."""

from __future__ import annotations

import io

from rich.console import Console

from corrupt.cli.progress import RichProgress
from corrupt.corruptors.models import Rejection, RejectionKind
from corrupt.tasks.store import CandidateRow, CandidateStatus


def row(key: str, status: str, reason: str = "") -> CandidateRow:
    rejection = Rejection(RejectionKind.NO_SURVIVOR, reason) if reason else None
    return CandidateRow(
        key,
        "discovery",
        ["shop.cart.total"],
        CandidateStatus(status),
        "procedural",
        3,
        12.34,
        None,
        None,
        rejection=rejection,
    )


def events(console: Console) -> None:
    with RichProgress(console) as progress:
        progress.stage("baseline")
        progress.mode("discovery", candidates=40, wanted=2)
        progress.candidate("discovery", row("a", "rejected", "no surviving mutant"), False, 7)
        progress.candidate("discovery", row("b", "verified"), True, 12)
        progress.candidate("discovery", row("c", "verified"), False, 15)


def test_a_log_gets_one_line_per_event():
    out = io.StringIO()
    events(Console(file=out, force_terminal=False, width=200))
    lines = out.getvalue().splitlines()
    assert "stage: baseline" in lines
    assert "discovery: 2 wanted from 40 candidates" in lines
    assert (
        "discovery: rejected shop.cart.total in 12.3s (no surviving mutant); "
        "0 verified of 1 tried, 7 test runs"
    ) in lines
    assert (
        "discovery: verified shop.cart.total in 12.3s; 1 verified of 2 tried, 12 test runs" in lines
    )
    assert (
        "discovery: duplicate shop.cart.total in 12.3s; 1 verified of 3 tried, 15 test runs"
        in lines
    )


def test_a_terminal_gets_the_live_display_only():
    out = io.StringIO()
    events(Console(file=out, force_terminal=True, width=200))
    assert "wanted from" not in out.getvalue()
    assert "1 verified, 15 test runs" in out.getvalue()  # the bar's own detail column
