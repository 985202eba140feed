"""The command line with a shared registry: --db and SPECVERDICT_DB take a PostgreSQL URL,
``runs list`` filters everyone's runs, bad input is one line with exit code 2."""

from __future__ import annotations

from pathlib import Path

from specverdict.campaign import build_plan, load_campaign
from specverdict.store import RunOrigin, open_store
from tests.conftest import specverdict_cli
from tests.pgserver import PostgresServer

DEMO = Path(__file__).resolve().parents[3] / "examples" / "demo.yaml"


def test_runs_list_reads_everyones_runs_and_filters_them(postgres: PostgresServer) -> None:
    url = postgres.database()
    spec = build_plan(load_campaign(DEMO)).runs[0]
    ana = open_store(url, RunOrigin(user="ana", host="node-a"))
    bo = open_store(url, RunOrigin(user="bo", host="node-b"))
    r1 = ana.create_run(spec, repeat=0)
    r2 = bo.create_run(spec.model_copy(update={"campaign": "other"}), repeat=0)
    ana.close()
    bo.close()
    every = specverdict_cli("runs", "list", env={"SPECVERDICT_DB": url})
    assert every.returncode == 0, every.stderr
    assert r1.run_id in every.stdout and r2.run_id in every.stdout
    assert "ana" in every.stdout and "node-b" in every.stdout
    for flags, shown, hidden in (
        (["--user", "bo"], r2, r1),
        (["--host", "node-a"], r1, r2),
        (["--campaign", "other"], r2, r1),
    ):
        out = specverdict_cli("runs", "list", "--db", url, *flags)
        assert out.returncode == 0, out.stderr
        assert shown.run_id in out.stdout and hidden.run_id not in out.stdout, flags


def test_a_registry_url_of_an_unknown_kind_is_one_line(tmp_path: Path) -> None:
    out = specverdict_cli("runs", "list", "--db", "mysql://u@h/db")
    assert out.returncode == 2
    assert "mysql://...: not a registry this version knows" in out.stderr
    assert "postgresql://" in out.stderr
    assert "Traceback" not in out.stderr


def test_an_unreachable_registry_is_a_clean_store_error() -> None:
    out = specverdict_cli("runs", "list", "--db", "postgresql://nobody:secret@127.0.0.1:1/none")
    assert out.returncode == 5, out.stderr
    assert "lost the database" in out.stderr and "secret" not in out.stderr
    assert "Traceback" not in out.stderr


def test_an_address_without_the_ray_executor_is_one_line(tmp_path: Path) -> None:
    out = specverdict_cli(
        "run", str(DEMO), "--address", "127.0.0.1:1", "--db", str(tmp_path / "r.db")
    )
    assert out.returncode == 2
    assert "--address 127.0.0.1:1: only the ray executor joins a cluster" in out.stderr
