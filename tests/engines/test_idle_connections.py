"""A request is never sent on a connection the server may be closing.

Servers close a connection idle for 5 s (uvicorn, vLLM, llama-server). A client that keeps it
longer sometimes writes its next request just as the server closes it: the server never reads
that request and the client sees ``Server disconnected``. The server here plays the loser's side
of that race deterministically: a request that arrives on a connection idle for ``SERVER_IDLE_S``
or more is read and the connection closed without an answer, as a real server's close crossing
the request in flight would look to the client. A request on a fresh connection is answered with
a streamed completion.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable

import aiohttp

from specverdict.engines.client import IDLE_REUSE_S, StreamedResponse, connections, stream

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

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        last = time.monotonic()
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.decode().split("\r\n"):
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                await reader.readexactly(length)
                if time.monotonic() - last >= SERVER_IDLE_S:
                    self.dropped += 1
                    return  # closed under the request
                writer.write(_sse("ok"))
                await writer.drain()
                self.answered += 1
                last = time.monotonic()
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            writer.close()


async def _serving(body: Callable[[RacingServer, str], Awaitable[None]]) -> RacingServer:
    racing = RacingServer()
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
    """The control: aiohttp's default keep-alive (15 s) reuses the idle connection, and the
    request is lost as a disconnect; so the test above can fail."""
    seen: list[StreamedResponse] = []

    async def body(racing: RacingServer, url: str) -> None:
        async with aiohttp.ClientSession() as session:
            seen.append(await stream(session, url, {"prompt": "a", "max_tokens": 1}, timeout_s=10))
            await asyncio.sleep(SERVER_IDLE_S + 0.3)
            seen.append(await stream(session, url, {"prompt": "a", "max_tokens": 1}, timeout_s=10))

    racing = asyncio.run(_serving(body))
    first, second = seen
    assert first.status == "ok"
    assert second.status == "error" and "disconnect" in (second.error or "").lower(), second
    assert racing.dropped == 1
