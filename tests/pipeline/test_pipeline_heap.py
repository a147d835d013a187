"""The build keeps what it prepared out of the cyclic collector's passes while it screens."""

from __future__ import annotations

import gc

import pytest

from corrupt.pipeline.build import frozen_heap


def test_objects_alive_when_screening_starts_are_frozen_until_it_ends():
    prepared = [{"line": n} for n in range(1000)]  # stands in for the coverage map

    def walked(obj: object) -> bool:  # what the collector's passes visit
        return any(o is obj for o in gc.get_objects())

    assert gc.get_freeze_count() == 0 and walked(prepared)
    with frozen_heap():
        made_while_screening = [[n] for n in range(10)]
        gc.collect()
        assert not walked(prepared) and walked(made_while_screening)
        assert gc.get_freeze_count() >= len(prepared)
    assert gc.get_freeze_count() == 0 and walked(prepared)


def test_a_build_that_fails_hands_the_heap_back():
    with pytest.raises(RuntimeError), frozen_heap():
        raise RuntimeError("baseline is red")
    assert gc.get_freeze_count() == 0
