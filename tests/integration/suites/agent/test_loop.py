"""The agent loop on exact scripted transcripts (the tests run in the real sandbox)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from specverdict.engines.client import StreamedResponse
from specverdict.sandbox import Sandbox
from specverdict.suites.agent import AgentTasks, Episode
from specverdict.suites.agent.loop import PARSE_ERROR_MESSAGE
from specverdict.suites.agent.suite import SYSTEM_PROMPT
from specverdict.suites.agent.workspace import TOOLS
from tests.integration.suites.agent.conftest import Script, answer, call

BUGGY = (
    "def sum_to(n):\n    total = 0\n    for i in range(n):\n        total += i\n    return total\n"
)
FIXED = BUGGY.replace("range(n)", "range(n + 1)")
INSTRUCTION = "The tests fail: sum_to(n) in mathx.py must return 1 + 2 + ... + n. Fix it."


@pytest.fixture(scope="module")
def suite(sandbox: Sandbox) -> AgentTasks:
    return AgentTasks(sandbox=sandbox, max_turns=6)


def play(suite: AgentTasks, script: Script, task: str = "sum-to") -> tuple[Episode, Any]:
    sample = next(s for s in suite.samples() if s.id == task)
    episode = asyncio.run(suite.run_episode(sample, script))
    return episode, suite.score_episode(sample, episode)


def detail(score: Any) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(score.detail)
    return out


def test_completion_exact_transcript(suite: AgentTasks) -> None:
    read = call("read_file", {"path": "mathx.py"})
    write = call("write_file", {"path": "mathx.py", "content": FIXED})
    tests = call("run_tests", {})
    script = Script(
        [
            answer("Let me look.", [read]),
            answer("", [write]),
            answer("", [tests]),
            answer("Fixed the range."),
        ]
    )
    episode, score = play(suite, script)
    system = {"role": "system", "content": SYSTEM_PROMPT}
    user = {"role": "user", "content": INSTRUCTION}
    assert script.sent[0] == [system, user]
    assert script.tools[0] == [dict(t) for t in TOOLS]
    assert script.sent[3] == [
        system,
        user,
        {
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [
                {
                    "id": "id-read_file-0",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "mathx.py"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "id-read_file-0", "content": BUGGY},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "id-write_file-0", "type": "function", "function": write["function"]}
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "id-write_file-0",
            "content": f"wrote {len(FIXED)} characters to mathx.py",
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "id-run_tests-0", "type": "function", "function": tests["function"]}
            ],
        },
        {"role": "tool", "tool_call_id": "id-run_tests-0", "content": "2 passed, 0 failed"},
    ]
    assert len(script.sent) == 4
    assert episode.end == "answered" and episode.completed
    assert episode.changed == {"mathx.py": FIXED}
    assert (score.passed, score.outcome) == (True, "passed")
    d = detail(score)
    assert d["finish_reasons"] == {"stop": 1, "tool_calls": 3}
    assert d["trajectory_recall"] == 1.0 and d["first_call_matches"] is True
    assert d["parse_failures"] == d["invalid_arguments"] == d["tool_errors"] == 0
    assert d["off_reference"] == 0 and d["loop"] is None and d["turns"] == 4


def test_parse_failures_are_classified_and_reported_to_the_model(suite: AgentTasks) -> None:
    script = Script(
        [
            answer('<tool_call>{"name": "read_file", "arguments": {"path": '),
            answer("", [call("read_file", '{"path": "mathx.py"')]),
            answer("", [call("", {"path": "mathx.py"})]),
            answer("I give up."),
        ]
    )
    episode, score = play(suite, script)
    assert script.sent[1][-2:] == [
        {"role": "assistant", "content": '<tool_call>{"name": "read_file", "arguments": {"path": '},
        {"role": "user", "content": PARSE_ERROR_MESSAGE},
    ]
    assert script.sent[2][-1] == {
        "role": "tool",
        "tool_call_id": "id-read_file-0",
        "content": "error: the arguments are not valid JSON",
    }
    assert script.sent[3][-1]["content"] == "error: the call has no function name"
    assert [c.detail for c in episode.calls] == ["unparsed_text", "bad_json", "no_name"]
    assert (score.passed, score.outcome) == (False, "parse_failure")
    assert detail(score)["parse_failures"] == 3


def test_invalid_arguments_are_checked_against_the_schema(suite: AgentTasks) -> None:
    script = Script(
        [
            answer("", [call("read_file", {"file": "mathx.py"})]),
            answer("", [call("write_file", {"path": "mathx.py", "content": 3})]),
            answer("Done."),
        ]
    )
    episode, score = play(suite, script)
    assert script.sent[1][-1]["content"] == (
        "error: invalid arguments: $: missing required property 'path'; $: unknown property 'file'"
    )
    assert script.sent[2][-1]["content"] == (
        "error: invalid arguments: $.content: expected string, got integer"
    )
    assert episode.changed == {}
    assert (score.passed, score.outcome) == (False, "invalid_arguments")
    assert detail(score)["invalid_arguments"] == 2


def test_the_same_call_three_times_is_a_loop(suite: AgentTasks) -> None:
    read = call("read_file", {"path": "mathx.py"})
    script = Script([answer("", [read]) for _ in range(3)] + [answer("never asked")])
    episode, score = play(suite, script)
    assert len(script.sent) == 3
    assert episode.end == "loop" and episode.metrics.loop == "repeat"
    assert (score.passed, score.outcome) == (False, "loop")


def test_repeats_after_an_edit_are_not_a_loop(suite: AgentTasks) -> None:
    tests = call("run_tests", {})
    write = call("write_file", {"path": "mathx.py", "content": FIXED})
    script = Script(
        [
            answer("", [tests]),
            answer("", [tests]),
            answer("", [write]),
            answer("", [tests]),
            answer("All green."),
        ]
    )
    episode, score = play(suite, script)
    assert script.sent[1][-1]["content"].startswith("1 passed, 1 failed\n")
    assert script.sent[4][-1]["content"] == "2 passed, 0 failed"
    assert episode.end == "answered" and episode.metrics.loop is None
    assert score.outcome == "passed"


def test_recovery_after_a_tool_error(suite: AgentTasks) -> None:
    script = Script(
        [
            answer("", [call("read_file", {"path": "math.py"})]),
            answer("", [call("write_file", {"path": "../mathx.py", "content": FIXED})]),
            answer("", [call("write_file", {"path": "tests/test_sum_to.py", "content": ""})]),
            answer("", [call("read_file", {"path": "mathx.py"})]),
            answer("", [call("write_file", {"path": "mathx.py", "content": FIXED})]),
            answer("Fixed."),
        ]
    )
    _, score = play(suite, script)
    assert script.sent[1][-1]["content"] == "error: math.py does not exist"
    assert script.sent[2][-1]["content"] == (
        "error: '../mathx.py' is not a file path inside the workspace"
    )
    assert (
        script.sent[3][-1]["content"]
        == "error: tests/test_sum_to.py is a test file and is read-only"
    )
    d = detail(score)
    assert (d["tool_errors"], d["recovered"]) == (3, 3)
    # the two refused writes target files the reference never writes
    assert d["first_call_matches"] is True and d["off_reference"] == 2
    assert (score.passed, score.outcome) == (True, "passed")


def test_turn_limit(suite: AgentTasks) -> None:
    script = Script(
        [
            answer("", [call("list_dir", {})]),
            answer("", [call("search", {"text": "sum"})]),
            answer("", [call("search", {"text": "range"})]),
            answer("", [call("list_dir", {"path": "tests"})]),
            answer("", [call("read_file", {"path": "tests/test_sum_to.py"})]),
            answer("", [call("search", {"text": "total"})]),
        ]
    )
    episode, score = play(suite, script)
    assert len(script.sent) == 6
    assert script.sent[1][-1]["content"] == "mathx.py\ntests/"
    assert script.sent[2][-1]["content"] == (
        "mathx.py:1: def sum_to(n):\ntests/test_sum_to.py:1: from mathx import sum_to\n"
        "tests/test_sum_to.py:5: assert sum_to(3) == 6\ntests/test_sum_to.py:9: assert sum_to(0) == 0"
    )
    assert episode.end == "turn_limit"
    assert (score.passed, score.outcome) == (False, "turn_limit")
    d = detail(score)
    assert d["loop"] == "turn_limit" and d["off_reference"] == 5
    assert d["first_call_matches"] is False and d["trajectory_recall"] == 0.0


def test_unknown_tool_wrong_file_and_parallel_calls(suite: AgentTasks) -> None:
    script = Script(
        [
            answer(
                "",
                [
                    call("open_file", {"path": "mathx.py"}, 0),
                    call("write_file", {"path": "notes.txt", "content": "x"}, 1),
                ],
            ),
            answer("Done."),
        ]
    )
    episode, score = play(suite, script)
    assert [m["role"] for m in script.sent[1][-3:]] == ["assistant", "tool", "tool"]
    assert script.sent[1][-2]["content"].startswith("error: there is no tool 'open_file'")
    d = detail(score)
    assert (d["unknown_tools"], d["off_reference"], d["recovered"]) == (1, 2, 1)
    assert score.outcome == "tests_failed" and episode.changed == {"notes.txt": "x"}


def test_a_failed_request_ends_the_episode(suite: AgentTasks) -> None:
    script = Script([StreamedResponse("error", error="HTTP 500: boom"), answer("unused")])
    episode, score = play(suite, script)
    assert len(script.sent) == 1 and episode.end == "request_error"
    assert (score.passed, score.outcome) == (False, "request_error")


def test_a_truncated_answer_without_calls_ends_as_length(suite: AgentTasks) -> None:
    episode, score = play(suite, Script([answer("I will now", finish_reason="length")]))
    assert episode.end == "length" and score.outcome == "no_edit"
    assert detail(score)["finish_reasons"] == {"length": 1}


VLLM_OVERFLOW = (
    'HTTP 400: {"error":{"message":"This model\'s maximum context length is 1024 tokens. '
    "However, your prompt contains 1042 input tokens, which exceeds this limit even without any "
    'output tokens.","type":"BadRequestError","param":"input_tokens","code":400}}'
)


def test_a_conversation_that_outgrows_the_context_ends_the_episode_and_is_scored(
    suite: AgentTasks,
) -> None:
    """The server refusing the next turn because the conversation no longer fits is an end of
    the episode, not a failed request: the workspace as the model left it is tested, and the
    stored record is an answered sample (neither retried nor left out of quality)."""
    from specverdict.run.episodes import episode_record

    fixed = call("write_file", {"path": "mathx.py", "content": FIXED})
    script = Script(
        [answer(calls=[fixed]), StreamedResponse("error", error=VLLM_OVERFLOW), answer("unused")]
    )
    episode, score = play(suite, script)
    assert len(script.sent) == 2 and episode.end == "context"
    assert (score.passed, score.outcome) == (True, "passed")
    record = episode_record("r", suite.samples()[0], episode, score, lambda extras: None)
    assert record.status == "ok" and record.error is None
    assert record.extra.episode is not None and record.extra.episode.end == "context"
    unfixed = Script(
        [
            answer(calls=[call("read_file", {"path": "mathx.py"})]),
            StreamedResponse("error", error=VLLM_OVERFLOW),
        ]
    )
    episode, score = play(suite, unfixed)
    assert (score.passed, score.outcome) == (False, "context_overflow")
    # any other refusal stays a failed request
    other = Script([StreamedResponse("error", error='HTTP 400: {"error": "bad temperature"}')])
    assert play(suite, other)[0].end == "request_error"


@pytest.mark.parametrize(
    ("error", "overflow"),
    [
        (VLLM_OVERFLOW, True),
        ("HTTP 400: the request exceeds the available context size, try increasing it", True),
        ('HTTP 400: {"type": "exceed_context_size_error", "n_prompt_tokens": 5000}', True),
        (
            "HTTP 400: The input (5000 tokens) is longer than the model's context length (4096)",
            True,
        ),
        ("HTTP 500: This model's maximum context length is 1024 tokens", False),
        ("HTTP 400: temperature must be >= 0", False),
        (None, False),
    ],
)
def test_context_overflow_is_read_from_what_engines_answer(
    error: str | None, overflow: bool
) -> None:
    from specverdict.records.failures import context_overflow

    assert context_overflow(error) is overflow
