"""Multi-turn rows asked as the dataset says (``replay``): the first turn, each turn after the
recorded replies, or each turn after the model's own answers as one sample, an episode; the
choice is run identity, and an own-answer conversation runs on the reference engine with the
second turn's context holding the first answer."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.engines.client import StreamedResponse
from specverdict.errors import ConfigError
from specverdict.run.runner import Runner
from specverdict.store import SQLiteStore
from specverdict.suites import suite_for
from specverdict.suites.custom import FileSuite, load_rows

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "importers"

CAMPAIGN = """\
name: replay
engine: {{kind: reference}}
model: {{family: specverdict-reference, served_name: reference-target}}
quantization: fp32
candidates: [{{method: mtp, k: 2}}]
stages:
  side:chat: {{dataset: {{path: {path}, format: {fmt}{extra}}}}}
sampling: {{temperature: 0.0, max_tokens: 12, seed: 0}}
load: {{concurrency: [2], warmup: 1}}
"""

CHATS = [
    {
        "id": "two",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Name a colour."},
            {"role": "assistant", "content": "Blue."},
            {"role": "user", "content": "And another one?"},
        ],
        "reference": "red",
    },
    {"id": "one", "messages": [{"role": "user", "content": "Say hi."}], "reference": "hi"},
]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "chats.jsonl").write_text("".join(json.dumps(r) + "\n" for r in CHATS))
    for name in ("sharegpt.json", "spec-bench.jsonl", "speed-bench.jsonl"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    return tmp_path


def plan(work: Path, path: str, fmt: str, replay: str | None = None, scorer: str = ""):  # type: ignore[no-untyped-def]
    extra = (f", replay: {replay}" if replay else "") + scorer
    text = CAMPAIGN.format(path=path, fmt=fmt, extra=extra)
    return build_plan(parse_campaign(text, work / "c.yaml"))


def roles(suite: FileSuite, sid: str) -> list[str]:
    return [m.role for m in suite.rows[sid].messages or ()]


def test_chat_rows_are_asked_as_the_replay_says(work: Path) -> None:
    path = work / "chats.jsonl"
    as_written = dict(load_rows(path, "chat"))
    assert [m.role for m in as_written["two"].messages or ()] == [
        "system",
        "user",
        "assistant",
        "user",
    ]
    first = dict(load_rows(path, "chat", replay="first"))
    assert [(m.role, m.content) for m in first["two"].messages or ()] == [
        ("system", "Be brief."),
        ("user", "Name a colour."),
    ]
    recorded = dict(load_rows(path, "chat", replay="recorded"))
    assert list(recorded) == ["two/1", "two/2", "one/1"]
    assert [m.content for m in recorded["two/2"].messages or ()][-2:] == [
        "Blue.",
        "And another one?",
    ]
    own = dict(load_rows(path, "chat", replay="own"))
    assert list(own) == ["two", "one"] and len(own["two"].messages or ()) == 4


def test_imported_conversations_are_whole_for_own_answers() -> None:
    spec = dict(load_rows(FIXTURES / "spec-bench.jsonl", "spec-bench", replay="own"))
    assert [m.content for m in spec["81"].messages or ()] == [
        "Write a short note inviting your neighbours to a street picnic.",
        "Now rewrite it as a four-line rhyme.",
    ]
    share = dict(load_rows(FIXTURES / "sharegpt.json", "sharegpt", replay="own"))
    assert [m.role for m in share["Zp04mRt_0"].messages or ()] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    recorded = load_rows(FIXTURES / "sharegpt.json", "sharegpt", replay="recorded")
    assert recorded == load_rows(FIXTURES / "sharegpt.json", "sharegpt-recorded")
    speed = dict(load_rows(FIXTURES / "speed-bench.jsonl", "speed-bench", replay="own"))
    first = dict(load_rows(FIXTURES / "speed-bench.jsonl", "speed-bench"))
    assert any(len(r.messages or ()) > 1 for r in speed.values())
    assert all(len(r.messages or ()) == 1 for r in first.values())


def test_a_row_with_tool_messages_cannot_be_replayed_with_own_answers(tmp_path: Path) -> None:
    path = tmp_path / "tools.jsonl"
    row = {
        "messages": [
            {"role": "user", "content": "x"},
            {"role": "tool", "content": "{}", "tool_call_id": "c1"},
        ]
    }
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(ConfigError, match=r"tools.jsonl:1: field messages\[1\]: replay own"):
        load_rows(path, "chat", replay="own")


@pytest.mark.parametrize(
    ("fmt", "replay", "expected"),
    [
        ("spec-bench", "recorded", "holds no recorded replies"),
        ("completions", "own", "not completions"),
        ("sharegpt-recorded", "own", "not sharegpt-recorded"),
    ],
)
def test_a_replay_the_format_cannot_give_is_refused(
    work: Path, fmt: str, replay: str, expected: str
) -> None:
    with pytest.raises(ConfigError, match=expected):
        plan(work, "spec-bench.jsonl", fmt, replay)


def test_the_replay_is_run_identity(work: Path) -> None:
    def prints(path: str, fmt: str, replay: str | None = None) -> set[str]:
        return {r.fingerprint for r in plan(work, path, fmt, replay).runs}

    chats = [prints("chats.jsonl", "chat", r) for r in (None, "first", "own", "recorded")]
    assert all(a.isdisjoint(b) for i, a in enumerate(chats) for b in chats[i + 1 :])
    # one way of asking, one identity: an importer's default, ShareGPT's recorded format
    assert prints("spec-bench.jsonl", "spec-bench", "first") == prints(
        "spec-bench.jsonl", "spec-bench"
    )
    assert prints("sharegpt.json", "sharegpt", "recorded") == prints(
        "sharegpt.json", "sharegpt-recorded"
    )
    assert prints("spec-bench.jsonl", "spec-bench", "own").isdisjoint(
        prints("spec-bench.jsonl", "spec-bench")
    )
    assert all(
        r.dataset and r.dataset.replay == "own"
        for r in plan(work, "chats.jsonl", "chat", "own").runs
    )


def test_own_answers_take_the_place_of_the_recorded_replies(work: Path) -> None:
    spec = plan(work, "chats.jsonl", "chat", "own", ", scorer: {reference: normalized}").runs[0]
    suite = suite_for(spec)
    assert isinstance(suite, FileSuite)
    replay = suite.episodic()
    assert replay is not None
    sent: list[list[dict[str, Any]]] = []

    async def chat(
        messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> StreamedResponse:
        sent.append(messages)
        return StreamedResponse(status="ok", text=f"answer {len(sent)} red", e2e_s=0.1)

    sample = next(s for s in suite.samples() if s.id == "two")
    # the sample's own messages are its first request (what a warm-up sends)
    assert [m["content"] for m in sample.messages or ()] == ["Be brief.", "Name a colour."]
    episode = asyncio.run(replay.run_episode(sample, chat))
    assert [[m["content"] for m in msgs] for msgs in sent] == [
        ["Be brief.", "Name a colour."],
        ["Be brief.", "Name a colour.", "answer 1 red", "And another one?"],
    ]
    score = replay.score_episode(sample, episode)  # the last answer, by the dataset's scorer
    assert score is not None and score.passed is False  # "answer 2 red" is not "red"

    async def refused(
        messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> StreamedResponse:
        return StreamedResponse(status="error", error="HTTP 500")

    failed = asyncio.run(replay.run_episode(sample, refused))
    assert failed.end == "request_error" and len(failed.responses) == 1
    assert replay.score_episode(sample, failed) is None


def test_own_answer_conversations_run_on_the_reference_engine(work: Path) -> None:
    built = plan(work, "spec-bench.jsonl", "spec-bench", "own")
    store = SQLiteStore(work / "runs.db")
    runner = Runner(store, log=lambda _: None)
    done = [runner.run_one(built, spec, 0) for spec in built.runs]
    assert [r.status for r in done] == ["completed"] * 2
    for record in done:
        samples = {s.sample_id: s for s in store.samples(record.run_id)}
        assert set(samples) == {"81", "161", "401", "481"}  # one sample a conversation
        two = samples["81"]
        assert two.extra.episode is not None
        turns = two.extra.episode.turn_timings
        assert two.status == "ok" and len(turns) == 2
        first, second = turns
        # the second turn's context holds the first turn's prompt and the model's answer
        assert second.prompt_tokens > first.prompt_tokens + first.completion_tokens
        # the sample's figures are the turns' sums, its stream the turns laid end to end
        assert two.completion_tokens == first.completion_tokens + second.completion_tokens
        assert two.prompt_tokens == first.prompt_tokens + second.prompt_tokens
        assert two.e2e_s is not None and two.e2e_s >= first.e2e_s + second.e2e_s - 1e-9
        one = samples["161"].extra.episode
        assert one is not None and len(one.turn_timings) == 1
        if record.spec.speculation.method != "none":
            assert two.acceptance is not None and two.acceptance["num_draft_tokens"] > 0
