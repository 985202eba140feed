"""An OpenAI-compatible streaming client that times every chunk.

Timing semantics follow vLLM's benchmark client: TTFT is the arrival of the first chunk that
carries output; each later content chunk gives one inter-chunk latency; e2e is the arrival of the
last chunk that carried output (so e2e - TTFT equals the sum of inter-chunk latencies exactly), and
``done_s`` the end of the stream (usage chunk, ``[DONE]``). A response without output ends at
``done_s``. A speculative engine sends several tokens per chunk, so per-token TPOT is computed
from token counts, not chunk counts: TPOT = (e2e - TTFT) / (completion_tokens - 1).
Failures are returned as data (``status`` ``error`` or ``timeout``), never raised.
A chunk arrives when the socket read that completes it returns: chunks that came in one read share
one arrival time, and it is taken before the chunk is parsed.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

Status = Literal["ok", "error", "timeout"]
OPENAI_KEYS = frozenset(
    {"id", "object", "created", "model", "choices", "usage", "system_fingerprint"}
)
OPENAI_CHOICE_KEYS = frozenset({"index", "text", "delta", "message", "finish_reason", "logprobs"})
_DECODER = json.JSONDecoder()


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


def _delta_text(chunk: dict[str, Any]) -> tuple[str, str | None, list[dict[str, Any]]]:
    text, finish = "", None
    calls: list[dict[str, Any]] = []
    for choice in chunk.get("choices") or []:
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


async def stream(
    client: httpx.AsyncClient,
    url: str,
    payload: dict[str, Any],
    clock: Callable[[], float] = time.perf_counter,
    timeout_s: float = 600.0,
) -> StreamedResponse:
    body = {**payload, "stream": True, "stream_options": {"include_usage": True}}
    t0 = clock()
    parts: list[str] = []
    arrivals: list[float] = []
    calls: list[dict[str, Any]] = []
    ttft = None
    finish = None
    usage: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    done: float | None = None
    try:
        # One deadline for the whole request. httpx's own timeouts (timeout=None here) would arm
        # and cancel a timer around every socket read; the deadline bounds those reads as well.
        async with (
            asyncio.timeout(timeout_s),
            client.stream("POST", url, json=body, timeout=None) as resp,
        ):
            if resp.status_code != 200:
                raw = (await resp.aread()).decode(errors="replace")
                return StreamedResponse("error", error=f"HTTP {resp.status_code}: {raw[:500]}")
            # Lines are split here from the raw bytes: httpx's text and line iterators cost more
            # per chunk than all the rest of this loop. Lines end in LF, CRLF or CR, as in SSE.
            encoding = resp.encoding or "utf-8"
            # Raw bytes are cheapest; a compressed body, or one already read into memory (a
            # response built from bytes, as transports in tests do), goes through aiter_bytes.
            decoded = "content-encoding" in resp.headers or resp.is_stream_consumed
            pieces = resp.aiter_bytes() if decoded else resp.aiter_raw()
            rest = b""
            async for piece in pieces:
                now = clock() - t0  # arrival of the lines this piece completes
                if b"\r" in piece:
                    piece = piece.replace(b"\r\n", b"\n").replace(b"\r", b"\n")  # noqa: PLW2901
                lines = (rest + piece).split(b"\n") if rest else piece.split(b"\n")
                rest = lines.pop()
                for line in lines:
                    if not line.startswith(b"data:"):
                        continue
                    data = line[5:].strip()
                    if data == b"[DONE]":
                        done = now
                        break
                    chunk = _json(data.decode(encoding, errors="replace"))
                    if "error" in chunk:
                        text = "".join(parts)
                        return StreamedResponse("error", text=text, error=str(chunk["error"]))
                    text, fin, new_calls = _delta_text(chunk)
                    if text or new_calls:
                        ttft = now if ttft is None else ttft
                        arrivals.append(now)
                        parts.append(text)
                        calls.extend(new_calls)
                    finish = fin or finish
                    usage = chunk.get("usage") or usage
                    _merge_extras(extras, chunk)
                if done is not None:
                    # Not read to its end, the response closes its connection; reading on would
                    # keep it for reuse, but httpcore's pool scans every pooled connection at each
                    # request's start and end, and with hundreds of them that costs more than
                    # opening a new connection.
                    break
    except (httpx.TimeoutException, TimeoutError) as exc:
        if done is None:
            reason = str(exc) or f"no complete answer within {timeout_s:g} s"
            return StreamedResponse("timeout", text="".join(parts), error=f"timed out: {reason}")
    except (httpx.HTTPError, ValueError) as exc:  # ValueError: a data line that is not JSON
        if done is None:
            error = f"{type(exc).__name__}: {exc}"
            return StreamedResponse("error", text="".join(parts), error=error)
    if done is None:
        done = clock() - t0
    return StreamedResponse(
        "ok",
        "".join(parts),
        finish,
        usage.get("prompt_tokens"),
        usage.get("completion_tokens"),
        ttft,
        arrivals[-1] if arrivals else done,
        tuple(arrivals),
        extras,
        None,
        tuple(calls),
        done,
    )
