"""Fewer, larger looks when a server start is dear: the arithmetic of the raised batch, and a
sequential campaign on reference servers with a slow start, whose registry holds earlier starts
and baseline executions of the same engine, raising its batch before its first sample, saying
why, recording it in the design, and keeping it when resumed."""

from __future__ import annotations

from pathlib import Path

from specverdict.campaign import build_plan, parse_campaign
from specverdict.run.start_cost import START_SHARE, StartCost, dear_batch, look_starts
from specverdict.store import SQLiteStore
from tests.conftest import campaign_yaml, specverdict_cli

FILE = Path("c.yaml")


def test_the_batch_rises_until_the_starts_take_at_most_their_share() -> None:
    cost = StartCost(start_s=60.0, starts=4, sample_s=0.1, baselines=2)
    # 2 starts of 60 s a look, 3 executions at 0.1 s a sample: 2 x 60 x 0.8 / (0.2 x 3 x 0.1)
    # = 1600 samples a look; the selection has 240: one look, the fixed design
    assert dear_batch(40, 240, starts=2, executions=3, cost=cost) == 240
    cheap = StartCost(start_s=1.0, starts=4, sample_s=0.1, baselines=2)
    # 2 x 1 x 0.8 / 0.06 = 26.7 samples: 40 already holds the starts within their share
    assert dear_batch(40, 240, starts=2, executions=3, cost=cheap) == 40
    middle = StartCost(start_s=6.0, starts=4, sample_s=0.1, baselines=2)
    # 2 x 6 x 0.8 / 0.06 = 160: the next multiple of 40
    assert dear_batch(40, 240, starts=2, executions=3, cost=middle) == 160
    look = 160 * 3 * 0.1
    assert 2 * 6.0 / (2 * 6.0 + look) <= START_SHARE
    assert dear_batch(40, 240, starts=0, executions=3, cost=cost) == 40


def test_only_looks_that_start_servers_are_weighed() -> None:
    def plan(launch: str) -> tuple[int, int]:
        text = campaign_yaml(
            "s",
            candidates=[{"method": "mtp", "k": 2}, {"method": "ngram", "k": 3}],
            launch_args=[],
            baseline_repeats=2,
        )
        assert "launch: {args: []}" in text
        text = text.replace("launch: {args: []}", f"launch: {launch}")
        p = build_plan(parse_campaign(text, FILE))
        return look_starts(p, p.runs[0])

    assert plan("{args: [], servers: 1}") == (3, 4)  # baseline twice, two candidates once
    assert plan("{args: [], servers: 3}") == (0, 4)  # every configuration's server stays up
    assert plan("{args: [], sessions: execution, servers: 3}") == (4, 4)
    text = campaign_yaml(
        "a",
        base_url="http://127.0.0.1:9",
        candidates=[{"method": "mtp", "k": 2, "base_url": "http://127.0.0.1:10"}],
    )
    attached = build_plan(parse_campaign(text, FILE))
    assert look_starts(attached, attached.runs[0])[0] == 0


def test_a_slow_start_raises_the_batch_of_a_sequential_campaign(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    slow = ["--startup-delay", "1"]
    earlier = tmp_path / "earlier.yaml"  # the same engine, earlier: the registry's figures
    earlier.write_text(campaign_yaml("earlier", first=4, launch_args=slow, max_tokens=16))
    ran = specverdict_cli("run", str(earlier), "--db", str(db), "--force")
    assert ran.returncode == 0, ran.stderr
    campaign = tmp_path / "sequential.yaml"
    campaign.write_text(
        campaign_yaml("sequential", first=16, launch_args=slow, max_tokens=16, baseline_repeats=1)
    )
    args = ["run", str(campaign), "--db", str(db), "--until-decided", "--batch", "4", "--force"]
    seq = specverdict_cli(*args)
    assert seq.returncode == 0, seq.stdout[-2000:] + seq.stderr[-2000:]
    assert "looks of function, concurrency=1: each look starts 2 server(s) of" in seq.stdout
    assert "batches of 16, not 4" in seq.stdout
    store = SQLiteStore(db)
    designs = [
        r.manifest.sequential
        for r in store.list_runs()
        if r.spec.campaign == "sequential" and r.manifest.sequential is not None
    ]
    assert designs and all(
        (d.batch, d.declared_batch, d.looks) == (16, 4, 1) and d.why for d in designs
    )
    again = specverdict_cli(*args)  # resumed: the recorded design stands, nothing is asked
    assert again.returncode == 0, again.stderr
    assert "looks of function" not in again.stdout
