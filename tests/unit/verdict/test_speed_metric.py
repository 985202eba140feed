"""The speed gate on each stage's speed metric: the metric decides, and every speed reason names
it (design note 023)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.model import Gates
from specverdict.campaign.spec import RunSpec
from specverdict.measure.summary import speed_value
from specverdict.records import SampleRecord, Score, Segment
from specverdict.store import SQLiteStore
from specverdict.verdict import Arm, campaign_verdicts, judge_pair
from tests.conftest import campaign_yaml

CAMPAIGN = campaign_yaml(
    "metrics",
    model={"family": "f", "served_name": "m"},
    quantization="bf16",
    stages={
        "function": {"suite": "builtin-code@1"},
        "agent": {"suite": "synth-agent@2"},
        "prose": {"suite": "builtin-code@1", "speed_metric": "ttft"},
    },
    max_tokens=64,
    seed=None,
    warmup=None,
    baseline_repeats=2,
)
GATES = Gates(alpha=0.05, margin=0.05, min_speedup=1.05)
TOKENS = 33


def records(run_id: str, n: int, ttft: float, tpot: float, seed: int) -> tuple[SampleRecord, ...]:
    """n answered samples with the given TTFT and TPOT (2% noise each), all passed."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        t0 = ttft * (1 + 0.02 * rng.standard_normal())
        t = tpot * (1 + 0.02 * rng.standard_normal())
        out.append(
            SampleRecord(
                run_id=run_id,
                sample_id=f"s{i:03d}",
                status="ok",
                text="x",
                completion_tokens=TOKENS,
                ttft_s=t0,
                e2e_s=t0 + t * (TOKENS - 1),
                score=Score(passed=True, outcome="passed"),
            )
        )
    return tuple(out)


#: the candidate's tokens come 1.5x faster, but its first token 4x later: per token it gains,
#: per request it loses (0.2 + 32 x 0.02 = 0.84 s against 0.8 + 32 x 0.0133 = 1.23 s)
BASE = (0.2, 0.02)
CAND = (0.8, 0.02 / 1.5)


@pytest.fixture(scope="module")
def plan_specs() -> dict[tuple[str, str], RunSpec]:
    plan = build_plan(parse_campaign(CAMPAIGN, Path("metrics.yaml")))
    return {(r.stage, r.speculation.method): r for r in plan.runs}


def pair(specs: dict[tuple[str, str], RunSpec], stage: str, n: int = 120) -> tuple[Arm, Arm]:
    base = Arm(
        spec=specs[stage, "none"],
        run_ids=("b0", "b1"),
        samples=(records("b0", n, *BASE, 1), records("b1", n, *BASE, 2)),
    )
    cand = Arm(spec=specs[stage, "mtp"], run_ids=("c0",), samples=(records("c0", n, *CAND, 3),))
    return base, cand


def test_one_pair_passes_on_tpot_and_rejects_on_end_to_end_latency(
    plan_specs: dict[tuple[str, str], RunSpec],
) -> None:
    base, cand = pair(plan_specs, "function")
    on_tpot = judge_pair(base, cand, GATES, speed_metric="tpot")
    gate = on_tpot.reason("speed.tpot")
    assert gate is not None and gate.status == "pass", gate
    assert on_tpot.speedup == pytest.approx(1.5, rel=0.03)
    assert "on TPOT" in gate.message and gate.data["metric"] == "tpot"
    on_e2e = judge_pair(base, cand, GATES, speed_metric="e2e")
    assert on_e2e.speed_metric == "e2e" and on_e2e.reason("speed.tpot") is None
    gate = on_e2e.speed_gate
    assert gate is not None and gate.gate == "speed.e2e" and gate.status == "reject"
    assert on_e2e.verdict == "REJECT"
    assert on_e2e.speedup == pytest.approx(0.84 / (0.8 + 32 * 0.02 / 1.5), rel=0.03)
    assert "on end-to-end latency" in gate.message and "slower than the baseline" in gate.message
    # every speed reason of the pair names the metric it used
    for r in on_e2e.reasons:
        if r.gate in ("speed.noise", "speed.geometric_mean"):
            assert "end-to-end latency" in r.message and r.data["metric"] == "e2e"
    # the speed-up decomposition stays on TPOT (MAL x step cost is a per-token identity)
    assert on_e2e.reason("speed.decomposition") is None  # no acceptance given here


