"""The streaming client's own cost: tokens/s it can ingest, CPU per token, timestamp error.

A local server, in its own process on its own core, streams one token per chunk in OpenAI SSE
format (``/v1/completions`` chunks like vLLM's, HTTP/1.1 chunked transfer encoding, a final
usage chunk, then ``data: [DONE]``). Each chunk's text is the server's ``time.perf_counter()``
reading taken just before the chunk is written (``"12345.678901234|"``), so every client gets the
send time of every token from the text it already collects, aligned one to one with its arrival
timestamps. ``perf_counter`` is ``CLOCK_MONOTONIC`` on Linux, one clock for all processes; the
script checks this before measuring (server stamps must fall inside the client's send/receive
window of a request).

Clients, each on the other core, at concurrency 1, 64 and 256, closed loop:

- ``specverdict``: ``specverdict.engines.client.stream`` on one ``aiohttp.ClientSession`` set up
  as the runner sets it up for measured requests;
- ``specverdict httpx``: the same ``stream`` on one ``httpx.AsyncClient`` sized for the same
  concurrency (the transport the runner measured on before, and the one tests replay through);
- ``aiohttp`` (the baseline): a minimal client written the way vLLM's benchmark client is (an
  aiohttp session, iterate over the response's lines, parse ``data:`` lines, ``perf_counter``);
- ``httpx floor``: the same httpx client reading the stream without parsing it, the least any
  client on httpx pays;
- ``raw socket``: a bare asyncio reader that only splits events; it shows what the server and the
  event loop allow (the ceiling of this setup), not a usable client;
- with ``--aiperf BIN``, aiperf too (its own output-token throughput; it runs as several
  processes, all on the client core).

Two measurements per client and concurrency:

- saturated: the server streams as fast as it can; sustained tokens/s ingested and client CPU
  seconds (``time.process_time`` of the client process) per 1,000 tokens;
- paced: the server sends each stream's tokens at a fixed interval (phases spread so streams do
  not tick together), below saturation; CPU per token, and arrival minus send time per token
  (p50, p99). Once a client falls behind, arrival minus send measures queueing, hence the pacing.

Request lengths vary around their mean so that requests do not all end together. Objects alive
before a run are frozen out of the garbage collector (``gc.freeze``), so that its pauses come from
what the client allocates.

    python benchmarks/client_overhead.py              # about 90 s
    python benchmarks/client_overhead.py --quick      # about 60 s
    python benchmarks/client_overhead.py --repeats 3 --aiperf PATH/bin/aiperf --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from _results import cpu_model, write_section
from specverdict.engines.client import stream

SECTION = "## Streaming client overhead"
BASELINE = "aiohttp"
PACED_TOKENS = 24  # mean tokens of a paced request
PERF = time.perf_counter

# ---------------------------------------------------------------------------------------------
# Server: a bare asyncio HTTP/1.1 server, so that it outruns the clients on one core.

HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
    b"transfer-encoding: chunked\r\n\r\n"
)
PREFIX = (
    b'data: {"id":"cmpl-%d","object":"text_completion","created":1700000000,"model":"bench",'
    b'"choices":[{"index":0,"text":"'
)
SUFFIX = b'","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}\n\n'
LAST = b'","logprobs":null,"finish_reason":"length","stop_reason":null}],"usage":null}\n\n'
USAGE = (
    b'data: {"id":"cmpl-%d","object":"text_completion","created":1700000000,"model":"bench",'
    b'"choices":[],"usage":{"prompt_tokens":8,"total_tokens":%d,"completion_tokens":%d}}\n\n'
    b"data: [DONE]\n\n"
)
BATCH = 32  # saturated mode: chunks generated per transport write


def _framed(event: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(event), event)


class StreamServer(asyncio.Protocol):
    """One connection; requests in sequence (keep-alive). ``POST /v1/completions`` streams
    ``max_tokens`` chunks, every ``pace_s`` seconds or as fast as possible; ``GET /clock``
    answers the server's ``perf_counter``."""

    counter = 0

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.buf = b""
        self.busy = False
        self.paused = False
        self.closed = False
        self.timer: asyncio.TimerHandle | None = None
        self.prefix = b""
        self.left = 0
        self.total = 0
        self.pace = 0.0
        self.start = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.timer is not None:
            self.timer.cancel()

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        if self.busy and not self.pace:
            self._pump()

    def data_received(self, data: bytes) -> None:
        self.buf += data
        self._next_request()

    def _next_request(self) -> None:
        assert self.transport is not None
        if self.busy or self.closed:
            return
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            return
        lines = self.buf[:end].decode("latin-1").split("\r\n")
        length = 0
        for line in lines[1:]:
            key, _, value = line.partition(":")
            if key.strip().lower() == "content-length":
                length = int(value)
        if len(self.buf) < end + 4 + length:
            return
        body = self.buf[end + 4 : end + 4 + length]
        self.buf = self.buf[end + 4 + length :]
        path = lines[0].split(" ")[1]
        if path == "/clock":
            text = b'{"t":%.9f}' % PERF()
            self.transport.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s"
                % (len(text), text)
            )
            self._next_request()
            return
        if path != "/v1/completions":
            self.transport.write(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
            self._next_request()
            return
        req = json.loads(body)
        StreamServer.counter += 1
        self.busy = True
        self.prefix = PREFIX % StreamServer.counter
        self.total = self.left = int(req.get("max_tokens", 16))
        self.pace = float(req.get("pace_s", 0.0))
        self.transport.write(HEAD)
        if self.pace:
            # Spread the phases of the streams over the interval (golden-ratio sequence), so
            # that streams started together do not send their tokens in lockstep.
            phase = (StreamServer.counter * 0.6180339887) % 1.0 * self.pace
            self.start = self.loop.time() + phase
            self.timer = self.loop.call_at(self.start, self._tick)
        else:
            self._pump()

    def _event(self) -> bytes:
        self.left -= 1
        end = LAST if self.left == 0 else SUFFIX
        return _framed(b"%s%.9f|%s" % (self.prefix, PERF(), end))

    def _finish(self) -> bytes:
        self.busy = False
        self.timer = None
        usage = USAGE % (StreamServer.counter, self.total + 8, self.total)
        return _framed(usage) + b"0\r\n\r\n"

    def _pump(self) -> None:
        assert self.transport is not None
        while self.left and not self.paused and not self.closed:
            parts = [self._event() for _ in range(min(BATCH, self.left))]
            if not self.left:
                parts.append(self._finish())
            self.transport.write(b"".join(parts))
        if not self.busy:
            self._next_request()

    def _tick(self) -> None:
        assert self.transport is not None
        if self.closed:
            return
        data = self._event()
        if self.left:
            self.timer = self.loop.call_at(
                self.start + (self.total - self.left) * self.pace, self._tick
            )
            self.transport.write(data)
        else:
            self.transport.write(data + self._finish())
            self._next_request()


def serve(core: int | None) -> None:
    if core is not None:
        os.sched_setaffinity(0, {core})

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(StreamServer, "127.0.0.1", 0, backlog=1024)
        print(server.sockets[0].getsockname()[1], flush=True)
        await server.serve_forever()

    asyncio.run(main())


# ---------------------------------------------------------------------------------------------
# Clients. Each request returns (tokens received, [(send_s, arrival_s)], ok).

Result = tuple[int, list[tuple[float, float]], bool]
Request = Callable[[dict[str, Any]], Awaitable[Result]]


def _pairs(text: str, arrivals: list[float]) -> list[tuple[float, float]]:
    sends = [float(s) for s in text.split("|")[:-1]]
    return list(zip(sends, arrivals, strict=True))


class AnchoredClock:
    """``perf_counter`` that remembers its first reading: ``stream`` reports times relative to
    it, and adding it back gives absolute arrival times."""

    def __init__(self) -> None:
        self.t0: float | None = None

    def __call__(self) -> float:
        now = PERF()
        if self.t0 is None:
            self.t0 = now
        return now


class Ours:
    """``stream`` on aiohttp, as the runner sets it up for a closed-loop load."""

    name = "specverdict"

    def __init__(self, url: str, conc: int) -> None:
        import aiohttp

        self.url = url + "/v1/completions"
        self.client: httpx.AsyncClient | aiohttp.ClientSession = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=conc + 4), timeout=aiohttp.ClientTimeout()
        )

    async def request(self, payload: dict[str, Any]) -> Result:
        if not payload.get("pace_s"):
            r = await stream(self.client, self.url, payload)
            n = len(r.chunk_arrivals_s)
            return n, [], r.status == "ok" and r.completion_tokens == payload["max_tokens"]
        clock = AnchoredClock()
        r = await stream(self.client, self.url, payload, clock)
        assert clock.t0 is not None
        arrivals = [clock.t0 + a for a in r.chunk_arrivals_s]
        ok = r.status == "ok" and r.completion_tokens == payload["max_tokens"]
        return len(arrivals), _pairs(r.text, arrivals) if ok else [], ok

    async def close(self) -> None:
        if isinstance(self.client, httpx.AsyncClient):
            await self.client.aclose()
        else:
            await self.client.close()


