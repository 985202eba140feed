"""Episodes against the real reference engine: the runner-side path, from the run's request
body to the stored record. The reference model's tool calls are mostly noise; every episode must
still end classified, with timings, tokens and (with speculation) acceptance summed over turns."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx

from specverdict.campaign import build_plan, parse_campaign
from specverdict.engines.client import StreamedResponse
from specverdict.engines.reference import ReferenceAdapter
from specverdict.records import SampleRecord
from specverdict.run.episodes import make_chat, run_episode
from specverdict.run.segment import request_payload
from specverdict.sandbox import Sandbox
from specverdict.suites.agent import AgentTasks
from tests.conftest import Servers, campaign_yaml
from tests.integration.suites.agent.conftest import Script, answer, call

CAMPAIGN = campaign_yaml("agent-e2e", first=1, max_tokens=24, warmup=0, baseline_repeats=None)
OUTCOMES = {
    "passed",
    "request_error",
    "loop",
    "turn_limit",
    "parse_failure",
    "invalid_arguments",
    "no_edit",
    "tests_failed",
}


def episodes(base: str, sandbox: Sandbox, method: str, n: int) -> list[SampleRecord]:
    plan = build_plan(parse_campaign(CAMPAIGN, Path("agent-e2e.yaml")))
    spec = next(r for r in plan.runs if r.speculation.method == method)
    adapter = ReferenceAdapter()
    suite = AgentTasks(sandbox=sandbox, max_turns=3)

    async def main() -> list[SampleRecord]:
        async with httpx.AsyncClient() as client:
            out = []
            for sample in suite.samples()[:n]:
                path, body = request_payload(spec, sample, adapter.request_extras(spec))
                assert body["tools"] and body["messages"][0]["role"] == "system"
                out.append(
                    await run_episode(
                        "run-1",
                        suite,
                        sample,
                        client,
                        base + path,
                        body,
                        adapter.per_request_acceptance,
                        timeout_s=60,
                    )
                )
            return out

    return asyncio.run(main())


def test_episodes_against_the_reference_engine_are_classified(
    servers: Servers, sandbox: Sandbox
) -> None:
    records = episodes(
        servers.spec({"method": "mtp", "num_speculative_tokens": 2}), sandbox, "mtp", 3
    )
    assert records  # the checks below ran
    for record in records:
        assert record.status == "ok", record.error
        assert record.score is not None and record.score.outcome in OUTCOMES
        detail = json.loads(record.score.detail or "{}")
        assert record.extra.episode is not None
        turns = record.extra.episode.turn_timings
        assert 1 <= len(turns) == detail["turns"] <= 3
        assert sum(detail["finish_reasons"].values()) == len(turns)
        assert record.ttft_s == turns[0].ttft_s and record.ttft_s is not None
        assert record.e2e_s is not None and record.e2e_s >= record.ttft_s
        assert record.completion_tokens == sum(t.completion_tokens or 0 for t in turns)
        # the reference server reports per-request acceptance: summed over the turns
        assert record.acceptance is not None
        assert record.acceptance["num_draft_tokens"] == sum(
            t.acceptance["num_draft_tokens"] for t in turns if t.acceptance
        )
        assert record.text  # the episode's output, for identity checks between arms


def test_the_loop_transcript_is_accepted_by_the_reference_server(
    servers: Servers, sandbox: Sandbox
) -> None:
    """The conversation the loop builds (assistant tool calls, tool results) is a valid request
    for a real server: replay a scripted episode's last conversation through ``make_chat``."""
    suite = AgentTasks(sandbox=sandbox)
    sample = next(s for s in suite.samples() if s.id == "is-even")
    fixed = "def is_even(n):\n    return n % 2 == 0\n"
    script = Script(
        [
            answer("", [call("read_file", {"path": "parity.py"})]),
            answer("", [call("write_file", {"path": "parity.py", "content": fixed})]),
            answer("Done."),
        ]
    )
    episode = asyncio.run(suite.run_episode(sample, script))
    assert episode.completed and [m["role"] for m in script.sent[-1]] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
    ]
    base = servers.get()
    body = {"model": "reference-target", "max_tokens": 8, "temperature": 0.0, "seed": 0}

    async def main() -> StreamedResponse:
        async with httpx.AsyncClient() as client:
            chat = make_chat(client, base + "/v1/chat/completions", body, timeout_s=60)
            return await chat(script.sent[-1], script.tools[-1])

    resp = asyncio.run(main())
    assert resp.status == "ok", resp.error
    assert resp.prompt_tokens is not None and resp.prompt_tokens > 100


AGENT_CAMPAIGN = campaign_yaml(
    "agent-counters",
    baseline={"method": "none"},
    candidates=[{"method": "mtp", "k": 1}],
    stage="agent",
    suite="synth-agent@2",
    first=3,
    max_tokens=48,
    concurrency=[2],
    warmup=None,
    baseline_repeats=None,
)


def test_an_agent_run_counts_every_turn_so_its_acceptance_is_not_polluted(
    tmp_path: Path,
) -> None:
    """The server's counters count chat requests; an episode sends one per turn. A run that
    counted episodes would call its own turns foreign traffic."""
    from specverdict.campaign import build_plan, parse_campaign
    from specverdict.measure.results import run_results
    from specverdict.run.runner import Runner
    from specverdict.store import SQLiteStore

    plan = build_plan(parse_campaign(AGENT_CAMPAIGN, tmp_path / "c.yaml"))
    store = SQLiteStore(tmp_path / "runs.db")
    try:
        records = Runner(store, log=lambda _: None, runs_dir=tmp_path / "runs").run_plan(plan)
        assert records  # the checks below ran
        for rec in records:
            res = run_results(store, rec.run_id)
            turns = sum(
                len(s.extra.episode.turn_timings if s.extra.episode else ())
                for s in store.samples(rec.run_id)
            )
            segment = res.run.manifest.segments[-1]
            assert segment.samples == 3 and segment.requests == turns > 3
            assert segment.answered == turns - sum(
                s.status != "ok" for s in store.samples(rec.run_id)
            )
            assert not res.acceptance.polluted, res.acceptance.why
    finally:
        store.close()
