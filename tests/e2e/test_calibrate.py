"""``specverdict calibrate`` on launched reference engines paced on the host's wall clock: the
A/A executions it stores give the campaign's drift more degrees of freedom, and a later
campaign on other prompts reads them, saying how."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from specverdict.store import SQLiteStore
from tests.conftest import campaign_yaml, specverdict_cli


def campaign(name: str, first: int, repeats: int, **overrides: Any) -> str:
    """Generated functions on an engine paced to accel-8b, the baseline executed ``repeats``
    times; ``overrides`` as ``campaign_yaml`` takes them."""
    return campaign_yaml(
        name,
        device_model="accel-8b",
        suite="synth-function@1",
        first=first,
        concurrency=2,
        baseline_repeats=repeats,
        **overrides,
    )


def speed(path: Path, db: Path) -> dict[str, Any]:
    out = specverdict_cli("verdict", str(path), "--db", str(db), "--json")
    (v,) = json.loads(out.stdout)["verdicts"]
    return dict({r["gate"]: r for r in v["reasons"]}["speed.tpot"])


def test_a_calibration_is_pooled_by_its_campaign_and_by_later_ones(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    first = tmp_path / "first.yaml"
    first.write_text(campaign("first", 20, 2))
    assert specverdict_cli("run", str(first), "--db", str(db)).returncode == 0
    before = speed(first, db)["data"]["drift"]
    assert (before["df"], before["executions"]) == (1, 2)

    proc = specverdict_cli("calibrate", str(first), "--db", str(db), "--executions", "4")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "calibration: run-to-run drift of A/A executions" in proc.stdout
    store = SQLiteStore(db)
    calibrated = [r for r in store.list_runs() if r.manifest.calibration]
    # four more executions of the baseline, numbered after the campaign's own two (which
    # `run` measured interleaved with the candidate), each on this host
    assert len(calibrated) == 4 and {r.repeat for r in calibrated} == {2, 3, 4, 5}
    assert all(r.manifest.host for r in calibrated)
    after = speed(first, db)
    drift = after["data"]["drift"]
    # the baseline's mean is still its own two executions'; the drift pools the calibration's
    # (df 3) with the campaign's own (df 1), unless the F check finds the own one larger
    if drift["calibration_use"] == "pooled":
        assert (drift["df"], drift["executions"], drift["calibration"]) == (4, 6, 4)
        assert "4 of a calibration" in after["message"]
    else:
        assert drift["calibration_use"] == "refused" and drift["df"] == 1
        assert "calibrate again" in after["message"]

    # another campaign on other prompts that runs its baseline once: the calibration alone
    # gives its drift, and the reason says it could not be checked
    later = tmp_path / "later.yaml"
    later.write_text(campaign("later", 24, 1))
    assert specverdict_cli("run", str(later), "--db", str(db)).returncode == 0
    gate = speed(later, db)
    drift = gate["data"]["drift"]
    assert (drift["df"], drift["calibration"], drift["calibration_use"]) == (3, 4, "alone")
    assert "4 of a calibration" in gate["message"]
    assert "read alone: the campaign ran no configuration twice" in gate["message"]


def test_calibrate_refuses_what_it_cannot_calibrate(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(campaign("c", 20, 2))
    proc = specverdict_cli("calibrate", str(path), "--stage", "prose", "--db", "x.db")
    assert proc.returncode == 2 and "'prose': no such stage" in proc.stderr
    assert "stages: function" in proc.stderr
    proc = specverdict_cli("calibrate", str(path), "--executions", "2")
    assert proc.returncode == 2 and "--executions" in proc.stderr
    blocked = tmp_path / "blocked.yaml"
    blocked.write_text(
        campaign(
            "b",
            20,
            2,
            engine={"kind": "reference", "base_url": "http://127.0.0.1:9"},
            candidates=[{"method": "mtp", "k": 2, "base_url": "http://127.0.0.1:10"}],
        )
    )
    proc = specverdict_cli("calibrate", str(blocked), "--db", str(tmp_path / "b.db"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "take turns in blocks" in proc.stderr
