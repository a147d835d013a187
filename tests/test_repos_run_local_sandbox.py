"""The sandbox contract against LocalSandbox, plus what only a local process can show."""

from __future__ import annotations

import pytest
from repos_run_support import session_cache
from sandbox_contract import *  # noqa: F403
from sandbox_contract import HOSTILE, _Greeter

from corrupt.errors import InputError
from corrupt.repos.local import LocalSandbox
from corrupt.repos.runner import run_tests
from corrupt.repos.sandboxes import get_sandbox
from corrupt.repos.workspace import Workspace


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory):
    return LocalSandbox(cache_dir=session_cache(tmp_path_factory))


def test_network_namespace_is_what_blocks_the_connection(hostile, tmp_path_factory):
    """Control for the contract test: without the namespace the same test does connect."""
    checkout, env = hostile
    open_box = LocalSandbox(cache_dir=session_cache(tmp_path_factory), isolate_network=False)
    server = _Greeter()
    try:
        nodeid = HOSTILE + "test_connects_to_host_server"
        with Workspace(checkout) as ws, ws.patched({"port.txt": str(server.port)}):
            report = run_tests(open_box, env, ws.path, select=[nodeid])
    finally:
        server.close()
    assert report.results[nodeid].outcome == "passed"
    assert server.connections == 1


def test_get_sandbox_by_name(tmp_path):
    assert isinstance(get_sandbox("local", cache_dir=tmp_path), LocalSandbox)
    with pytest.raises(InputError, match="unknown sandbox 'vm'"):
        get_sandbox("vm")
