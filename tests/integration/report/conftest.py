"""A small real campaign on the reference engine, measured once for every report test.

Two stages, two load levels, a baseline and three candidates (two methods, mtp at two k): every
plot of a stage has data. The side stage is judged on end-to-end latency, and both have goodput
targets (judging choices: the runs are the same). A copy of the registry gets deterministic scores on the stored outputs
(a scorer of the text, so both arms of a greedy pair agree), which exercises the quality columns
and the quality plot on real runs.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

from specverdict.records import Score
from specverdict.store import SQLiteStore
from tests.conftest import campaign_yaml, specverdict_cli

CAMPAIGN = campaign_yaml(
    "report-e2e",
    candidates=[
        {"method": "mtp", "k": [1, 2]},
        {"method": "ngram", "k": 2, "params": {"prompt_lookup_min": 1, "prompt_lookup_max": 3}},
    ],
    stages={
        "function": {"suite": "builtin-code@1", "samples": {"first": 4}},
        "side:smoke": {"suite": "builtin-code@1", "samples": {"first": 3}, "speed_metric": "e2e"},
    },
    slo={"ttft": 60, "tpot": 15},
    concurrency=[1, 2],
    gates={"alpha": 0.05, "margin": 0.1, "min_speedup": 1.05},
)


def text_scorer(text: str) -> Score:
    """Deterministic and text-only: passes when the output has an even number of lines."""
    passed = text.count("\n") % 2 == 0
    return Score(passed=passed, outcome="passed" if passed else "failed")


@dataclass(frozen=True)
class Measured:
    campaign: Path
    db: Path  # as measured: the built-in suite has no scorer
    scored_db: Path  # the same runs with text_scorer's scores attached
    plain: Path  # report folder of db
    scored: Path  # report folder of scored_db
    stdout: str  # what `specverdict report` printed for the scored registry


@pytest.fixture(scope="session")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Measured:
    root = tmp_path_factory.mktemp("report")
    campaign = root / "campaign.yaml"
    campaign.write_text(CAMPAIGN)
    db = root / "runs.db"
    proc = specverdict_cli("run", str(campaign), "--db", str(db), "--force")
    assert proc.returncode == 0, proc.stderr
    scored_db = root / "scored.db"
    src, dst = sqlite3.connect(db), sqlite3.connect(scored_db)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()
    store = SQLiteStore(scored_db)
    try:
        for run in store.list_runs():
            for s in store.samples(run.run_id):
                store.add_score(run.run_id, s.sample_id, s.attempt, text_scorer(s.text))
    finally:
        store.close()
    plain, scored = root / "plain", root / "scored"
    proc = specverdict_cli("report", str(campaign), "--db", str(db), "--out", str(plain))
    assert proc.returncode == 0, proc.stderr
    proc = specverdict_cli("report", str(campaign), "--db", str(scored_db), "--out", str(scored))
    assert proc.returncode == 0, proc.stderr
    return Measured(campaign, db, scored_db, plain, scored, proc.stdout)
