"""One segment's measured requests: each sample sent, answered, judged and stored.

``request_payload`` builds a sample's request body; ``answer_record`` turns a streamed answer into
its stored record (``to_record``, with the adapter's reading of its acceptance). A ``Sender``
sends one segment's samples at their offsets within its concurrency, one multi-turn episode per
sample of an episodic suite, and keeps the segment's counts: samples stored, requests sent and
answered (an episode sends one request per turn), failures. Each record is judged by the
engine's ``Health`` before its slot is released, so that no request goes into an engine already
known to be gone, and written on the store's own thread, so that a write never delays the
timing of requests in flight.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any, Protocol

import aiohttp
import httpx

from specverdict.campaign.spec import RunSpec
from specverdict.engines.base import EngineAdapter
from specverdict.engines.client import StreamedResponse, device_clock_extra, stream
from specverdict.engines.tokens import TokenCounter
from specverdict.records import SampleExtra, SampleRecord
from specverdict.records.failures import HARNESS_ERROR
from specverdict.run.episodes import requests_of, run_episode
from specverdict.run.health import Health
from specverdict.suites import Sample
from specverdict.suites.base import Episodic


def request_payload(
    spec: RunSpec, sample: Sample, extras: dict[str, Any] | None = None
) -> tuple[str, dict[str, Any]]:
    s = spec.sampling
    body: dict[str, Any] = {
        **(extras or {}),
        "model": spec.model.served_name,
        "max_tokens": s.max_tokens,
        "temperature": s.temperature,
        "top_p": s.top_p,
    }
    if s.seed is not None:
        body["seed"] = s.seed
    body.update(sample.request_fields())  # e.g. the stop sequences of a function body
    if sample.endpoint == "chat":
        return "/v1/chat/completions", {**body, "messages": list(sample.messages or ())}
    return "/v1/completions", {**body, "prompt": sample.prompt}


def to_record(
    run_id: str,
    sample: Sample,
    resp: StreamedResponse,
    acceptance: dict[str, Any] | None = None,
    attempt: int = 0,
) -> SampleRecord:
    return SampleRecord(
        run_id=run_id,
        sample_id=sample.id,
        attempt=attempt,
        status=resp.status,
        text=resp.text,
        finish_reason=resp.finish_reason,
        prompt_tokens=resp.prompt_tokens,
        completion_tokens=resp.completion_tokens,
        ttft_s=resp.ttft_s,
        e2e_s=resp.e2e_s,
        chunk_arrivals_s=resp.chunk_arrivals_s,
        error=resp.error,
        acceptance=acceptance,
        extra=SampleExtra(
            tool_calls=tuple(resp.tool_calls),
            reconnects=resp.reconnects or None,
            prompt_sha256=sample.prompt_sha256(),
            **device_clock_extra([resp]),
        ),
    )


def answer_record(
    run_id: str, sample: Sample, resp: StreamedResponse, adapter: EngineAdapter, attempt: int
) -> SampleRecord:
    """The sample's record of ``resp``, with the adapter's reading of its acceptance. Fields the
    client passed (its engine's own ones) that the adapter cannot read make the answer a
    ``malformed_response`` failure, stored as data like any other."""
    try:
        return to_record(run_id, sample, resp, adapter.per_request_acceptance(resp.extras), attempt)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        return SampleRecord(
            run_id=run_id,
            sample_id=sample.id,
            attempt=attempt,
            status="error",
            text=resp.text,
            error=f"malformed_response: the answer's fields could not be read "
            f"({type(exc).__name__}: {str(exc)[:200]})",
        )


class Progress(Protocol):
    def start(self, run_id: str, label: str, total: int) -> None: ...
    def advance(self, record: SampleRecord) -> None: ...
    def finish(self) -> None: ...


class Sender:
    """The measured requests of one segment of run ``run_id`` (see the module docstring)."""

    def __init__(
        self,
        run_id: str,
        spec: RunSpec,
        adapter: EngineAdapter,
        url: str,
        *,
        session: aiohttp.ClientSession,
        client: httpx.AsyncClient,
        health: Health,
        write: Callable[[SampleRecord], None],
        writer: Executor,
        episodic: Episodic | None = None,
        counter: TokenCounter | None = None,
        attempts: dict[str, int] | None = None,
        block: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
        timeout_s: float = 600.0,
        progress: Progress | None = None,
    ) -> None:
        self.run_id, self.spec, self.adapter, self.url = run_id, spec, adapter, url
        self.session, self.client, self.health = session, client, health
        self.write, self.writer = write, writer
        self.episodic, self.counter = episodic, counter
        self.attempts = attempts or {}
        self.block, self.clock, self.timeout_s, self.progress = block, clock, timeout_s, progress
        self.extras = adapter.request_extras(spec)
        self.samples = 0  #: samples sent and stored (a stopped run sends fewer)
        self.requests = 0  #: requests sent (an episode sends one per turn)
        self.answered = 0  #: ... of which the server answered
        self.failed = 0  #: stored samples that failed

    async def send_all(self, todo: list[Sample], offsets: list[float] | None, slots: int) -> None:
        """Send ``todo``, each at its offset from now (open loop) or as a slot frees (closed
        loop, ``slots`` in flight); stops sending once the engine's health trips."""
        semaphore = asyncio.Semaphore(slots)
        start = time.monotonic()
        at = offsets if offsets is not None else [0.0] * len(todo)

        async def one(sample: Sample, send_at: float) -> None:
            if self.health.stopped.is_set():
                return
            await asyncio.sleep(max(0.0, send_at - (time.monotonic() - start)))
            async with semaphore:
                if self.health.stopped.is_set():  # not sent: stays missing, for a resume
                    return
                record = await self._answer(sample)
                # judged before the slot is released, so that the next request is not sent
                # into an engine already known to be gone; once per sample, an episode too
                self.health.observe(record)
            await self._store(await self._counted(record))

        await asyncio.gather(*(one(s, t) for s, t in zip(todo, at, strict=True)))

    async def _answer(self, sample: Sample) -> SampleRecord:
        """The sample's record: its episode's, or its one streamed answer's."""
        path, body = request_payload(self.spec, sample, self.extras)
        attempt = self.attempts.get(sample.id, 0)
        if self.episodic is None:
            resp = await stream(self.session, self.url + path, body, self.clock, self.timeout_s)
            record = answer_record(self.run_id, sample, resp, self.adapter, attempt)
        else:
            record = await self._episode(sample, path, body)
            if sample.id in self.attempts:
                record = record.model_copy(update={"attempt": attempt})
        if self.block is not None:
            extra = record.extra.model_copy(update={"block": self.block})
            record = record.model_copy(update={"extra": extra})
        return record

    async def _episode(self, sample: Sample, path: str, body: dict[str, Any]) -> SampleRecord:
        assert self.episodic is not None
        try:
            return await run_episode(
                self.run_id,
                self.episodic,
                sample,
                self.session,
                self.url + path,
                body,
                self.adapter.per_request_acceptance,
                self.clock,
                self.timeout_s,
            )
        except Exception as exc:
            # an episode's harness (its tool calls, its test run) failing is this sample's
            # failure, stored as data: never the campaign's end
            return SampleRecord(
                run_id=self.run_id,
                sample_id=sample.id,
                status="error",
                error=f"{HARNESS_ERROR} {type(exc).__name__}: {exc}",
            )

    async def _counted(self, record: SampleRecord) -> SampleRecord:
        """The record with the server's own token count of its text, when it can count: after
        the slot is free, so that the next request is not held up by it."""
        if self.counter is None or record.status != "ok" or self.episodic is not None:
            return record
        counted = await self.counter.count(self.client, record.text)
        if counted is None:
            return record
        extra = record.extra.model_copy(update={"counted_tokens": counted})
        return record.model_copy(update={"extra": extra})

    async def _store(self, record: SampleRecord) -> None:
        await asyncio.get_running_loop().run_in_executor(self.writer, self.write, record)
        if self.progress is not None:
            self.progress.advance(record)
        sent, answered = requests_of(record)
        self.samples += 1
        self.failed += record.status != "ok"
        self.requests += sent
        self.answered += answered
