"""The SQLite run registry: migrations, WAL, foreign keys, round trips, resume bookkeeping."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from specverdict.campaign import build_plan, load_campaign
from specverdict.campaign.spec import RunSpec
from specverdict.errors import StoreError
from specverdict.records import MetricsSnapshot, RunManifest, SampleRecord, Score
from specverdict.store import MIGRATIONS, SampleExistsError, SQLiteStore

DEMO = Path(__file__).resolve().parents[3] / "examples" / "demo.yaml"


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
    run = store.create_run(spec, repeat=0, manifest=RunManifest(engine_version="0.1.0"))
    assert store.resumable(spec.fingerprint, 0) == run
    store.add_sample(SampleRecord(run_id=run.run_id, sample_id="a", status="ok", text="x"))
    store.add_sample(
        SampleRecord(run_id=run.run_id, sample_id="b", status="error", error="HTTP 500")
    )
    # a retry is another attempt: the run's samples show the last one, attempts keep both
    store.add_sample(SampleRecord(run_id=run.run_id, sample_id="b", attempt=1, status="ok"))
    assert [(s.sample_id, s.attempt, s.status) for s in store.samples(run.run_id)] == [
        ("a", 0, "ok"),
        ("b", 1, "ok"),
    ]
    assert [(s.sample_id, s.attempt) for s in store.attempts(run.run_id)] == [
        ("a", 0),
        ("b", 0),
        ("b", 1),
    ]
    with pytest.raises(SampleExistsError):  # the same attempt twice is a bug, not an update
        store.add_sample(SampleRecord(run_id=run.run_id, sample_id="a", status="ok"))
    done = store.update_run(run.run_id, status="completed", manifest={"resample_of": "abc"})
    assert done.finished_at is not None
    assert done.manifest == RunManifest(engine_version="0.1.0", resample_of="abc")
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


def test_deleting_a_run_removes_its_samples_scores_and_snapshots(
    tmp_path: Path, spec: RunSpec
) -> None:
    store = SQLiteStore(tmp_path / "r.db")
    keep, gone = store.create_run(spec, repeat=0), store.create_run(spec, repeat=1)
    for run in (keep, gone):
        store.add_sample(SampleRecord(run_id=run.run_id, sample_id="a", status="ok"))
        store.add_score(run.run_id, "a", 0, Score(passed=True, outcome="passed"))
        store.add_snapshot(
            MetricsSnapshot(run_id=run.run_id, phase="before", taken_at=1.0, text="a 1\n")
        )
    store.delete_run(gone.run_id)
    assert [r.run_id for r in store.list_runs()] == [keep.run_id]
    for table in ("samples", "scores", "metric_snapshots"):
        rows = store._db.execute(f"SELECT DISTINCT run_id FROM {table}").fetchall()
        assert rows == [(keep.run_id,)], table
    with pytest.raises(KeyError):
        store.delete_run(gone.run_id)


def test_a_full_disk_is_a_store_error_and_loses_nothing_committed(
    tmp_path: Path, spec: RunSpec
) -> None:
    """SQLite's own page limit gives a real SQLITE_FULL, as a full file system does."""
    store = SQLiteStore(tmp_path / "r.db")
    run = store.create_run(spec, repeat=0)
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages + 2}")
    written = 0
    with pytest.raises(StoreError, match=r"r\.db: cannot write: database or disk is full"):
        for i in range(1000):
            store.add_sample(
                SampleRecord(run_id=run.run_id, sample_id=f"s{i:04d}", status="ok", text="x" * 2000)
            )
            written += 1
    assert 0 < written < 1000
    store.close()
    again = SQLiteStore(tmp_path / "r.db")  # what was committed is there, and readable
    assert len(again.samples(run.run_id)) == written


def test_one_runner_per_registry(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    first, second = SQLiteStore(db), SQLiteStore(db)
    with (
        first.exclusive_runner(),
        pytest.raises(StoreError, match=rf"in use by a runner \(pid {os.getpid()}\)"),
        second.exclusive_runner(),
    ):
        pass
    with second.exclusive_runner():  # released when the first ends
        pass


def test_processes_opening_a_new_registry_at_once_migrate_it_once(tmp_path: Path) -> None:
    """A `runs list` while a `run` creates the registry: both open it, one migrates."""
    import subprocess
    import sys
    import time

    db = tmp_path / "new.db"
    # every process waits for the same instant, then opens: the race a user meets by chance
    code = (
        "import sys, time\nfrom specverdict.store import SQLiteStore\n"
        "time.sleep(max(0.0, float(sys.argv[2]) - time.time()))\n"
        "SQLiteStore(sys.argv[1]).close()\n"
    )
    start = str(time.time() + 3.0)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(db), start], stderr=subprocess.PIPE, text=True
        )
        for _ in range(6)
    ]
    errors = [p.communicate(timeout=60)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 6, errors
    con = sqlite3.connect(db)
    names = [r[0] for r in con.execute("SELECT name FROM schema_migrations")]
    assert names == [m[0] for m in MIGRATIONS]
