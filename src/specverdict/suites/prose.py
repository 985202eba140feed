"""``prose@1``: the prose stage, non-code chat requests scored by how the answer ended.

What it measures: 52 requests for explanations, summaries of a paragraph given in the prompt,
e-mails, stories and step-by-step instructions (``prose_data``), sent to the chat endpoint. A
speculative setting's acceptance on prose is measured on these samples and reported as the
``prose`` stage, next to the code stages but never pooled with them: drafters trained on code
often accept less on prose, and the other way round.

Scoring: an answer passes when it finished with ``stop`` (the model ended it within
``max_tokens``) and holds visible text. Outcome classes: ``completed``; ``truncated`` (finish
reason ``length``: the answer hit ``max_tokens``); ``empty`` (no visible text, whatever the finish
reason); ``unfinished`` (no finish reason, or another one such as ``tool_calls``). The detail
records the finish reason and the answer's length in characters, words and lines, since
acceptance often changes with output length. Whether an answer is *identical* to the baseline's
under greedy decoding is not the suite's business: the verdict layer compares each run's texts
with its baseline's, pairwise, for every stage.

The finish reason is part of the stored sample, not of the text: ``score_records`` judges
stored samples. ``score`` (text only) returns None, i.e. no quality signal, because the text
alone cannot tell a finished answer from a truncated one.

Source: written for specverdict. Licence: Apache-2.0, as specverdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from specverdict.records import SampleRecord, Score
from specverdict.suites.base import Sample, Suite
from specverdict.suites.dataset import DataDir
from specverdict.suites.prose_data import DATA, prompts


class ProseDetail(BaseModel):
    """What ``Score.detail`` of a prose answer holds (as JSON)."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    finish_reason: str | None
    chars: int
    words: int
    lines: int
    completion_tokens: int | None = None


def read_prose_detail(score: Score) -> ProseDetail | None:
    """The structured detail of a prose score (None for other scores)."""
    if score.detail is None:
        return None
    try:
        return ProseDetail.model_validate_json(score.detail)
    except ValueError:
        return None


def prose_outcome(text: str, finish_reason: str | None) -> str:
    """The outcome class of an answer (see the module docstring)."""
    if not text.strip():
        return "empty"
    if finish_reason == "stop":
        return "completed"
    if finish_reason == "length":
        return "truncated"
    return "unfinished"


def score_answer(
    text: str,
    finish_reason: str | None,
    completion_tokens: int | None = None,
    kind: str = "",
) -> Score:
    """Judge one answer by how it ended and how long it is."""
    outcome = prose_outcome(text, finish_reason)
    detail = ProseDetail(
        kind=kind,
        finish_reason=finish_reason,
        chars=len(text),
        words=len(text.split()),
        lines=len(text.splitlines()),
        completion_tokens=completion_tokens,
    )
    return Score(
        passed=outcome == "completed",
        outcome=outcome,
        detail=detail.model_dump_json(),
    )


def _kind(sample_id: str) -> str:
    """``prose/email-3`` -> ``email``."""
    return sample_id.rsplit("/", 1)[-1].rsplit("-", 1)[0]


class Prose(Suite):
    name = "prose"
    version = 1
    stage = "prose"
    source = "written for specverdict (specverdict.suites.prose_data)"
    licence = "Apache-2.0, as specverdict"
    data_dir: ClassVar[DataDir | None] = DATA
    #: rules on the text, its finish reason and its length
    pure_scoring: ClassVar[bool] = True

    def samples(self) -> list[Sample]:
        return [
            Sample(
                id=p.id,
                endpoint="chat",
                messages=({"role": "user", "content": p.prompt},),
                task_id=p.id,
            )
            for p in prompts()
        ]

    def score(
        self, sample: Sample, text: str, tool_calls: Sequence[dict[str, Any]]
    ) -> Score | None:
        """No judgement from the text alone: the finish reason decides (``score_records``)."""
        return None

    def score_records(self, items: Sequence[tuple[Sample, SampleRecord]]) -> list[Score | None]:
        """Judge stored answers by their finish reason, text and token count."""
        return [
            score_answer(r.text, r.finish_reason, r.completion_tokens, _kind(s.id))
            for s, r in items
        ]