class OursHttpx(Ours):
    """``stream`` on httpx, sized as the runner sized it before it measured on aiohttp."""

    name = "specverdict httpx"

    def __init__(self, url: str, conc: int) -> None:
        self.url = url + "/v1/completions"
        self.client = httpx.AsyncClient(limits=httpx.Limits(max_connections=conc + 4))


class AiohttpPeer:
    """A minimal client in the manner of vLLM's benchmark client."""

    name = "aiohttp"

    def __init__(self, url: str, conc: int) -> None:
        import aiohttp

        self.url = url + "/v1/completions"
        self.session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=conc + 4),
            timeout=aiohttp.ClientTimeout(total=600),
        )

    async def request(self, payload: dict[str, Any]) -> Result:
        body = {**payload, "stream": True, "stream_options": {"include_usage": True}}
        arrivals: list[float] = []
        parts: list[str] = []
        completion = None
        async with self.session.post(self.url, json=body) as resp:
            if resp.status != 200:
                return 0, [], False
            async for raw in resp.content:
                line = raw.strip()
                if not line.startswith(b"data:"):
                    continue
                data = line[5:].strip()
                if data == b"[DONE]":
                    break
                now = PERF()
                chunk = json.loads(data)
                if choices := chunk.get("choices"):
                    text = choices[0].get("text")
                    if text:
                        arrivals.append(now)
                        parts.append(text)
                elif usage := chunk.get("usage"):
                    completion = usage.get("completion_tokens")
        ok = completion == payload["max_tokens"]
        pairs = _pairs("".join(parts), arrivals) if ok and payload.get("pace_s") else []
        return len(arrivals), pairs, ok

    async def close(self) -> None:
        await self.session.close()


