"""The SQLite run registry: migrations, WAL, foreign keys, round trips, resume bookkeeping."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from specverdict.campaign import build_plan, load_campaign
from specverdict.campaign.spec import RunSpec
from specverdict.store import MIGRATIONS, MetricsSnapshot, SampleRecord, SQLiteStore

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.yaml"


@pytest.fixture(scope="module")
def spec() -> RunSpec:
    return build_plan(load_campaign(DEMO)).runs[1]


def test_migrations_are_named_applied_once_and_wal_is_on(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    store = SQLiteStore(db)
    assert store.migrate() == []  # already applied at open
    store.close()
    con = sqlite3.connect(db)
    assert [r[0] for r in con.execute("SELECT name FROM schema_migrations")] == [
        m[0] for m in MIGRATIONS
    ]
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_samples_need_an_existing_run(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "r.db")
    with pytest.raises(sqlite3.IntegrityError):
        store.add_sample(SampleRecord(run_id="missing", sample_id="s", status="ok"))


def test_run_lifecycle_and_resume_bookkeeping(tmp_path: Path, spec: RunSpec) -> None:
    store = SQLiteStore(tmp_path / "r.db")
    run = store.create_run(spec, repeat=0, manifest={"engine_version": "0.1.0"})
    assert store.resumable(spec.fingerprint, 0) == run
    store.add_sample(SampleRecord(run_id=run.run_id, sample_id="a", status="ok", text="x"))
    store.add_sample(
        SampleRecord(run_id=run.run_id, sample_id="b", status="error", error="HTTP 500")
    )
    store.add_sample(SampleRecord(run_id=run.run_id, sample_id="c", status="cancelled"))
    assert store.finished_sample_ids(run.run_id) == {"a", "b"}
    with pytest.raises(sqlite3.IntegrityError):  # the same attempt twice is a bug, not an update
        store.add_sample(SampleRecord(run_id=run.run_id, sample_id="a", status="ok"))
    done = store.update_run(run.run_id, status="completed", manifest={"audit": "ok"})
    assert done.finished_at is not None
    assert done.manifest == {"engine_version": "0.1.0", "audit": "ok"}
    assert store.resumable(spec.fingerprint, 0) is None
    assert store.get_run(run.run_id) == done
    store.add_snapshot(
        MetricsSnapshot(run_id=run.run_id, phase="before", taken_at=1.0, text="a 1\n")
    )
    assert store.snapshots(run.run_id)["before"].text == "a 1\n"
    store.add_snapshot(
        MetricsSnapshot(
            run_id=run.run_id, phase="poll-000000", source="/stats", taken_at=2.0, text="[]"
        )
    )
    snaps = store.snapshots(run.run_id)
    assert list(snaps) == ["before", "poll-000000 /stats"]
    assert snaps["poll-000000 /stats"].source == "/stats"


def test_a_version_1_registry_keeps_its_snapshots_through_migration(
    tmp_path: Path, spec: RunSpec
) -> None:
    db = tmp_path / "old.db"
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    for statement in filter(str.strip, MIGRATIONS[0][1].split(";")):
        con.execute(statement)
    con.execute("INSERT INTO schema_migrations VALUES (?, 0)", (MIGRATIONS[0][0],))
    con.execute(
        "INSERT INTO runs VALUES ('r1', 'f', 0, 'completed', 0, ?)",
        (
            '{"run_id": "r1", "fingerprint": "f", "spec": '
            + spec.model_dump_json()
            + ', "repeat": 0, "status": "completed", "created_at": 0}',
        ),
    )
    con.execute("INSERT INTO metric_snapshots VALUES ('r1', 'after', 3.0, 'x 2')")
    con.close()
    store = SQLiteStore(db)
    snap = store.snapshots("r1")["after"]
    assert (snap.source, snap.taken_at, snap.text) == ("/metrics", 3.0, "x 2")


def test_a_second_connection_sees_committed_samples(tmp_path: Path, spec: RunSpec) -> None:
    writer = SQLiteStore(tmp_path / "r.db")
    run = writer.create_run(spec, repeat=0)
    writer.add_sample(SampleRecord(run_id=run.run_id, sample_id="a", status="ok"))
    reader = SQLiteStore(tmp_path / "r.db")
    assert [s.sample_id for s in reader.samples(run.run_id)] == ["a"]


floats = st.one_of(st.none(), st.floats(0, 1e4, allow_nan=False))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    text=st.text(),
    status=st.sampled_from(["ok", "error", "timeout", "cancelled"]),
    ttft=floats,
    e2e=floats,
    arrivals=st.lists(st.floats(0, 1e4, allow_nan=False), max_size=20),
    tokens=st.one_of(st.none(), st.integers(0, 10**6)),
    acceptance=st.one_of(
        st.none(), st.dictionaries(st.text(max_size=5), st.integers(), max_size=4)
    ),
)
def test_samples_round_trip_exactly(
    spec: RunSpec,
    text: str,
    status: str,
    ttft: float | None,
    e2e: float | None,
    arrivals: list[float],
    tokens: int | None,
    acceptance: dict[str, int] | None,
) -> None:
    store = SQLiteStore(":memory:")
    run = store.create_run(spec, repeat=0)
    sample = SampleRecord.model_validate(
        {
            "run_id": run.run_id,
            "sample_id": "s",
            "status": status,
            "text": text,
            "ttft_s": ttft,
            "e2e_s": e2e,
            "chunk_arrivals_s": arrivals,
            "completion_tokens": tokens,
            "acceptance": acceptance,
        }
    )
    store.add_sample(sample)
    assert store.samples(run.run_id) == [sample]
