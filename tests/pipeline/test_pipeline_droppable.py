"""A worker lent to a candidate the walk may drop (tests/fixtures/repos_run/chain, written
here): once dropped, the candidate's next test run is refused, so a build with workers
still screening past its last task ends at that run instead of the search's end."""

from __future__ import annotations

import threading

import pytest
from repos_run_support import fixture_checkout, session_cache

from corrupt.pipeline.droppable import Droppable, Dropped
from corrupt.repos.workspace import Workspace
from corrupt.sandboxes.local.sandbox import LocalSandbox
from corrupt.screening.screen import RunBudget, TreeScreener

TEST = "tests/test_prices.py::test_unit_price"


def test_a_dropped_candidate_runs_nothing_more(tmp_path_factory):
    checkout = fixture_checkout("chain", tmp_path_factory)
    sandbox = LocalSandbox(cache_dir=session_cache(tmp_path_factory))
    with Workspace(checkout) as workspace:
        worker = TreeScreener(sandbox, sandbox.prepare(checkout), workspace, RunBudget(60, 5))
        dropped = threading.Event()
        lent = Droppable(worker, dropped)
        assert lent({}, [TEST], None).passing() == {TEST}
        assert lent.run({}, tests=[TEST]).passing() == {TEST}
        assert (lent.runs, worker.runs) == (2, 2)
        dropped.set()
        with pytest.raises(Dropped):
            lent({}, [TEST], None)
        with pytest.raises(Dropped):
            lent.run({})
        assert worker.runs == 2 and worker.suite_runs == 0
