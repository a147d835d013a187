"""The engine identity digests code that exists: a module moved away would drop out silently."""

from __future__ import annotations

from corrupt.pipeline.engine import DECIDING, PACKAGE


def test_every_deciding_part_is_in_the_package() -> None:
    missing = [part for part in DECIDING if not (PACKAGE / part).exists()]
    assert missing == []
    for part in DECIDING:
        root = PACKAGE / part
        assert root.is_file() or any(root.rglob("*.py")), part
