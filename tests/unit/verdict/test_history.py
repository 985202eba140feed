"""A pair's history in the registry is its look history: re-runs of a fixed design on more
samples or another seed are looks, each read at its share of alpha."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.plan import Plan
from specverdict.campaign.spec import RunSpec
from specverdict.records import RunManifest, SampleRecord, Score
from specverdict.stats.looks import RERUN_RESERVE, rerun_share
from specverdict.store import SQLiteStore
from specverdict.verdict.collect import campaign_verdicts
from specverdict.verdict.history import earlier_looks, family_key
from tests.conftest import campaign_yaml


def plan(n: int, seed: int = 0, quant: str = "bf16") -> Plan:
    text = campaign_yaml(
        "history",
        model={"family": "f", "served_name": "m"},
        quantization=quant,
        first=n,
        max_tokens=64,
        seed=seed,
        load=None,
    )
    return build_plan(parse_campaign(text, Path("history.yaml")))


def measure(
    store: SQLiteStore, spec: RunSpec, tpot: float, seed: int, repeat: int = 0, **manifest: object
) -> str:
    """A completed execution of ``spec``: every sample answered and passed, TPOT about
    ``tpot`` with 2% noise."""
    run = store.create_run(spec, repeat, RunManifest.model_validate(manifest))
    rng = np.random.default_rng(seed)
    n = spec.samples.first  # type: ignore[union-attr]
    for i in range(n):
        t = tpot * float(np.exp(rng.normal(0.0, 0.02)))
        store.add_sample(
            SampleRecord(
                run_id=run.run_id, sample_id=f"p{i:03d}", status="ok", text="x",
                completion_tokens=33, ttft_s=0.1, e2e_s=0.1 + t * 32,
                score=Score(passed=True, outcome="passed"),
            )
        )  # fmt: skip
    store.update_run(run.run_id, status="completed")
    return run.run_id


def measured(store: SQLiteStore, p: Plan, speedup: float, seed: int) -> None:
    """The plan's configurations measured, the baseline twice (its drift measured)."""
    for spec in {r.fingerprint: r for r in p.runs}.values():
        if spec.speculation.method == "none":
            measure(store, spec, 0.02, seed, 0)
            measure(store, spec, 0.0202, seed + 1, 1)
        else:
            measure(store, spec, 0.02 / speedup, seed + 2)


def test_the_same_comparison_on_other_samples_or_seeds_is_one_family() -> None:
    base = plan(40).runs
    assert {family_key(s) for s in base} == {family_key(s) for s in plan(80, seed=3).runs}
    assert family_key(base[0]) != family_key(base[1])  # baseline and candidate
    assert family_key(base[1]) != family_key(plan(40, quant="fp8").runs[1])
    assert base[1].fingerprint != plan(80).runs[1].fingerprint


def test_earlier_executions_of_the_comparison_are_its_earlier_looks(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    first, more, seeded = plan(40).runs[1], plan(80).runs[1], plan(80, seed=5).runs[1]
    a = measure(store, first, 0.01, 1)
    measure(store, first, 0.01, 2, resample_of=a)  # the resample budget's, not a look
    measure(store, plan(40, quant="fp8").runs[1], 0.01, 3)  # another comparison
    b = measure(store, more, 0.01, 4)
    c = measure(store, seeded, 0.01, 5)
    runs = store.list_runs()
    assert earlier_looks(runs, first, [a]) == []
    assert [e.run_id for e in earlier_looks(runs, more, [b])] == [a]
    looks = earlier_looks(runs, seeded, [c])
    assert [e.run_id for e in looks] == [a, b] and looks[1].samples == '{"first": 80}'


def test_a_re_run_on_more_samples_is_read_at_its_look_s_share(tmp_path: Path) -> None:
    """First at 40 samples, then the same comparison at 120: the second verdict is look 2,
    its speed interval at 1 - alpha x share (not 95%), and it says which run came before."""
    store = SQLiteStore(tmp_path / "runs.db")
    measured(store, plan(40), 1.3, 10)
    (v1,) = campaign_verdicts(store, plan(40))
    speed1 = v1.reason("speed.tpot")
    assert speed1 is not None and speed1.data["look"]["index"] == 1
    assert speed1.data["look"]["share"] == pytest.approx(1 - RERUN_RESERVE)
    assert v1.reason("looks") is None  # the first reading says nothing more
    measured(store, plan(120), 1.3, 20)
    (v2,) = campaign_verdicts(store, plan(120))
    looks, speed2 = v2.reason("looks"), v2.reason("speed.tpot")
    assert looks is not None and speed2 is not None
    assert looks.data["index"] == 2
    assert 'samples {"first": 40}' in looks.message, looks.message
    share = rerun_share(2).share
    assert speed2.data["look"]["share"] == pytest.approx(share)
    assert speed2.data["p_value"] == pytest.approx(min(1.0, speed2.data["look_p_value"] / share))
    assert f"interval at {100 * (1 - 0.05 * share):.2f}%" in speed2.message
    # the first pair, read again, is still look 1: its history is what came before it
    (again,) = campaign_verdicts(store, plan(40))
    assert again.reason("looks") is None and again.verdict == v1.verdict
