"""GitHub intake: the real PyGithub client against a local server speaking GitHub's REST protocol."""

from __future__ import annotations

import json
import socket
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from githubserver import FakeGitHub
from gitrepos import bare_remote, make_repo
from typer.testing import CliRunner

from corrupt.cli import app
from corrupt.errors import GitHubError, InputError, RateLimitError, RepoNotFound, StarsError
from corrupt.repos.checkout import checkout
from corrupt.repos.github import repo_meta, search_query, search_repositories
from corrupt.repos.specs import parse_spec


@pytest.fixture
def github():
    with FakeGitHub() as server:
        server.add_repo(
            "pallets/click",
            stars=15000,
            created_at="2014-04-24T10:00:00Z",
            pushed_at="2024-05-01T08:30:00Z",
            size=3000,
            license="BSD-3-Clause",
        )
        server.add_repo("new/fresh", stars=1200, created_at="2025-02-01T00:00:00Z", size=400)
        server.add_repo(
            "new/tiny", stars=2500, created_at="2025-03-01T00:00:00Z", size=90, license=None
        )
        server.add_repo("old/stale", stars=5000, pushed_at="2019-01-01T00:00:00Z", size=800)
        server.add_repo("js/thing", stars=90000, language="JavaScript")
        server.add_repo("few/stars", stars=12)
        yield server


def test_repository_metadata(github: FakeGitHub) -> None:
    meta = repo_meta("pallets/click", api_url=github.url)
    assert (meta.full_name, meta.stars, meta.default_branch) == ("pallets/click", 15000, "main")
    assert (meta.created_at, meta.pushed_at) == ("2014-04-24T10:00:00Z", "2024-05-01T08:30:00Z")
    assert meta.license == "BSD-3-Clause"
    assert meta.url == "https://github.com/pallets/click"
    assert meta.clone_url == "https://github.com/pallets/click.git"
    assert [r.path for r in github.requests] == ["/repos/pallets/click"]


def test_unknown_repository(github: FakeGitHub) -> None:
    with pytest.raises(RepoNotFound) as caught:
        repo_meta("nobody/nothing", api_url=github.url)
    assert caught.value.exit_code == 10
    assert (
        caught.value.message
        == f"GitHub repository nobody/nothing not found (or private) at {github.url}"
    )


def test_search_filters_sorts_and_limits(github: FakeGitHub) -> None:
    names = lambda found: [m.full_name for m in found]  # noqa: E731
    assert names(search_repositories(api_url=github.url)) == [
        "pallets/click",
        "old/stale",
        "new/tiny",
        "new/fresh",
    ]
    assert names(search_repositories(created_after="2025-01-01", api_url=github.url)) == [
        "new/tiny",
        "new/fresh",
    ]
    assert names(
        search_repositories(pushed_after="2020-01-01", max_size_kb=500, api_url=github.url)
    ) == ["new/tiny", "new/fresh"]
    assert names(
        search_repositories(min_stars=2000, language=None, limit=2, api_url=github.url)
    ) == ["js/thing", "pallets/click"]
    sent = [r.query for r in github.requests]
    assert sent[1]["q"] == "stars:>=1000 language:Python created:>2025-01-01"
    assert sent[2]["q"] == "stars:>=1000 language:Python pushed:>2020-01-01 size:<=500"
    assert sent[3] == {"q": "stars:>=2000", "sort": "stars", "order": "desc", "per_page": "2"}
    tiny = search_repositories(created_after="2025-02-15", api_url=github.url)[0]
    assert (tiny.license, tiny.stars) == (None, 2500)


def test_search_follows_link_headers_across_pages(tmp_path: Path) -> None:
    with FakeGitHub() as server:
        for i in range(230):
            server.add_repo(f"owner{i}/repo{i}", stars=1000 + 7 * i)
        found = search_repositories(limit=210, api_url=server.url)
    assert len(found) == 210 and len({m.full_name for m in found}) == 210
    assert [m.stars for m in found] == sorted((1000 + 7 * i for i in range(230)), reverse=True)[
        :210
    ]
    assert [r.query.get("page") for r in server.requests] == [None, "2", "3"]
    assert {r.query["per_page"] for r in server.requests} == {"100"}


def test_search_stops_at_githubs_result_cap() -> None:
    with FakeGitHub(result_cap=4) as server:
        for i in range(9):
            server.add_repo(f"owner{i}/repo{i}", stars=1000 + i)
        found = search_repositories(limit=3, api_url=server.url) + search_repositories(
            limit=50, api_url=server.url
        )
    assert [m.stars for m in found] == [1008, 1007, 1006, 1008, 1007, 1006, 1005]
    assert 422 not in server.statuses()


