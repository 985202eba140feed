"""Faults of the SQLite registry, each caused for real: the file deleted or replaced under a
writer, a full disk, a read-only registry, a file that is no registry, damaged bytes, records
that do not parse, a symlink to a registry in use.

Read-only media: as root (here, and in most CI containers) ``chmod`` stops nobody, so the
registry is made read-only with ``chattr +i`` on the file and its folder, else with a read-only
bind mount, else (no such privilege) as the user it is: ``chmod`` when not root, else by
making ``os.access`` answer "not writable" (the check the store makes), which exercises the
read-only opening but not the kernel's refusal.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from specverdict.campaign import build_plan, load_campaign
from specverdict.campaign.spec import RunSpec
from specverdict.errors import (
    RegistryFormatError,
    RegistryLostError,
    RegistryReadOnlyError,
    RegistryWriteError,
    StoreError,
)
from specverdict.records import SampleRecord, Score
from specverdict.store import SQLiteStore, open_store
from specverdict.store.base import UnreadableRecordError
from tests.conftest import specverdict_cli

DEMO = Path(__file__).resolve().parents[3] / "examples" / "demo.yaml"


@pytest.fixture(scope="module")
def spec() -> RunSpec:
    return build_plan(load_campaign(DEMO)).runs[0]


def sample(run_id: str, i: int) -> SampleRecord:
    return SampleRecord(run_id=run_id, sample_id=f"s{i:03d}", status="ok", text="x" * 100)


def filled(db: Path, spec: RunSpec, n: int = 5) -> tuple[SQLiteStore, str]:
    store = SQLiteStore(db)
    run = store.create_run(spec, repeat=0)
    for i in range(n):
        store.add_sample(sample(run.run_id, i))
    return store, run.run_id


# --- deleted, replaced, full, read-only mid-run ------------------------------------------------


@pytest.mark.parametrize("with_wal", [False, True], ids=["rm-db", "rm-db-wal-shm"])
def test_a_registry_deleted_under_a_writer_stops_it_and_keeps_a_recovery_copy(
    tmp_path: Path, spec: RunSpec, with_wal: bool
) -> None:
    db = tmp_path / "runs.db"
    store, run_id = filled(db, spec)
    for path in [db, *([Path(f"{db}-wal"), Path(f"{db}-shm")] if with_wal else [])]:
        path.unlink()
    with pytest.raises(RegistryLostError) as err:
        store.add_sample(sample(run_id, 5))  # SQLite writes on, to the unlinked file
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"run registry {db} was deleted while this process wrote to it")
    (copy,) = tmp_path.glob("runs.db.recovered-*")
    assert f"6 samples of 1 run are kept in a recovery copy, {copy}: move it to {db}" in message
    with pytest.raises(RegistryLostError):  # every later write is refused the same way
        store.update_run(run_id, status="interrupted")
    assert len(list(tmp_path.glob("runs.db.recovered-*"))) == 1
    assert len(store.samples(run_id)) == 6  # what the runner counts as saved: in the copy
    store.close()
    assert not db.exists()
    recovered = SQLiteStore(copy)
    assert [s.sample_id for s in recovered.samples(run_id)] == [f"s{i:03d}" for i in range(6)]
    assert recovered.get_run(run_id).status == "running"  # a rerun on it resumes the run


def test_a_registry_replaced_under_a_writer_stops_it_and_leaves_the_new_file_alone(
    tmp_path: Path, spec: RunSpec
) -> None:
    db = tmp_path / "runs.db"
    store, run_id = filled(db, spec)
    other, _ = filled(tmp_path / "other.db", spec, n=1)
    other.close()
    os.replace(tmp_path / "other.db", db)
    with pytest.raises(RegistryLostError, match=rf"^run registry {db} was replaced by another"):
        store.add_sample(sample(run_id, 5))
    (copy,) = tmp_path.glob("runs.db.recovered-*")
    assert len(SQLiteStore(copy).samples(run_id)) == 6
    assert SQLiteStore(db).list_runs()[0].run_id != run_id  # the replacement is untouched


def test_a_full_disk_is_a_registry_write_error_of_one_line(tmp_path: Path, spec: RunSpec) -> None:
    store, run_id = filled(tmp_path / "r.db", spec, n=1)
    store._db.execute("PRAGMA max_page_count = 1")  # "not one page more": a real SQLITE_FULL
    with pytest.raises(RegistryWriteError) as err:
        for i in range(1, 1000):
            store.add_sample(sample(run_id, i).model_copy(update={"text": "x" * 5000}))
    assert (
        str(err.value)
        == f"run registry {tmp_path / 'r.db'}: cannot write: database or disk is full"
    )
    assert not isinstance(err.value, RegistryLostError)


def test_a_registry_made_read_only_mid_run_is_a_registry_write_error(
    tmp_path: Path, spec: RunSpec
) -> None:
    """Media turned read-only under an open file cannot be caused without unmounting it;
    ``query_only`` makes SQLite answer the same SQLITE_READONLY a read-only file gives."""
    store, run_id = filled(tmp_path / "r.db", spec, n=1)
    store._db.execute("PRAGMA query_only = ON")
    with pytest.raises(
        RegistryWriteError, match=r"r\.db: cannot write: attempt to write a readonly"
    ):
        store.add_sample(sample(run_id, 1))
    store._db.execute("PRAGMA query_only = OFF")
    assert len(store.samples(run_id)) == 1


def test_a_registry_deleted_mid_run_stops_the_runner_with_the_samples_in_the_recovery_copy(
    tmp_path: Path,
) -> None:
    """The fault as a user meets it: a runner on a reference server, the registry deleted after
    3 samples (before, the run completed on the unlinked file and exited 0, all lost)."""
    from specverdict.campaign import parse_campaign
    from specverdict.run.runner import Runner
    from tests.e2e.test_runner import campaign_text, quiet

    db = tmp_path / "runs.db"
    plan = build_plan(parse_campaign(campaign_text(samples="all", max_tokens=120), DEMO))
    store = SQLiteStore(db)

    def delete_after_3_samples() -> None:
        watcher = sqlite3.connect(db)  # from outside, as a user polls it
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if watcher.execute("SELECT count(*) FROM samples").fetchone()[0] >= 3:
                watcher.close()
                db.unlink()
                return
            time.sleep(0.02)

    gone = threading.Thread(target=delete_after_3_samples, daemon=True)
    gone.start()
    with pytest.raises(StoreError) as err:
        Runner(store, log=quiet).run_plan(plan, "none")
    gone.join()
    message = str(err.value)
    assert f"run registry {db} was deleted while this process wrote to it" in message
    (copy,) = tmp_path.glob("runs.db.recovered-*")
    assert f"kept in a recovery copy, {copy}" in message
    store.close()
    recovered = SQLiteStore(copy)
    (run,) = recovered.list_runs()
    assert 3 <= len(recovered.samples(run.run_id)) < 16


# --- files that are no registry, damaged bytes -------------------------------------------------


def test_files_that_are_no_registry_are_one_line_naming_them(tmp_path: Path) -> None:
    yaml = tmp_path / "campaign.yaml"
    yaml.write_text("name: demo\nengine: {kind: reference}\n")
    junk = tmp_path / "junk.db"
    junk.write_bytes(os.urandom(4096))
    foreign = tmp_path / "foreign.db"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE notes (body TEXT)")
    con.commit()
    con.close()
    expected = "not a specverdict registry (SQLite database)"
    for path in (yaml, junk, foreign):
        with pytest.raises(
            RegistryFormatError, match=re.escape(f"run registry {path}: {expected}")
        ):
            SQLiteStore(path)
        done = specverdict_cli("runs", "list", "--db", str(path))
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1 and expected in done.stderr, done.stderr
    assert sqlite3.connect(foreign).execute(  # another program's database is not written into
        "SELECT count(*) FROM sqlite_master"
    ).fetchone() == (1,)
    done = specverdict_cli("runs", "list", "--db", "/dev/null")
    assert done.returncode == 2
    assert done.stderr == (
        "specverdict: error: run registry /dev/null is not a regular file; expected a "
        "specverdict registry (SQLite database)\n"
    )


def test_a_registry_with_damaged_pages_is_one_line(tmp_path: Path, spec: RunSpec) -> None:
    db = tmp_path / "runs.db"
    store, _ = filled(db, spec, n=40)
    store.close()  # checkpointed into the file
    size = db.stat().st_size
    with open(db, "r+b") as fh:  # SQLite's header is sound; every page after the schema is not
        fh.seek(4096)
        fh.write(os.urandom(size - 4096))
    with pytest.raises(RegistryFormatError, match="SQLite says: database disk image is malformed"):
        SQLiteStore(db).list_runs()
    done = specverdict_cli("runs", "list", "--db", str(db))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"run registry {db}: not a specverdict registry (SQLite database)" in done.stderr


# --- read-only registries ----------------------------------------------------------------------


@contextlib.contextmanager
def read_only(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Make ``folder`` and its files read-only as truly as this machine allows; yield how."""
    files = [folder, *folder.iterdir()]
    if os.geteuid() != 0:
        for f in files:
            f.chmod(0o555 if f.is_dir() else 0o444)
        try:
            yield "chmod"
        finally:
            for f in files:
                f.chmod(0o755 if f.is_dir() else 0o644)
        return
    if shutil.which("chattr"):
        done = subprocess.run(["chattr", "+i", *map(str, files)], check=False, capture_output=True)
        if done.returncode == 0:
            try:
                yield "chattr +i"
            finally:
                subprocess.run(["chattr", "-i", *map(str, files)], check=True)
            return
        subprocess.run(["chattr", "-i", *map(str, files)], check=False, capture_output=True)
    bind = subprocess.run(
        ["mount", "--bind", str(folder), str(folder)], check=False, capture_output=True
    )
    if bind.returncode == 0:
        try:
            ro = subprocess.run(
                ["mount", "-o", "remount,ro,bind", str(folder)], check=False, capture_output=True
            )
            if ro.returncode == 0:
                yield "read-only bind mount"
                return
        finally:
            subprocess.run(["umount", str(folder)], check=True)
    real_access = os.access
    monkeypatch.setattr(
        "specverdict.store.sqlite.os.access",
        lambda p, mode: mode != os.W_OK and real_access(p, mode),
    )
    yield "simulated"


