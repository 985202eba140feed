"""The agent stage's parts: schema checks, call decoding, path confinement, episode records."""

from __future__ import annotations

from typing import Any

import pytest

from specverdict.engines.client import StreamedResponse
from specverdict.run.episodes import episode_record, sum_acceptance
from specverdict.suites.agent.calls import decode_calls, merge_deltas, unparsed_call_text
from specverdict.suites.agent.loop import Episode
from specverdict.suites.agent.schema import validate
from specverdict.suites.agent.workspace import SCHEMAS, Workspace, confine
from specverdict.suites.base import Sample
from tests.integration.suites.agent.conftest import answer, call


def test_schema_subset() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 1},
            "unit": {"type": "string", "enum": ["m", "km"]},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["n"],
        "additionalProperties": False,
    }
    assert validate({"n": 2, "unit": "km", "tags": ["a"]}, schema) == []
    assert validate({"n": 2.0}, schema) == []  # a whole float is an integer
    assert validate({"n": True}, schema) == ["$.n: expected integer, got boolean"]
    assert validate({"n": 0, "unit": "mi", "tags": [1], "x": 1}, schema) == [
        "$.n: 0 is below the minimum 1",
        "$.unit: 'mi' is not one of ['m', 'km']",
        "$.tags[0]: expected string, got integer",
        "$: unknown property 'x'",
    ]
    assert validate([], schema) == ["$: expected object, got array"]
    assert validate({"text": ""}, SCHEMAS["search"]) == ["$.text: shorter than 1 characters"]


def test_streamed_deltas_merge_into_calls() -> None:
    # vLLM streams a call as a first delta with index, id and name, then argument fragments
    # (vllm/entrypoints/openai/protocol.py DeltaToolCall: index, id, type, function{name,
    # arguments}); two calls in parallel carry indexes 0 and 1.
    deltas: list[dict[str, Any]] = [
        {
            "index": 0,
            "id": "a",
            "type": "function",
            "function": {"name": "read_file", "arguments": ""},
        },
        {"index": 0, "function": {"arguments": '{"path": '}},
        {"index": 1, "id": "b", "type": "function", "function": {"name": "run_tests"}},
        {"index": 0, "function": {"arguments": '"x.py"}'}},
    ]
    assert merge_deltas(deltas) == [
        {"id": "a", "name": "read_file", "arguments": '{"path": "x.py"}'},
        {"id": "b", "name": "run_tests", "arguments": ""},
    ]
    calls = decode_calls(deltas)
    assert [(c.name, c.args, c.error) for c in calls] == [
        ("read_file", {"path": "x.py"}, None),
        ("run_tests", {}, None),
    ]
    bad = decode_calls([call("x", "[1]"), call("y", "{oops", 1)])
    assert [c.error for c in bad] == ["not_object", "bad_json"]
    assert unparsed_call_text("sure <tool_call>{") and not unparsed_call_text("plain answer")


@pytest.mark.parametrize(
    ("path", "where"),
    [
        ("a/b.py", "a/b.py"),
        ("./a//b.py", "a/b.py"),
        (".", ""),
        ("../x", None),
        ("/etc/passwd", None),
        ("a/../../x", None),
        ("a\\b", None),
        ("a\0b", None),
    ],
)
def test_paths_are_confined(path: str, where: str | None) -> None:
    assert confine(path) == where


def test_workspace_tools() -> None:
    ws = Workspace(
        {"pkg/a.py": "x = 1\n", "tests/test_a.py": "t\n"}, frozenset({"tests/test_a.py"})
    )
    assert ws.list_dir().text == "pkg/\ntests/"
    assert not ws.read_file("pkg").ok and ws.read_file("pkg").text == "error: pkg is a directory"
    assert not ws.write_file("pkg", "x").ok
    assert ws.write_file("pkg/a.py", "x = 1\n").ok and ws.revision == 0  # unchanged content
    assert ws.write_file("pkg/b.py", "y = 2\n").ok and ws.revision == 1
    assert ws.search("= ", "pkg").text == "pkg/a.py:1: x = 1\npkg/b.py:1: y = 2"
    assert ws.changed({"pkg/a.py": "x = 1\n", "tests/test_a.py": "t\n"}) == {"pkg/b.py": "y = 2\n"}


