"""A fuzz of the stream parser: whatever bytes a server sends, cut wherever the reads fall, the
client returns an answer or a failure with its reason, and never raises."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator

import httpx
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from specverdict.engines.client import StreamedResponse, stream

REASONS = ("malformed_response", "not_a_stream", "truncated_stream", "oversized")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)
#: chunks shaped like OpenAI's, with any value where a field should be
chunks = st.fixed_dictionaries(
    {},
    optional={
        "choices": st.one_of(
            json_values,
            st.lists(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "text": json_values,
                        "delta": json_values
                        | st.fixed_dictionaries({}, optional={"content": json_values}),
                        "finish_reason": json_values,
                    },
                ),
                max_size=2,
            ),
        ),
        "usage": json_values
        | st.fixed_dictionaries(
            {}, optional={"completion_tokens": json_values, "prompt_tokens": json_values}
        ),
        "device_time_s": json_values,
        "error": json_values,
    },
)
lines = st.one_of(
    chunks.map(lambda c: b"data: " + json.dumps(c).encode() + b"\n\n"),
    st.sampled_from([b"data: [DONE]\n\n", b": ping\n\n", b"\n", b"data: {\n", b"event: x\n"]),
    st.binary(max_size=40),
)


def replay(pieces: list[bytes]) -> StreamedResponse:
    async def handler(request: httpx.Request) -> httpx.Response:
        async def body() -> AsyncIterator[bytes]:
            for piece in pieces:
                yield piece

        return httpx.Response(200, content=body())

    async def main() -> StreamedResponse:
        transport = httpx.MockTransport(handler)
        async with httpx.AsyncClient(transport=transport) as client:
            return await stream(client, "http://x/v1/completions", {"max_tokens": 64})

    return asyncio.run(main())


ANSWER = b'data: {"choices": [{"text": "hi"}]}\n\n'


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(lines, max_size=8), st.lists(st.integers(min_value=0, max_value=400), max_size=4))
# each branch below is taken on every run, whatever the generated inputs are
@example([ANSWER, b"data: [DONE]\n\n"], [10])  # an answer, its first line cut in two reads
@example([ANSWER], [])  # the stream ends without [DONE]: a failure with its reason
def test_any_bytes_give_an_answer_or_a_failure_with_its_reason(
    parts: list[bytes], cuts: list[int]
) -> None:
    whole = b"".join(parts)
    edges = sorted({0, len(whole), *(c for c in cuts if c < len(whole))})
    pieces = [whole[a:b] for a, b in itertools.pairwise(edges)]
    r = replay(pieces)
    if r.status == "ok":
        # an answer ended with [DONE], and its counts are what the checks let through
        assert r.done_s is not None
        assert r.completion_tokens is None or 0 <= r.completion_tokens <= 64
        assert isinstance(r.text, str)
    else:
        # refused with its reason, or an error object the server sent in the stream
        assert r.status == "error" and r.error is not None
        assert r.error.startswith(REASONS) or b'"error"' in whole, r.error
