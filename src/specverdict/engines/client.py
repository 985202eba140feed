"""An OpenAI-compatible streaming client that times every chunk.

Timing semantics follow vLLM's benchmark client: TTFT is the arrival of the first chunk that
carries output; each later content chunk gives one inter-chunk latency; e2e is the arrival of the
last chunk that carried output (so e2e - TTFT equals the sum of inter-chunk latencies exactly), and
``done_s`` the end of the stream (usage chunk, ``[DONE]``). A response without output ends at
``done_s``. A speculative engine sends several tokens per chunk, so per-token TPOT is computed
from token counts, not chunk counts: TPOT = (e2e - TTFT) / (completion_tokens - 1).
Failures are returned as data (``status`` ``error`` or ``timeout``), never raised: a refused
connection, a broken stream or a data line that is not a JSON object (``error``, with the
exception's class and message), an HTTP status other than 200 (``error``, ``HTTP <status>: <the
start of the body>``), an ``error`` object sent mid-stream (``error``, with the text received so
far), and the whole-request deadline passing before the stream ends (``timeout``).
An answer is checked before it is data; what fails a check is an ``error`` whose text starts with
its reason: ``malformed_response`` (a data line that is not a JSON object, or a chunk whose
fields have the wrong types: ``choices`` not a list of objects, ``text`` not a string, a usage
count that is not a non-negative integer, or one above the request's ``max_tokens``, a device
time that is not a finite number), ``not_a_stream`` (a 200 whose body is not server-sent events:
an HTML page, a JSON object, nothing), ``truncated_stream`` (the body ended without ``[DONE]``:
an answer cut short is not a finished one) and ``oversized`` (a line above ``MAX_LINE_BYTES`` or
a body above ``MAX_BODY_BYTES``, refused as it arrives rather than read to its end).
A chunk arrives when the read that completes it returns to the client: chunks that came in one
read share one arrival time, and it is taken before the chunk is parsed.

``stream`` takes an ``httpx.AsyncClient`` or an ``aiohttp.ClientSession``; both feed the body's
bytes, as they come, to one parser, so that the two follow the same rules. With aiohttp a read
returns everything its connection received since the previous read. aiohttp costs about a third
of httpx's CPU per streamed token, so the runner measures on it.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import aiohttp
import httpx

Status = Literal["ok", "error", "timeout"]
OPENAI_KEYS = frozenset(
    {"id", "object", "created", "model", "choices", "usage", "system_fingerprint"}
)
OPENAI_CHOICE_KEYS = frozenset({"index", "text", "delta", "message", "finish_reason", "logprobs"})
_DECODER = json.JSONDecoder()
#: the longest line of a stream read: a chunk of the largest answers (a long tool call, a few
#: thousand tokens of logprobs) is well under it; a line without its end past it is refused
MAX_LINE_BYTES = 4 * 2**20
#: the largest body read for one answer
MAX_BODY_BYTES = 64 * 2**20
#: the lines a server-sent event stream may hold besides data lines: an empty line ends an
#: event, ``:`` starts a comment (a keep-alive), and the other fields are SSE's own
_SSE_FIELDS = (b":", b"event:", b"id:", b"retry:")


class RejectedResponseError(ValueError):
    """An answer that fails a check (module docstring); ``reason`` is the failure's kind."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.reason}: {self.args[0]}"


def _malformed(detail: str) -> RejectedResponseError:
    return RejectedResponseError("malformed_response", detail)


def _count_error(usage: dict[str, Any], limit: int | None) -> str | None:
    """Why the usage object's token counts cannot be data, or None."""
    for key in ("prompt_tokens", "completion_tokens"):
        value = usage.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return f"usage.{key} is {value!r}, not a non-negative integer"
    completion = usage.get("completion_tokens")
    if limit is not None and isinstance(completion, int) and completion > limit:
        return f"usage.completion_tokens {completion} is above the request's max_tokens {limit}"
    return None


