"""A campaign's stored runs logged to MLflow (the ``mlflow`` extra: ``mlflow-skinny``).

One MLflow experiment per campaign (its name); one MLflow run per stored execution, named by
stage, speculation, load and repeat, with the run's identity as tags (``specverdict.run_id``,
``specverdict.fingerprint``, ...), its axes as params, and its summary and acceptance as metrics
(absent figures are not logged; the k the engine ran by its own counts is ``engine_k`` and
``drafted_per_step`` beside the declared ``k`` param). A candidate's runs carry the pair's
verdict and speed-up as tags, and ``specverdict.engine_k`` when the verdict found the engine
running another k than the declared one. An execution already logged (same ``specverdict.run_id``) is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from specverdict.campaign import Plan
from specverdict.errors import ConfigError, ExtraMissingError
from specverdict.measure.results import run_results
from specverdict.report.outputs import TrackingOutput
from specverdict.store.base import Store
from specverdict.verdict import PairVerdict, campaign_verdicts
from specverdict.verdict.model import drafted_per_step, k_text, run_engine_k

INSTALL = "pip install 'specverdict[mlflow]' (or mlflow-skinny)"

SUMMARY_METRICS = (
    "samples",
    "ok",
    "errored",
    "output_tokens",
    "tokens_per_s",
    "ttft_p50_s",
    "ttft_p95_s",
    "tpot_p50_s",
    "tpot_p95_s",
    "mean_tpot_s",
    "ttft_p99_s",
    "tpot_p99_s",
    "itl_p50_s",
    "itl_p99_s",
    "e2e_p50_s",
    "e2e_p99_s",
    "requests_per_s",
    "good_requests",
    "goodput_per_s",
)


def _client(tracking_uri: str) -> Any:
    try:
        from mlflow.tracking import MlflowClient
    except ImportError:
        raise ExtraMissingError(
            f"export mlflow needs MLflow, which is not installed: {INSTALL}"
        ) from None
    return MlflowClient(tracking_uri=tracking_uri)


def _verdict_tags(verdicts: Sequence[PairVerdict]) -> dict[str, dict[str, str]]:
    """Candidate run id -> the tags of its pair's verdict (slices left out)."""
    tags: dict[str, dict[str, str]] = {}
    for v in verdicts:
        if v.slice is not None:
            continue
        for run_id in v.candidate_run_ids:
            tags[run_id] = {
                "specverdict.verdict": str(v.verdict),
                "specverdict.baseline_run_ids": ",".join(v.baseline_run_ids),
            }
            if v.speedup is not None:
                tags[run_id]["specverdict.speedup"] = f"{v.speedup:.4f}"
            if v.engine_k is not None:
                tags[run_id]["specverdict.engine_k"] = k_text(v.engine_k)
    return tags


def export_to_mlflow(store: Store, plan: Plan, tracking_uri: str) -> tuple[int, int]:
    """Log the campaign's stored executions; (logged, already there)."""
    client = _client(tracking_uri)
    from mlflow.entities import Metric, Param, RunTag
    from mlflow.exceptions import MlflowException

    name = plan.campaign.name
    fingerprints = {r.fingerprint for r in plan.runs}
    runs = [r for r in store.list_runs() if r.fingerprint in fingerprints]
    verdict_tags = _verdict_tags(campaign_verdicts(store, plan))
    try:
        found = client.get_experiment_by_name(name)
        experiment = found.experiment_id if found else client.create_experiment(name)
        logged = {
            r.data.tags.get("specverdict.run_id")
            for r in client.search_runs([experiment], max_results=50000)
        }
        done = 0
        for run in runs:
            if run.run_id in logged:
                continue
            slo = plan.campaign.slo_for(run.spec.stage)
            res = run_results(store, run.run_id, slo.targets_s() if slo else None)
            spec = run.spec
            tags = {
                "specverdict.run_id": run.run_id,
                "specverdict.fingerprint": run.fingerprint,
                "specverdict.status": run.status,
                "specverdict.stage": spec.stage,
                "specverdict.speculation": spec.speculation.label,
                "specverdict.load": spec.load.label,
                "specverdict.acceptance_source": res.acceptance.source,
                **verdict_tags.get(run.run_id, {}),
            }
            params = {
                "engine": spec.engine.kind,
                "model": spec.model.served_name,
                "quantization": spec.quantization,
                "suite": str(spec.suite),
                "method": spec.speculation.method,
                "k": str(spec.speculation.k),
                "repeat": str(run.repeat),
                "temperature": str(spec.sampling.temperature),
                "max_tokens": str(spec.sampling.max_tokens),
            }
            figures: dict[str, float | None] = {m: getattr(res.summary, m) for m in SUMMARY_METRICS}
            figures["acceptance_rate"] = res.acceptance.acceptance_rate
            figures["mean_accepted_length"] = res.acceptance.mean_accepted_length
            engine_k = run_engine_k(res.acceptance)
            figures["engine_k"] = None if engine_k is None else float(engine_k)
            figures["drafted_per_step"] = drafted_per_step(res.acceptance)
            at = int(1000 * run.created_at)
            created = client.create_run(
                experiment,
                start_time=at,
                run_name=f"{spec.stage} {spec.speculation.label} {spec.load.label} #{run.repeat}",
            )
            client.log_batch(
                created.info.run_id,
                metrics=[Metric(k, float(v), at, 0) for k, v in figures.items() if v is not None],
                params=[Param(k, v) for k, v in params.items()],
                tags=[RunTag(k, v) for k, v in tags.items()],
            )
            end = int(1000 * run.finished_at) if run.finished_at else None
            client.set_terminated(
                created.info.run_id,
                status="FINISHED" if run.status == "completed" else "FAILED",
                end_time=end,
            )
            done += 1
    except MlflowException as exc:
        first = str(exc.message).splitlines()[0] if str(exc.message) else type(exc).__name__
        raise ConfigError(f"--tracking-uri {tracking_uri}: {first}") from None
    return done, len(runs) - done


#: the URI schemes of MLflow's tracking stores (a plain path is a file store)
SCHEMES = frozenset(
    {"http", "https", "file", "sqlite", "postgresql", "mysql", "mssql", "databricks", "uc"}
)


def uri_problem(tracking_uri: str) -> str | None:
    """Why MLflow cannot take ``tracking_uri`` (an empty one, an unknown scheme), else None."""
    scheme = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)://", tracking_uri)
    if not tracking_uri.strip() or (scheme and scheme.group(1).split("+")[0] not in SCHEMES):
        return (
            "expected http(s)://..., sqlite:///..., file:///..., postgresql://..., databricks "
            "or a folder"
        )
    return None


#: one MLflow experiment per campaign, one MLflow run per stored execution
OUTPUT = TrackingOutput(
    "mlflow",
    "MLflow: one experiment per campaign, one MLflow run per execution (params, summary and "
    f"acceptance metrics, verdict tags). Needs the mlflow extra: {INSTALL}",
    export_to_mlflow,
    uri_help="the MLflow tracking server or store (http://..., sqlite:///..., file:///...)",
    check_uri=uri_problem,
)