def _acc(draft: int, accepted: int, steps: int, hist: list[int]) -> dict[str, Any]:
    return {
        "num_draft_tokens": draft,
        "num_accepted_draft_tokens": accepted,
        "num_spec_steps": steps,
        "acceptance_histogram": hist,
        "raw": {},
    }


def test_episode_record_timings_tokens_and_acceptance() -> None:
    first = answer(
        "hi",
        [call("run_tests", {})],
        ttft_s=0.2,
        e2e_s=0.5,
        chunk_arrivals_s=(0.2, 0.5),
        done_s=0.6,
        completion_tokens=4,
        prompt_tokens=30,
        extras={"acc": _acc(4, 2, 2, [1, 0, 1])},
    )
    second = answer(
        "done",
        ttft_s=0.1,
        e2e_s=0.3,
        chunk_arrivals_s=(0.1, 0.3),
        done_s=0.4,
        completion_tokens=3,
        prompt_tokens=50,
        extras={"acc": _acc(2, 1, 1, [0, 1])},
    )
    episode = Episode(responses=[first, second])
    record = episode_record(
        "r1",
        Sample(id="s", endpoint="chat"),
        episode,
        None,
        lambda extras: extras.get("acc"),
        wall_s=2.0,
    )
    assert record.ttft_s == 0.2
    assert record.chunk_arrivals_s == pytest.approx((0.2, 0.5, 0.7, 0.9))
    assert record.e2e_s == pytest.approx(0.9)
    assert (record.prompt_tokens, record.completion_tokens) == (80, 7)
    assert record.finish_reason == "stop" and record.status == "ok"
    assert record.text == 'hi\n<call>{"name": "run_tests", "arguments": "{}"}</call>\n\ndone'
    assert record.acceptance is not None
    assert (
        record.acceptance["num_draft_tokens"],
        record.acceptance["num_accepted_draft_tokens"],
    ) == (6, 3)
    assert record.acceptance["num_spec_steps"] == 3
    assert record.acceptance["acceptance_histogram"] == [1, 1, 1]
    assert record.extra.episode is not None
    turns = record.extra.episode.turn_timings
    assert [t.ttft_s for t in turns] == [0.2, 0.1] and record.extra.episode.wall_s == 2.0
    assert record.extra.tool_calls == (
        {"id": "id-run_tests-0", "name": "run_tests", "arguments": "{}"},
    )


def test_episode_record_of_a_failed_turn() -> None:
    episode = Episode(responses=[answer("x"), StreamedResponse("timeout", error="timed out")])
    record = episode_record("r", Sample(id="s", endpoint="chat"), episode, None, lambda e: None)
    assert (record.status, record.error) == ("timeout", "timed out")
    assert sum_acceptance([None]) is None and sum_acceptance([]) is None


def test_an_episode_keeps_each_turns_per_step_arrays_in_its_raw_and_joins_none() -> None:
    # a turn's output positions start again at its first token: the arrays are not joined
    first = {**_acc(4, 2, 2, [1, 0, 1]), "per_step_accepted": [0, 2], "per_step_drafted": [2, 2]}
    second = _acc(2, 1, 1, [0, 1])
    total = sum_acceptance([first, second])
    assert total is not None
    assert "per_step_accepted" not in total and "per_step_drafted" not in total
    assert total["raw"] == {
        "turns": [{"per_step_accepted": [0, 2], "per_step_drafted": [2, 2]}, {}]
    }
    assert (total["num_draft_tokens"], total["num_accepted_draft_tokens"]) == (6, 3)
