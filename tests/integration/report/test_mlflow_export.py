"""``specverdict export mlflow`` into a real local MLflow file store (the mlflow extra)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from specverdict.cli.main import cli
from specverdict.measure.results import run_results
from specverdict.records import RunRecord
from specverdict.store import SQLiteStore
from tests.integration.report.test_export import DEMO, drafting_three, registry  # noqa: F401  (the fixtures)

mlflow = pytest.importorskip(
    "mlflow", reason="the mlflow extra is not installed: pip install -e '.[mlflow]'"
)


def test_a_campaigns_runs_are_logged_once_with_their_figures(
    registry: tuple[Path, list[RunRecord]],  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow's own opt-in for file stores
    db, runs = registry
    uri = (tmp_path / "mlruns").as_uri()
    args = ["export", "mlflow", str(DEMO), "--db", str(db), "--tracking-uri", uri]
    first = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert first.exit_code == 0 and f"logged {len(runs)} run(s) of demo" in first.stdout
    again = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert f"logged 0 run(s) of demo to {uri} ({len(runs)} already there)" in again.stdout
    client = mlflow.tracking.MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("demo")
    logged = {
        r.data.tags["specverdict.run_id"]: r for r in client.search_runs([experiment.experiment_id])
    }
    assert set(logged) == {r.run_id for r in runs}
    store = SQLiteStore(db)
    for run in runs:
        got, res = logged[run.run_id], run_results(store, run.run_id)
        assert got.info.status == "FINISHED"
        assert got.data.tags["specverdict.fingerprint"] == run.fingerprint
        assert got.data.params["method"] == run.spec.speculation.method
        assert got.data.metrics["samples"] == res.summary.samples == 4
        assert got.data.metrics["tokens_per_s"] == pytest.approx(res.summary.tokens_per_s)
        assert got.data.metrics["ttft_p50_s"] == pytest.approx(res.summary.ttft_p50_s)
    candidate = logged[runs[1].run_id]
    assert candidate.data.tags["specverdict.verdict"] in ("INVALID", "INCONCLUSIVE", "REJECT")
    assert candidate.data.tags["specverdict.baseline_run_ids"] == runs[0].run_id


def test_goodput_is_logged_against_the_campaigns_slo(
    registry: tuple[Path, list[RunRecord]],  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    db, runs = registry
    campaign = tmp_path / "demo.yaml"
    campaign.write_text(DEMO.read_text() + "slo: {ttft: 150, tpot: 50}\n")
    uri = (tmp_path / "mlruns").as_uri()
    args = ["export", "mlflow", str(campaign), "--db", str(db), "--tracking-uri", uri]
    assert CliRunner().invoke(cli, args, catch_exceptions=False).exit_code == 0
    client = mlflow.tracking.MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("demo")
    logged = client.search_runs([experiment.experiment_id])
    assert len(logged) == len(runs)
    for got in logged:
        # of the 3 answered requests only one is within both targets, over a 2 s wall
        assert got.data.metrics["good_requests"] == 1
        assert got.data.metrics["goodput_per_s"] == pytest.approx(0.5)


def test_the_k_the_engine_ran_is_logged_beside_the_declared_one(
    drafting_three: tuple[Path, list[RunRecord]],  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Declared draft_model k=4, engine drafting 3 per step with 3 position counters: its
    MLflow run keeps the declared k as a param and logs engine_k 3 and drafted_per_step 3 as
    metrics, and the verdict's engine k as a tag; the baseline logs neither."""
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    db, (base, cand) = drafting_three
    uri = (tmp_path / "mlruns").as_uri()
    args = ["export", "mlflow", str(DEMO), "--db", str(db), "--tracking-uri", uri]
    assert CliRunner().invoke(cli, args, catch_exceptions=False).exit_code == 0
    client = mlflow.tracking.MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("demo")
    logged = {
        r.data.tags["specverdict.run_id"]: r for r in client.search_runs([experiment.experiment_id])
    }
    got = logged[cand.run_id].data
    assert got.params["k"] == "4"
    assert (got.metrics["engine_k"], got.metrics["drafted_per_step"]) == (3.0, 3.0)
    assert got.tags["specverdict.verdict"] == "INVALID" and got.tags["specverdict.engine_k"] == "3"
    mine = logged[base.run_id].data
    assert "engine_k" not in mine.metrics and "specverdict.engine_k" not in mine.tags