def test_search_query_validation() -> None:
    assert search_query(0, "Visual Basic", None, None, None) == 'stars:>=0 language:"Visual Basic"'
    for bad in [
        dict(min_stars=-1),
        dict(max_size_kb=0),
        dict(created_after="2024-13-01"),
        dict(pushed_after="last week"),
        dict(language='Py"thon'),
        dict(limit=0),
    ]:
        with pytest.raises(InputError):
            search_repositories(**{"api_url": "http://127.0.0.1:1", **bad})


def test_token_is_sent_only_when_given(github: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    repo_meta("pallets/click", api_url=github.url)
    repo_meta("pallets/click", api_url=github.url, token="explicit")
    monkeypatch.setenv("GITHUB_TOKEN", "from-env")
    repo_meta("pallets/click", api_url=github.url)
    assert [r.authorization for r in github.requests] == [None, "token explicit", "token from-env"]


def test_bad_credentials(github: FakeGitHub) -> None:
    github.tokens = {"good"}
    assert repo_meta("pallets/click", api_url=github.url, token="good").stars == 15000
    with pytest.raises(GitHubError, match="bad credentials"):
        repo_meta("pallets/click", api_url=github.url, token="wrong")


def test_api_url_from_environment(github: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORRUPT_GITHUB_API_URL", github.url + "/")
    assert repo_meta("pallets/click").stars == 15000
    with pytest.raises(InputError, match="bad GitHub API URL"):
        repo_meta("pallets/click", api_url="ftp://example.com")


def test_unreachable_api() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(GitHubError) as caught:
        repo_meta("pallets/click", api_url=f"http://127.0.0.1:{port}")
    assert (
        caught.value.message
        == f"cannot reach the GitHub API at http://127.0.0.1:{port}: Connection refused"
    )


def test_validation_failure_422(github: FakeGitHub) -> None:
    github.fail_next(
        422,
        {
            "message": "Validation Failed",
            "documentation_url": "https://docs.github.com",
            "errors": [
                {
                    "resource": "Search",
                    "field": "q",
                    "code": "invalid",
                    "message": "The search is longer than 256 characters.",
                }
            ],
        },
    )
    with pytest.raises(GitHubError) as caught:
        search_repositories(api_url=github.url)
    assert caught.value.exit_code == 18
    assert caught.value.message == (
        "GitHub refused searching 'stars:>=1000 language:Python': "
        "HTTP 422 Validation Failed: The search is longer than 256 characters."
    )


def test_rate_limit_near_reset_waits_and_resumes(caplog) -> None:
    with FakeGitHub(rate_limit=2, window=1.0) as server:
        for i in range(250):
            server.add_repo(f"owner{i}/repo{i}", stars=2000 + i)
        started = time.monotonic()
        found = search_repositories(limit=250, api_url=server.url)
        elapsed = time.monotonic() - started
    assert len(found) == 250 and len({m.full_name for m in found}) == 250
    assert 403 in server.statuses() and server.statuses()[-1] == 200
    assert 0.5 < elapsed < 10
    assert "waiting" in caplog.text and "reset" in caplog.text


def test_rate_limit_far_reset_stops_with_retry_time(github: FakeGitHub, monkeypatch) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    github.exhaust(reset_in=1800)
    reset = datetime.fromtimestamp(github.reset_at, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    started = time.monotonic()
    with pytest.raises(RateLimitError) as caught:
        search_repositories(api_url=github.url)
    assert time.monotonic() - started < 5
    assert caught.value.exit_code == 19
    assert caught.value.message == (
        f"GitHub rate limit exhausted while searching 'stars:>=1000 language:Python'; retry after {reset} "
        "(set GITHUB_TOKEN for a higher limit)"
    )
    assert github.statuses() == [403]


def test_wait_limit_is_configurable(github: FakeGitHub) -> None:
    github.exhaust(reset_in=3)
    with pytest.raises(RateLimitError):
        repo_meta("pallets/click", api_url=github.url, max_wait=0.5)


def test_secondary_rate_limit_with_long_retry_after(github: FakeGitHub) -> None:
    github.fail_next(
        403,
        {
            "message": "You have exceeded a secondary rate limit. Please wait a few minutes "
            "before you try again."
        },
        {"Retry-After": "900"},
    )
    started = time.time()
    with pytest.raises(RateLimitError) as caught:
        repo_meta("pallets/click", api_url=github.url)
    retry_at = datetime.strptime(
        caught.value.message.split("retry after ")[1][:19], "%Y-%m-%d %H:%M:%S"
    )
    assert abs(retry_at.replace(tzinfo=UTC).timestamp() - (started + 900)) < 5


def test_server_error_is_retried(github: FakeGitHub) -> None:
    github.fail_next(502, {"message": "Server Error"})
    assert repo_meta("pallets/click", api_url=github.url).stars == 15000
    assert github.statuses() == [502, 200]


@pytest.fixture
def hosted(tmp_path: Path, github: FakeGitHub):
    """pallets/click's clone_url points at a local bare repository."""
    work = make_repo(tmp_path / "click", {"src/click/__init__.py": "__version__ = '8'\n"})
    work.git.tag("8.0.0")
    remote = bare_remote(work, tmp_path / "click.git")
    github.repos["pallets/click"]["clone_url"] = f"file://{remote}"
    return work.head.commit.hexsha, remote


def test_github_spec_end_to_end(github: FakeGitHub, hosted, tmp_path: Path) -> None:
    sha, remote = hosted
    chosen = search_repositories(min_stars=10000, api_url=github.url)[0]
    assert chosen.full_name == "pallets/click"
    pinned = checkout(
        parse_spec(f"github:{chosen.full_name}"),
        cache_dir=tmp_path / "cache",
        min_stars=1000,
        api_url=github.url,
    )
    assert (pinned.name, pinned.commit, pinned.stars, pinned.url) == (
        "pallets/click",
        sha,
        15000,
        f"file://{remote}",
    )
    assert pinned.meta is not None and pinned.meta.license == "BSD-3-Clause"
    assert (pinned.path / "src/click/__init__.py").read_text() == "__version__ = '8'\n"
    tagged = checkout(
        parse_spec("github:pallets/click@8.0.0"), cache_dir=tmp_path / "cache", api_url=github.url
    )
    assert tagged.path == pinned.path


def test_github_spec_refused_below_min_stars(github: FakeGitHub, hosted, tmp_path: Path) -> None:
    with pytest.raises(StarsError) as caught:
        checkout(
            parse_spec("github:pallets/click"),
            cache_dir=tmp_path / "cache",
            min_stars=20000,
            api_url=github.url,
        )
    assert caught.value.message == "pallets/click has 15000 stars, fewer than --min-stars 20000"
    assert not (tmp_path / "cache").exists()


def test_github_spec_for_unknown_repository(github: FakeGitHub, tmp_path: Path) -> None:
    with pytest.raises(RepoNotFound):
        checkout(
            parse_spec("github:nobody/nothing"), cache_dir=tmp_path / "cache", api_url=github.url
        )


def test_cli_search_table_and_json(github: FakeGitHub) -> None:
    runner = CliRunner()
    table = runner.invoke(app, ["search", "--api-url", github.url, "--created-after", "2025-01-01"])
    assert table.exit_code == 0, table.output
    assert "new/tiny" in table.output and "2500" in table.output and "2025-03-01" in table.output
    assert "pallets/click" not in table.output

    lines = runner.invoke(
        app,
        [
            "search",
            "--api-url",
            github.url,
            "--json",
            "--limit",
            "2",
            "--min-stars",
            "0",
            "--language",
            "JavaScript",
        ],
    )
    assert lines.exit_code == 0, lines.output
    assert [json.loads(line)["full_name"] for line in lines.output.splitlines()] == ["js/thing"]


@pytest.mark.parametrize(
    ("args", "code", "text"),
    [
        (["--created-after", "yesterday"], 2, "--created-after must be a date"),
        (["--limit", "0"], 2, "--limit must be at least 1"),
        (["--api-url", "ftp://x"], 2, "bad GitHub API URL"),
    ],
)
def test_cli_search_bad_input(args: list[str], code: int, text: str) -> None:
    result = CliRunner().invoke(app, ["search", *args])
    assert result.exit_code == code
    assert text in result.output and "Traceback" not in result.output


def test_cli_search_rate_limited_and_rejected(github: FakeGitHub) -> None:
    github.fail_next(422, {"message": "Validation Failed", "errors": [{"code": "invalid"}]})
    rejected = CliRunner().invoke(app, ["search", "--api-url", github.url])
    assert rejected.exit_code == 18 and "HTTP 422 Validation Failed: invalid" in rejected.output
    github.exhaust(reset_in=600)
    limited = CliRunner().invoke(app, ["search", "--api-url", github.url])
    assert limited.exit_code == 19 and "retry after" in limited.output
