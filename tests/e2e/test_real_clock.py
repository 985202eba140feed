"""Speed decided on the host's wall clock: two real reference servers paced to a modelled
device (``--device-model accel-8b``, the default paced clock), attached, taking turns in blocks
with the campaign's default load settings."""

from __future__ import annotations

import json
from pathlib import Path

from specverdict.store import SQLiteStore
from tests.conftest import Servers, campaign_yaml, specverdict_cli

PACED = ("--device-model", "accel-8b")
MTP = json.dumps({"method": "mtp", "num_speculative_tokens": 2}, sort_keys=True)


def paced_campaign(base: str, cand: str, first: int = 120) -> str:
    """The baseline attached at ``base``, ``mtp`` k=2 at ``cand``, the default load settings."""
    return campaign_yaml(
        "paced",
        base_url=base,
        candidates=[{"method": "mtp", "k": 2, "base_url": cand}],
        suite="synth-function@1",
        first=first,
        max_tokens=128,
        concurrency=4,
        warmup=None,
        baseline_repeats=None,
        gates={"margin": 0.05},
    )


def test_a_faster_lossless_candidate_is_adopted_on_the_wall_clock(
    servers: Servers, tmp_path: Path
) -> None:
    base = servers.get(*PACED)
    cand = servers.get(*PACED, "--speculative-config", MTP)
    campaign = tmp_path / "paced.yaml"
    campaign.write_text(paced_campaign(base, cand))
    db = tmp_path / "runs.db"
    proc = specverdict_cli("run", str(campaign), "--db", str(db), "--force")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    # the clock is said: in the run tables and the verdict table's title
    assert "runs: stage function, concurrency=4, host wall clock" in proc.stdout
    assert "speed on TPOT, host wall clock" in proc.stdout
    out = specverdict_cli("verdict", str(campaign), "--db", str(db), "--json")
    (v,) = json.loads(out.stdout)["verdicts"]
    gates = {r["gate"]: r for r in v["reasons"]}
    speed = gates["speed.tpot"]
    assert v["verdict"] == "ADOPT", speed["message"]
    assert v["clock"] == "host"
    # the blocks are the units: 15 blocks of 8 (max(8, 2 x 4)), df 14, not one execution pair
    assert speed["data"]["design"] == "blocks"
    assert (speed["data"]["blocks"], speed["data"]["block_size"], speed["data"]["df"]) == (
        15,
        8,
        14,
    )
    assert speed["data"]["interval"][0] > 1.05
    # one execution per configuration, its samples tagged with their block in time order
    store = SQLiteStore(db)
    for run in store.list_runs():
        assert run.manifest.blocks is not None and run.manifest.blocks.size == 8
        assert len(run.manifest.segments) == 15
        blocks = {s.sample_id: s.extra.block for s in store.samples(run.run_id)}
        assert sorted(set(blocks.values())) == list(range(15))


def test_resuming_one_run_of_a_blocked_campaign_resumes_its_group_in_blocks(
    servers: Servers, tmp_path: Path
) -> None:
    """``run --resume`` of a run measured in blocks: the run only makes sense taking turns with
    its group's other runs, so their schedule resumes, and every sample carries its block."""
    from specverdict.campaign import build_plan, parse_campaign
    from specverdict.run.runner import Runner
    from specverdict.verdict import campaign_verdicts

    text = paced_campaign(servers.get(), servers.spec(json.loads(MTP)), first=24)
    plan = build_plan(parse_campaign(text, tmp_path / "c.yaml"))
    store = SQLiteStore(tmp_path / "runs.db")
    base = plan.runs[0]
    first = Runner(store, log=lambda _: None).run_one(plan, base, 0, limit=8, block=0, block_size=8)
    resumed = Runner(store, log=lambda _: None).resume(plan, first.run_id)
    assert resumed.run_id == first.run_id
    for run in store.list_runs():
        blocks = sorted(
            -1 if s.extra.block is None else s.extra.block for s in store.samples(run.run_id)
        )
        assert blocks == [j for j in range(3) for _ in range(8)], run.spec.label
    (v,) = campaign_verdicts(store, plan)
    speed = v.reason("speed.tpot")
    assert speed is not None and speed.data["design"] == "blocks" and speed.data["blocks"] == 3
