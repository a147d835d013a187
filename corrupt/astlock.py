"""``ast.parse`` made safe to call from several threads at once on Python < 3.13.

CPython 3.11 and 3.12 keep the AST constructor's recursion depth in state shared by
every thread (python/cpython gh-106905): when a garbage collection during one thread's
parse lets another thread parse, the first ends in ``SystemError: AST constructor
recursion depth mismatch``. A build's corrupt + verify workers parse source in threads,
ours and radon's and pyflakes' alike, so every ``ast.parse`` in the process goes through
one lock.
"""

from __future__ import annotations

import ast
import sys
import threading
from typing import Any

_LOCK = threading.Lock()
_PARSE = ast.parse


def _serialized_parse(*args: Any, **kwargs: Any) -> Any:
    with _LOCK:
        return _PARSE(*args, **kwargs)


def install() -> None:
    """Route ``ast.parse`` through the lock (once; nothing to do on Python 3.13+)."""
    if sys.version_info < (3, 13) and ast.parse is _PARSE:
        ast.parse = _serialized_parse
