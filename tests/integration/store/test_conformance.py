"""One conformance suite for every ``Store``: SQLite and a real PostgreSQL server.

Each test runs against both backends; what a test asserts is the interface's contract, so the
two registries hold and return the same data."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from specverdict.campaign import build_plan, load_campaign
from specverdict.campaign.spec import RunSpec
from specverdict.errors import StoreError
from specverdict.records import (
    MetricsSnapshot,
    RequestAcceptance,
    RunManifest,
    SampleRecord,
    Score,
)
from specverdict.store import RunOrigin, SampleExistsError, Store, open_store
from specverdict.store import postgres as pg
from specverdict.store import sqlite as sq
from tests.pgserver import PostgresServer

DEMO = Path(__file__).resolve().parents[3] / "examples" / "demo.yaml"

Factory = Callable[..., Store]


@pytest.fixture(scope="module")
def spec() -> RunSpec:
    return build_plan(load_campaign(DEMO)).runs[1]


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty registry of each kind."""
    if request.param == "sqlite":
        return str(tmp_path / "runs.db")
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.database()


@pytest.fixture
def make(location: str) -> Factory:
    opened: list[Store] = []

    def factory(origin: RunOrigin | None = None) -> Store:
        store = open_store(location, origin=origin)
        opened.append(store)
        return store

    yield factory  # type: ignore[misc]
    for store in opened:
        store.close()


def sample(run_id: str, sid: str, attempt: int = 0, **fields: object) -> SampleRecord:
    return SampleRecord.model_validate(
        {"run_id": run_id, "sample_id": sid, "attempt": attempt, "status": "ok", **fields}
    )


def test_both_registries_have_the_same_migrations() -> None:
    assert [n for n, _ in pg.MIGRATIONS] == [n for n, _ in sq.MIGRATIONS]


def test_migrations_apply_once(make: Factory) -> None:
    first = make()
    assert first.migrate() == []  # type: ignore[attr-defined]
    assert make().migrate() == []  # type: ignore[attr-defined]


def test_run_lifecycle_and_resume_bookkeeping(make: Factory, spec: RunSpec) -> None:
    store = make()
    run = store.create_run(spec, repeat=0, manifest=RunManifest(engine_version="0.1.0"))
    assert store.resumable(spec.fingerprint, 0) == run
    assert store.resumable(spec.fingerprint, 1) is None
    store.add_sample(sample(run.run_id, "b", status="error", error="HTTP 500"))
    store.add_sample(sample(run.run_id, "a", text="x"))
    store.add_sample(sample(run.run_id, "b", attempt=1))
    assert [(s.sample_id, s.attempt, s.status) for s in store.samples(run.run_id)] == [
        ("a", 0, "ok"),
        ("b", 1, "ok"),
    ]
    assert [(s.sample_id, s.attempt) for s in store.attempts(run.run_id)] == [
        ("a", 0),
        ("b", 0),
        ("b", 1),
    ]
    done = store.update_run(run.run_id, status="completed", manifest={"resample_of": "abc"})
    assert done.finished_at is not None
    assert done.manifest == RunManifest(engine_version="0.1.0", resample_of="abc")
    assert store.resumable(spec.fingerprint, 0) is None
    assert store.get_run(run.run_id) == done
    with pytest.raises(KeyError):
        store.get_run("nope")
    with pytest.raises(KeyError):
        store.update_run("nope", status="failed")


def test_a_sample_is_written_once(make: Factory, spec: RunSpec) -> None:
    store = make()
    run = store.create_run(spec, repeat=0)
    first = sample(run.run_id, "a", text="answer", ttft_s=0.25, chunk_arrivals_s=[0.25, 0.5])
    store.add_sample(first)
    store.add_sample(first)  # the same record again (a retried write): stored once
    assert store.attempts(run.run_id) == [first]
    with pytest.raises(SampleExistsError, match=r"'a' attempt 0 .* stored already"):
        store.add_sample(sample(run.run_id, "a", text="another answer"))
    assert store.attempts(run.run_id) == [first]


def test_records_round_trip_exactly(make: Factory, spec: RunSpec) -> None:
    store = make()
    run = store.create_run(spec, repeat=3)
    odd = sample(
        run.run_id,
        "unicodé \U0001f600",
        text="déf f():\n\treturn '\u0000'",
        ttft_s=1e-9,
        e2e_s=12345.678901234567,
        chunk_arrivals_s=[0.1, 0.2 + 1e-15],
        completion_tokens=10**6,
        acceptance={"accepted": 3, "drafted": 4},
        extra={"tool_calls": [{"name": "x"}]},
    )
    store.add_sample(odd)
    assert store.samples(run.run_id) == [odd]
    assert make().get_run(run.run_id) == run  # another connection reads what was committed


