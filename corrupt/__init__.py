"""corrupt: turn real, well-tested Python repositories into verified code-repair tasks."""

from corrupt import astlock

__version__ = "0.1.0"

astlock.install()
