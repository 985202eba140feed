"""A request is never sent on a connection the server may be closing, and one whose
connection turns out closed before any answer is sent again.

Servers close a connection idle for 5 s (uvicorn, vLLM, llama-server). A client that keeps it
longer sometimes writes its next request just as the server closes it: the server never reads
that request and the client sees ``Server disconnected``. The server here plays the loser's side
of that race deterministically: a request that arrives on a connection idle for ``SERVER_IDLE_S``
or more is read and the connection closed without an answer, as a real server's close crossing
the request in flight would look to the client. A request on a fresh connection is answered with
a streamed completion.

llama-server closes the connection after every streamed answer while its headers offer
keep-alive, so a request sent at once after an answer can go out on that closing connection. The
``OneShotServer`` here plays it deterministically: it answers the first request of a connection,
and reads and drops any later one.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable

import aiohttp
import pytest

import specverdict.engines.client as client_module
from specverdict.engines.client import (
    IDLE_REUSE_S,
    STALE_RETRIES,
    StreamedResponse,
    connections,
    stream,
)

#: the engines' servers' idle timeout
SERVER_IDLE_S = 5.0


def _sse(text: str) -> bytes:
    chunk = {"id": "x", "object": "text_completion", "choices": [{"index": 0, "text": text}]}
    usage = {
        "id": "x",
        "object": "text_completion",
        "choices": [],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
    body = f"data: {json.dumps(chunk)}\n\ndata: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode()
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        f"Content-Length: {len(body)}\r\nConnection: keep-alive\r\n\r\n"
    ).encode()
    return head + body


class RacingServer:
    """Answers on fresh or recently used connections; drops a request that comes on a
    connection idle past ``SERVER_IDLE_S``."""

    def __init__(self) -> None:
        self.answered = 0
        self.dropped = 0
        self.connections = 0

    def drops(self, served: int, idle_s: float) -> bool:
        """Whether the next request on a connection is read and dropped, after ``served``
        answers on it and ``idle_s`` since the last."""
        return idle_s >= SERVER_IDLE_S

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        last = time.monotonic()
        served = 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.decode().split("\r\n"):
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                await reader.readexactly(length)
                if self.drops(served, time.monotonic() - last):
                    self.dropped += 1
                    return  # closed under the request
                writer.write(_sse("ok"))
                await writer.drain()
                self.answered += 1
                served += 1
                last = time.monotonic()
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            writer.close()


class OneShotServer(RacingServer):
    """Answers one request per connection (keep-alive offered all the same) and drops the
    next; with ``answer=False``, drops every request."""

    def __init__(self, answer: bool = True) -> None:
        super().__init__()
        self.answer = answer

    def drops(self, served: int, idle_s: float) -> bool:
        return served >= 1 or not self.answer


async def _serving(
    body: Callable[[RacingServer, str], Awaitable[None]], server: RacingServer | None = None
) -> RacingServer:
    racing = server or RacingServer()
    srv = await asyncio.start_server(racing.handle, "127.0.0.1", 0)
    port = srv.sockets[0].getsockname()[1]
    async with srv:
        await body(racing, f"http://127.0.0.1:{port}/v1/completions")
    return racing


def test_connections_are_dropped_before_the_servers_close_them() -> None:
    assert IDLE_REUSE_S < SERVER_IDLE_S


def test_a_request_after_a_long_pause_gets_a_fresh_connection() -> None:
    async def body(racing: RacingServer, url: str) -> None:
        client, session = connections(4)
        async with client, session:
            for pause in (0.0, 0.1, SERVER_IDLE_S + 0.3):
                await asyncio.sleep(pause)
                for sender in (session, client):
                    got = await stream(sender, url, {"prompt": "a", "max_tokens": 1}, timeout_s=10)
                    assert got.status == "ok" and got.text == "ok", got

    racing = asyncio.run(_serving(body))
    assert racing.dropped == 0 and racing.answered == 6


def test_the_race_is_real_with_a_client_that_keeps_connections_longer() -> None:
    """The control: aiohttp's default keep-alive (15 s) reuses the idle connection, the server
    drops the request, and only the resend on a fresh connection saves it."""
    seen: list[StreamedResponse] = []

    async def body(racing: RacingServer, url: str) -> None:
        async with aiohttp.ClientSession() as session:
            seen.append(await stream(session, url, {"prompt": "a", "max_tokens": 1}, timeout_s=10))
            await asyncio.sleep(SERVER_IDLE_S + 0.3)
            seen.append(await stream(session, url, {"prompt": "a", "max_tokens": 1}, timeout_s=10))

    racing = asyncio.run(_serving(body))
    first, second = seen
    assert (first.status, first.reconnects) == ("ok", 0)
    assert (second.status, second.text, second.reconnects) == ("ok", "ok", 1), second
    assert racing.dropped == 1 and racing.connections == 2


def test_a_request_on_a_connection_closed_after_an_answer_is_sent_again() -> None:
    """Back-to-back requests on a server that closes each connection after one answer: every
    request after the first goes out on a closed connection, and every one is answered."""
    seen: list[StreamedResponse] = []

    async def body(racing: RacingServer, url: str) -> None:
        client, session = connections(1)
        async with client, session:
            for sender in (session, client):
                for _ in range(5):
                    seen.append(await stream(sender, url, {"prompt": "a"}, timeout_s=10))

    server = asyncio.run(_serving(body, OneShotServer()))
    assert all(r.status == "ok" and r.text == "ok" for r in seen), seen
    assert sum(r.reconnects for r in seen) == server.dropped > 0
    assert server.answered == 10
    # times start at the last sending: no answer waited on a dropped attempt
    assert all(r.ttft_s is not None and r.ttft_s < 5 for r in seen)


def test_a_server_that_drops_every_request_fails_it_after_the_resends() -> None:
    seen: list[StreamedResponse] = []

    async def body(racing: RacingServer, url: str) -> None:
        client, session = connections(1)
        async with client, session:
            for sender in (session, client):
                seen.append(await stream(sender, url, {"prompt": "a"}, timeout_s=10))

    server = asyncio.run(_serving(body, OneShotServer(answer=False)))
    by_aiohttp, by_httpx = seen
    assert by_aiohttp.status == "error" and by_aiohttp.error, by_aiohttp
    assert by_aiohttp.error.startswith("ServerDisconnectedError"), by_aiohttp
    assert by_httpx.status == "error" and by_httpx.error, by_httpx
    assert by_httpx.error.startswith("RemoteProtocolError"), by_httpx
    assert server.dropped == 2 * (1 + STALE_RETRIES) and server.answered == 0


def test_an_engine_that_is_gone_is_not_sent_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A refused connection means nothing listens: a failure at once, never a resend."""
    resent: list[BaseException] = []
    monkeypatch.setattr(client_module, "_reconnect", lambda events, exc, clock: resent.append(exc))

    async def main() -> list[StreamedResponse]:
        srv = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = srv.sockets[0].getsockname()[1]
        srv.close()
        await srv.wait_closed()
        client, session = connections(1)
        async with client, session:
            url = f"http://127.0.0.1:{port}/v1/completions"
            return [await stream(s, url, {"prompt": "a"}, timeout_s=10) for s in (session, client)]

    by_aiohttp, by_httpx = asyncio.run(main())
    assert (by_aiohttp.error or "").startswith("ClientConnectorError"), by_aiohttp
    assert (by_httpx.error or "").startswith("ConnectError"), by_httpx
    assert resent == []