def test_per_step_acceptance_round_trips_and_older_records_still_read(
    make: Factory, spec: RunSpec
) -> None:
    """The per-step arrays live in the sample's acceptance, as compact as JSON makes them; a
    sample stored before they existed reads with them None."""
    store = make()
    run = store.create_run(spec, repeat=0)
    counts = {"num_draft_tokens": 6, "num_accepted_draft_tokens": 3, "num_spec_steps": 3}
    detailed = sample(
        run.run_id,
        "a",
        acceptance={**counts, "per_step_accepted": [2, 0, 1], "per_step_drafted": [2, 2, 2]},
    )
    older = sample(run.run_id, "b", acceptance={**counts, "raw": {"num_spec_tokens": 2}})
    store.add_sample(detailed)
    store.add_sample(older)
    stored = {s.sample_id: s for s in make().samples(run.run_id)}
    assert stored == {"a": detailed, "b": older}
    assert '"per_step_accepted":[2,0,1]' in stored["a"].model_dump_json()
    a, b = (RequestAcceptance.parse(stored[i]) for i in ("a", "b"))
    assert a.per_step_accepted == (2, 0, 1) and a.per_step_drafted == (2, 2, 2)
    assert b.per_step_accepted is None and b.per_step_drafted is None


def test_scores_attach_and_replace(make: Factory, spec: RunSpec) -> None:
    store = make()
    run = store.create_run(spec, repeat=0)
    store.add_sample(sample(run.run_id, "a"))
    store.add_score(run.run_id, "a", 0, Score(passed=False, outcome="failed"))
    store.add_score(run.run_id, "a", 0, Score(passed=True, outcome="passed"))
    assert store.samples(run.run_id)[0].score == Score(passed=True, outcome="passed")


def test_snapshots_by_key_in_the_order_taken(make: Factory, spec: RunSpec) -> None:
    store = make()
    run = store.create_run(spec, repeat=0)
    store.add_snapshot(MetricsSnapshot(run_id=run.run_id, phase="after", taken_at=3.0, text="b"))
    store.add_snapshot(MetricsSnapshot(run_id=run.run_id, phase="before", taken_at=1.0, text="a"))
    store.add_snapshot(
        MetricsSnapshot(
            run_id=run.run_id, phase="poll-000000", source="/stats", taken_at=2.0, text="[]"
        )
    )
    store.add_snapshot(MetricsSnapshot(run_id=run.run_id, phase="after", taken_at=4.0, text="c"))
    snaps = store.snapshots(run.run_id)
    assert list(snaps) == ["before", "poll-000000 /stats", "after"]
    assert snaps["after"].text == "c"


def test_deleting_a_run_removes_what_it_holds(make: Factory, spec: RunSpec) -> None:
    store = make()
    keep, gone = store.create_run(spec, repeat=0), store.create_run(spec, repeat=1)
    for run in (keep, gone):
        store.add_sample(sample(run.run_id, "a"))
        store.add_score(run.run_id, "a", 0, Score(passed=True, outcome="passed"))
        store.add_snapshot(MetricsSnapshot(run_id=run.run_id, phase="after", taken_at=1.0, text=""))
    store.delete_run(gone.run_id)
    assert [r.run_id for r in store.list_runs()] == [keep.run_id]
    assert store.samples(gone.run_id) == [] and store.snapshots(gone.run_id) == {}
    assert len(store.samples(keep.run_id)) == 1
    with pytest.raises(KeyError):
        store.delete_run(gone.run_id)


def test_runs_are_listed_by_campaign_user_and_host(make: Factory, spec: RunSpec) -> None:
    ana = make(RunOrigin(user="ana", host="node-a"))
    bo = make(RunOrigin(user="bo", host="node-b"))
    other = spec.model_copy(update={"campaign": "other"})
    r1 = ana.create_run(spec, repeat=0)
    r2 = bo.create_run(spec, repeat=0)
    r3 = bo.create_run(other, repeat=0)
    ids = lambda runs: [r.run_id for r in runs]  # noqa: E731
    assert ids(ana.list_runs()) == [r1.run_id, r2.run_id, r3.run_id]  # everyone's runs
    assert ids(ana.list_runs(campaign=spec.campaign)) == [r1.run_id, r2.run_id]
    assert ids(ana.list_runs(user="bo")) == [r2.run_id, r3.run_id]
    assert ids(ana.list_runs(host="node-a")) == [r1.run_id]
    assert ids(ana.list_runs(campaign="other", user="bo", host="node-b")) == [r3.run_id]
    assert ana.list_runs(user="nobody") == []
    assert ana.origin(r2.run_id) == RunOrigin(user="bo", host="node-b")


