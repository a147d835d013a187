"""``python -m corrupt``: the same command as ``corrupt``."""

from corrupt.cli.app import main

main()
