"""The timed streaming client against the real reference server."""

from __future__ import annotations

import asyncio
import gzip
import itertools
import json
from collections.abc import AsyncIterator

import httpx
import pytest

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


EVENTS = [
    b'data: {"id":"c","choices":[{"index":0,"text":"h\xc3\xa9","finish_reason":null,'
    b'"stop_reason":7}],"usage":null,"metrics":{"a":1}}\r\n\r\n',
    b": a comment line\n\n",
    b'data: {"choices":[{"index":0,"delta":{"content":"llo"},"finish_reason":"length"}]}\r\r',
    b'data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}\n\n',
    b"data: [DONE]\n\n",
]


def mocked(pieces: list[bytes], headers: dict[str, str] | None = None) -> httpx.AsyncClient:
    async def handler(request: httpx.Request) -> httpx.Response:
        sent = json.loads(request.content)
        assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}

        async def body() -> AsyncIterator[bytes]:
            for piece in pieces:
                yield piece

        return httpx.Response(200, headers=headers, content=body())

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


def run_mocked(pieces: list[bytes], headers: dict[str, str] | None = None) -> StreamedResponse:
    async def main() -> StreamedResponse:
        async with mocked(pieces, headers) as client:
            return await stream(client, "http://x/v1/completions", {"prompt": "p"}, ScriptedClock())

    return asyncio.run(main())


@pytest.mark.parametrize("size", [1, 7, 10_000])
def test_lines_are_rebuilt_across_reads_whatever_the_line_endings(size: int) -> None:
    whole = b"".join(EVENTS)
    r = run_mocked([whole[i : i + size] for i in range(0, len(whole), size)])
    assert r.status == "ok" and r.text == "héllo" and r.finish_reason == "length"
    assert (r.prompt_tokens, r.completion_tokens) == (3, 2)
    assert len(r.chunk_arrivals_s) == 2 and r.ttft_s == r.chunk_arrivals_s[0]
    # lines that come in one read share its arrival time
    assert r.e2e_s == r.chunk_arrivals_s[-1] and r.done_s is not None and r.done_s >= r.e2e_s
    assert r.extras == {"metrics": {"a": 1}, "choice": {"stop_reason": 7}}


def test_compressed_stream_and_stream_without_done() -> None:
    r = run_mocked([gzip.compress(b"".join(EVENTS[:4]))], {"content-encoding": "gzip"})
    assert r.status == "ok" and r.text == "héllo" and r.completion_tokens == 2
    assert r.done_s is not None and r.e2e_s is not None and r.done_s >= r.e2e_s


def test_bad_lines_and_error_chunks_are_errors_as_data() -> None:
    bad = run_mocked([EVENTS[0], b"data: {not json\n\n"])
    assert bad.status == "error" and bad.text == "hé"
    assert bad.error and bad.error.startswith("JSONDecodeError")
    failed = run_mocked([EVENTS[0], b'data: {"error": {"message": "boom"}}\n\n'])
    assert failed.status == "error" and failed.error and "boom" in failed.error