def _number(chunk: dict[str, Any], key: str) -> float:
    value = chunk.pop(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _malformed(f"{key} is {value!r}, not a finite number")
    return float(value)


def _optional(obj: dict[str, Any], key: str, kind: type, where: str, expected: str) -> Any:
    """``obj[key]`` when absent, null or of ``kind``; else a ``malformed_response``."""
    value = obj.get(key)
    if value is not None and not isinstance(value, kind):
        raise _malformed(f"{where}{key} is {type(value).__name__}, not {expected}")
    return value


def _check_choices(chunk: dict[str, Any]) -> list[dict[str, Any]]:
    """The chunk's choices, each checked for the types this client reads."""
    choices = _optional(chunk, "choices", list, "", "a list")
    for choice in choices or ():
        if not isinstance(choice, dict):
            raise _malformed(f"a choice is {type(choice).__name__}, not an object")
        _optional(choice, "text", str, "choices[].", "a string")
        _optional(choice, "finish_reason", str, "choices[].", "a string")
        delta = _optional(choice, "delta", dict, "choices[].", "an object")
        if delta is None:
            continue
        _optional(delta, "content", str, "choices[].delta.", "a string")
        calls = _optional(delta, "tool_calls", list, "choices[].delta.", "a list of objects")
        if calls is not None and not all(isinstance(c, dict) for c in calls):
            raise _malformed("choices[].delta.tool_calls is not a list of objects")
    return choices or []


@dataclass(frozen=True)
class StreamedResponse:
    status: Status
    text: str = ""
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    ttft_s: float | None = None
    e2e_s: float | None = None
    chunk_arrivals_s: tuple[float, ...] = ()
    extras: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    tool_calls: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    done_s: float | None = None
    #: "device": the server stamped its chunks with a modelled device clock (the reference
    #: engine's ``--device-clock virtual``), and every time above is on that clock
    clock: Literal["host", "device"] = "host"
    #: the device clock at the request's arrival, when the server sent it
    device_arrival_s: float | None = None
    #: how often the request was sent again because the connection it went out on had been
    #: closed by the server before it answered (its times start at the last sending)
    reconnects: int = 0

    @property
    def metrics(self) -> dict[str, Any] | None:
        """vLLM's per-request ``metrics`` object, when the server sent one."""
        m = self.extras.get("metrics")
        return m if isinstance(m, dict) else None

    @property
    def itls_s(self) -> tuple[float, ...]:
        """Inter-chunk latencies: gaps between consecutive content chunks."""
        return tuple(b - a for a, b in itertools.pairwise(self.chunk_arrivals_s))

    @property
    def tpot_s(self) -> float | None:
        """Time per output token after the first (vLLM's definition); None below 2 tokens."""
        if self.ttft_s is None or self.e2e_s is None or not self.completion_tokens:
            return None
        if self.completion_tokens < 2:
            return None
        return (self.e2e_s - self.ttft_s) / (self.completion_tokens - 1)


def _merge_extras(extras: dict[str, Any], chunk: dict[str, Any]) -> None:
    """Engine-specific fields (vLLM ``metrics``, llama.cpp ``timings``, SGLang ``meta_info``...):
    top-level keys beyond OpenAI's, and the first choice's under ``"choice"``; later chunks win."""
    if not chunk.keys() <= OPENAI_KEYS:  # most chunks have none: skip the loop
        for key, value in chunk.items():
            if key not in OPENAI_KEYS and value is not None:
                extras[key] = value
    choices = chunk.get("choices") or []
    if choices and isinstance(choices[0], dict) and not choices[0].keys() <= OPENAI_CHOICE_KEYS:
        for key, value in choices[0].items():
            if key not in OPENAI_CHOICE_KEYS and value is not None:
                extras.setdefault("choice", {})[key] = value


def _delta_text(
    choices: list[dict[str, Any]],
) -> tuple[str, str | None, list[dict[str, Any]]]:
    text, finish = "", None
    calls: list[dict[str, Any]] = []
    for choice in choices:
        if "text" in choice:
            text += choice.get("text") or ""
        delta = choice.get("delta") or {}
        text += delta.get("content") or ""
        calls.extend(delta.get("tool_calls") or [])
        finish = choice.get("finish_reason") or finish
    return text, finish, calls


def _json(text: str) -> Any:
    """``json.loads`` for a stripped line, without its whitespace scans (a tenth of the per-chunk
    cost of this module)."""
    value, end = _DECODER.raw_decode(text)
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


class _Events:
    """The SSE parser both transports feed: ``feed`` takes the body's next bytes and their arrival
    time and collects text, chunk arrivals, usage and extras. Lines are split here from the raw
    bytes (a transport's text and line iterators cost more per chunk than all of this); they end
    in LF, CRLF or CR, as in SSE, and a line cut between two reads is completed by the next."""

    __slots__ = (
        "arrivals",
        "calls",
        "device",
        "device_arrival",
        "done",
        "encoding",
        "error",
        "extras",
        "finish",
        "limit",
        "lines",
        "parts",
        "reconnects",
        "rest",
        "size",
        "start",
        "ttft",
        "usage",
    )

    def __init__(self, limit: int | None = None) -> None:
        self.encoding = "utf-8"
        #: the request's ``max_tokens``: no answer's usage may count more
        self.limit = limit
        self.size = 0  # bytes of the body so far
        self.lines = 0  # data lines so far
        self.rest = b""
        self.parts: list[str] = []
        self.arrivals: list[float] = []
        self.calls: list[dict[str, Any]] = []
        self.ttft: float | None = None
        self.finish: str | None = None
        self.usage: dict[str, Any] = {}
        self.extras: dict[str, Any] = {}
        self.done: float | None = None  # arrival of ``[DONE]``
        self.error: str | None = None  # an ``error`` object sent in the stream
        #: the last device time a chunk carried (None: a host-clocked stream)
        self.device: float | None = None
        self.device_arrival: float | None = None
        #: when the request was sent (the clock's reading), and how often it was sent again
        #: because its connection had gone stale (``_reconnect``)
        self.start = 0.0
        self.reconnects = 0

    def feed(self, piece: bytes, now: float) -> bool:
        """Parse the lines ``piece`` completes, all arrived at ``now``; True once the stream is
        over (``[DONE]`` or an error object). An answer that fails a check raises
        ``RejectedResponseError``."""
        self.size += len(piece)
        if self.size > MAX_BODY_BYTES:
            raise RejectedResponseError("oversized", f"body above {MAX_BODY_BYTES} bytes")
        if b"\r" in piece:
            piece = piece.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = (self.rest + piece).split(b"\n") if self.rest else piece.split(b"\n")
        self.rest = lines.pop()
        for line in lines:
            if self._line(line, now):
                return True
        if len(self.rest) > MAX_LINE_BYTES:
            raise RejectedResponseError("oversized", f"a line above {MAX_LINE_BYTES} bytes")
        return False

    def _line(self, line: bytes, now: float) -> bool:
        if not line.startswith(b"data:"):
            if line and not line.startswith(_SSE_FIELDS):
                raise RejectedResponseError(
                    "not_a_stream", f"a line that is not server-sent events: {line[:80]!r}"
                )
            return False
        self.lines += 1
        data = line[5:].strip()
        if data == b"[DONE]":
            self.done = now if self.device is None else self.device
            return True
        try:
            chunk = _json(data.decode(self.encoding, errors="replace"))
        except json.JSONDecodeError as exc:
            raise _malformed(f"a data line that is not JSON ({exc.msg}): {data[:80]!r}") from exc
        if not isinstance(chunk, dict):
            raise _malformed(f"a data line that is not a JSON object: {data[:80]!r}")
        if "error" in chunk:
            self.error = str(chunk["error"])
            return True
        at = now
        if "device_time_s" in chunk:  # a modelled device clock times this chunk
            at = self.device = _number(chunk, "device_time_s")
            if chunk.get("device_arrival_s") is not None:
                self.device_arrival = _number(chunk, "device_arrival_s")
        choices = _check_choices(chunk)
        usage = chunk.get("usage")
        if usage is not None:
            if not isinstance(usage, dict):
                raise _malformed(f"usage is {type(usage).__name__}, not an object")
            if (why := _count_error(usage, self.limit)) is not None:
                raise _malformed(why)
        text, fin, new_calls = _delta_text(choices)
        if text or new_calls:
            if self.ttft is None:
                self.ttft = at
            self.arrivals.append(at)
            self.parts.append(text)
            if new_calls:
                self.calls.extend(new_calls)
        if fin:
            self.finish = fin
        if usage:
            self.usage = usage
        _merge_extras(self.extras, chunk)
        return False

    def end(self, now: float) -> None:
        """The body ended at ``now``: its last line (without a line end) is read, and a stream
        that ended without ``[DONE]`` or an error object is refused."""
        if self.rest:
            line, self.rest = self.rest, b""
            if self._line(line, now):
                return
        if self.done is None and self.error is None:
            if self.lines == 0:
                raise RejectedResponseError("not_a_stream", f"no data line in {self.size} bytes")
            n = len(self.arrivals)
            raise RejectedResponseError(
                "truncated_stream", f"the stream ended without [DONE] after {n} chunks of text"
            )

    def response(self) -> StreamedResponse:
        """The finished stream."""
        if self.error is not None:
            return StreamedResponse("error", text="".join(self.parts), error=self.error)
        assert self.done is not None
        done = self.done
        arrivals = self.arrivals
        return StreamedResponse(
            "ok",
            "".join(self.parts),
            self.finish,
            self.usage.get("prompt_tokens"),
            self.usage.get("completion_tokens"),
            self.ttft,
            arrivals[-1] if arrivals else done,
            tuple(arrivals),
            self.extras,
            None,
            tuple(self.calls),
            done,
            "host" if self.device is None else "device",
            self.device_arrival,
            self.reconnects,
        )


def device_clock_extra(responses: Sequence[StreamedResponse]) -> dict[str, Any]:
    """What a sample records of the device clock its requests were timed by: nothing for host
    timing; else ``clock: device`` and, when the engine sent the arrivals, the sample's span on
    that clock (the first request's arrival to the last one's end). Only answered requests count:
    a request the server refused (an episode's turn past the context) was timed by no clock."""
    responses = [r for r in responses if r.status == "ok"]
    if not responses or any(r.clock != "device" for r in responses):
        return {}
    out: dict[str, Any] = {"clock": "device"}
    first, last = responses[0], responses[-1]
    end = last.done_s if last.done_s is not None else last.e2e_s
    if first.device_arrival_s is not None and last.device_arrival_s is not None and end is not None:
        out["device_span_s"] = [first.device_arrival_s, last.device_arrival_s + end]
    return out


Clock = Callable[[], float]
# aiohttp's own timeouts off for a request: the whole-request deadline bounds it.
_NO_TIMEOUT = aiohttp.ClientTimeout()
_R = TypeVar("_R")
#: how often a request whose connection turned out closed before any answer is sent again
STALE_RETRIES = 3

#: How long an idle connection is kept for reuse, in seconds. The engines' servers close a
#: connection idle for 5 s: uvicorn's default ``timeout_keep_alive``, which vLLM
#: (``VLLM_HTTP_TIMEOUT_KEEP_ALIVE``) and the reference server keep, and cpp-httplib's
#: ``CPPHTTPLIB_KEEPALIVE_TIMEOUT_SECOND``, llama-server's. A client that keeps idle connections
#: longer (aiohttp's default is 15 s, httpx's 5 s) now and then sends a request on one just as the
#: server closes it, and the request fails with a disconnect the server never saw coming.
IDLE_REUSE_S = 2.0


def connections(pool: int | None) -> tuple[httpx.AsyncClient, aiohttp.ClientSession]:
    """The two clients a run sends on: httpx (probes, snapshots, agent episodes) and aiohttp
    (measured requests), each with at most ``pool`` connections (None: no limit), no
    session-wide timeout (each request has its own deadline), and idle connections dropped after
    ``IDLE_REUSE_S``, before any server closes them."""
    limits = httpx.Limits(max_connections=pool, keepalive_expiry=IDLE_REUSE_S)
    connector = aiohttp.TCPConnector(limit=pool or 0, keepalive_timeout=IDLE_REUSE_S)
    return (
        httpx.AsyncClient(limits=limits),
        aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout()),
    )


