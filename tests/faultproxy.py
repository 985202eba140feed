"""A real HTTP proxy in front of a real engine that breaks chosen completion requests.

Every request but the completion endpoints passes through unchanged. The n-th completion
request (counted from 0, warm-up included) gets the action ``plan(n)`` returns:

    pass        forwarded, the engine's stream relayed as it comes
    http500     answered ``500`` with a JSON error body, never forwarded
    malformed   the first two chunks relayed, then a data line that is not JSON, then the end
    drop        the first two chunks relayed, then the connection cut without a final chunk
    shape       the first two chunks relayed, then a valid JSON chunk of the wrong shape
                (``choices`` a string), then the rest of the stream
    html        answered ``200`` with an HTML page, never forwarded
    no_done     the stream relayed whole but its ``data: [DONE]`` line
    inflate     the stream relayed whole, ``usage.completion_tokens`` doubled (a server that
                overstates what it generated)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Callable
from typing import Literal

import aiohttp
from aiohttp import web

from specverdict.engines.launcher import free_port

Action = Literal["pass", "http500", "malformed", "drop", "shape", "html", "no_done", "inflate"]
COMPLETIONS = ("/v1/completions", "/v1/chat/completions")


class FaultProxy:
    def __init__(
        self, upstream: str, plan: Callable[[int], Action], hidden: tuple[str, ...] = ()
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.plan = plan
        #: paths answered 404, as a server (or a gateway in front of it) that does not serve them
        self.hidden = hidden
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.seen: list[Action] = []
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._runner: web.AppRunner | None = None

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        assert self._ready.wait(10), "the fault proxy did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._start())
        self._ready.set()
        self._loop.run_forever()

    async def _start(self) -> None:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout())
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    async def _shutdown(self) -> None:
        await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        if request.path in self.hidden:
            return web.Response(status=404, text="Not Found")
        action: Action = "pass"
        if request.path in COMPLETIONS:
            action = self.plan(len(self.seen))
            self.seen.append(action)
        if action == "http500":
            return web.json_response({"error": {"message": "injected"}}, status=500)
        if action == "html":
            return web.Response(
                text="<html><body>maintenance</body></html>", content_type="text/html"
            )
        # the client may close as soon as it has what it needs (or gives up on a broken
        # stream): a proxy writing into a closed connection is no fault of the engine
        with contextlib.suppress(aiohttp.ClientConnectionResetError, ConnectionResetError):
            return await self._relay(request, body, action)
        return web.Response(status=499)

    async def _relay(self, request: web.Request, body: bytes, action: Action) -> web.StreamResponse:
        async with self._session.request(
            request.method,
            self.upstream + request.path_qs,
            data=body,
            headers={"Content-Type": request.headers.get("Content-Type", "application/json")},
        ) as up:
            out = web.StreamResponse(status=up.status)
            out.content_type = up.content_type
            await out.prepare(request)
            chunks = 0
            async for got in up.content:
                if action == "no_done" and got.startswith(b"data: [DONE]"):
                    continue
                line = (
                    _doubled(got) if action == "inflate" and b'"completion_tokens"' in got else got
                )
                await out.write(line)
                chunks += line.startswith(b"data:")
                if action == "shape" and chunks == 2:
                    await out.write(b'data: {"choices": "oops"}\n\n')
                elif action in ("malformed", "drop") and chunks == 2:
                    if action == "malformed":
                        await out.write(b"data: {not json\n\n")
                        await out.write_eof()
                        return out
                    assert request.transport is not None
                    request.transport.close()  # drop: cut mid-stream
                    return out
            await out.write_eof()
            return out


def _doubled(line: bytes) -> bytes:
    chunk = json.loads(line[5:])
    usage = chunk.get("usage") or {}
    if isinstance(usage.get("completion_tokens"), int):
        usage["completion_tokens"] *= 2
    return b"data: " + json.dumps(chunk).encode() + b"\n"
