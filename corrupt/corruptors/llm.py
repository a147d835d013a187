"""LLM corruptor: a model writes the bug, our tests judge it, the model gets feedback.

Opt-in (extra ``llm``). Any OpenAI-compatible chat-completions endpoint works
through the ``openai`` SDK. The model submits attempts through one tool,
``submit_corruption``; each attempt is validated (parses, only the target
changed, signature/decorators/docstring kept, no comments, no pyflakes tells)
and screened on the covering tests, and the tool's answer tells the model which
tests failed and how, so it can aim for a subtler bug. The *best* valid attempt
is kept (ranked like adversarial search), not the last one. Endpoint trouble
(down, timeouts, 429 after retries, garbage) ends the conversation with a
recorded reason; it never raises out of :meth:`LLMCorruptor.corrupt`.
"""

from __future__ import annotations

import ast
import json
import os
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from corrupt.corruptors.models import (
    Bug,
    Corruption,
    CorruptionKind,
    CorruptionOutcome,
    CorruptionRequest,
    DistanceTo,
    FileChange,
    Rejection,
    RejectionKind,
    Screener,
)
from corrupt.corruptors.screening import (
    FrameNames,
    Screening,
    effect_of,
    screen,
    subtlety,
)
from corrupt.corruptors.validate import corruption_problems, splice_function
from corrupt.errors import LLMError
from corrupt.source.edits import changed_lines
from corrupt.source.functions import function_at, span_of

ODC_CATEGORIES = [
    "Assignment",
    "Checking",
    "Algorithm",
    "Build/Package/Merge",
    "Timing/Serialization",
]
HEF_CATEGORIES = [
    "value misuse",
    "missing logic",
    "excess logic",
    "operator misuse",
    "variable misuse",
    "function misuse",
]

SYSTEM_PROMPT = """\
You help build a debugging benchmark from real, well-tested Python code. You will be \
given one function and the tests that exercise it. Your job is to introduce ONE subtle \
behavioural bug into that function, the kind an experienced developer could plausibly \
write by mistake, so that a debugging agent has to reason to find it.

Rules (attempts that break them are rejected):
- Change only the body of the given function. Keep its name, parameters, defaults, \
return annotation, decorators and docstring exactly as they are.
- Do not add, change or remove comments; leave no hint of what changed. No renamed \
variables that reveal the bug, no unused or undefined names.
- The code must stay valid Python and must not crash on import.
- At least {min_failing} of the listed tests must fail, but the fewer tests beyond \
that the better: a good bug breaks a corner of the behaviour (a boundary, a rarely \
taken branch, an accumulation, an ordering), returns a plausible wrong value rather \
than raising, and shows up away from the function itself.

Before each attempt, reason about how the tests exercise the function: which inputs \
they use, which branches and boundaries they reach, what they assert. Then call the \
tool `submit_corruption` with the complete new source of the function. The tool \
answers with the test results; use them to submit a better attempt. You have \
{attempts} attempts.
"""

USER_PROMPT = """\
Function `{qualname}` in `{file}` (line {def_line}):

```python
{function}
```

Tests that exercise it ({count}):
{tests}
"""

TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "submit_corruption",
        "description": "Submit the complete new source of the function (def line to last "
        "line; decorators may be omitted) and get back which tests fail.",
        "parameters": {
            "type": "object",
            "properties": {
                "function_source": {"type": "string"},
                "category": {"type": "string", "enum": ODC_CATEGORIES},
                "subcategory": {
                    "type": "string",
                    "description": "e.g. off-by-one, negation error, missing check",
                },
                "hef_category": {"type": "string", "enum": HEF_CATEGORIES},
            },
            "required": ["function_source"],
        },
    },
}

MAX_FEEDBACK_FAILURES = 12


@dataclass
class _Attempt:
    corrupted: str
    result: Screening
    names: FrameNames
    score: float
    args: dict[str, Any]


def _openai() -> ModuleType:
    try:
        import openai
    except ImportError:
        raise LLMError(
            "the LLM corruptor needs the openai package: pip install 'corrupt[llm]'"
        ) from None
    return openai


