"""A candidate with a k schedule on the real reference engine (device clock virtual): at each
concurrency its steps draft the schedule's k at their batch size, and the declared-against-
actual check accepts what the schedule allows there."""

from __future__ import annotations

import json
from pathlib import Path

from specverdict.records import RequestAcceptance
from specverdict.store import SQLiteStore
from tests.conftest import campaign_yaml, specverdict_cli

#: k 3 for a request alone, k 1 for two or more at once
SCHEDULE = [[1, 1, 3], [2, 64, 1]]

CAMPAIGN = campaign_yaml(
    "k-schedule",
    candidates=[{"method": "mtp", "k_schedule": SCHEDULE}],
    first=4,
    max_tokens=24,
    concurrency=[1, 4],
    device_model="accel-5b",
    device_clock="virtual",
)


def test_a_schedule_drafts_its_k_at_each_batch_size(tmp_path: Path) -> None:
    campaign, db = tmp_path / "campaign.yaml", tmp_path / "runs.db"
    campaign.write_text(CAMPAIGN)
    ran = specverdict_cli("run", str(campaign), "--db", str(db), "--force")
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]

    store = SQLiteStore(db)
    try:
        runs = {
            r.spec.load.concurrency: r
            for r in store.list_runs()
            if r.spec.speculation.method == "mtp"
        }
        assert set(runs) == {1, 4}
        drafted: dict[int, list[int]] = {}
        for c, run in runs.items():
            assert run.spec.speculation.label == "mtp k=3/1@1,64"
            launch = list(run.manifest.launch_command or ())
            config = json.loads(launch[launch.index("--speculative-config") + 1])
            assert config["num_speculative_tokens"] == 3
            assert config["num_speculative_tokens_per_batch_size"] == SCHEDULE
            drafted[c] = [
                d
                for s in store.samples(run.run_id)
                for d in RequestAcceptance.parse(s).per_step_drafted or []
            ]
        # alone, every step drafts the k of batch size 1
        assert drafted[1] and set(drafted[1]) == {3}
        # four at once: k 1 while two or more run, k 3 for a request left alone
        assert set(drafted[4]) <= {1, 3}
        assert drafted[4].count(1) > drafted[4].count(3)
    finally:
        store.close()

    verdict = specverdict_cli("verdict", str(campaign), "--db", str(db), "--json")
    # four samples decide no speed (INCONCLUSIVE, exit 3), but nothing is INVALID (exit 4)
    assert verdict.returncode in (0, 1, 3), verdict.stdout[-2000:] + verdict.stderr
    verdicts = json.loads(verdict.stdout)["verdicts"]
    assert len(verdicts) == 2
    for v in verdicts:
        k_reasons = [r for r in v["reasons"] if r["gate"] == "speculation.k"]
        assert k_reasons == [], k_reasons  # what the schedule allows at 1..C is no mismatch
        assert v["candidate"] == "mtp k=3/1@1,64"
        assert v["verdict"] != "INVALID", v["reasons"]
