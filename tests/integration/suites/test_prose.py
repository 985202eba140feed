"""``prose@1``: its prompts, its finish-reason scoring, and a run against the reference engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.model import First, Ids, Seeded
from specverdict.records import SampleRecord
from specverdict.run.runner import Runner
from specverdict.store import SQLiteStore
from specverdict.suites.base import Suite
from specverdict.suites.prose import Prose, read_prose_detail, score_answer
from tests.conftest import campaign_yaml

KINDS = {"explain", "summarize", "email", "story", "instruct"}


def record(sample_id: str, text: str, finish: str | None, tokens: int | None = 7) -> SampleRecord:
    return SampleRecord(
        run_id="r",
        sample_id=sample_id,
        status="ok",
        text=text,
        finish_reason=finish,
        completion_tokens=tokens,
    )


def test_the_suite_has_at_least_50_distinct_non_code_chat_prompts_of_five_kinds() -> None:
    samples = Prose().samples()
    assert len(samples) >= 50
    assert len({s.id for s in samples}) == len(samples)
    assert all(s.endpoint == "chat" and s.task_id == s.id and not s.stop for s in samples)
    prompts = [s.messages[0]["content"] for s in samples if s.messages]
    assert len(set(prompts)) == len(samples)
    assert not any("```" in p or "def " in p or "python" in p.lower() for p in prompts)
    assert {s.id.split("/")[1].rsplit("-", 1)[0] for s in samples} == KINDS
    # varied lengths: paragraphs to summarize next to one-line requests
    assert min(map(len, prompts)) < 100 and max(map(len, prompts)) > 500
    suite = Prose()
    assert (suite.name, suite.version, suite.stage) == ("prose", 1, "prose")
    assert "Apache-2.0" in suite.licence and suite.source


def test_samples_are_selectable_by_first_n_ids_and_seeded_subset() -> None:
    suite = Prose()
    assert [s.id for s in suite.select(First(first=3))] == [
        "prose/explain-0",
        "prose/explain-1",
        "prose/explain-2",
    ]
    assert [s.id for s in suite.select(Ids(ids=["prose/story-2", "prose/email-0"]))] == [
        "prose/story-2",
        "prose/email-0",
    ]
    seeded = suite.select(Seeded(seeded=5, seed=3))
    assert len(seeded) == 5 and seeded == suite.select(Seeded(seeded=5, seed=3))
    assert seeded != suite.select(Seeded(seeded=5, seed=4))
    with pytest.raises(ValueError, match="no samples"):
        suite.select(Ids(ids=["prose/poem-0"]))


def test_finished_non_empty_answers_score_100_percent_with_their_length() -> None:
    suite = Prose()
    samples = suite.samples()[:3]
    texts = ["The sky scatters blue light.", "Dear Sam,\n\nThursday works.\n\nBest,\nAna", "Ok"]
    scores = suite.score_records(
        [(s, record(s.id, t, "stop")) for s, t in zip(samples, texts, strict=True)]
    )
    assert [s.passed if s else None for s in scores] == [True, True, True]
    assert {s.outcome for s in scores if s} == {"completed"}
    detail = read_prose_detail(scores[1])  # type: ignore[arg-type]
    assert detail is not None
    assert (detail.kind, detail.finish_reason) == ("explain", "stop")
    assert (detail.chars, detail.words, detail.lines) == (len(texts[1]), 6, 6)
    assert detail.completion_tokens == 7


@pytest.mark.parametrize(
    ("text", "finish", "outcome"),
    [
        ("An answer cut off in the mid", "length", "truncated"),
        ("", "stop", "empty"),
        ("  \n\t", "stop", "empty"),
        ("", "length", "empty"),
        ("An answer", None, "unfinished"),
        ("An answer", "tool_calls", "unfinished"),
    ],
)
def test_truncated_empty_and_unfinished_answers_score_0_percent(
    text: str, finish: str | None, outcome: str
) -> None:
    score = score_answer(text, finish, None, "email")
    assert (score.passed, score.outcome) == (False, outcome)
    detail = json.loads(score.detail or "")
    assert detail["finish_reason"] == finish and detail["chars"] == len(text)
    assert detail["completion_tokens"] is None


def test_text_alone_gives_no_judgement() -> None:
    """Without the finish reason a truncated answer looks finished: no quality signal."""
    suite = Prose()
    assert suite.score(suite.samples()[0], "A perfectly fine answer.", []) is None


CAMPAIGN = campaign_yaml("prose-e2e", stage="prose", max_tokens=12)


def test_the_suite_runs_end_to_end_against_the_reference_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = Prose()
    monkeypatch.setattr("specverdict.run.runner.suite_for", lambda spec: suite)
    plan = build_plan(parse_campaign(CAMPAIGN, Path("prose.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    runs = [Runner(store, log=lambda _: None).run_one(plan, spec, 0) for spec in plan.runs]
    assert [r.stage for r in plan.runs] == ["prose", "prose"]
    assert [r.status for r in runs] == ["completed", "completed"]
    by_id = {s.id: s for s in suite.samples()}
    for run in runs:
        stored = store.samples(run.run_id)
        assert sorted(s.sample_id for s in stored) == sorted(list(by_id)[:4])
        scores = suite.score_records([(by_id[s.sample_id], s) for s in stored])
        for s, score in zip(stored, scores, strict=True):
            assert score is not None and s.status == "ok"
            assert score.passed == (s.finish_reason == "stop" and bool(s.text.strip()))
            detail = read_prose_detail(score)
            assert detail is not None and detail.chars == len(s.text)
            assert detail.completion_tokens == s.completion_tokens
        # 12 tokens are too few for the reference model to finish any of these answers
        assert {s.outcome for s in scores if s} == {"truncated"}
        if "score_records" in vars(Suite):  # the runner judges stored samples itself
            assert [s.score for s in stored] == scores
