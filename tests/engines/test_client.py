"""The timed streaming client against the real reference server."""

from __future__ import annotations

import asyncio
import itertools

import httpx

from specverdict.engines.client import StreamedResponse, stream
from specverdict.engines.launcher import free_port
from tests.conftest import Servers


class ScriptedClock:
    """Advances by a fixed cycle of dyadic steps, so sums are exact in floating point."""

    def __init__(self) -> None:
        self.now = 0.0
        self.steps = itertools.cycle([0.5, 0.25, 1.0, 0.125])

    def __call__(self) -> float:
        value = self.now
        self.now += next(self.steps)
        return value


def run(coro_factory) -> StreamedResponse:  # type: ignore[no-untyped-def]
    async def main() -> StreamedResponse:
        async with httpx.AsyncClient() as client:
            return await coro_factory(client)  # type: ignore[no-any-return]

    return asyncio.run(main())


def test_latency_minus_ttft_is_exactly_the_sum_of_inter_chunk_latencies(servers: Servers) -> None:
    base = servers.spec({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_min": 1})
    body = {"prompt": "def add(a, b):\n", "max_tokens": 40, "temperature": 0.0, "ignore_eos": True}
    r = run(lambda c: stream(c, base + "/v1/completions", body, clock=ScriptedClock()))
    assert r.status == "ok" and r.completion_tokens == 40
    assert r.ttft_s is not None and r.e2e_s is not None and r.done_s is not None
    assert len(r.chunk_arrivals_s) >= 2
    assert r.e2e_s - r.ttft_s == sum(r.itls_s)
    assert r.done_s > r.e2e_s  # the usage chunk and [DONE] come after the last output
    assert r.tpot_s == (r.e2e_s - r.ttft_s) / 39
    # speculation packs several tokens into one chunk: fewer chunks than tokens
    assert len(r.chunk_arrivals_s) < 40
    assert r.metrics is not None and "speculative_decoding" in r.metrics


def test_failures_are_returned_as_data(servers: Servers) -> None:
    base = servers.get()
    refused = run(
        lambda c: stream(c, f"http://127.0.0.1:{free_port()}/v1/completions", {"prompt": "x"})
    )
    assert refused.status == "error" and refused.error and "ConnectError" in refused.error
    bad = run(lambda c: stream(c, base + "/v1/completions", {"prompt": "x", "max_tokens": 0}))
    assert bad.status == "error" and bad.error and bad.error.startswith("HTTP 400")
    slow = run(
        lambda c: stream(
            c,
            base + "/v1/completions",
            {"prompt": "x", "max_tokens": 1000, "ignore_eos": True},
            timeout_s=0.05,
        )
    )
    assert slow.status == "timeout"
