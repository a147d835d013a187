"""The shared sandbox contract (tests/sandbox_contract.py) against DockerSandbox on a real engine."""

from __future__ import annotations

import pytest
from docker_engine import find_engine
from sandbox_contract import *  # noqa: F403

from corrupt.sandboxes.docker.sandbox import DockerSandbox

pytestmark = pytest.mark.docker


@pytest.fixture(scope="session")
def sandbox():
    host, base = find_engine()
    box = DockerSandbox(base_image=base, docker_host=host)
    yield box
    box.close()
