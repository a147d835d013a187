"""GitHub metadata and repository search through PyGithub.

Only public data is read, so a token is optional (``GITHUB_TOKEN`` raises the
rate limit). The API address can be changed (``api_url`` or
``CORRUPT_GITHUB_API_URL``) for GitHub Enterprise and for the tests, which run
the real PyGithub client against a local server speaking GitHub's protocol.

Rate limits are handled by PyGithub's own retry policy: when GitHub says the
limit resets within ``max_wait`` seconds we sleep and resume; otherwise the
caller gets a :class:`RateLimitError` naming the UTC time to retry at, instead
of a process silently blocked for up to an hour.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from itertools import islice
from typing import Any
from urllib.parse import urlsplit

import github
import requests
from github import Auth, Github, GithubException, GithubRetry
from github.GithubException import (
    BadCredentialsException,
    RateLimitExceededExceedsMaxWait,
    RateLimitExceededException,
    UnknownObjectException,
)
from github.Repository import Repository

from corrupt.errors import GitHubError, InputError, RateLimitError, RepoNotFound
from corrupt.repos.models import RepoMeta

DEFAULT_API_URL = "https://api.github.com"
API_URL_ENV = "CORRUPT_GITHUB_API_URL"
TOKEN_ENV = "GITHUB_TOKEN"
DEFAULT_MAX_WAIT = 60.0  # seconds we are willing to sleep for a rate-limit reset
_MAX_PER_PAGE = 100  # GitHub's ceiling for search pages

log = logging.getLogger(__name__)


class _AnnouncedRetry(GithubRetry):
    """PyGithub's retry policy, plus a log line before each wait and a cap on ``Retry-After``.

    GithubRetry already caps waits for ``X-RateLimit-Reset``; a ``Retry-After``
    header (secondary limits, 429) is slept by urllib3 without that cap.
    """

    def sleep(self, response: Any = None) -> None:
        retry_after = self.get_retry_after(response) if response is not None else None
        wait = retry_after if retry_after is not None else self.get_backoff_time()
        too_long = self.max_rate_limit_wait is not None and wait > self.max_rate_limit_wait
        if too_long and response is not None:
            raise RateLimitExceededExceedsMaxWait(
                response.status, {"message": "rate limited"}, dict(response.headers), wait=wait
            )
        status = getattr(response, "status", None)
        if wait >= 1 and status in (403, 429):
            log.warning("GitHub rate limit reached; waiting %.0f s for it to reset", wait)
        elif wait >= 1:
            log.warning("GitHub answered HTTP %s; retrying in %.0f s", status, wait)
        super().sleep(response)


def api_url_from(api_url: str | None = None) -> str:
    """The API base URL: the argument, else ``$CORRUPT_GITHUB_API_URL``, else api.github.com."""
    url = (api_url or os.environ.get(API_URL_ENV) or DEFAULT_API_URL).rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"bad GitHub API URL {url!r}: expected http://host or https://host/prefix")
    return url


def github_client(
    api_url: str | None = None,
    token: str | None = None,
    *,
    max_wait: float = DEFAULT_MAX_WAIT,
    per_page: int = 30,
) -> Github:
    """A PyGithub client that waits at most ``max_wait`` s for a rate-limit reset."""
    token = token or os.environ.get(TOKEN_ENV) or None
    github.set_log_level(logging.WARNING)  # PyGithub logs every retry at INFO to stderr by default
    retry = _AnnouncedRetry(
        max_rate_limit_wait=max_wait,
        total=5,
        connect=0,
        read=1,
        backoff_factor=0.5,
        status_forcelist=[429, *range(500, 600)],
    )
    return Github(
        auth=Auth.Token(token) if token else None,
        base_url=api_url_from(api_url),
        per_page=per_page,
        retry=retry,
        timeout=30,
    )


def repo_meta(
    full_name: str,
    *,
    api_url: str | None = None,
    token: str | None = None,
    max_wait: float = DEFAULT_MAX_WAIT,
) -> RepoMeta:
    """Metadata of ``owner/name``; RepoNotFound if GitHub does not know it."""
    url = api_url_from(api_url)
    client = github_client(url, token, max_wait=max_wait)
    try:
        with _github_errors(f"reading {full_name}", url, token):
            return meta_from(client.get_repo(full_name))
    except UnknownObjectException:
        raise RepoNotFound(
            f"GitHub repository {full_name} not found (or private) at {url}"
        ) from None


def search_repositories(
    min_stars: int = 1000,
    language: str | None = "Python",
    created_after: str | date | None = None,
    pushed_after: str | date | None = None,
    max_size_kb: int | None = None,
    limit: int = 30,
    api_url: str | None = None,
    token: str | None = None,
    *,
    max_wait: float = DEFAULT_MAX_WAIT,
) -> list[RepoMeta]:
    """The ``limit`` most-starred repositories matching the filters, following GitHub's paging.

    ``created_after`` is the contamination-safe filter: repositories newer than a
    model's training cutoff.
    """
    if limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}")
    query = search_query(min_stars, language, created_after, pushed_after, max_size_kb)
    url = api_url_from(api_url)
    client = github_client(url, token, max_wait=max_wait, per_page=min(limit, _MAX_PER_PAGE))
    with _github_errors(f"searching {query!r}", url, token):
        results = client.search_repositories(query, sort="stars", order="desc")
        found = [meta_from(repo) for repo in islice(results, limit)]
        if results.incomplete_results:
            log.warning("GitHub timed out part of the search; results may be incomplete")
    return found


def search_query(
    min_stars: int,
    language: str | None,
    created_after: str | date | None,
    pushed_after: str | date | None,
    max_size_kb: int | None,
) -> str:
    """GitHub search syntax for the filters, e.g. ``stars:>=1000 language:Python created:>2024-01-01``."""
    if min_stars < 0:
        raise InputError(f"--min-stars must be 0 or more, got {min_stars}")
    parts = [f"stars:>={min_stars}"]
    if language:
        if '"' in language or not language.strip():
            raise InputError(f"bad language {language!r}")
        parts.append(f'language:"{language}"' if " " in language else f"language:{language}")
    if created_after is not None:
        parts.append(f"created:>{_day(created_after, 'created-after')}")
    if pushed_after is not None:
        parts.append(f"pushed:>{_day(pushed_after, 'pushed-after')}")
    if max_size_kb is not None:
        if max_size_kb < 1:
            raise InputError(f"--max-size must be at least 1 KB, got {max_size_kb}")
        parts.append(f"size:<={max_size_kb}")
    return " ".join(parts)


def meta_from(repo: Repository) -> RepoMeta:
    """Copy the fields we record from a PyGithub repository (search results carry them all)."""
    licence = repo.license
    return RepoMeta(
        full_name=repo.full_name,
        url=repo.html_url,
        stars=repo.stargazers_count,
        created_at=_iso(repo.created_at),
        pushed_at=_iso(repo.pushed_at),
        default_branch=repo.default_branch,
        license=(licence.spdx_id or licence.name) if licence else None,
        clone_url=repo.clone_url,
    )


def _day(value: str | date, option: str) -> str:
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise InputError(f"--{option} must be a date like 2024-06-30, got {value!r}") from None


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@contextmanager
def _github_errors(doing: str, api_url: str, token: str | None) -> Iterator[None]:
    """Turn PyGithub and requests failures into one-line CorruptErrors (404s pass through)."""
    try:
        yield
    except UnknownObjectException:
        raise
    except RateLimitExceededException as exc:
        hint = (
            "" if (token or os.environ.get(TOKEN_ENV)) else " (set GITHUB_TOKEN for a higher limit)"
        )
        raise RateLimitError(
            f"GitHub rate limit exhausted while {doing}; retry after {_retry_time(exc)}{hint}"
        ) from None
    except BadCredentialsException:
        raise GitHubError(
            f"GitHub rejected the token (from ${TOKEN_ENV} or --token): bad credentials"
        ) from None
    except GithubException as exc:
        raise GitHubError(f"GitHub refused {doing}: HTTP {exc.status} {_reason(exc)}") from None
    except requests.exceptions.RetryError as exc:
        answers = re.search(r"too many \d+ error responses", str(exc))
        reason = answers.group(0) if answers else "repeated errors"
        raise GitHubError(
            f"GitHub kept failing while {doing} ({reason}); try again later"
        ) from None
    except requests.RequestException as exc:
        raise GitHubError(
            f"cannot reach the GitHub API at {api_url}: {_network_reason(exc)}"
        ) from None


def _reason(exc: GithubException) -> str:
    """GitHub's message plus the first validation detail (422 answers put the cause there)."""
    data = exc.data if isinstance(exc.data, dict) else {}
    message = str(data.get("message") or exc.message or "no message")
    errors = data.get("errors") or []
    detail = errors[0] if errors else None
    if isinstance(detail, dict):
        detail = detail.get("message") or detail.get("code")
    return f"{message}: {detail}" if detail else message


def _retry_time(exc: RateLimitExceededException) -> str:
    """When to retry: ``Retry-After`` (secondary limits), else the primary limit's reset."""
    headers = {str(k).lower(): str(v) for k, v in (exc.headers or {}).items()}
    wait = exc.wait if isinstance(exc, RateLimitExceededExceedsMaxWait) else None
    if headers.get("retry-after", "").isdigit():
        moment = time.time() + float(headers["retry-after"])
    elif (
        headers.get("x-ratelimit-remaining") == "0"
        and headers.get("x-ratelimit-reset", "").isdigit()
    ):
        moment = float(headers["x-ratelimit-reset"])
    else:  # GitHub's advice for secondary limits without a header: at least a minute
        moment = time.time() + (wait if wait is not None else 60)
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _network_reason(exc: requests.RequestException) -> str:
    match = re.search(r"\[Errno -?\d+\] ([^'\")]+)", str(exc))
    return match.group(1).strip() if match else type(exc).__name__
