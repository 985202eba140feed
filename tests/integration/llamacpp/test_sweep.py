"""``specverdict sweep`` on real llama.cpp, timed on the wall clock: every configuration climbs
the ladder on servers the launcher starts, the knees are read from wall-clock throughput and
TPOT, and the swept campaign is measured and judged at the levels around them."""

from __future__ import annotations

import json
import re
from pathlib import Path

from specverdict.campaign import load_campaign
from specverdict.store import SQLiteStore
from tests.conftest import specverdict_cli
from tests.integration.llamacpp.test_synthetic import LAUNCH


def test_a_sweep_on_llamacpp_finds_knees_on_the_wall_clock_and_measures_there(
    gguf_dir: Path, tmp_path: Path
) -> None:
    campaign = tmp_path / "campaign.yaml"
    campaign.write_text(
        f"""\
name: llamacpp-sweep
engine:
  kind: llamacpp
  launch: {{command: {json.dumps(LAUNCH)}, startup_timeout_s: 60}}
model: {{family: specverdict-reference, served_name: reference-target,
         path: '{gguf_dir / "target.gguf"}'}}
quantization: fp32
baseline: {{method: none}}
candidates:
  - {{method: ngram, k: 8, params: {{spec_ngram_simple_size_n: 3}}}}
stages:
  side:fixed: {{synthetic: {{prompts: 8, input_tokens: 48, output_tokens: 24}}}}
load: {{concurrency: [1], warmup: 1, baseline_repeats: 1}}
"""
    )
    db = tmp_path / "runs.db"
    ran = specverdict_cli(
        "sweep", str(campaign), "--db", str(db), "--levels", "1,2,4", "--requests", "8",
        "--force", timeout=900,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:]
    store = SQLiteStore(db)
    explored = [r for r in store.list_runs() if r.spec.campaign == "llamacpp-sweep-sweep"]
    assert len(explored) == 6 and all(r.status == "completed" for r in explored)
    for run in explored:
        samples = store.samples(run.run_id)
        assert {s.clock for s in samples} == {"host"}  # the wall clock
        assert {s.completion_tokens for s in samples} == {24}
    assert len(re.findall(r"\b(knee|top \(still scaling\))", ran.stdout)) == 2
    levels = load_campaign(campaign.with_name("campaign.swept.yaml")).load.levels()
    measured = [r for r in store.list_runs() if r.spec.campaign == "llamacpp-sweep"]
    assert {r.spec.load.concurrency for r in measured} == set(levels)
    assert all(r.status == "completed" for r in measured)
    judged = specverdict_cli(
        "verdict", str(campaign.with_name("campaign.swept.yaml")), "--db", str(db), "--json"
    )
    verdicts = json.loads(judged.stdout)["verdicts"]
    assert {v["load"] for v in verdicts} == {f"concurrency={c:g}" for c in levels}