def _scan(events: list[bytes], now: float, pairs: list[tuple[float, float]] | None) -> int:
    """Count the events that carry a token; with ``pairs``, add (send, arrival) for each."""
    tokens = 0
    for ev in events:
        i = ev.find(b'"text":"')
        if i >= 0:
            tokens += 1
            if pairs is not None:
                pairs.append((float(ev[i + 8 : ev.index(b"|", i)]), now))
    return tokens


class HttpxFloor:
    """httpx used as ``stream`` uses it, without the parsing: split the body into SSE events and
    stamp them, no JSON. What any client on this transport pays at least."""

    name = "httpx floor"

    def __init__(self, url: str, conc: int) -> None:
        self.url = url + "/v1/completions"
        self.client = httpx.AsyncClient(limits=httpx.Limits(max_connections=conc + 4))

    async def request(self, payload: dict[str, Any]) -> Result:
        body = {**payload, "stream": True, "stream_options": {"include_usage": True}}
        pairs: list[tuple[float, float]] | None = [] if payload.get("pace_s") else None
        tokens, done, buf = 0, False, b""
        async with self.client.stream("POST", self.url, json=body, timeout=None) as resp:
            async for piece in resp.aiter_raw():
                now = PERF()
                events = (buf + piece).split(b"\n\n")
                buf = events.pop()
                tokens += _scan(events, now, pairs)
                if events and events[-1].endswith(b"data: [DONE]"):
                    done = True
                    break  # as ``stream`` does
        ok = done and tokens == payload["max_tokens"]
        return tokens, pairs if ok and pairs else [], ok

    async def close(self) -> None:
        await self.client.aclose()


