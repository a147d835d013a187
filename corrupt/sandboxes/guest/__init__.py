"""The code that runs inside a box, handed to it as files: nothing here imports the host side.

Each module is copied into a run's private I/O folder and started there by the
project's own interpreter, which has pytest but not corrupt; the host names them
by path only.
"""

from pathlib import Path

PYTEST_PLUGIN = Path(__file__).with_name("pytest_plugin.py")
WARM_SERVER = Path(__file__).with_name("warm_server.py")