async def _read_httpx(
    client: httpx.AsyncClient,
    url: str,
    body: dict[str, Any],
    events: _Events,
    clock: Clock,
) -> StreamedResponse | None:
    """Send the request on httpx and feed the body to ``events``; a non-200 answer is returned."""
    # httpx's own timeouts (timeout=None here) would arm and cancel a timer around every socket
    # read; the caller's deadline bounds those reads as well.
    request = client.build_request("POST", url, json=body, timeout=None)
    resp = await _sent(
        lambda: client.send(request, stream=True),
        (httpx.RemoteProtocolError, httpx.WriteError, httpx.ReadError),
        events,
        clock,
    )
    try:
        if resp.status_code != 200:
            raw = (await resp.aread()).decode(errors="replace")
            return StreamedResponse("error", error=f"HTTP {resp.status_code}: {raw[:500]}")
        events.encoding = resp.encoding or "utf-8"
        # Raw bytes are cheapest; a compressed body, or one already read into memory (a
        # response built from bytes, as transports in tests do), goes through aiter_bytes.
        decoded = "content-encoding" in resp.headers or resp.is_stream_consumed
        pieces = resp.aiter_bytes() if decoded else resp.aiter_raw()
        async for piece in pieces:
            if events.feed(piece, clock() - events.start):
                # Not read to its end, the response closes its connection; reading on would
                # keep it for reuse, but httpcore's pool scans every pooled connection at each
                # request's start and end, and with hundreds of them that costs more than
                # opening a new connection.
                break
        else:
            events.end(clock() - events.start)
    finally:
        await resp.aclose()
    return None


