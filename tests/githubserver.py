"""A local HTTP server speaking the part of GitHub's REST API that corrupt uses.

GitHub is unreachable from CI, so the real PyGithub client is pointed at this
server instead (``api_url``). It implements, with GitHub's status codes, bodies
and headers:

- ``GET /repos/{owner}/{name}``: repository JSON, 404 ``Not Found``;
- ``GET /search/repositories``: ``q`` parsed (``stars:``, ``language:``,
  ``created:``, ``pushed:``, ``size:`` qualifiers; anything else is a 422
  ``Validation Failed``), ``sort=stars``, ``per_page``/``page`` paging with
  ``Link`` headers, the 1000-result cap;
- primary rate limits: ``X-RateLimit-*`` headers on every answer and a 403
  ``API rate limit exceeded`` once the budget is spent, refilled at the reset;
- ``Authorization`` checking when ``tokens`` is set (401 ``Bad credentials``);
- ``fail_next(status, body, headers)`` to queue an arbitrary GitHub answer.

Every request is recorded in ``requests`` so tests can assert on what the
client actually sent.
"""

from __future__ import annotations

import json
import math
import re
import shlex
import threading
import time
from dataclasses import dataclass, field
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

DOCS = "https://docs.github.com/rest"


@dataclass
class Seen:
    """One request as the server received it."""

    path: str
    query: dict[str, str]
    authorization: str | None
    status: int = 0


