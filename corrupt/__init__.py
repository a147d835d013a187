"""corrupt: turn real, well-tested Python repositories into verified code-repair tasks."""

__version__ = "0.1.0"
