"""What kind of failure a stored sample records, and what the runner does about it.

The streaming client stores a failure as its status (``error``, ``timeout``) and a text that
starts with the HTTP status or with the class of the exception that ended the request
(``engines/client.py``). This module reads that back into a kind, one rule for every reader: the
runner (is the engine gone? is the sample worth another attempt?) and ``runs errors``.
"""

from __future__ import annotations

from collections.abc import Sequence

from specverdict.records import SampleRecord, SampleStatus

#: exception classes (aiohttp, httpx, the standard library) that mean the connection to the
#: engine failed or broke: it is not listening, it went away, or it cut the stream
CONNECTION_ERRORS = frozenset(
    {
        "ClientConnectorError",
        "ClientConnectionError",
        "ClientConnectionResetError",
        "ClientOSError",
        "ClientPayloadError",
        "ServerConnectionError",
        "ServerDisconnectedError",
        "ConnectError",
        "ConnectTimeout",
        "ReadError",
        "WriteError",
        "CloseError",
        "NetworkError",
        "RemoteProtocolError",
        "ConnectionError",
        "ConnectionRefusedError",
        "ConnectionResetError",
        "BrokenPipeError",
        "OSError",
    }
)
#: how the runner marks a failure of an episode's own harness (its tool calls or test run, not
#: the engine): retried like a transient failure
HARNESS_ERROR = "harness:"
#: exception classes of a stream the client could not parse (records stored before answers
#: were checked by reason)
MALFORMED = frozenset({"ValueError", "JSONDecodeError", "UnicodeDecodeError"})
#: the reasons the streaming client refuses an answer (``engines/client.py``), each its own kind
REJECTED = {
    "malformed_response": "malformed response",
    "not_a_stream": "not a stream",
    "truncated_stream": "truncated stream",
    "oversized": "oversized",
}


#: what engines answer (HTTP 400) to a request that does not fit the model's context: vLLM
#: ("This model's maximum context length is N tokens. However, ..."), OpenAI-style gateways
#: ("The input (N tokens) is longer than the model's context length"), llama.cpp's server
#: ("the request exceeds the available context size", type exceed_context_size_error)
CONTEXT_OVERFLOW = (
    "maximum context length is",
    "longer than the model's context length",
    "exceeds the model's maximum context",
    "exceeds the available context size",
    "exceed_context_size_error",
)


def context_overflow(error: str | None) -> bool:
    """The request was refused because the prompt (with its output budget) does not fit the
    model's context: in a multi-turn episode, the model ran out of room, an end of the episode
    like any other and no failure of the engine."""
    if not error or not error.startswith("HTTP 400"):
        return False
    text = error.lower()
    return any(p in text for p in CONTEXT_OVERFLOW)


def failure_kind(status: SampleStatus, error: str | None) -> str | None:
    """``None`` for an answer; else one of ``timeout``, ``connection``, ``HTTP <code>``,
    ``malformed stream``, ``malformed response``, ``not a stream``, ``truncated stream``,
    ``oversized`` (an answer the client refused, ``REJECTED``), ``engine error`` (an error
    object sent in the stream), ``harness error`` (an agent episode's tools or tests failed),
    ``cancelled``."""
    if status == "ok":
        return None
    if status == "timeout":
        return "timeout"
    if status == "cancelled":
        return "cancelled"
    error = error or ""
    if error.startswith(HARNESS_ERROR):
        return "harness error"
    if error.startswith("HTTP "):
        code = error[5:].split(":", 1)[0].strip()
        return f"HTTP {code}" if code.isdigit() else "HTTP error"
    name = error.split(":", 1)[0].strip()
    if name in REJECTED:
        return REJECTED[name]
    if name in CONNECTION_ERRORS:
        return "connection"
    if name in MALFORMED:
        return "malformed stream"
    return "engine error"


def engine_fault(status: SampleStatus, error: str | None) -> bool:
    """A failure that says the engine is gone or hung rather than that it refused this request:
    a refused, reset or broken connection, or no complete answer before the deadline."""
    return failure_kind(status, error) in ("connection", "timeout")


def retryable(sample: SampleRecord) -> bool:
    """A failed attempt worth another one on a re-run. A client error (HTTP 4xx: a prompt longer
    than the context, a bad request) repeats itself, so it stays data and is not retried."""
    kind = failure_kind(sample.status, sample.error)
    return kind is not None and not (kind.startswith("HTTP 4"))


def failed_share(samples: Sequence[SampleRecord]) -> tuple[int, int, SampleRecord | None]:
    """(failed, total, the first failed sample in id order) of one run's latest answers."""
    failed = sorted((s for s in samples if s.status != "ok"), key=lambda s: s.sample_id)
    return len(failed), len(samples), failed[0] if failed else None


def failed_run_message(
    run_id: str, label: str, url: str | None, samples: Sequence[SampleRecord], limit: float
) -> str | None:
    """One line for a run whose failed requests exceed ``limit`` (the campaign's
    ``gates.max_failure_rate``): the count, the first error and where it was sent; None when
    the run is within the limit."""
    failed, total, first = failed_share(samples)
    if total == 0 or failed / total <= limit or first is None:
        return None
    error = " ".join((first.error or first.status).split())
    if len(error) > 200:
        error = error[:200] + "..."
    where = f" from {url}" if url else ""
    above = f", above max_failure_rate {100 * limit:g}%" if limit > 0 else ""
    return (
        f"run {run_id} ({label}): {failed} of {total} requests failed{above}; first "
        f"({first.sample_id}){where}: {error}"
    )