@dataclass
class FakeGitHub:
    rate_limit: int = 60  # requests per window, like unauthenticated core API
    window: float = 3600.0
    tokens: set[str] | None = None  # None: accept any or no token
    result_cap: int = 1000
    repos: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._queued: list[tuple[int, dict[str, Any], dict[str, str]]] = []
        self.remaining = self.rate_limit
        self.reset_at = math.ceil(time.time() + self.window)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def add_repo(
        self,
        full_name: str,
        *,
        stars: int,
        created_at: str = "2020-01-01T00:00:00Z",
        pushed_at: str = "2024-06-01T12:00:00Z",
        size: int = 500,
        language: str | None = "Python",
        license: str | None = "MIT",
        default_branch: str = "main",
        clone_url: str | None = None,
    ) -> dict[str, Any]:
        owner, name = full_name.split("/")
        number = len(self.repos) + 1
        self.repos[full_name.lower()] = {
            "id": number,
            "node_id": f"R_{number}",
            "name": name,
            "full_name": full_name,
            "private": False,
            "owner": {
                "login": owner,
                "id": 1000 + number,
                "type": "User",
                "url": f"{self.url}/users/{owner}",
                "html_url": f"https://github.com/{owner}",
            },
            "html_url": f"https://github.com/{full_name}",
            "description": f"{name} for tests",
            "fork": False,
            "url": f"{self.url}/repos/{full_name}",
            "created_at": created_at,
            "updated_at": pushed_at,
            "pushed_at": pushed_at,
            "git_url": f"git://github.com/{full_name}.git",
            "ssh_url": f"git@github.com:{full_name}.git",
            "clone_url": clone_url or f"https://github.com/{full_name}.git",
            "size": size,
            "stargazers_count": stars,
            "watchers_count": stars,
            "language": language,
            "forks_count": 0,
            "archived": False,
            "disabled": False,
            "open_issues_count": 0,
            "license": None
            if license is None
            else {
                "key": license.lower(),
                "name": f"{license} License",
                "spdx_id": license,
                "url": f"{self.url}/licenses/{license.lower()}",
                "node_id": f"L_{license}",
            },
            "topics": [],
            "visibility": "public",
            "default_branch": default_branch,
        }
        return self.repos[full_name.lower()]

    def fail_next(
        self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        """Answer the next request with this status and body instead of serving it."""
        with self._lock:
            self._queued.append((status, body, headers or {}))

    def exhaust(self, reset_in: float) -> None:
        """Spend the whole rate-limit budget; it refills ``reset_in`` seconds from now."""
        with self._lock:
            self.remaining = 0
            self.reset_at = math.ceil(time.time() + reset_in)

    def statuses(self) -> list[int]:
        return [seen.status for seen in self.requests]

    # -- serving -----------------------------------------------------------------------

    def answer(
        self, path: str, query: dict[str, str], authorization: str | None
    ) -> tuple[int, Any, dict[str, str]]:
        with self._lock:
            now = time.time()
            if now >= self.reset_at:
                self.remaining = self.rate_limit
                self.reset_at = math.ceil(now + self.window)
            headers = {
                "X-RateLimit-Limit": str(self.rate_limit),
                "X-RateLimit-Reset": str(self.reset_at),
                "X-RateLimit-Resource": "search" if path.startswith("/search/") else "core",
            }
            if self._queued:
                status, body, extra = self._queued.pop(0)
                headers["X-RateLimit-Remaining"] = str(self.remaining)
                return status, body, {**headers, **extra}
            if self.tokens is not None and authorization is not None:
                token = authorization.split()[-1]
                if token not in self.tokens:
                    return (
                        401,
                        {"message": "Bad credentials", "documentation_url": DOCS, "status": "401"},
                        headers,
                    )
            if self.remaining <= 0:
                headers["X-RateLimit-Remaining"] = "0"
                return (
                    403,
                    {
                        "message": "API rate limit exceeded for 127.0.0.1. (But here's the good news: "
                        "Authenticated requests get a higher rate limit.)",
                        "documentation_url": f"{DOCS}/overview/rate-limits-for-the-rest-api",
                    },
                    headers,
                )
            self.remaining -= 1
            headers["X-RateLimit-Remaining"] = str(self.remaining)
            headers["X-RateLimit-Used"] = str(self.rate_limit - self.remaining)
        status, body, extra = self._route(path, query)
        return status, body, {**headers, **extra}

    def _route(self, path: str, query: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        repo = re.fullmatch(r"/repos/([^/]+)/([^/]+)", path)
        if repo:
            found = self.repos.get(f"{repo.group(1)}/{repo.group(2)}".lower())
            if found is None:
                return 404, {"message": "Not Found", "documentation_url": DOCS, "status": "404"}, {}
            return 200, found, {}
        if path == "/search/repositories":
            return self._search(query)
        return 404, {"message": "Not Found", "documentation_url": DOCS, "status": "404"}, {}

    def _search(self, query: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        q = query.get("q", "")
        if not q.strip():
            return _invalid("missing", None)
        try:
            tests = [_qualifier(token) for token in shlex.split(q)]
        except ValueError as exc:
            return _invalid("invalid", str(exc))
        matches = [r for r in self.repos.values() if all(test(r) for test in tests)]
        if query.get("sort") == "stars":
            matches.sort(
                key=lambda r: r["stargazers_count"], reverse=query.get("order", "desc") == "desc"
            )
        per_page = min(int(query.get("per_page", 30)), 100)
        page = int(query.get("page", 1))
        available = matches[: self.result_cap]
        if (page - 1) * per_page >= self.result_cap:
            return (
                422,
                {
                    "message": f"Only the first {self.result_cap} search results are available",
                    "documentation_url": f"{DOCS}/search/search",
                },
                {},
            )
        items = [{**r, "score": 1.0} for r in available[(page - 1) * per_page : page * per_page]]
        last = max(1, math.ceil(len(available) / per_page))
        links = {}
        if page < last:
            links["next"], links["last"] = page + 1, last
        if page > 1:
            links["prev"], links["first"] = page - 1, 1
        link = ", ".join(
            f'<{self.url}/search/repositories?{urlencode({**query, "page": n})}>; rel="{rel}"'
            for rel, n in links.items()
        )
        body = {"total_count": len(matches), "incomplete_results": False, "items": items}
        return 200, body, {"Link": link} if link else {}


def _qualifier(token: str):
    """A predicate for one search token; ValueError for qualifiers this server (and we) do not use."""
    key, sep, value = token.partition(":")
    if not sep:
        return lambda r: token.lower() in r["full_name"].lower()
    if key == "stars":
        op, number = _comparison(value)
        return lambda r: op(r["stargazers_count"], int(number))
    if key == "size":
        op, number = _comparison(value)
        return lambda r: op(r["size"], int(number))
    if key in ("created", "pushed"):
        op, day = _comparison(value)
        date.fromisoformat(day)
        return lambda r: op(r[f"{key}_at"][:10], day)
    if key == "language":
        return lambda r: (r["language"] or "").lower() == value.lower()
    raise ValueError(f"unknown qualifier {key!r}")


def _comparison(value: str):
    match = re.fullmatch(r"(>=|<=|>|<)?(.+)", value)
    if not match:
        raise ValueError(f"bad comparison {value!r}")
    ops = {
        ">=": lambda a, b: a >= b,
        "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b,
        "<": lambda a, b: a < b,
        None: lambda a, b: a == b,
    }
    number_or_day = match.group(2)
    if not re.fullmatch(r"\d+|\d{4}-\d{2}-\d{2}", number_or_day):
        raise ValueError(f"bad value {number_or_day!r}")
    return ops[match.group(1)], number_or_day


def _invalid(code: str, message: str | None) -> tuple[int, Any, dict[str, str]]:
    error: dict[str, Any] = {"resource": "Search", "field": "q", "code": code}
    if message:
        error["message"] = message
    return (
        422,
        {
            "message": "Validation Failed",
            "errors": [error],
            "documentation_url": f"{DOCS}/search/search",
            "status": "422",
        },
        {},
    )


def _handler_for(github: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            parts = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
            seen = Seen(parts.path, query, self.headers.get("Authorization"))
            github.requests.append(seen)
            status, body, headers = github.answer(parts.path, query, seen.authorization)
            seen.status = status
            payload = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test output is for test results."""

    return Handler