class RawSocket:
    """Bare asyncio streams, one connection per worker: send the request, split the chunked
    body into SSE events, stamp each. No JSON; the ceiling of this setup."""

    name = "raw socket"

    def __init__(self, url: str, conc: int) -> None:
        self.host, port = url.removeprefix("http://").split(":")
        self.port = int(port)
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def request(self, payload: dict[str, Any]) -> Result:
        if self.idle:
            reader, writer = self.idle.pop()
        else:
            reader, writer = await asyncio.open_connection(self.host, self.port)
        body = json.dumps({**payload, "stream": True}).encode()
        writer.write(
            b"POST /v1/completions HTTP/1.1\r\nhost: %s\r\ncontent-type: application/json\r\n"
            b"content-length: %d\r\n\r\n%s" % (self.host.encode(), len(body), body)
        )
        paced = bool(payload.get("pace_s"))
        pairs: list[tuple[float, float]] = []
        tokens = 0
        buf = b""
        while True:
            data = await reader.read(1 << 16)
            if not data:
                return tokens, [], False
            now = PERF()
            buf += data
            events = buf.split(b"\n\n")
            buf = events.pop()
            tokens += _scan(events, now, pairs if paced else None)
            if buf.endswith(b"\r\n0\r\n\r\n"):
                break
        self.idle.append((reader, writer))
        return tokens, pairs, tokens == payload["max_tokens"]

    async def close(self) -> None:
        for _, writer in self.idle:
            writer.close()


CLIENTS: dict[str, Callable[[str, int], Any]] = {
    "specverdict": Ours,
    "specverdict httpx": OursHttpx,
    "aiohttp": AiohttpPeer,
    "httpx floor": HttpxFloor,
    "raw socket": RawSocket,
}


# ---------------------------------------------------------------------------------------------
# Measurement


@dataclass
class Outcome:
    tokens: int = 0
    wall_s: float = 0.0
    cpu_s: float = 0.0
    failed: int = 0
    requests: int = 0
    errors_s: list[float] = field(default_factory=list)

    @property
    def tok_s(self) -> float:
        return self.tokens / self.wall_s if self.wall_s else 0.0

    @property
    def cpu_per_1k(self) -> float:
        return 1000 * self.cpu_s / self.tokens if self.tokens else float("nan")

    def pct(self, q: float) -> float:
        xs = sorted(self.errors_s)
        return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


async def measure(
    name: str, url: str, conc: int, duration: float, max_tokens: int, pace: float
) -> Outcome:
    client = CLIENTS[name](url, conc)
    payload = {"model": "bench", "prompt": "x", "max_tokens": max_tokens, "ignore_eos": True}
    if pace:
        payload["pace_s"] = pace
    out = Outcome()
    try:
        # warm-up: open the connections and take the first-use costs outside the timing
        await asyncio.gather(*(client.request({**payload, "max_tokens": 4}) for _ in range(conc)))
        deadline = PERF() + duration

        async def worker() -> None:
            while PERF() < deadline:
                # lengths spread over [max_tokens / 2, 3 max_tokens / 2), mean max_tokens, so
                # that requests do not all end together
                out.requests += 1
                frac = (out.requests * 0.6180339887) % 1.0
                length = max(1, int(max_tokens * (0.5 + frac)))
                tokens, pairs, ok = await client.request({**payload, "max_tokens": length})
                out.tokens += tokens
                out.failed += not ok
                out.errors_s.extend(a - s for s, a in pairs)

        # Objects alive now (modules, the harness) leave the collector's view, so that its pauses
        # during the run come from what the client allocates, not from the size of this process.
        gc.collect()
        gc.freeze()
        t0, c0 = PERF(), time.process_time()
        await asyncio.gather(*(worker() for _ in range(conc)))
        out.wall_s, out.cpu_s = PERF() - t0, time.process_time() - c0
    finally:
        gc.unfreeze()
        await client.close()
    return out


async def clock_check(url: str, rounds: int = 200) -> tuple[int, float]:
    """Server perf_counter stamps inside the client's [send, receive] window: how many rounds
    out of ``rounds``, and the median round trip."""
    inside, rtts = 0, []
    async with httpx.AsyncClient() as client:
        for _ in range(rounds):
            before = PERF()
            resp = await client.get(url + "/clock")
            after = PERF()
            inside += before <= resp.json()["t"] <= after
            rtts.append(after - before)
    return inside, statistics.median(rtts)


