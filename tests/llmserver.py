"""A local HTTP server speaking OpenAI chat-completions, for testing the LLM corruptor.

The machine cannot reach a real LLM, so tests drive the real ``openai`` client
against this server instead. Each request is answered by the next step of a
script: a tool call (well-formed or not), a plain text answer, an HTTP error
(e.g. 429 with ``retry-after-ms``), or a delay longer than the client's
timeout. A step may be a function of the request, so a scripted "model" can
read the tool feedback it was sent. Every request body is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


Step = Reply | Callable[[dict[str, Any]], Reply]


def _completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-local",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "local-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def tool_call(arguments: str | dict[str, Any], name: str = "submit_corruption") -> Reply:
    """The model calls a tool; ``arguments`` as a raw string allows malformed JSON."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    call = {
        "id": f"call_{time.monotonic_ns()}",
        "type": "function",
        "function": {"name": name, "arguments": raw},
    }
    return Reply(
        body=_completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")
    )


def text(content: str) -> Reply:
    return Reply(body=_completion({"role": "assistant", "content": content}, "stop"))


def error(status: int, message: str, **headers: str) -> Reply:
    return Reply(
        status=status,
        headers=headers,
        body={"error": {"message": message, "type": "error", "code": None}},
    )


class ChatServer:
    """``with ChatServer([steps...]) as server:`` then use ``server.base_url``."""

    def __init__(self, script: list[Step]) -> None:
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                reply = server._next(self.path, body)
                time.sleep(reply.delay)
                data = json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key.replace("_", "-"), value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def _next(self, path: str, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            if not path.endswith("/chat/completions"):
                return error(404, f"unknown path {path}")
            step = self.script.pop(0) if self.script else text("I have nothing more to submit.")
        return step(body) if callable(step) else step

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