async def _read_aiohttp(
    session: aiohttp.ClientSession,
    url: str,
    body: dict[str, Any],
    events: _Events,
    clock: Clock,
) -> StreamedResponse | None:
    """Send the request on aiohttp and feed the body to ``events``; a non-200 answer is
    returned. The body comes decompressed. When ``[DONE]`` came with the end of the body, as it
    usually does, leaving the response returns its connection to the pool; otherwise the
    connection is closed."""
    resp = await _sent(
        lambda: session.post(url, json=body, timeout=_NO_TIMEOUT),
        (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError),
        events,
        clock,
        # nothing listens: the engine is gone, not a connection gone stale
        gone=(aiohttp.ClientConnectorError,),
    )
    async with resp:
        if resp.status != 200:
            raw = (await resp.read()).decode(errors="replace")
            return StreamedResponse("error", error=f"HTTP {resp.status}: {raw[:500]}")
        events.encoding = resp.charset or "utf-8"
        async for piece in resp.content.iter_any():
            if events.feed(piece, clock() - events.start):
                break
        else:
            events.end(clock() - events.start)
    return None


async def _sent(
    send: Callable[[], Awaitable[_R]],
    stale: tuple[type[Exception], ...],
    events: _Events,
    clock: Clock,
    gone: tuple[type[Exception], ...] = (),
) -> _R:
    """``send()``'s response once its head came, sending again (``_reconnect``) while it fails
    with one of ``stale`` (and none of ``gone``) before any byte of the answer."""
    while True:
        try:
            return await send()
        except gone:
            raise
        except stale as exc:
            _reconnect(events, exc, clock)


