"""The timed streaming client, on httpx and on aiohttp, against the real reference server and
against servers that send scripted bytes."""

from __future__ import annotations

import asyncio
import gzip
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import httpx
import pytest
from aiohttp import web

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


Client = httpx.AsyncClient | aiohttp.ClientSession
TRANSPORTS = ["httpx", "aiohttp"]
# the class of the exception a refused connection raises, named in the error
CONNECT_ERROR = {"httpx": "ConnectError:", "aiohttp": "ClientConnectorError:"}


def run(
    call: Callable[[Client], Awaitable[StreamedResponse]], transport: str = "httpx"
) -> StreamedResponse:
    async def main() -> StreamedResponse:
        if transport == "aiohttp":
            async with aiohttp.ClientSession() as session:
                return await call(session)
        async with httpx.AsyncClient() as client:
            return await call(client)

    return asyncio.run(main())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_latency_minus_ttft_is_exactly_the_sum_of_inter_chunk_latencies(
    servers: Servers, transport: str
) -> None:
    base = servers.spec({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_min": 1})
    body = {"prompt": "def add(a, b):\n", "max_tokens": 40, "temperature": 0.0, "ignore_eos": True}
    r = run(lambda c: stream(c, base + "/v1/completions", body, clock=ScriptedClock()), transport)
    assert r.status == "ok" and r.completion_tokens == 40
    assert r.ttft_s is not None and r.e2e_s is not None and r.done_s is not None
    assert len(r.chunk_arrivals_s) >= 2
    assert r.e2e_s - r.ttft_s == sum(r.itls_s)
    # the usage chunk and [DONE] come after the last output; aiohttp may hand over everything
    # the connection received since its last read at once, and then they share an arrival time
    assert r.done_s > r.e2e_s if transport == "httpx" else r.done_s >= r.e2e_s
    assert r.tpot_s == (r.e2e_s - r.ttft_s) / 39
    # speculation packs several tokens into one chunk: fewer chunks than tokens
    assert len(r.chunk_arrivals_s) < 40
    assert r.metrics is not None and "speculative_decoding" in r.metrics


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_failures_are_returned_as_data(servers: Servers, transport: str) -> None:
    base = servers.get()
    refused = run(
        lambda c: stream(c, f"http://127.0.0.1:{free_port()}/v1/completions", {"prompt": "x"}),
        transport,
    )
    assert refused.status == "error" and refused.error
    assert refused.error.startswith(CONNECT_ERROR[transport])
    bad = run(
        lambda c: stream(c, base + "/v1/completions", {"prompt": "x", "max_tokens": 0}), transport
    )
    # the status and the start of the server's own explanation
    assert bad.status == "error" and bad.error and bad.error.startswith("HTTP 400: {")
    assert "max_tokens" in bad.error
    slow = run(
        lambda c: stream(
            c,
            base + "/v1/completions",
            {"prompt": "x", "max_tokens": 1000, "ignore_eos": True},
            timeout_s=0.05,
        ),
        transport,
    )
    assert slow.status == "timeout" and slow.error and slow.error.startswith("timed out")
    assert slow.completion_tokens is None


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_deadline_covers_the_whole_request_not_each_read(
    servers: Servers, transport: str
) -> None:
    """Every read comes well within the deadline; the stream as a whole does not."""
    base = servers.get()
    body = {"prompt": "x", "max_tokens": 300, "temperature": 0.0, "ignore_eos": True}
    whole = run(lambda c: stream(c, base + "/v1/completions", body), transport)
    assert whole.status == "ok" and whole.e2e_s is not None and whole.ttft_s is not None
    longest_gap = max(whole.itls_s)
    deadline = whole.ttft_s + (whole.e2e_s - whole.ttft_s) / 2
    assert longest_gap < deadline
    cut = run(lambda c: stream(c, base + "/v1/completions", body, timeout_s=deadline), transport)
    assert cut.status == "timeout" and cut.text and whole.text.startswith(cut.text)


EVENTS = [
    b'data: {"id":"c","choices":[{"index":0,"text":"h\xc3\xa9","finish_reason":null,'
    b'"stop_reason":7}],"usage":null,"metrics":{"a":1}}\r\n\r\n',
    b": a comment line\n\n",
    b'data: {"choices":[{"index":0,"delta":{"content":"llo"},"finish_reason":"length"}]}\r\r',
    b'data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}\n\n',
    b"data: [DONE]\n\n",
]


def check_request(sent: dict[str, Any]) -> None:
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}


def mocked(pieces: list[bytes], headers: dict[str, str] | None = None) -> httpx.AsyncClient:
    async def handler(request: httpx.Request) -> httpx.Response:
        check_request(json.loads(request.content))

        async def body() -> AsyncIterator[bytes]:
            for piece in pieces:
                yield piece

        return httpx.Response(200, headers=headers, content=body())

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def scripted_server(
    pieces: list[bytes], headers: dict[str, str] | None = None, finish: bool = True
) -> tuple[web.AppRunner, str]:
    """A real HTTP server that answers every POST with ``pieces`` written one by one (chunked);
    without ``finish`` it drops the connection before ending the body."""

    async def handler(request: web.Request) -> web.StreamResponse:
        check_request(await request.json())
        resp = web.StreamResponse(headers={"content-type": "text/event-stream", **(headers or {})})
        await resp.prepare(request)
        for piece in pieces:
            await resp.write(piece)
        if not finish:
            assert request.transport is not None
            request.transport.close()
        return resp

    app = web.Application()
    app.router.add_post("/v1/completions", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner, f"http://127.0.0.1:{port}/v1/completions"


def run_mocked(
    pieces: list[bytes],
    headers: dict[str, str] | None = None,
    transport: str = "httpx",
    finish: bool = True,
) -> StreamedResponse:
    """Stream ``pieces``: through httpx's mock transport, or from a real server over aiohttp."""

    async def main() -> StreamedResponse:
        if transport == "httpx":
            async with mocked(pieces, headers) as client:
                url = "http://x/v1/completions"
                return await stream(client, url, {"prompt": "p"}, ScriptedClock())
        runner, url = await scripted_server(pieces, headers, finish)
        try:
            async with aiohttp.ClientSession() as session:
                return await stream(session, url, {"prompt": "p"}, ScriptedClock())
        finally:
            await runner.cleanup()

    return asyncio.run(main())


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("size", [1, 7, 10_000])
def test_lines_are_rebuilt_across_reads_whatever_the_line_endings(
    size: int, transport: str
) -> None:
    whole = b"".join(EVENTS)
    r = run_mocked([whole[i : i + size] for i in range(0, len(whole), size)], transport=transport)
    assert r.status == "ok" and r.text == "héllo" and r.finish_reason == "length"
    assert (r.prompt_tokens, r.completion_tokens) == (3, 2)
    assert len(r.chunk_arrivals_s) == 2 and r.ttft_s == r.chunk_arrivals_s[0]
    # lines that come in one read share its arrival time
    assert r.e2e_s == r.chunk_arrivals_s[-1] and r.done_s is not None and r.done_s >= r.e2e_s
    assert r.extras == {"metrics": {"a": 1}, "choice": {"stop_reason": 7}}


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_compressed_stream_and_a_stream_cut_before_done(transport: str) -> None:
    gz = gzip.compress(b"".join(EVENTS))
    r = run_mocked([gz[:20], gz[20:]], {"content-encoding": "gzip"}, transport)
    assert r.status == "ok" and r.text == "héllo" and r.completion_tokens == 2
    assert r.done_s is not None and r.e2e_s is not None and r.done_s >= r.e2e_s
    # the same answer, its usage sent, but the body ends before [DONE]: cut short, not finished
    cut = run_mocked([b"".join(EVENTS[:4])], transport=transport)
    assert cut.status == "error" and cut.text == "héllo", cut
    assert cut.error == "truncated_stream: the stream ended without [DONE] after 2 chunks of text"
    # a last line without its line end is still read
    no_newline = run_mocked([b"".join(EVENTS)[:-2]], transport=transport)
    assert no_newline.status == "ok" and no_newline.completion_tokens == 2


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_bad_lines_and_error_chunks_are_errors_as_data(transport: str) -> None:
    bad = run_mocked([EVENTS[0], b"data: {not json\n\n"], transport=transport)
    assert bad.status == "error" and bad.text == "hé"
    assert bad.error and bad.error.startswith("malformed_response: a data line that is not JSON")
    not_object = run_mocked([EVENTS[0], b"data: [1, 2]\n\n"], transport=transport)
    assert not_object.status == "error" and not_object.text == "hé"
    assert (
        not_object.error == "malformed_response: a data line that is not a JSON object: b'[1, 2]'"
    )
    error = b'data: {"error": {"message": "boom"}}\n\n'
    failed = run_mocked([EVENTS[0], error, *EVENTS[2:]], transport=transport)
    assert failed.status == "error" and failed.text == "hé"
    assert failed.error and "boom" in failed.error and failed.completion_tokens is None


def chunk(**fields: Any) -> bytes:
    return b"data: " + json.dumps(fields).encode() + b"\n\n"


TEXT = {"index": 0, "text": "x", "finish_reason": None}
#: valid JSON of the wrong shape, each with the start of the reason it must be refused with
WRONG_SHAPES = [
    (chunk(choices="oops"), "choices is str, not a list"),
    (chunk(choices=["oops"]), "a choice is str, not an object"),
    (chunk(choices=[{**TEXT, "text": 5}]), "choices[].text is int, not a string"),
    (chunk(choices=[{"index": 0, "delta": "x"}]), "choices[].delta is str, not an object"),
    (chunk(choices=[{"index": 0, "delta": {"content": ["x"]}}]), "choices[].delta.content is"),
    (chunk(choices=[{"index": 0, "delta": {"tool_calls": "x"}}]), "choices[].delta.tool_calls"),
    (chunk(choices=[{**TEXT, "finish_reason": 3}]), "choices[].finish_reason is int"),
    (chunk(choices=[TEXT], device_time_s=[1]), "device_time_s is [1], not a finite number"),
    (chunk(choices=[TEXT], device_time_s=True), "device_time_s is True"),
    (chunk(choices=[], usage="many"), "usage is str, not an object"),
    (chunk(choices=[], usage={"completion_tokens": "many"}), "usage.completion_tokens is 'many'"),
    (chunk(choices=[], usage={"completion_tokens": 3.5}), "usage.completion_tokens is 3.5"),
    (chunk(choices=[], usage={"completion_tokens": -1}), "usage.completion_tokens is -1"),
    (chunk(choices=[], usage={"prompt_tokens": True}), "usage.prompt_tokens is True"),
    (
        chunk(choices=[], usage={"completion_tokens": 100_000}),
        "usage.completion_tokens 100000 is above the request's max_tokens 64",
    ),
]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("line", "reason"), WRONG_SHAPES)
def test_chunks_of_the_wrong_shape_are_malformed_responses(
    transport: str, line: bytes, reason: str
) -> None:
    async def main() -> StreamedResponse:
        runner, url = await scripted_server([EVENTS[0], line, b"data: [DONE]\n\n"])
        try:
            async with aiohttp.ClientSession() as session, httpx.AsyncClient() as client:
                c: Client = session if transport == "aiohttp" else client
                return await stream(c, url, {"prompt": "p", "max_tokens": 64})
        finally:
            await runner.cleanup()

    r = asyncio.run(main())
    assert r.status == "error" and r.text == "hé", r
    assert r.error and r.error.startswith(f"malformed_response: {reason}"), r.error


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"<html><body>502 Bad Gateway</body></html>", "not_a_stream: a line that is not"),
        (b'{"choices": [{"text": "hello"}]}', "not_a_stream: a line that is not"),
        (b"", "not_a_stream: no data line in 0 bytes"),
        (b"\n\n: keep-alive\n\n", "not_a_stream: no data line"),
    ],
)
def test_a_200_that_is_not_a_stream_is_refused(transport: str, body: bytes, reason: str) -> None:
    r = run_mocked([body], transport=transport)
    assert r.status == "error" and r.error and r.error.startswith(reason), r.error


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_line_without_end_is_refused_past_the_limit_not_read_to_its_end(
    transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("specverdict.engines.client.MAX_LINE_BYTES", 2**16)
    # 64 pieces of 16 KiB: a line of a MiB that never ends
    endless = [EVENTS[0], b"data: " + b"x" * 2**14, *([b"x" * 2**14] * 63)]
    r = run_mocked(endless, transport=transport)
    assert r.status == "error" and r.text == "hé"
    assert r.error == f"oversized: a line above {2**16} bytes"
    monkeypatch.setattr("specverdict.engines.client.MAX_BODY_BYTES", 2**17)
    many = run_mocked([EVENTS[0]] * 2**12, transport=transport)  # 512 KiB of small lines
    assert many.error == f"oversized: body above {2**17} bytes"


def test_a_connection_dropped_mid_stream_is_an_error() -> None:
    r = run_mocked(EVENTS[:2], transport="aiohttp", finish=False)
    assert r.status == "error" and r.text == "hé"
    assert r.error and r.error.startswith("ClientPayloadError")


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_virtual_device_clock_times_the_stream_whatever_the_host_does(
    servers: Servers, transport: str
) -> None:
    """With ``--device-clock virtual`` every time comes from the engine's modelled device clock:
    the client's own clock (here one that jumps by seconds) never enters, two runs of one
    greedy request time identically, and the run says which clock it was."""
    base = servers.get(
        "--speculative-config",
        json.dumps({"method": "mtp", "num_speculative_tokens": 2}),
        "--device-model",
        "accel-2b",
        "--device-clock",
        "virtual",
    )
    body = {"prompt": "def add(a, b):\n", "max_tokens": 30, "temperature": 0.0, "ignore_eos": True}
    url = base + "/v1/completions"
    first, second = (
        run(lambda c: stream(c, url, body, clock=ScriptedClock()), transport) for _ in range(2)
    )
    assert first.status == "ok" and first.clock == "device"
    assert first.ttft_s is not None and first.e2e_s is not None
    # a decode step of the modelled 2.6B model is about 5 ms; the scripted clock moves by 0.125 s
    # or more per reading, so any host time in these figures would show
    assert 0 < first.ttft_s < 0.05 and first.e2e_s < 30 * 0.02
    assert first.e2e_s - first.ttft_s == pytest.approx(sum(first.itls_s))
    assert first.done_s == first.e2e_s  # the stream ends when its last step does, on the device
    assert first.device_arrival_s is not None
    # (the device clock runs on between requests: each time is a difference of two readings)
    assert [first.ttft_s, first.e2e_s, *first.chunk_arrivals_s] == pytest.approx(
        [second.ttft_s, second.e2e_s, *second.chunk_arrivals_s], rel=1e-9
    )
    assert "device_time_s" not in first.extras  # a timing field, not an engine extra
    plain = run(lambda c: stream(c, servers.get() + "/v1/completions", body), transport)
    assert plain.clock == "host" and plain.device_arrival_s is None
