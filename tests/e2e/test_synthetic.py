"""A campaign of synthetic stages on the reference engine, through the CLI: prompts of the
asked length in the target's tokens (the corpus's exactly, random tokens within a quarter),
answers run to their length by ``ignore_eos``, verdicts on speed and acceptance, and the
random-token warning beside the speed where it was judged on random tokens, in the verdict and
the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specverdict.store import SQLiteStore
from tests.conftest import campaign_yaml, specverdict_cli

pytestmark = pytest.mark.slow

STAGES = {
    "side:code": {"synthetic": {"prompts": 12, "input_tokens": 64, "output_tokens": 48}},
    "side:noise": {
        "synthetic": {
            "prompts": 12,
            "input_tokens": 40,
            "output_tokens": 32,
            "source": "random",
            "range_ratio": 0.25,
        }
    },
}


def test_synthetic_stages_end_in_verdicts_with_the_random_token_warning(tmp_path: Path) -> None:
    campaign = tmp_path / "synthetic.yaml"
    campaign.write_text(
        campaign_yaml(
            "synthetic",
            stages=STAGES,
            device_model="accel-2b",
            device_clock="virtual",
            concurrency=(2,),
        )
    )
    db = tmp_path / "runs.db"
    refused = specverdict_cli("run", str(campaign), "--db", str(db))
    assert refused.returncode == 2  # no quality signal: a decision needs --force
    assert "side:code (synthetic: judged on speed and acceptance only)" in refused.stderr
    ran = specverdict_cli("run", str(campaign), "--db", str(db), "--force", timeout=900)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert "stage side:code (synthetic:corpus-64x48@1)" in ran.stdout

    store = SQLiteStore(db)
    for run in store.list_runs():
        samples = store.samples(run.run_id)
        assert len(samples) == 12 and all(s.finish_reason == "length" for s in samples)
        if run.spec.stage == "side:code":
            assert {(s.prompt_tokens, s.completion_tokens) for s in samples} == {(64, 48)}
        else:
            assert all(24 <= (s.completion_tokens or 0) <= 40 for s in samples)
            assert all(22 <= (s.prompt_tokens or 0) <= 63 for s in samples)

    judged = specverdict_cli("verdict", str(campaign), "--db", str(db), "--json")
    by_stage = {v["stage"]: v for v in json.loads(judged.stdout)["verdicts"]}
    workload = {
        stage: [r["message"] for r in v["reasons"] if r["gate"] == "workload"]
        for stage, v in by_stage.items()
    }
    assert workload["side:code"] == []
    (warning,) = workload["side:noise"]
    assert warning.startswith("speed judged on random-token prompts")
    for v in by_stage.values():
        assert v["verdict"] != "INVALID" and v["speedup"] is not None
        assert v["base_pass_rate"] is None  # nothing scores a synthetic stage

    out = tmp_path / "report"
    made = specverdict_cli("report", str(campaign), "--db", str(db), "--out", str(out))
    assert made.returncode == 0, made.stderr
    md = (out / "report.md").read_text()
    noise = md.index("## Stage side:noise")
    assert md.count("> **Warning:** speed judged on random-token prompts") == 1
    assert md.index("> **Warning:**") > noise
    html = (out / "index.html").read_text()
    assert html.count('class="warning" role="note"') == 1
