"""The LLM corruptor against a local chat-completions server, with real pytest screening."""

from __future__ import annotations

import json
import socket

import pytest
from corrupt_screener import CORE, core_source, def_line, inventory, replace_once, request  # noqa: F401
from llmserver import ChatServer, Reply, error, text, tool_call

from corrupt.corruptors.llm import LLMCorruptor
from corrupt.corruptors.models import Rejection, RejectionKind
from corrupt.errors import LLMError
from corrupt.source.edits import changed_lines

SOURCE = core_source()
LINE = def_line(SOURCE, "clamp")
QUALNAME = "inventory.core.clamp"
CLAMP = "".join(SOURCE.splitlines(keepends=True)[LINE - 1 : LINE + 6])

# Two valid bugs: the subtle one returns a plausible wrong value in one branch;
# the blunt one crashes on every clamped-high value.
SUBTLE = CLAMP.replace("        return low\n", "        return value\n")
BLUNT = CLAMP.replace("return high", "return high / 0")


def covering(passing: set[str]) -> list[str]:
    return sorted(t for t in passing if "clamp" in t or "discount" in t)


def corruptor(server: ChatServer, **options) -> LLMCorruptor:
    return LLMCorruptor(server.base_url, "local-model", "test-key", **options)


def tool_messages(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_keeps_the_best_valid_attempt_and_feeds_back_test_results(inventory):  # noqa: F811
    screener, passing = inventory
    script = [
        tool_call({"function_source": CLAMP.replace("high):", "high, strict=False):")}),
        tool_call(
            {"function_source": SUBTLE.replace("return value\n", "return value  # bug\n", 1)}
        ),
        tool_call('{"function_source": "def clamp(value'),
        tool_call(
            {"function_source": SUBTLE, "category": "Checking", "subcategory": "wrong value"}
        ),
        tool_call({"function_source": BLUNT}),
    ]
    with ChatServer(script) as server:
        outcome = corruptor(server, attempts=5).corrupt(
            request(SOURCE, CORE, QUALNAME, LINE, covering(passing), passing, min_failing=2),
            screener,
        )
    assert [t["outcome"] for t in outcome.tried] == ["rejected"] * 3 + ["valid", "valid"]
    assert "changed the signature" in outcome.tried[0]["reason"]
    assert "comment added" in outcome.tried[1]["reason"]
    assert "not JSON" in outcome.tried[2]["reason"]

    corruption = outcome.corruption
    assert corruption is not None and corruption.corruptor == "llm:local-model"
    expected = replace_once(SOURCE, CLAMP, SUBTLE)
    assert corruption.files[CORE].corrupted == expected  # the subtle one, not the last
    bug = corruption.bugs[0]
    assert bug.lines == changed_lines(SOURCE, expected) == [LINE + 3]
    assert (bug.category, bug.subcategory, bug.operator) == ("Checking", "wrong value", "llm")
    assert bug.effect.exception == "AssertionError"
    assert len(corruption.stats["failing"]) >= 2

    # The model saw why each attempt failed and which tests broke.
    last = tool_messages(server.requests[-1])
    assert "changed the signature" in last[0] and "comment added" in last[1]
    assert "not valid JSON" in last[2]
    assert "Accepted" in last[3] and "test_clamp[-5-0]" in last[3]
    assert len(server.requests) == 5  # the fifth attempt used the budget: no sixth request
    assert server.requests[0]["tools"][0]["function"]["name"] == "submit_corruption"
    prompt = server.requests[0]["messages"][1]["content"]
    assert "def clamp(value, low, high):" in prompt and "test_clamp[-5-0]" in prompt


def test_garbage_answers_leave_a_recorded_reason(inventory):  # noqa: F811
    screener, passing = inventory
    script = [
        text("I would rather not."),
        tool_call({"function_source": "def clamp(value, low, high):\n    return (\n"}),
        tool_call({"code": "x"}),
        tool_call({"function_source": CLAMP}, name="run_shell"),
    ]
    with ChatServer(script) as server:
        outcome = corruptor(server, attempts=4).corrupt(
            request(SOURCE, CORE, QUALNAME, LINE, covering(passing), passing, min_failing=2),
            screener,
        )
    assert outcome.corruption is None
    assert [t["outcome"] for t in outcome.tried] == ["no tool call"] + ["rejected"] * 3
    assert "does not compile" in outcome.tried[1]["reason"]
    assert str(outcome.rejection).startswith("no valid attempt in 4")
    assert screener.runs >= 1 and outcome.screened == 0
    assert len(server.requests) == 4  # bounded by the attempt budget


def test_too_few_failures_is_not_valid(inventory):  # noqa: F811
    screener, passing = inventory
    weak = CLAMP.replace("if value > high:", "if value > high + 50:")
    with ChatServer([tool_call({"function_source": weak})]) as server:
        outcome = corruptor(server, attempts=1).corrupt(
            request(SOURCE, CORE, QUALNAME, LINE, covering(passing), passing, min_failing=3),
            screener,
        )
    assert outcome.corruption is None
    assert outcome.tried[0]["outcome"] == "too few failing" and outcome.tried[0]["failing"] == 2
    assert "too few failing" in str(outcome.rejection)


def test_rate_limit_is_retried_by_the_client(inventory):  # noqa: F811
    screener, passing = inventory
    script = [error(429, "slow down", retry_after_ms="10"), tool_call({"function_source": SUBTLE})]
    with ChatServer(script) as server:
        outcome = corruptor(server, attempts=1, max_retries=1).corrupt(
            request(SOURCE, CORE, QUALNAME, LINE, covering(passing), passing, min_failing=2),
            screener,
        )
    assert outcome.corruption is not None
    assert len(server.requests) == 2


def test_persistent_rate_limit_ends_with_a_reason(inventory):  # noqa: F811
    screener, passing = inventory
    script = [error(429, "slow down", retry_after_ms="10")] * 2
    with ChatServer(script) as server:
        outcome = corruptor(server, max_retries=1).corrupt(
            request(SOURCE, CORE, QUALNAME, LINE, covering(passing), passing, min_failing=2),
            screener,
        )
    assert outcome.corruption is None and "429" in str(outcome.rejection)


def test_timeout_ends_with_a_reason(inventory):  # noqa: F811
    screener, passing = inventory
    with ChatServer([Reply(delay=2.0, body={})]) as server:
        outcome = corruptor(server, timeout=0.3, max_retries=0).corrupt(
            request(SOURCE, CORE, QUALNAME, LINE, covering(passing), passing, min_failing=2),
            screener,
        )
    assert outcome.corruption is None and "timed out after 0.3s" in str(outcome.rejection)
    assert outcome.rejection is not None and outcome.rejection.kind == RejectionKind.LLM_UNAVAILABLE


def test_server_error_ends_with_a_reason(inventory):  # noqa: F811
    screener, passing = inventory
    with ChatServer([error(400, "model not found")]) as server:
        outcome = corruptor(server, max_retries=0).corrupt(
            request(SOURCE, CORE, QUALNAME, LINE, covering(passing), passing, min_failing=2),
            screener,
        )
    assert str(outcome.rejection) == "LLM endpoint answered HTTP 400: model not found"


def test_endpoint_down_ends_with_a_reason(inventory):  # noqa: F811
    screener, passing = inventory
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    llm = LLMCorruptor(f"http://127.0.0.1:{port}/v1", "m", "k", max_retries=0, timeout=2)
    outcome = llm.corrupt(
        request(SOURCE, CORE, QUALNAME, LINE, covering(passing), passing, min_failing=2), screener
    )
    assert outcome.corruption is None
    assert str(outcome.rejection) == f"cannot reach the LLM endpoint at http://127.0.0.1:{port}/v1"


def test_bad_targets_are_outcomes_not_crashes(inventory):  # noqa: F811
    screener, passing = inventory
    with ChatServer([]) as server:
        llm = corruptor(server)
        missing = llm.corrupt(
            request(SOURCE, CORE, "inventory.core.nope", 3, ["x"], passing, min_failing=2), screener
        )
        untested = llm.corrupt(
            request(SOURCE, CORE, QUALNAME, LINE, [], passing, min_failing=2), screener
        )
    assert missing.rejection == Rejection(
        RejectionKind.NOT_FOUND, f"target inventory.core.nope not found at {CORE}:3"
    )
    assert untested.rejection == Rejection(RejectionKind.NO_COVERING_TESTS, "no covering tests")
    assert server.requests == []


def test_missing_key_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("CORRUPT_LLM_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMError, match="CORRUPT_LLM_API_KEY or OPENAI_API_KEY"):
        LLMCorruptor("http://127.0.0.1:9/v1", "m")


def test_key_from_environment(monkeypatch):
    monkeypatch.setenv("CORRUPT_LLM_API_KEY", "from-env")
    assert LLMCorruptor("http://127.0.0.1:9/v1", "m").name == "llm:m"


def test_feedback_lists_failing_tests_to_a_model_that_reads_it(inventory):  # noqa: F811
    """A scripted model that only submits the subtle bug after seeing the blunt one crash."""
    screener, passing = inventory

    def react(request: dict) -> Reply:
        feedback = tool_messages(request)[-1]
        assert "ZeroDivisionError" in feedback
        return tool_call(json.dumps({"function_source": SUBTLE}))

    with ChatServer([tool_call({"function_source": BLUNT}), react, text("done")]) as server:
        outcome = corruptor(server, attempts=5).corrupt(
            request(SOURCE, CORE, QUALNAME, LINE, covering(passing), passing, min_failing=2),
            screener,
        )
    assert outcome.corruption.files[CORE].corrupted == replace_once(SOURCE, CLAMP, SUBTLE)
    assert len(server.requests) == 3  # stopped when the model said it was done
    assert outcome.corruption.stats["valid_attempts"] == 2
