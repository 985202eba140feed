"""The typed run manifest: writes are checked, old records are upgraded, newer ones refused."""

from __future__ import annotations

import json
import sqlite3
import typing
from pathlib import Path

import pytest
from pydantic import ValidationError

from specverdict.campaign import build_plan, load_campaign
from specverdict.campaign.spec import RunSpec
from specverdict.errors import StoreError
from specverdict.records import (
    SCHEMA_VERSION,
    ManifestUpdate,
    RunManifest,
    RunRecord,
    Segment,
    override_drift,
)
from specverdict.store import SQLiteStore

DEMO = Path(__file__).resolve().parents[3] / "examples" / "demo.yaml"

#: a run record as schema 1 stored it: audits flat, with a ``findings`` list beside their fields
V1_OVERRIDES = {
    "target": "directory /mnt",
    "manifest": "overrides.yaml",
    "entries": [
        {"path": "a.py", "check": "marker", "expected": "patched", "status": "missing"},
    ],
    "counts": {"ok": 0, "missing": 1},
    "clean": False,
    "verdict": "1 of 1 overrides missing: a.py",
    "findings": ["1 of 1 overrides missing: a.py"],
}


@pytest.fixture(scope="module")
def spec() -> RunSpec:
    return build_plan(load_campaign(DEMO)).runs[1]


def v1_record(spec: RunSpec, run_id: str, audits: dict[str, object]) -> str:
    return json.dumps(
        {
            "schema_version": 1,
            "run_id": run_id,
            "fingerprint": spec.fingerprint,
            "spec": spec.model_dump(mode="json"),
            "repeat": 0,
            "status": "completed",
            "created_at": 1.0,
            "manifest": {
                "engine_version": {"version": "0.1.0"},
                "speculative_args": ["--speculative-config", "{}"],
                "segments": [
                    {
                        "requests": 3,
                        "answered": 3,
                        "samples": 3,
                        "failed": 0,
                        "wall_s": 2.5,
                        "concurrency": 8,
                    }
                ],
                "audits": audits,
            },
        }
    )


def test_the_update_names_and_the_manifest_fields_agree() -> None:
    assert set(typing.get_type_hints(ManifestUpdate)) == set(RunManifest.model_fields)


def test_a_misspelt_or_mistyped_write_is_refused_where_it_is_written(
    tmp_path: Path, spec: RunSpec
) -> None:
    store = SQLiteStore(tmp_path / "r.db")
    run = store.create_run(spec, repeat=0)
    with pytest.raises(ValidationError, match="segment"):
        store.update_run(run.run_id, manifest={"segment": []})  # type: ignore[typeddict-unknown-key]
    with pytest.raises(ValidationError, match="engine_pid"):
        store.update_run(run.run_id, manifest={"engine_pid": "twelve"})  # type: ignore[typeddict-item]
    # nothing half-written: the stored manifest is still the empty one
    assert store.get_run(run.run_id).manifest == RunManifest()


def test_writes_merge_and_round_trip(tmp_path: Path, spec: RunSpec) -> None:
    store = SQLiteStore(tmp_path / "r.db")
    run = store.create_run(spec, repeat=0)
    seg = Segment(requests=4, answered=4, samples=4, failed=0, wall_s=1.5, concurrency=2)
    store.update_run(run.run_id, manifest={"speculative_args": ["--x"], "engine_pid": 7})
    done = store.update_run(run.run_id, status="completed", manifest={"segments": [seg]})
    assert done.manifest.speculative_args == ("--x",)
    assert done.manifest.engine_pid == 7 and done.manifest.segments == (seg,)
    store.close()
    assert SQLiteStore(tmp_path / "r.db").get_run(run.run_id) == done


def test_a_schema_1_record_is_read_with_its_audit_findings_and_drift(
    tmp_path: Path, spec: RunSpec
) -> None:
    db = tmp_path / "r.db"
    SQLiteStore(db).close()
    ok = {**V1_OVERRIDES, "entries": [{**V1_OVERRIDES["entries"][0], "status": "ok"}]}  # type: ignore[dict-item]
    ok |= {"clean": True, "verdict": "all 1 overrides in place", "findings": []}
    con = sqlite3.connect(db)
    for run_id, audits, at in (
        ("old", {"overrides": ok}, 1.0),
        ("new", {"overrides": V1_OVERRIDES}, 2.0),
    ):
        con.execute(
            "INSERT INTO runs VALUES (?, ?, 0, 'completed', ?, ?)",
            (run_id, spec.fingerprint, at, v1_record(spec, run_id, audits)),
        )
    con.execute(
        "INSERT INTO runs VALUES ('broke', ?, 0, 'completed', 3.0, ?)",
        (
            spec.fingerprint,
            v1_record(spec, "broke", {"loader": {"error": "no server", "findings": []}}),
        ),
    )
    con.commit()
    con.close()
    store = SQLiteStore(db)
    new = store.get_run("new")
    assert new.schema_version == SCHEMA_VERSION
    assert new.manifest.audits.findings() == ["overrides: 1 of 1 overrides missing: a.py"]
    assert new.manifest.segments[0].concurrency == 8
    drift = override_drift([("old", store.get_run("old").manifest), ("new", new.manifest)])
    assert [(d.path, d.was_ok_in, d.run_id, d.status) for d in drift] == [
        ("a.py", "old", "new", "missing")
    ]
    broke = store.get_run("broke").manifest.audits.loader
    assert broke is not None and broke.error == "no server" and broke.audit is None


def test_a_newer_record_or_registry_is_refused_in_one_line(tmp_path: Path, spec: RunSpec) -> None:
    db = tmp_path / "r.db"
    store = SQLiteStore(db)
    run = store.create_run(spec, repeat=0)
    store.close()
    record = json.loads(RunRecord.model_validate(run).model_dump_json())
    record["schema_version"] = SCHEMA_VERSION + 1
    con = sqlite3.connect(db)
    con.execute("UPDATE runs SET record = ? WHERE run_id = ?", (json.dumps(record), run.run_id))
    con.commit()
    store = SQLiteStore(db)
    with pytest.raises(StoreError) as err:
        store.get_run(run.run_id)
    assert str(db) in str(err.value) and "newer than this specverdict" in str(err.value)
    assert "\n" not in str(err.value)
    store.close()
    con.execute("INSERT INTO schema_migrations VALUES ('9999_from_the_future', 0)")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="9999_from_the_future unknown to") as err:
        SQLiteStore(db)
    assert "\n" not in str(err.value)
