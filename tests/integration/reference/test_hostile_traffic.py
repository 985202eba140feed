"""The reference server survives hostile traffic over real HTTP.

schemathesis generates requests from the server's own OpenAPI schema (valid, boundary and
invalid bodies) and no answer may be a 5xx; then a bounded flood of concurrent and malformed
requests (broken JSON, truncated bodies, wrong types, clients that hang up mid-stream) must
leave it serving correct answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok

from specverdict.engines.launcher import LaunchedServer, free_port
from tests.conftest import server_cmd


@pytest.fixture(scope="module")
def hostile_server() -> Iterator[str]:
    port = free_port()
    # a short context bounds the cost of what the fuzzer asks for (max_tokens, long prompts)
    server = LaunchedServer(server_cmd(port, "--max-model-len", "96"), f"http://127.0.0.1:{port}")
    with server:
        yield server.base_url


def operations(base_url: str) -> list[schemathesis.APIOperation[Any, Any, Any, Any]]:
    schema = schemathesis.openapi.from_url(f"{base_url}/openapi.json")
    out = []
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), result  # the server's schema is valid OpenAPI
        out.append(result.ok())
    return out


def test_no_generated_request_gets_a_server_error(hostile_server: str) -> None:
    ops = operations(hostile_server)
    assert {op.path for op in ops} >= {"/v1/completions", "/v1/chat/completions", "/v1/models"}
    for op in ops:

        @settings(
            max_examples=25,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
            database=None,
        )
        @given(case=op.as_strategy())
        def check(case: schemathesis.Case[Any]) -> None:
            response = case.call(base_url=hostile_server, timeout=60)
            case.validate_response(response, checks=[not_a_server_error])

        check()


def test_a_flood_of_concurrent_and_malformed_requests_leaves_it_serving(
    hostile_server: str,
) -> None:
    url = hostile_server + "/v1/completions"
    good = {
        "model": "reference-target",
        "prompt": "def add(a, b):\n",
        "max_tokens": 8,
        "temperature": 0,
    }
    bodies: list[bytes] = [
        json.dumps(good).encode(),
        json.dumps({**good, "stream": True}).encode(),
        b"{not json",
        json.dumps(good).encode()[:20],  # truncated
        json.dumps({**good, "max_tokens": "many"}).encode(),
        json.dumps({**good, "prompt": ["x"] * 50}).encode(),
        json.dumps({**good, "prompt": "\x00\udfff" * 3}, ensure_ascii=True).encode(),
        json.dumps([1, 2, 3]).encode(),
        b"",
    ]

    failures: list[str] = []

    async def hostile(client: httpx.AsyncClient, i: int) -> int:
        body = bodies[i % len(bodies)]
        if i % 7 == 0:  # a streaming client that hangs up after the first bytes
            with contextlib.suppress(httpx.HTTPError):
                async with client.stream(
                    "POST", url, content=json.dumps({**good, "stream": True})
                ) as resp:
                    async for _ in resp.aiter_bytes():
                        break
            return 0
        try:
            resp = await client.post(
                url, content=body, headers={"Content-Type": "application/json"}
            )
        except httpx.HTTPError as exc:
            failures.append(f"body {i % len(bodies)}: {type(exc).__name__}: {exc}")
            return -1
        return resp.status_code

    async def flood() -> list[int]:
        limits = httpx.Limits(max_connections=64)
        async with httpx.AsyncClient(timeout=120, limits=limits) as client:
            return await asyncio.gather(*(hostile(client, i) for i in range(300)))

    with httpx.Client(timeout=60) as client:
        before = client.post(url, json=good).json()["choices"][0]["text"]
    codes = asyncio.run(flood())
    assert not failures, failures[:5]
    assert not [c for c in codes if c >= 500], sorted(set(codes))
    assert {200, 400} <= set(codes)
    with httpx.Client(timeout=60) as client:  # still serving, and correctly
        assert client.get(hostile_server + "/health").status_code == 200
        after = client.post(url, json=good).json()["choices"][0]["text"]
        assert after == before  # greedy: the answer it gave before the flood