def test_a_read_only_registry_is_read_and_refuses_writes_in_one_line(
    tmp_path: Path, spec: RunSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "media"
    store, run_id = filled(folder / "runs.db", spec)
    store.close()  # no -wal, no -shm: a read-only reader cannot create them
    assert sorted(p.name for p in folder.iterdir()) == ["runs.db"]
    with read_only(folder, monkeypatch) as how:
        ro = SQLiteStore(folder / "runs.db")
        assert ro.read_only, how
        assert [r.run_id for r in ro.list_runs()] == [run_id]
        assert len(ro.samples(run_id)) == 5
        with pytest.raises(RegistryReadOnlyError, match=r"is read-only \(the file or its folder"):
            ro.add_sample(sample(run_id, 9))
        with pytest.raises(RegistryReadOnlyError), ro.exclusive_runner():
            pass
        ro.close()
        assert sorted(p.name for p in folder.iterdir()) == ["runs.db"]


def test_reading_commands_work_on_read_only_media_and_writing_ones_say_so(
    tmp_path: Path, spec: RunSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "media"
    store, run_id = filled(folder / "runs.db", spec)
    store.update_run(run_id, status="failed")
    store.close()
    db = str(folder / "runs.db")
    with read_only(folder, monkeypatch) as how:
        if how == "simulated":
            pytest.skip("no read-only media here (not root, no chattr, no mount)")
        listed = specverdict_cli("runs", "list", "--db", db)
        assert listed.returncode == 0 and run_id in listed.stdout, listed.stderr
        shown = specverdict_cli("runs", "show", run_id[:6], "--db", db, "--json")
        assert shown.returncode == 0 and run_id in shown.stdout, shown.stderr
        judged = specverdict_cli("verdict", str(DEMO), "--db", db, "--fail-on", "")
        assert "Traceback" not in judged.stderr and "read-only" not in judged.stderr, judged
        pruned = specverdict_cli("runs", "prune", "--db", db, "--yes")
        assert pruned.returncode == 2, pruned.stderr
        assert pruned.stderr == (
            f"specverdict: error: run registry {db} is read-only (the file or its folder is not "
            "writable): reading commands work on it; to write, copy it to a writable place and "
            "pass that as --db\n"
        )


def test_a_registry_cannot_be_created_in_a_read_only_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "media"
    folder.mkdir()
    (folder / "keep").write_text("")
    with (
        read_only(folder, monkeypatch),
        pytest.raises(RegistryReadOnlyError, match="cannot be created: its folder is not writable"),
    ):
        SQLiteStore(folder / "runs.db")


# --- records that do not parse -----------------------------------------------------------------


def test_an_unreadable_run_is_named_and_left_out_of_listings_but_refused_by_id(
    tmp_path: Path, spec: RunSpec, capfd: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "runs.db"
    store = SQLiteStore(db)
    good, broken_json, no_field = (store.create_run(spec, repeat=i).run_id for i in range(3))
    store._db.execute("UPDATE runs SET record = '{\"run_id\": ' WHERE run_id = ?", (broken_json,))
    store._db.execute(
        "UPDATE runs SET record = json_remove(record, '$.spec.engine') WHERE run_id = ?",
        (no_field,),
    )
    assert [r.run_id for r in store.list_runs()] == [good]
    assert [r.run_id for r in store.list_runs()] == [good]  # each warning once
    lines = capfd.readouterr().err.splitlines()
    assert lines == [
        f"specverdict: warning: run registry {db}: run {broken_json} is unreadable: the "
        "record's JSON: Invalid JSON: EOF while parsing a value at line 1 column 11; the run is "
        "left out",
        f"specverdict: warning: run registry {db}: run {no_field} is unreadable: spec.engine: "
        "Field required; the run is left out",
    ]
    with pytest.raises(UnreadableRecordError, match=rf"run {no_field} is unreadable: spec\.engine"):
        store.get_run(no_field)  # asked for by id, or to be updated: refused, never skipped
    with pytest.raises(UnreadableRecordError, match=rf"run {no_field} is unreadable"):
        store.update_run(no_field, status="failed")
    with pytest.raises(UnreadableRecordError, match=rf"run {no_field}"):  # the one to resume
        store.resumable(spec.fingerprint, 2)
    done = specverdict_cli("runs", "list", "--db", str(db))
    assert done.returncode == 0 and good in done.stdout
    assert done.stderr.count("specverdict: warning:") == 2, done.stderr
    assert f"run {no_field} is unreadable: spec.engine: Field required" in done.stderr


def test_an_unreadable_sample_or_score_is_named_and_left_out(
    tmp_path: Path, spec: RunSpec, capfd: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "runs.db"
    store, run_id = filled(db, spec, n=3)
    for i in range(3):
        store.add_score(run_id, f"s{i:03d}", 0, Score(passed=True, outcome="passed"))
    store._db.execute("UPDATE samples SET record = 'garbage' WHERE sample_id = 's001'")
    store._db.execute("UPDATE scores SET record = '{}' WHERE sample_id = 's002'")
    got = store.samples(run_id)
    assert [(s.sample_id, s.score is not None) for s in got] == [("s000", True), ("s002", False)]
    err = capfd.readouterr().err
    assert f"run registry {db}: sample 's001' attempt 0 of run {run_id} is unreadable" in err
    assert "the attempt is left out" in err
    assert f"the score of sample 's002' attempt 0 of run {run_id} is unreadable" in err
    # a runner sending the left-out sample again meets the stored row: kept, refused in one line
    with pytest.raises(StoreError, match=r"is unreadable.*it is kept, not overwritten"):
        store.add_sample(sample(run_id, 1))
    store.add_score(run_id, "s002", 0, Score(passed=True, outcome="passed"))  # scored again
    assert store.samples(run_id)[1].score is not None


# --- the lock ----------------------------------------------------------------------------------


def test_a_symlink_to_a_registry_in_use_is_refused_as_the_registry_is(tmp_path: Path) -> None:
    real = tmp_path / "real" / "runs.db"
    link = tmp_path / "link.db"
    first = SQLiteStore(real)
    link.symlink_to(real)
    second = open_store(link)
    with (
        first.exclusive_runner(),
        pytest.raises(StoreError, match=rf"^run registry {link} is in use by a runner \(pid"),
        second.exclusive_runner(),
    ):
        pass
    with (
        second.exclusive_runner(),
        pytest.raises(StoreError, match="in use by a runner"),
        first.exclusive_runner(),
    ):
        pass