class LLMCorruptor:
    """Corrupts one function at a time through a chat-completions endpoint with tool calls."""

    def __init__(
        self,
        base_url: str | None,
        model: str,
        api_key: str | None = None,
        *,
        attempts: int = 5,
        timeout: float = 60.0,
        max_retries: int = 2,
    ) -> None:
        openai = _openai()
        key = api_key or os.environ.get("CORRUPT_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY")
        if not key:
            raise LLMError("no LLM API key: set CORRUPT_LLM_API_KEY or OPENAI_API_KEY")
        if attempts < 1:
            raise LLMError("the LLM corruptor needs at least one attempt")
        self.model = model
        self.base_url = base_url or "https://api.openai.com/v1"
        self.attempts = attempts
        self.timeout = timeout
        self._errors = openai
        self._client = openai.OpenAI(
            base_url=self.base_url, api_key=key, timeout=timeout, max_retries=max_retries
        )

    @property
    def name(self) -> str:
        return f"llm:{self.model}"

    def corrupt(self, request: CorruptionRequest, screener: Screener) -> CorruptionOutcome:
        """The best valid attempt within the attempt budget, or the rejection saying why none."""
        target = request.target
        source, file, qualname, def_line = (
            target.source,
            target.file,
            target.qualname,
            target.def_line,
        )
        min_failing, distance_to = request.min_failing, target.distance_to
        outcome = CorruptionOutcome(target=qualname)
        tests = request.covered(target)

        def reject(kind: RejectionKind, detail: str) -> CorruptionOutcome:
            outcome.rejection = Rejection(kind, detail)
            return outcome

        try:
            node = function_at(ast.parse(source), def_line, qualname)
        except SyntaxError as exc:
            return reject(RejectionKind.NOT_FOUND, f"{file} does not parse: {exc.msg}")
        if node is None:
            return reject(
                RejectionKind.NOT_FOUND, f"target {qualname} not found at {file}:{def_line}"
            )
        if not tests:
            return reject(RejectionKind.NO_COVERING_TESTS, "no covering tests")

        lines = source.splitlines(keepends=True)
        span = span_of(node, lines)
        function = "".join(lines[span.start - 1 : span.end])
        messages: list[dict[str, Any]] = [
            {
                "role": "system",
                "content": SYSTEM_PROMPT.format(min_failing=min_failing, attempts=self.attempts),
            },
            {
                "role": "user",
                "content": USER_PROMPT.format(
                    qualname=qualname,
                    file=file,
                    def_line=def_line,
                    function=function.rstrip(),
                    count=len(tests),
                    tests="\n".join(f"- {t}" for t in tests),
                ),
            },
        ]
        session = _Session(
            self,
            source,
            file,
            qualname,
            def_line,
            tests,
            screener,
            set(request.baseline_passing),
            min_failing,
            distance_to,
            outcome,
        )
        session.run(messages)
        best = session.best
        if best is None and session.stop_reason:
            return reject(RejectionKind.LLM_UNAVAILABLE, session.stop_reason)
        if best is None:
            return reject(*_no_valid_reason(outcome))
        outcome.corruption = self._corruption(best, source, file, qualname, distance_to, session)
        return outcome

    def _corruption(
        self,
        best: _Attempt,
        source: str,
        file: str,
        qualname: str,
        distance_to: DistanceTo | None,
        session: _Session,
    ) -> Corruption:
        args = best.args
        category = args.get("category")
        hef = args.get("hef_category")
        bug = Bug(
            target=qualname,
            file=file,
            lines=changed_lines(source, best.corrupted),
            category=category if category in ODC_CATEGORIES else "unclassified",
            subcategory=str(args.get("subcategory") or "unclassified")[:80],
            operator="llm",
            hef_category=hef if hef in HEF_CATEGORIES else "",
            effect=effect_of(best.result, best.names, distance_to),
        )
        return Corruption(
            kind=CorruptionKind.ADVERSARIAL,
            corruptor=self.name,
            targets=[qualname],
            files={file: FileChange(original=source, corrupted=best.corrupted)},
            bugs=[bug],
            stats={
                "failing": best.result.failing,
                "covering": best.result.ran,
                "score": best.score,
                "attempts": len(session.outcome.tried),
                "valid_attempts": session.valid,
                "stop_reason": session.stop_reason,
            },
        )


