"""Running an agentic sample: one episode of several chat requests, stored as one sample.

The runner calls ``run_episode`` for a sample of a multi-turn suite (``Suite.episodic``): the suite drives the
conversation through ``chat(messages, tools)``, a timed streaming request built from the run's
request body (model, sampling settings, the engine's acceptance extras, the sample's ``tools``)
with the conversation so far as ``messages``. Tool execution happens between requests, on the
harness's side.

What the stored ``SampleRecord`` means for an episode:

- ``ttft_s``: the first turn's time to first token (the only prefill not preceded by tool work);
- timings live on *engine time*: the turns laid end to end, each turn's stream from its send to
  its end (``done_s``), tool execution and harness work between turns left out.
  ``chunk_arrivals_s`` are every content chunk of every turn on that axis and ``e2e_s`` is the
  last of them, so ``e2e_s - ttft_s`` is still the sum of the inter-chunk gaps; a gap across two
  turns holds the end of one stream and the next request's prefill;
- ``prompt_tokens`` and ``completion_tokens``: sums over the turns (None when no turn reported
  them), so a TPOT computed from the record is engine time per generated token of the episode;
- ``acceptance``: the canonical per-request counts summed over the turns (histograms added
  position by position); None unless every answered turn carried them. The per-step arrays
  are not joined (each turn's output positions start again at its own first token): the
  episode has none, and each turn's stay in its ``raw`` entry;
- ``status``/``error``: ``ok``, or the status and error of the request that failed (the episode
  ends there); ``finish_reason``: the last turn's;
- ``text``: the episode's model output, for greedy-identity comparisons: each turn's text and
  its tool calls (``<call>{"name": ..., "arguments": ...}</call>``, arguments as sent), turns
  separated by a blank line;
- ``score``: the suite's judgement, computed at the end of the episode (its final tests run in the
  sandbox then, like the episode's own ``run_tests`` calls);
- ``extra``: ``tool_calls`` (every call as sent, in order) and ``episode``: the counts of the
  score's detail, per-turn timings, tokens, acceptance and finish reasons, the episode's wall time
  (tool work included) and the files the model changed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

import aiohttp
import httpx

from specverdict.engines.client import StreamedResponse, device_clock_extra, stream
from specverdict.records import SampleRecord, Score
from specverdict.records.acceptance import PER_STEP_KEYS, canonical_acceptance
from specverdict.records.core import EpisodeExtra, SampleExtra, TurnTiming
from specverdict.records.failures import context_overflow
from specverdict.suites.agent.calls import merge_deltas
from specverdict.suites.agent.loop import Chat, Episode
from specverdict.suites.agent.suite import episode_detail
from specverdict.suites.base import Episodic, Sample

AcceptanceOf = Callable[[dict[str, Any]], dict[str, Any] | None]


def make_chat(
    client: httpx.AsyncClient | aiohttp.ClientSession,
    url: str,
    body: dict[str, Any],
    clock: Callable[[], float] = time.perf_counter,
    timeout_s: float = 600.0,
) -> Chat:
    """``chat(messages, tools)``: ``body`` with the conversation and tools, streamed and timed."""

    async def chat(
        messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> StreamedResponse:
        payload = {**body, "messages": messages}
        if tools:
            payload["tools"] = list(tools)
        else:
            payload.pop("tools", None)
        return await stream(client, url, payload, clock, timeout_s)

    return chat


async def run_episode(
    run_id: str,
    suite: Episodic,
    sample: Sample,
    client: httpx.AsyncClient | aiohttp.ClientSession,
    url: str,
    body: dict[str, Any],
    acceptance_of: AcceptanceOf,
    clock: Callable[[], float] = time.perf_counter,
    timeout_s: float = 600.0,
) -> SampleRecord:
    """Play ``sample``'s episode against the server at ``url`` and return its record, scored.
    ``body`` is the sample's single-request body (``runner.request_payload``);
    ``acceptance_of`` is the adapter's ``per_request_acceptance``."""
    t0 = clock()
    episode = await suite.run_episode(sample, make_chat(client, url, body, clock, timeout_s))
    wall = clock() - t0
    score = suite.score_episode(sample, episode)
    return episode_record(run_id, sample, episode, score, acceptance_of, wall)