def _reconnect(events: _Events, exc: Exception, clock: Clock) -> None:
    """A connection failed before any byte of the answer. Almost always the pool handed out a
    connection the server had already closed: llama-server closes one after each streamed
    answer while its headers still offer keep-alive, and any server closes an idle one. Such a
    server never read the request, so it is sent again, on another connection, up to
    ``STALE_RETRIES`` times; its clock restarts and the answer counts the resends. A server that
    died holding the request fails the resend too (nothing listens), and that failure is the
    request's, as is ``exc`` past the resends."""
    if events.reconnects >= STALE_RETRIES:
        raise exc
    events.reconnects += 1
    events.start = clock()


async def stream(
    client: httpx.AsyncClient | aiohttp.ClientSession,
    url: str,
    payload: dict[str, Any],
    clock: Clock = time.perf_counter,
    timeout_s: float = 600.0,
) -> StreamedResponse:
    """POST ``payload`` as a streamed request to ``url`` and time its chunks (module docstring);
    ``timeout_s`` bounds the whole request, from connecting to the end of the stream."""
    body = {**payload, "stream": True, "stream_options": {"include_usage": True}}
    limit = payload.get("max_tokens")
    events = _Events(limit if isinstance(limit, int) and not isinstance(limit, bool) else None)
    events.start = clock()
    try:
        async with asyncio.timeout(timeout_s):
            if isinstance(client, httpx.AsyncClient):
                failed = await _read_httpx(client, url, body, events, clock)
            else:
                failed = await _read_aiohttp(client, url, body, events, clock)
        if failed is not None:
            return failed
    except (httpx.TimeoutException, TimeoutError) as exc:  # aiohttp's timeouts are TimeoutErrors
        if events.done is None:
            reason = str(exc) or f"no complete answer within {timeout_s:g} s"
            text = "".join(events.parts)
            return StreamedResponse("timeout", text=text, error=f"timed out: {reason}")
    except RejectedResponseError as exc:
        return StreamedResponse("error", text="".join(events.parts), error=str(exc))
    except (httpx.HTTPError, aiohttp.ClientError, ValueError) as exc:
        if events.done is None:
            error = f"{type(exc).__name__}: {exc}"
            return StreamedResponse("error", text="".join(events.parts), error=error)
    return events.response()
