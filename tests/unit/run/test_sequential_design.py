"""The design of a sequential campaign before any engine runs: its looks per stage, and the
one-line refusals (no pair, a bad batch, a design changed after looks were taken)."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.plan import Plan
from specverdict.errors import ConfigError
from specverdict.records.manifest import Look, SequentialDesign
from specverdict.run.runner import Runner
from specverdict.run.sequential import plan_designs, run_until_decided
from specverdict.store import SQLiteStore

CAMPAIGN = """\
name: design
engine: {{kind: reference}}
model: {{family: specverdict-reference, served_name: reference-target}}
quantization: fp32
{baseline}candidates:
  - {{method: mtp, k: 2}}
stages:
  function: {{suite: synth-function@1, samples: {{first: 100}}}}
  prose: {{suite: prose@1, samples: {{first: 16}}}}
"""


def plan(baseline: str = "") -> Plan:
    return build_plan(parse_campaign(CAMPAIGN.format(baseline=baseline), Path("design.yaml")))


def test_each_stage_gets_its_looks_capped_at_its_selection(tmp_path: Path) -> None:
    p = plan()
    store = SQLiteStore(tmp_path / "runs.db")
    designs = plan_designs(store, p, list(p.pairs), max_samples=60, batch=25)
    by_stage = {pair.candidate.stage: designs[pair.candidate.fingerprint] for pair in p.pairs}
    # looks of 25 and 60: the last takes the 10 samples left over
    assert (by_stage["function"].max_samples, by_stage["function"].looks) == (60, 2)
    assert (by_stage["prose"].max_samples, by_stage["prose"].looks) == (16, 1)
    every = plan_designs(store, p, list(p.pairs), max_samples=None, batch=25)
    assert {d.max_samples for d in every.values()} == {100, 16}


def test_a_design_cannot_change_once_looks_are_taken(tmp_path: Path) -> None:
    p = plan()
    store = SQLiteStore(tmp_path / "runs.db")
    pair = next(x for x in p.pairs if x.candidate.stage == "function")
    run = store.create_run(pair.candidate, 0)
    taken = (Look(index=1, samples=25),)
    recorded = SequentialDesign(batch=25, max_samples=100, looks=4, taken=taken)
    store.update_run(run.run_id, status="completed", manifest={"sequential": recorded})
    same = plan_designs(store, p, [pair], max_samples=None, batch=25)
    assert same[pair.candidate.fingerprint] == recorded  # the recorded design, looks and all
    with pytest.raises(ConfigError) as exc:
        plan_designs(store, p, [pair], max_samples=None, batch=40)
    msg = str(exc.value)
    assert "mtp k=2, function" in msg and "1 look(s) under batch 25 and max 100" in msg
    assert "--batch 25 --max-samples 100" in msg and "\n" not in msg


def test_refusals_name_what_is_wrong(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    runner = Runner(store, log=lambda _: None)
    with pytest.raises(ConfigError, match="no baseline-candidate pair to decide"):
        run_until_decided(runner, store, plan("baseline: null\n"), batch=10)
    p = plan()
    with pytest.raises(ConfigError, match="--batch 0: expected a positive number"):
        plan_designs(store, p, list(p.pairs), max_samples=None, batch=0)
    with pytest.raises(ConfigError, match="--max-samples -3: expected a positive number"):
        plan_designs(store, p, list(p.pairs), max_samples=-3, batch=10)
