"""Registry commands on a real SQLite file: id prefixes, read-only commands, housekeeping."""

from __future__ import annotations

import contextlib
from pathlib import Path

import click
import pytest

from specverdict.campaign import build_plan, load_campaign
from specverdict.cli.runs import find_run
from specverdict.records import SampleRecord
from specverdict.store import SQLiteStore
from tests.conftest import specverdict_cli

DEMO = Path(__file__).resolve().parents[3] / "examples" / "demo.yaml"


@pytest.fixture
def registry(tmp_path: Path) -> tuple[Path, list[str]]:
    """Three stored runs: completed, failed, interrupted."""
    db = tmp_path / "reg" / "runs.db"
    store = SQLiteStore(db)
    spec = build_plan(load_campaign(DEMO)).runs[0]
    ids = []
    for repeat, status in enumerate(("completed", "failed", "interrupted")):
        run = store.create_run(spec, repeat)
        store.add_sample(
            SampleRecord(run_id=run.run_id, sample_id="a", status="error", error="HTTP 503: busy")
        )
        store.add_sample(SampleRecord(run_id=run.run_id, sample_id="a", attempt=1, status="ok"))
        store.update_run(run.run_id, status=status)  # type: ignore[arg-type]
        ids.append(run.run_id)
        (db.parent / "runs" / run.run_id).mkdir(parents=True)
    store.close()
    return db, ids


def test_read_only_commands_never_create_a_registry(tmp_path: Path) -> None:
    db = tmp_path / "missing" / "x.db"
    for args in (["runs", "list"], ["runs", "show", "abc"], ["runs", "errors", "abc"]):
        done = specverdict_cli(*args, "--db", str(db))
        assert done.returncode == 2
        assert done.stderr.strip() == (
            f"specverdict: error: no run registry at {db}: run a campaign first, or pass --db"
        )
    assert not db.parent.exists()


def test_runs_take_unique_id_prefixes_as_git_does(registry: tuple[Path, list[str]]) -> None:
    db, ids = registry
    shown = specverdict_cli("runs", "show", ids[0][:6], "--db", str(db), "--json")
    assert shown.returncode == 0, shown.stderr
    assert f'"run_id": "{ids[0]}"' in shown.stdout
    unknown = specverdict_cli("runs", "show", "zzzz", "--db", str(db))
    assert unknown.returncode == 2 and "no run 'zzzz'" in unknown.stderr


def test_runs_errors_counts_failed_attempts_including_retried_ones(
    registry: tuple[Path, list[str]],
) -> None:
    db, ids = registry
    done = specverdict_cli("runs", "errors", ids[1][:8], "--db", str(db))
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if "HTTP 503" in line)
    assert row.split()[:4] == ["HTTP", "503", "1", "1"]  # 1 attempt, retried since
    # the example error whole, on a line of its own under its kind
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("HTTP 503, e.g. "))
    assert lines[at + 1].strip().startswith("HTTP 503: busy")


def test_prune_deletes_unfinished_runs_only_and_delete_takes_ids(
    registry: tuple[Path, list[str]],
) -> None:
    db, (completed, failed, interrupted) = registry
    dry = specverdict_cli("runs", "prune", "--db", str(db), "--dry-run")
    assert dry.returncode == 0 and dry.stdout.count("would delete") == 2
    refused = specverdict_cli("runs", "prune", "--db", str(db))  # no terminal to confirm on
    assert refused.returncode == 2 and "pass --yes" in refused.stderr
    done = specverdict_cli("runs", "prune", "--db", str(db), "--yes")
    assert done.returncode == 0 and "pruned 2 run(s)" in done.stdout
    store = SQLiteStore(db)
    assert [r.run_id for r in store.list_runs()] == [completed]
    assert not (db.parent / "runs" / failed).exists()
    assert not (db.parent / "runs" / interrupted).exists()
    gone = specverdict_cli("runs", "delete", completed[:5], "--db", str(db), "--yes")
    assert gone.returncode == 0, gone.stderr
    assert store.list_runs() == [] and store.attempts(completed) == []


def test_an_ambiguous_prefix_names_the_runs_it_matches(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    spec = build_plan(load_campaign(DEMO)).runs[0]
    ids = [store.create_run(spec, i).run_id for i in range(17)]  # two share a first character
    first = next(c for c in "0123456789abcdef" if sum(i.startswith(c) for i in ids) > 1)
    with pytest.raises(click.UsageError, match=f"run id '{first}' is ambiguous: {first}"):
        find_run(store, first)
    assert find_run(store, ids[3]).run_id == ids[3]


def test_a_registry_deleted_mid_run_exits_5_in_one_line_and_its_copy_resumes(
    tmp_path: Path,
) -> None:
    """Before, the run completed on the unlinked file, exited 0 and lost every sample."""
    import sqlite3
    import subprocess
    import time

    from tests.conftest import SPECVERDICT
    from tests.e2e.test_runner import campaign_text

    campaign = tmp_path / "c.yaml"
    campaign.write_text(campaign_text(samples="all", max_tokens=120))
    db = tmp_path / "runs.db"
    args = ["run", str(campaign), "--db", str(db), "--only", "none", "--force"]
    runner = subprocess.Popen([*SPECVERDICT, *args], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while runner.poll() is None and time.monotonic() < deadline:
        with contextlib.suppress(sqlite3.Error):
            if (
                db.exists()
                and sqlite3.connect(db).execute("SELECT count(*) FROM samples").fetchone()[0] >= 3
            ):
                break
        time.sleep(0.02)  # polling the registry from outside, as a user would
    db.unlink()
    _, err = runner.communicate(timeout=120)
    assert runner.returncode == 5, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"specverdict: error: run registry {db} was deleted while this process wrote" in err
    (copy,) = tmp_path.glob("runs.db.recovered-*")
    assert f"kept in a recovery copy, {copy}: move it to {db}" in err
    assert "to resume (run " in err and ", none, function, concurrency=1)" in err
    copy.rename(db)
    again = specverdict_cli(*args)
    assert again.returncode == 0, again.stderr
    (run,) = SQLiteStore(db).list_runs()
    assert run.status == "completed" and len(SQLiteStore(db).samples(run.run_id)) == 16