def test_a_claim_is_held_by_one_executor_until_released_or_expired(
    make: Factory, spec: RunSpec
) -> None:
    a, b = make(), make()
    fp = spec.fingerprint
    assert a.claim(fp, 0, "exec-a", ttl_s=60) == "exec-a"
    assert b.claim(fp, 0, "exec-b", ttl_s=60) == "exec-a"  # refused: a holds it
    assert b.claim(fp, 1, "exec-b", ttl_s=60) == "exec-b"  # another repeat is free
    assert a.claim(fp, 0, "exec-a", ttl_s=60) == "exec-a"  # a renewal
    b.release(fp, 0, "exec-b")  # not b's: a keeps it
    assert b.claim(fp, 0, "exec-b", ttl_s=60) == "exec-a"
    a.release(fp, 0, "exec-a")
    assert b.claim(fp, 0, "exec-b", ttl_s=0.0) == "exec-b"
    threading.Event().wait(0.05)  # past b's lease of 0 s
    assert a.claim(fp, 0, "exec-a", ttl_s=60) == "exec-a"  # an expired claim is taken over


def _claim_in_process(location: str, fingerprint: str, name: str, barrier: object) -> str:
    store = open_store(location)
    barrier.wait()  # type: ignore[attr-defined]
    return store.claim(fingerprint, 0, name, ttl_s=60)


def _write_in_process(location: str, run_id: str, worker: int, barrier: object) -> None:
    store = open_store(location)
    barrier.wait()  # type: ignore[attr-defined]
    for i in range(20):
        # every worker writes the same keys: each key is stored once, whoever comes first
        store.add_sample(sample(run_id, f"s{i:02d}", text=f"answer {i}"))
        store.add_sample(sample(run_id, f"w{worker}-{i:02d}"))


def test_many_writers_at_once(location: str, make: Factory, spec: RunSpec) -> None:
    """Processes claiming one run at the same instant: exactly one wins. Processes writing
    samples into one run at once: every sample is stored exactly once."""
    store = make()
    run = store.create_run(spec, repeat=0)
    ctx = multiprocessing.get_context("spawn")
    n = 4
    with ctx.Pool(n) as pool:
        barrier = ctx.Manager().Barrier(n)
        winners = pool.starmap(
            _claim_in_process, [(location, spec.fingerprint, f"p{i}", barrier) for i in range(n)]
        )
        assert len(set(winners)) == 1 and winners[0] in {f"p{i}" for i in range(n)}
        barrier = ctx.Manager().Barrier(n)
        pool.starmap(_write_in_process, [(location, run.run_id, i, barrier) for i in range(n)])
    got = store.attempts(run.run_id)
    keys = [(s.sample_id, s.attempt) for s in got]
    assert len(keys) == len(set(keys)) == 20 + 20 * n


def test_a_newer_registry_is_refused(make: Factory, location: str) -> None:
    store = make()
    store.claim("f", 0, "x", 1.0)
    if location.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(location, autocommit=True) as conn:
            conn.execute("INSERT INTO schema_migrations VALUES ('9999_future', 0)")
    else:
        import sqlite3

        con = sqlite3.connect(location)
        con.execute("INSERT INTO schema_migrations VALUES ('9999_future', 0)")
        con.commit()
        con.close()
    with pytest.raises(StoreError, match=r"newer specverdict.*9999_future"):
        make()


# --- PostgreSQL only: the connection is lost -----------------------------------------------


def test_a_lost_connection_is_retried_and_nothing_is_lost(
    postgres: PostgresServer, spec: RunSpec
) -> None:
    url = postgres.database()
    store = pg.PostgresStore(url)
    run = store.create_run(spec, repeat=0)
    for i in range(5):
        store.add_sample(sample(run.run_id, f"s{i}"))
        assert postgres.terminate_connections(url) == 1  # the store's own connection
    assert [s.sample_id for s in store.samples(run.run_id)] == [f"s{i}" for i in range(5)]
    store.close()