@dataclass
class _Session:
    """One conversation: ask, validate and screen each submission, answer with feedback."""

    corruptor: LLMCorruptor
    source: str
    file: str
    qualname: str
    def_line: int
    tests: list[str]
    screener: Screener
    baseline: set[str]
    min_failing: int
    distance_to: DistanceTo | None
    outcome: CorruptionOutcome
    best: _Attempt | None = None
    valid: int = 0
    stop_reason: str = ""

    def run(self, messages: list[dict[str, Any]]) -> None:
        used = 0
        # Every request either consumes an attempt or ends the session, so this is bounded.
        while used < self.corruptor.attempts:
            message = self._ask(messages)
            if message is None:
                return
            calls = message.tool_calls or []
            if not calls:
                if self.best is not None:
                    return  # the model is done and we have something
                used += 1
                self.outcome.tried.append({"attempt": used, "outcome": "no tool call"})
                messages.append({"role": "assistant", "content": message.content or ""})
                messages.append(
                    {
                        "role": "user",
                        "content": "Please submit an attempt by calling submit_corruption "
                        "with the complete new function source.",
                    }
                )
                continue
            messages.append(
                {
                    "role": "assistant",
                    "content": message.content or "",
                    "tool_calls": [
                        {
                            "id": call.id,
                            "type": "function",
                            "function": {
                                "name": call.function.name,
                                "arguments": call.function.arguments,
                            },
                        }
                        for call in calls
                    ],
                }
            )
            for call in calls:
                if used >= self.corruptor.attempts:
                    feedback = "Attempt limit reached; this submission was not evaluated."
                else:
                    used += 1
                    feedback = self._attempt(used, call.function.name, call.function.arguments)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": feedback})

    def _ask(self, messages: list[dict[str, Any]]) -> Any:
        errors = self.corruptor._errors
        kwargs: dict[str, Any] = {
            "model": self.corruptor.model,
            "messages": messages,
            "tools": [TOOL],
        }
        try:
            response = self.corruptor._client.chat.completions.create(**kwargs)
        except errors.APITimeoutError:
            self.stop_reason = f"LLM request timed out after {self.corruptor.timeout:g}s"
        except errors.APIConnectionError:
            self.stop_reason = f"cannot reach the LLM endpoint at {self.corruptor.base_url}"
        except errors.RateLimitError:
            self.stop_reason = "LLM endpoint kept answering 429 (rate limited) after retries"
        except errors.APIStatusError as exc:
            body = exc.body if isinstance(exc.body, dict) else {}
            detail = str(body.get("message") or exc.message)
            self.stop_reason = f"LLM endpoint answered HTTP {exc.status_code}: {_short(detail)}"
        except errors.OpenAIError as exc:
            self.stop_reason = f"LLM request failed: {_short(str(exc))}"
        else:
            if response.choices and response.choices[0].message is not None:
                return response.choices[0].message
            self.stop_reason = "LLM endpoint returned a completion without a message"
        return None

    def _attempt(self, number: int, name: str, raw_args: str) -> str:
        entry: dict[str, Any] = {"attempt": number}
        self.outcome.tried.append(entry)
        if name != TOOL["function"]["name"]:
            entry.update(outcome="rejected", reason=f"unknown tool {name!r}")
            return f"Unknown tool {name!r}; call submit_corruption."
        try:
            args = json.loads(raw_args or "")
        except json.JSONDecodeError as exc:
            entry.update(outcome="rejected", reason=f"arguments are not JSON: {exc.msg}")
            return f"Your tool arguments are not valid JSON ({exc.msg}). Try again."
        source = args.get("function_source") if isinstance(args, dict) else None
        if not isinstance(source, str) or not source.strip():
            entry.update(outcome="rejected", reason="no function_source")
            return "The arguments must include function_source, the complete new function."
        try:
            corrupted = splice_function(self.source, self.qualname, self.def_line, source)
        except ValueError as exc:
            entry.update(outcome="rejected", reason=str(exc))
            return f"Rejected: {exc}."
        problems = corruption_problems(self.source, corrupted, self.qualname, self.def_line)
        if problems:
            entry.update(outcome="rejected", reason="; ".join(problems))
            return "Rejected without running tests: " + "; ".join(problems) + "."
        entry["lines"] = changed_lines(self.source, corrupted)
        self.outcome.screened += 1
        self.outcome.candidates += 1
        result = screen(self.screener, {self.file: corrupted}, self.tests, self.baseline, None)
        entry["failing"] = len(result.failing)
        if result.error or result.timed_out:
            entry.update(outcome="timeout" if result.timed_out else "screen error")
            return (
                "The tests did not finish (a hang or crash in the harness); avoid infinite loops."
            )
        report = _failures(result)
        if result.counted < self.min_failing:
            entry["outcome"] = "too few failing"
            return (
                f"{len(result.failing)} of {result.ran} tests fail; at least "
                f"{self.min_failing} must fail. Make the bug affect behaviour the tests check."
                + report
            )
        names = FrameNames(self.file, corrupted, self.qualname, self.def_line, self.source)
        score = subtlety(result, len(entry["lines"]), names, self.distance_to).score
        entry.update(outcome="valid", score=score)
        self.valid += 1
        if self.best is None or score < self.best.score:
            self.best = _Attempt(corrupted, result, names, score, args)
        return (
            f"Accepted: {len(result.failing)} of {result.ran} tests fail (subtlety score "
            f"{score:.3f}, lower is better). You may submit a subtler variant: fewer failing "
            "tests, wrong values rather than exceptions." + report
        )


def _failures(result: Screening) -> str:
    if not result.report or not result.failing:
        return ""
    lines = []
    for nodeid in result.failing[:MAX_FEEDBACK_FAILURES]:
        r = result.report.results[nodeid]
        lines.append(f"- {nodeid}: {r.exc_type or r.outcome}: {_short(r.message or '')}")
    more = len(result.failing) - MAX_FEEDBACK_FAILURES
    if more > 0:
        lines.append(f"- ... and {more} more")
    return "\nFailing tests:\n" + "\n".join(lines)


def _short(text: str, limit: int = 200) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:limit]


def _no_valid_reason(outcome: CorruptionOutcome) -> tuple[RejectionKind, str]:
    if not outcome.tried:
        return RejectionKind.NO_VALID_MUTANT, "the model made no attempt"
    reasons = sorted({t.get("reason") or t.get("outcome", "") for t in outcome.tried})
    detail = f"no valid attempt in {len(outcome.tried)}: " + "; ".join(reasons)[:300]
    if outcome.screened:  # some attempts ran, none failed enough tests
        return RejectionKind.NO_SURVIVOR, detail
    return RejectionKind.NO_VALID_MUTANT, detail
