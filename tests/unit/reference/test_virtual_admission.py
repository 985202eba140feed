"""On the virtual device clock, which requests share a step does not depend on how fast the
host's client refills a slot: a closed-loop client that answers slowly and at random gets the
same device times, the same batches and the same device-clock span as one that answers at once.
On the paced clock the engine never waits for a client."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from typing import Any, Literal

import pytest

from specverdict.reference.config import EngineConfig
from specverdict.reference.engine import EngineCore, GenerationRequest, RequestOutput
from specverdict.reference.sampling import SamplingParams
from specverdict.reference.server.app import Server
from specverdict.reference.server.async_engine import AsyncEngine
from specverdict.reference.server.metrics import PrometheusSink
from specverdict.reference.server.protocol import ChatCompletionRequest
from specverdict.reference.weights import shipped

PROMPTS = [
    "def add(a, b):\n",
    "def is_even(n):\n    return",
    "import os\n\ndef list_files(path):\n",
    "class Stack:\n    def __init__(self):\n",
    'def reverse(s):\n    """Return s reversed."""\n',
    "for i in range(10):\n",
]


def core(clock: Literal["paced", "virtual"]) -> EngineCore:
    return EngineCore(
        EngineConfig(
            model_dir=shipped("target"),
            served_model_name="t",
            device_model="accel-2b",
            device_clock=clock,
        )
    )


async def closed_loop(
    engine: AsyncEngine,
    n: int,
    concurrency: int,
    delays: random.Random | None,
    prefix: str = "r",
) -> dict[str, RequestOutput]:
    """``n`` requests, ``concurrency`` in flight; each slot refilled after a random host delay
    (up to 60 ms) when ``delays`` is given. The last output of each request, by id."""
    todo = list(range(n))
    last: dict[str, RequestOutput] = {}
    tok = engine.core.tokenizer

    async def slot() -> None:
        if delays is not None:  # a burst as HTTP requests arrive: spread over a few ms
            await asyncio.sleep(delays.uniform(0.0, 0.015))
        while todo:
            i = todo.pop(0)
            ids = tuple(tok.encode(PROMPTS[i % len(PROMPTS)]))
            request = GenerationRequest(
                f"{prefix}{i}",
                ids,
                12 + 5 * (i % 4),
                SamplingParams(temperature=0.0),
                ignore_eos=True,
            )
            async for out in engine.generate(request):
                last[request.request_id] = out
            if delays is not None:
                await asyncio.sleep(delays.uniform(0.0, 0.06))

    await asyncio.gather(*(slot() for _ in range(concurrency)))
    return last


def measure(
    clock: Literal["paced", "virtual"], delays: random.Random | None
) -> tuple[dict[str, float], Counter[int]]:
    engine = AsyncEngine(core(clock), admission_wait_s=1.0)
    engine.start()

    async def run() -> dict[str, RequestOutput]:
        # a warm-up request alone first, as the runner sends one: the burst that follows
        # refills its slot and must still be admitted together
        await closed_loop(engine, 1, 1, None, prefix="w")
        if delays is not None:
            await asyncio.sleep(delays.uniform(0.0, 0.06))
        return await closed_loop(engine, 24, 4, delays)

    try:
        last = asyncio.run(run())
    finally:
        engine.stop()
    device = {rid: out.device_s for rid, out in last.items() if out.device_s is not None}
    return device, engine.core.batch_sizes


def test_a_slow_client_does_not_change_the_virtual_clocks_batches() -> None:
    prompt, batches = measure("virtual", None)
    slow, slow_batches = measure("virtual", random.Random(7))
    assert len(prompt) == 24
    assert slow_batches == batches
    assert slow == pytest.approx(prompt, rel=1e-12)
    # the slots were really refilled: most steps carried the whole concurrency
    assert batches[4] > sum(batches.values()) / 2


def test_the_paced_clock_never_waits_for_a_client() -> None:
    engine = AsyncEngine(core("paced"), admission_wait_s=5.0)
    assert (engine.admission_wait_s, engine.settle_s) == (0.0, 0.0)


def test_a_client_that_stops_costs_one_wait_not_one_per_finish() -> None:
    """The tail of a run (no more requests) waits once, then the engine stops waiting."""
    engine = AsyncEngine(core("virtual"), admission_wait_s=0.4)
    engine.start()
    try:
        # eight requests at once, finishing at different steps, none refilled
        last = asyncio.run(closed_loop(engine, 8, 8, None))
    finally:
        engine.stop()
    assert len(last) == 8
    # counted, not timed: one or two waits ran out (a late finish), never eight
    assert 1 <= engine.admission_timeouts <= 2


def steps_while_a_tool_runs(offers_tools: bool) -> int:
    """Two episodes on the virtual clock: one long answer, and beside it a short turn whose
    client then runs a 0.3 s tool before its next turn. How many steps the long answer got
    while the tool ran."""
    engine = AsyncEngine(core("virtual"), admission_wait_s=2.0)
    tok = engine.core.tokenizer
    # counted at the engine, not at the long answer's stream: a stream read on a loaded machine
    # lags its steps, and chunks stepped before the tool started would count as steps during it
    steps = {"long": 0}
    step_batch = engine.core.step_batch

    def counting(states: Any) -> Any:
        steps["long"] += any(s.request.request_id == "long" for s in states)
        return step_batch(states)

    engine.core.step_batch = counting  # type: ignore[method-assign]
    engine.start()

    def request(rid: str, prompt: str, max_tokens: int) -> GenerationRequest:
        ids = tuple(tok.encode(prompt))
        sampling = SamplingParams(temperature=0.0)
        return GenerationRequest(
            rid, ids, max_tokens, sampling, ignore_eos=True, offers_tools=offers_tools
        )

    async def long() -> None:
        async for _ in engine.generate(request("long", PROMPTS[0], 600)):
            pass

    async def agent() -> int:
        await asyncio.sleep(0.05)  # the long answer is under way
        async for _ in engine.generate(request("turn-1", PROMPTS[1], 4)):
            pass
        before = steps["long"]
        await asyncio.sleep(0.3)  # the client runs its tool
        during = steps["long"] - before
        async for _ in engine.generate(request("turn-2", PROMPTS[2], 4)):
            pass
        return during

    async def run() -> int:
        during, _ = await asyncio.gather(agent(), long())
        return during

    try:
        return asyncio.run(run())
    finally:
        engine.stop()


def test_an_agents_tool_call_does_not_stall_the_other_episodes() -> None:
    """A request that offered tools owes no refill: while its client runs the tool, the other
    requests keep stepping. A request that offered none is waited for (the closed loop's
    refill), and nothing steps meanwhile."""
    assert steps_while_a_tool_runs(offers_tools=True) >= 3
    assert steps_while_a_tool_runs(offers_tools=False) <= 1


def test_a_chat_request_that_offers_tools_is_an_agents_turn() -> None:
    server = Server(core("virtual"), PrometheusSink("t", None))
    tool = {"type": "function", "function": {"name": "run_tests", "parameters": {}}}

    def built(**extra: object) -> GenerationRequest:
        body = ChatCompletionRequest.model_validate(
            {"model": "t", "messages": [{"role": "user", "content": "hi"}], **extra}
        )
        return server.build(body, [1, 2, 3], 4, "chat-1")

    assert built(tools=[tool]).offers_tools
    assert not built(tools=[tool], tool_choice="none").offers_tools
    assert not built().offers_tools
