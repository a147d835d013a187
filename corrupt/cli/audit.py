"""Rendering leak audits: a row per target, then every leak on a line of its own."""

from __future__ import annotations

from rich.table import Table

from corrupt.audit.audit import AuditResult


def audit_table(results: list[AuditResult]) -> Table:
    table = Table(title="leak audit", title_justify="left")
    for column in ("target", "tasks", "needles", "images", "leaks", "not checked", "status"):
        table.add_column(column, justify="left" if column in ("target", "status") else "right")
    for r in results:
        table.add_row(
            r.target,
            str(r.tasks),
            str(r.needles),
            str(len(r.images)),
            str(len(r.leaks)),
            str(len(r.unchecked)),
            "[green]passed[/]" if r.passed else "[bold red]LEAK[/]",
        )
    return table