def test_a_database_that_stays_away_is_a_clean_store_error(
    postgres: PostgresServer, spec: RunSpec
) -> None:
    url = postgres.database()
    store = pg.PostgresStore(url, backoff_s=(0.05, 0.1, 0.2))
    run = store.create_run(spec, repeat=0)
    store.add_sample(sample(run.run_id, "before"))
    postgres.stop("immediate")
    try:
        with pytest.raises(StoreError, match=r"lost the database after 3 retries"):
            store.add_sample(sample(run.run_id, "during"))
        # the writes queued behind the one that gave up (the runner's other requests, its
        # heartbeat, marking the run interrupted) fail at once, not after a backoff each
        t0 = time.monotonic()
        for i in range(4):
            with pytest.raises(StoreError, match=r"after 3 retries \(an earlier operation's; this"):
                store.add_sample(sample(run.run_id, f"queued{i}"))
        assert time.monotonic() - t0 < 4 * 0.35 / 2
    finally:
        postgres.start()
    assert [s.sample_id for s in store.samples(run.run_id)] == ["before"]
    store.close()
    assert "***" in pg.redacted("postgresql://u:secret@h/db")
    assert "secret" not in pg.redacted("postgresql://u:secret@h/db")


def test_runs_stored_before_origins_were_recorded_keep_their_campaign(
    tmp_path: Path, spec: RunSpec
) -> None:
    """A registry of schema 0003 upgraded: its runs are found by campaign, of no known user."""
    import sqlite3

    db = tmp_path / "old.db"
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    for name, sql in sq.MIGRATIONS[:3]:
        for statement in filter(str.strip, sql.split(";")):
            con.execute(statement)
        con.execute("INSERT INTO schema_migrations VALUES (?, 0)", (name,))
    run = sq.SQLiteStore(":memory:").create_run(spec, repeat=0)
    con.execute(
        "INSERT INTO runs VALUES (?, ?, 0, 'completed', 0, ?)",
        (run.run_id, run.fingerprint, run.model_dump_json()),
    )
    con.close()
    store = open_store(db)
    assert [r.run_id for r in store.list_runs(campaign=spec.campaign)] == [run.run_id]
    assert store.origin(run.run_id) == RunOrigin(user="", host="")
    store.close()


def test_a_record_that_does_not_parse_is_named_left_out_of_reads_and_refused_by_id(
    make: Factory, spec: RunSpec, capfd: pytest.CaptureFixture[str]
) -> None:
    """docs/faults.md: listings and a run's samples leave out (and name) what does not parse;
    a run asked for by id, updated, or to be resumed is refused in one line."""
    from specverdict.store.base import UnreadableRecordError

    store = make()
    good, bad = store.create_run(spec, repeat=0), store.create_run(spec, repeat=1)
    store.add_sample(sample(good.run_id, "a"))
    store.add_sample(sample(good.run_id, "b"))

    def corrupt(sql: str, *params: str) -> None:
        if isinstance(store, sq.SQLiteStore):
            store._db.execute(sql.replace("%s", "?"), params)
        else:
            assert isinstance(store, pg.PostgresStore)
            store._with_retry(lambda conn: conn.execute(sql, params))

    corrupt("UPDATE runs SET record = '{\"run_id\": 1' WHERE run_id = %s", bad.run_id)
    corrupt("UPDATE samples SET record = '[]' WHERE sample_id = %s", "b")
    assert [r.run_id for r in store.list_runs()] == [good.run_id]
    assert [s.sample_id for s in store.samples(good.run_id)] == ["a"]
    err = capfd.readouterr().err.splitlines()
    assert len(err) == 2 and all(line.startswith("specverdict: warning: ") for line in err)
    assert f"run {bad.run_id} is unreadable: the record's JSON: Invalid JSON" in err[0]
    assert f"sample 'b' attempt 0 of run {good.run_id} is unreadable" in err[1]
    with pytest.raises(UnreadableRecordError, match=f"run {bad.run_id} is unreadable"):
        store.get_run(bad.run_id)
    with pytest.raises(UnreadableRecordError, match=f"run {bad.run_id} is unreadable"):
        store.update_run(bad.run_id, status="failed")
    with pytest.raises(UnreadableRecordError, match=f"run {bad.run_id} is unreadable"):
        store.resumable(spec.fingerprint, 1)