def _sum(values: Sequence[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _turn_raw(acceptance: dict[str, Any]) -> Any:
    """A turn's engine fields as they came: its raw, with the per-step arrays put back."""
    raw = acceptance.get("raw")
    steps = {k: acceptance[k] for k in PER_STEP_KEYS if k in acceptance}
    return {**raw, **steps} if isinstance(raw, dict) and steps else raw


def sum_acceptance(found: Sequence[dict[str, Any] | None]) -> dict[str, Any] | None:
    """Canonical acceptance counts added over turns; None when any turn lacks them."""
    if not found or any(a is None for a in found):
        return None
    parts = [a for a in found if a is not None]
    steps = [a.get("num_spec_steps") for a in parts]
    hists = [a.get("acceptance_histogram") for a in parts]
    histogram = None
    if all(isinstance(h, list) for h in hists):
        histogram = [0] * max(len(h) for h in hists if isinstance(h, list))
        for h in hists:
            assert isinstance(h, list)
            for i, n in enumerate(h):
                histogram[i] += n
    return canonical_acceptance(
        {"turns": [_turn_raw(a) for a in parts]},
        sum(a["num_draft_tokens"] for a in parts),
        sum(a["num_accepted_draft_tokens"] for a in parts),
        None if any(s is None for s in steps) else sum(s for s in steps if s is not None),
        histogram,
    )


def episode_text(responses: Sequence[StreamedResponse]) -> str:
    """The episode's output as one text (see the module docstring)."""
    turns = []
    for resp in responses:
        calls = [
            "<call>"
            + json.dumps({"name": c["name"], "arguments": c["arguments"]}, ensure_ascii=False)
            + "</call>"
            for c in merge_deltas(resp.tool_calls)
        ]
        turns.append("\n".join([resp.text, *calls]) if calls else resp.text)
    return "\n\n".join(turns)


def episode_record(
    run_id: str,
    sample: Sample,
    episode: Episode,
    score: Score | None,
    acceptance_of: AcceptanceOf,
    wall_s: float | None = None,
) -> SampleRecord:
    """The stored record of a finished episode (see the module docstring)."""
    responses = episode.responses
    turns, arrivals, e2e, per_turn = _turns(responses, acceptance_of)
    # a turn refused because the conversation outgrew the context ends the episode; it is no
    # failed request (the episode is scored, and fails unless its tests already pass)
    failed = next(
        (r for r in responses if r.status != "ok" and not context_overflow(r.error)), None
    )
    last = responses[-1] if responses else None
    calls = [c for r in responses for c in merge_deltas(r.tool_calls)]
    return SampleRecord(
        run_id=run_id,
        sample_id=sample.id,
        status=failed.status if failed else ("ok" if responses else "error"),
        text=episode_text(responses),
        finish_reason=last.finish_reason if last else None,
        prompt_tokens=_sum([r.prompt_tokens for r in responses]),
        completion_tokens=_sum([r.completion_tokens for r in responses]),
        ttft_s=responses[0].ttft_s if responses else None,
        e2e_s=e2e,
        chunk_arrivals_s=tuple(arrivals),
        error=failed.error if failed else (None if responses else "the episode sent no request"),
        acceptance=sum_acceptance(per_turn),
        score=score,
        extra=SampleExtra(
            **device_clock_extra(responses),
            tool_calls=tuple(calls),
            episode=EpisodeExtra(
                **episode_detail(episode),
                wall_s=wall_s,
                turn_timings=tuple(turns),
                changed=episode.changed,
            ),
        ),
    )


def _turns(
    responses: Sequence[StreamedResponse], acceptance_of: AcceptanceOf
) -> tuple[list[TurnTiming], list[float], float | None, list[dict[str, Any] | None]]:
    """The episode's turns laid end to end on engine time: each turn's timings, tokens and
    acceptance, the chunk arrivals from the first request, the end-to-end time of the last
    answered turn, and the acceptance of each answered turn."""
    arrivals: list[float] = []
    turns: list[TurnTiming] = []
    offset = 0.0
    e2e: float | None = None
    per_turn: list[dict[str, Any] | None] = []
    for resp in responses:
        arrivals.extend(offset + a for a in resp.chunk_arrivals_s)
        if resp.e2e_s is not None:
            e2e = offset + resp.e2e_s
        acc = acceptance_of(resp.extras) if resp.status == "ok" else None
        if resp.status == "ok":
            per_turn.append(acc)
        turns.append(
            TurnTiming(
                status=resp.status,
                ttft_s=resp.ttft_s,
                e2e_s=resp.e2e_s,
                done_s=resp.done_s,
                prompt_tokens=resp.prompt_tokens,
                completion_tokens=resp.completion_tokens,
                finish_reason=resp.finish_reason,
                tool_calls=len(merge_deltas(resp.tool_calls)),
                acceptance=acc,
            )
        )
        offset += resp.done_s if resp.done_s is not None else (resp.e2e_s or 0.0)
    return turns, arrivals, e2e, per_turn


def requests_of(record: SampleRecord) -> tuple[int, int]:
    """(requests sent, requests the server answered) for one stored sample: an episode's turns
    (``extra.episode.turn_timings``, written by ``episode_record``), else the one request.
    A failed request (the last of a failed episode, or a turn refused because the conversation
    outgrew the context) is not one the server finished, and its counters do not count it."""
    episode = record.extra.episode
    if episode is not None and episode.turn_timings:
        turns = episode.turn_timings
        return len(turns), sum(t.status == "ok" for t in turns)
    return 1, int(record.status == "ok")