def test_each_metric_is_what_the_gate_compares(plan_specs: dict[tuple[str, str], RunSpec]) -> None:
    base, cand = pair(plan_specs, "function")
    on_ttft = judge_pair(base, cand, GATES, speed_metric="ttft")
    assert on_ttft.speedup == pytest.approx(0.25, rel=0.03)
    assert "on TTFT" in on_ttft.speed_gate.message  # type: ignore[union-attr]
    on_thr = judge_pair(base, cand, GATES, speed_metric="output_throughput")
    # per request, tokens/s go as 1/e2e for equal token counts: the same ratio as e2e's
    on_e2e = judge_pair(base, cand, GATES, speed_metric="e2e")
    assert on_thr.speedup == pytest.approx(on_e2e.speedup, rel=1e-9)
    assert "on output throughput" in on_thr.speed_gate.message  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="unknown speed metric 'itl'"):
        judge_pair(base, cand, GATES, speed_metric="itl")


def test_agent_and_repository_stages_default_to_end_to_end_latency(
    plan_specs: dict[tuple[str, str], RunSpec],
) -> None:
    base, cand = pair(plan_specs, "agent")
    v = judge_pair(base, cand, GATES)
    assert v.speed_metric == "e2e" and v.verdict == "REJECT"
    base, cand = pair(plan_specs, "function")
    assert judge_pair(base, cand, GATES).speed_metric == "tpot"


def test_speed_value_leaves_unmeasured_times_out() -> None:
    s = SampleRecord(
        run_id="r", sample_id="a", status="ok", completion_tokens=4, ttft_s=0.5, e2e_s=2.0
    )
    assert speed_value(s, "tpot") == pytest.approx(0.5)
    assert speed_value(s, "e2e") == 2.0 and speed_value(s, "ttft") == 0.5
    assert speed_value(s, "output_throughput") == pytest.approx(0.5)
    broken = s.model_copy(update={"ttft_s": float("nan"), "e2e_s": float("inf")})
    assert speed_value(broken, "ttft") is None and speed_value(broken, "e2e") is None
    no_tokens = s.model_copy(update={"completion_tokens": 0})
    assert speed_value(no_tokens, "output_throughput") is None


def test_the_campaign_judges_each_stage_on_its_own_metric(tmp_path: Path) -> None:
    """Through the registry: the same timings pass on TPOT (function), reject on end-to-end
    latency (agent, by default) and on TTFT (prose, as its campaign says)."""
    plan = build_plan(parse_campaign(CAMPAIGN, Path("metrics.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    for i, spec in enumerate(plan.runs):
        repeats = 2 if spec.speculation.method == "none" else 1
        for repeat in range(repeats):
            run = store.create_run(spec, repeat)
            timing = BASE if spec.speculation.method == "none" else CAND
            for r in records(run.run_id, 120, *timing, seed=10 * i + repeat):
                store.add_sample(r)
            segment = Segment(requests=120, answered=120, samples=120, failed=0, wall_s=60.0)
            store.update_run(run.run_id, status="completed", manifest={"segments": [segment]})
    verdicts = {v.stage: v for v in campaign_verdicts(store, plan)}
    store.close()
    assert {s: v.speed_metric for s, v in verdicts.items()} == {
        "function": "tpot",
        "agent": "e2e",
        "prose": "ttft",
    }
    assert verdicts["function"].speed_gate.status == "pass"  # type: ignore[union-attr]
    assert verdicts["agent"].speed_gate.status == "reject"  # type: ignore[union-attr]
    assert verdicts["prose"].speed_gate.status == "reject"  # type: ignore[union-attr]
    # the drift the agent's interval holds was pooled on its own metric
    drift = verdicts["agent"].speed_gate.data["drift"]  # type: ignore[union-attr]
    assert drift is not None and drift["executions"] == 6