def run_aiperf(binary: str, url: str, conc: int, max_tokens: int, tokens: int) -> float:
    """aiperf's own output-token throughput for a closed-loop run at ``conc`` (its processes
    inherit this process's core), or NaN if it failed."""
    from specverdict.reference.weights import shipped

    requests = max(2 * conc, tokens // max_tokens)
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [
            os.path.abspath(binary), "profile", "--model", "bench", "--url", url, "--endpoint-type", "completions",
            "--streaming", "--tokenizer", str(shipped("target")), "--concurrency", str(conc),
            "--request-count", str(requests), "--warmup-request-count", str(conc),
            "--prompt-output-tokens-mean", str(max_tokens), "--use-legacy-max-tokens",
            "--extra-inputs", "ignore_eos:true", "--use-server-token-count", "--ui-type", "none",
            "--output-artifact-dir", tmp,
        ]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, check=False)
        export = Path(tmp) / "profile_export_aiperf.json"
        if done.returncode or not export.exists():
            print(f"aiperf failed ({done.returncode}): {done.stderr[-500:]}", file=sys.stderr)
            return float("nan")
        return float(json.loads(export.read_text())["output_token_throughput"]["avg"])


def aiohttp_version() -> str:
    import aiohttp

    return aiohttp.__version__


def start_server(core: int | None) -> tuple[subprocess.Popen[str], str]:
    cmd = [sys.executable, __file__, "--serve"]
    if core is not None:
        cmd += ["--core", str(core)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    return proc, f"http://127.0.0.1:{port}"


def fmt(x: float, spec: str) -> str:
    return "-" if math.isnan(x) else format(x, spec)


@dataclass
class Row:
    """One client at one concurrency: its runs, one per repeat; figures are medians."""

    interval_s: float
    saturated: list[Outcome] = field(default_factory=list)
    paced: list[Outcome] = field(default_factory=list)

    def sat(self, metric: Callable[[Outcome], float]) -> float:
        return statistics.median(metric(o) for o in self.saturated)

    def pac(self, metric: Callable[[Outcome], float]) -> float:
        return statistics.median(metric(o) for o in self.paced)


def tok_s(o: Outcome) -> float:
    return o.tok_s


def cpu_ms(o: Outcome) -> float:
    return o.cpu_per_1k * 1000


def p50_us(o: Outcome) -> float:
    return o.pct(0.5) * 1e6


def p99_us(o: Outcome) -> float:
    return o.pct(0.99) * 1e6


def table(rows: dict[tuple[str, int], Row], aiperf: dict[int, float]) -> str:
    lines = [
        f"| client | concurrency | saturated tok/s | vs {BASELINE} | CPU ms / 1k tok "
        f"| vs {BASELINE} | paced tok/s (interval) | paced CPU ms / 1k tok "
        "| arrival − send p50 (µs) | p99 (µs) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for conc in sorted({c for _, c in rows}):
        base = rows.get((BASELINE, conc))
        for (name, c), row in rows.items():
            if c != conc:
                continue
            vs_tok = f"{row.sat(tok_s) / base.sat(tok_s):.2f}x" if base else "-"
            vs_cpu = f"{row.sat(cpu_ms) / base.sat(cpu_ms):.2f}x" if base else "-"
            lines.append(
                f"| {name} | {conc} | {row.sat(tok_s):,.0f} | {vs_tok} | "
                f"{fmt(row.sat(cpu_ms), '.1f')} | {vs_cpu} | "
                f"{row.pac(tok_s):,.0f} ({row.interval_s * 1000:g} ms) | "
                f"{fmt(row.pac(cpu_ms), '.1f')} | {fmt(row.pac(p50_us), '.0f')} | "
                f"{fmt(row.pac(p99_us), '.0f')} |"
            )
        if conc in aiperf:
            vs = f"{aiperf[conc] / base.sat(tok_s):.2f}x" if base else "-"
            lines.append(
                f"| aiperf | {conc} | {fmt(aiperf[conc], ',.0f')} | {vs} | - | - | - | - | - | - |"
            )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="shorter runs (about 60 s in all)")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 64, 256])
    ap.add_argument("--clients", nargs="+", default=list(CLIENTS), choices=list(CLIENTS))
    ap.add_argument("--max-tokens", type=int, default=256, help="mean tokens, saturated requests")
    ap.add_argument("--seconds", type=float, help="per saturated run (default 3, quick 1)")
    ap.add_argument(
        "--paced-rate",
        type=float,
        default=2500,
        help="paced runs: tokens/s over all streams, one token per stream every "
        "max(1 ms, concurrency / rate)",
    )
    ap.add_argument("--repeats", type=int, default=1, help="runs per row; medians reported")
    ap.add_argument("--aiperf", metavar="BIN", help="also run this aiperf executable (saturated)")
    ap.add_argument("--write", type=Path, help="replace this benchmark's section of a RESULTS.md")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--core", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.core)
        return

    cores = sorted(os.sched_getaffinity(0))
    client_core, server_core = (cores[0], cores[1]) if len(cores) >= 2 else (None, None)
    if client_core is None:
        print("warning: fewer than 2 cores; client and server share one", file=sys.stderr)
    seconds = args.seconds or (1.0 if args.quick else 3.0)
    paced_seconds = 1.0 if args.quick else 2.0
    load_before = os.getloadavg()
    proc, url = start_server(server_core)
    if client_core is not None:
        os.sched_setaffinity(0, {client_core})
    rows: dict[tuple[str, int], Row] = {}
    aiperf: dict[int, float] = {}
    try:
        inside, rtt = asyncio.run(clock_check(url))
        print(f"clock check: server stamp inside the client's window in {inside}/200 round trips")
        for rep in range(args.repeats):  # round-robin, so that drift hits every row alike
            for conc in args.concurrency:
                interval = max(0.001, conc / args.paced_rate)
                # every stream completes at least one paced request of PACED_TOKENS on average
                paced_for = max(paced_seconds, 1.2 * PACED_TOKENS * interval)
                for name in args.clients:
                    sat = asyncio.run(measure(name, url, conc, seconds, args.max_tokens, 0.0))
                    paced = asyncio.run(measure(name, url, conc, paced_for, PACED_TOKENS, interval))
                    row = rows.setdefault((name, conc), Row(interval))
                    row.saturated.append(sat)
                    row.paced.append(paced)
                    bad = sat.failed + paced.failed
                    print(
                        f"{rep + 1}/{args.repeats} {name:>17} c={conc:<4} {sat.tok_s:>9.0f} tok/s "
                        f"{cpu_ms(sat):6.1f} ms CPU/1k tok | paced {paced.tok_s:6.0f} tok/s "
                        f"{cpu_ms(paced):6.1f} ms CPU/1k tok, arrival - send p50 "
                        f"{p50_us(paced):6.0f} us p99 {p99_us(paced):6.0f} us"
                        f"{f'  FAILED {bad}' if bad else ''}",
                        flush=True,
                    )
                if args.aiperf and rep == 0:
                    tokens = int(max(seconds, 2.0) * 40_000)
                    aiperf[conc] = run_aiperf(args.aiperf, url, conc, args.max_tokens, tokens)
                    print(f"{'aiperf':>21} c={conc:<4} {aiperf[conc]:>9.0f} tok/s", flush=True)
    finally:
        proc.terminate()
        proc.wait()

    text = table(rows, aiperf)
    print(text)
    failed = sum(o.failed for r in rows.values() for o in r.saturated + r.paced)
    if failed:
        print(f"warning: {failed} requests failed", file=sys.stderr)
    if args.write:
        command = " ".join(["python", "benchmarks/client_overhead.py", *sys.argv[1:]])
        header = (
            f"{SECTION}\n\n"
            f"- date: {time.strftime('%Y-%m-%d')}\n"
            f"- machine: {platform.machine()}, {os.cpu_count()} cores, {cpu_model()}, "
            f"Python {platform.python_version()}, httpx {httpx.__version__}, aiohttp {aiohttp_version()}; load average "
            f"{load_before[0]:.2f} before the run, {os.getloadavg()[0]:.2f} after\n"
            f"- command: `{command}`\n"
            f"- setup: client pinned to core {client_core}, server to core {server_core}; "
            f"medians of {args.repeats} run(s) per row, round-robin; "
            f"saturated: {seconds:g} s closed loop per row, requests of {args.max_tokens // 2}"
            f"-{args.max_tokens * 3 // 2} tokens; paced: requests of {PACED_TOKENS // 2}-"
            f"{PACED_TOKENS * 3 // 2} tokens at {args.paced_rate:g} tok/s over all streams; "
            f"clock check {inside}/200 server stamps inside the client's window, median round "
            f"trip {rtt * 1e6:.0f} µs; baseline `{BASELINE}`\n\n"
        )
        section = header + text + "\n"
        write_section(args.write, SECTION, section)


if __name__ == "__main__":
    main()
