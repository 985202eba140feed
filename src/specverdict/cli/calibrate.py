"""``specverdict calibrate``: A/A executions of a campaign's baselines, stored as a calibration
that every campaign on the same engine, model, quantization, load and host pools into its
run-to-run drift (``verdict.calibration``, design note 034).

Exit codes: 0 calibrated; 2 usage errors (a campaign measured in blocks needs none); 5 an
execution failed (its samples saved).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click
import numpy as np
from rich.console import Console
from rich.table import Table

from specverdict.campaign import build_plan, load_campaign
from specverdict.campaign.plan import Execution
from specverdict.campaign.spec import RunSpec
from specverdict.cli.inputs import not_blank
from specverdict.cli.run import local_runner
from specverdict.cli.runs import DB_OPTION, DEFAULT_DB
from specverdict.cli.validate import check_feasible
from specverdict.cli.wrap import print_next
from specverdict.engines.reference import launches_reference, require_extra
from specverdict.records import EngineTime, RunRecord
from specverdict.run.runner import failed_runs
from specverdict.stats.speed import ExecutionDrift, execution_drift
from specverdict.store import Store, open_store
from specverdict.verdict.calibration import drift_identity
from specverdict.verdict.collect import arm_from_runs, session_links
from specverdict.verdict.judge import execution_speeds


@click.command("calibrate")
@click.argument("campaign", type=click.Path(path_type=Path, dir_okay=False))
@DB_OPTION
@click.option(
    "--executions",
    type=click.IntRange(min=3, max=64),
    default=6,
    show_default=True,
    help="A/A executions of each baseline, after the campaign's own (those already stored count)",
)
@click.option("--stage", help="only this stage's baselines (default: every stage and load level)")
def calibrate(campaign: Path, db: Path | str, executions: int, stage: str | None) -> None:
    """Execute the campaign's baselines several times (A/A) and store them as a calibration:
    every campaign on the same engine, model, quantization, speculation, load level and host
    reads their run-to-run drift at more degrees of freedom, checked against its own.

    Worth it where each execution is a server start (engine.launch): attached servers measured
    in blocks need no calibration.

    Example: specverdict calibrate examples/demo.yaml --executions 6 --stage function
    """
    not_blank(stage, "--stage")
    plan = build_plan(load_campaign(campaign))
    if plan.campaign.blocked():
        raise click.UsageError(
            f"{campaign}: its configurations take turns in blocks on attached servers "
            "(load.blocks), so its speed gate's units are the blocks and it reads no "
            "run-to-run drift: nothing to calibrate (load.blocks: off measures whole executions)"
        )
    baselines = list({p.baseline.fingerprint: p.baseline for p in plan.pairs}.values())
    if stage is not None:
        stages = sorted({b.stage for b in baselines})
        baselines = [b for b in baselines if b.stage == stage]
        if not baselines:
            raise click.BadParameter(
                f"{stage!r}: no such stage in {campaign} (stages: {', '.join(stages)})",
                param_hint="--stage",
            )
    check_feasible(plan, campaign)
    if launches_reference(baselines, plan.campaign.engine.launch):
        require_extra()
    store = open_store(db)
    console = Console()
    records: list[RunRecord] = []
    with store.exclusive_runner():
        runner = local_runner(
            store,
            db,
            console,
        )
        # rounds of every baseline, forwards then backwards, so that a slow drift of the
        # host lands on each baseline's executions alike; a launched engine's baselines of
        # one round share its start (engine.launch.sessions)
        # numbered after the campaign's own executions of each baseline, which `run` measures
        # interleaved with the candidates: a calibration feeds the drift, never the baseline
        with runner.sessions(plan):
            for e in runner.schedule(plan, baselines, repeats=executions):
                assert isinstance(e, Execution)
                repeat = plan.repeats_of(e.spec) + e.repeat
                record = runner.run_one(plan, e.spec, repeat, order=(repeat, e.position))
                records.append(store.update_run(record.run_id, manifest={"calibration": True}))
        spent = EngineTime.total(runner.engine_times.values())
    console.print(_table(store, plan.campaign.speed_metric, baselines))
    if spent.engine_s > 0:
        console.print(spent.busy_line(), highlight=False)
    db_flag = "" if db == DEFAULT_DB else f" --db {db}"
    print_next(
        console,
        f"specverdict run {campaign}{db_flag}",
        "its verdicts pool this calibration's drift, and so do other campaigns' on the same "
        "engine, model, load and host",
    )
    failed = failed_runs(store, records, plan.campaign.gates.max_failure_rate)
    if failed is not None:
        raise failed


def _table(store: Store, metric_of: Callable[[str], str], baselines: list[RunSpec]) -> Table:
    """Per calibrated baseline: its executions' means and the drift they give; the last row
    pooled over all of them, as a campaign reads it."""
    table = Table(title="calibration: run-to-run drift of A/A executions")
    for col in ("stage", "load", "executions", "means", "drift", "df"):
        table.add_column(col)
    runs = [r for r in store.list_runs() if r.manifest.calibration]
    groups: list[list[list[float]]] = []
    arms = []
    for spec in baselines:
        arm = arm_from_runs(store, [r for r in runs if r.fingerprint == spec.fingerprint])
        if arm is None:
            continue
        arms.append(arm)
        speeds = execution_speeds(arm, None, metric_of(spec.stage))
        groups.append(speeds)
        one = execution_drift([speeds])
        table.add_row(
            spec.stage,
            spec.load.label,
            str(len(speeds)),
            " ".join(f"{float(np.mean(e)):.4g}" for e in speeds if e),
            _sd(one),
            "-" if one is None else str(one.df),
        )
    # the stages' executions that shared a server's start count once, as a campaign reads them
    pooled = execution_drift(groups, session_links(arms))
    table.add_row("pooled", "", str(sum(len(g) for g in groups)), "", _sd(pooled),
                  "-" if pooled is None else str(pooled.df))  # fmt: skip
    if baselines:
        found = dict.fromkeys(drift_identity(b) for b in baselines)
        table.caption = f"drift identities: {', '.join(found)}"
    return table


def _sd(drift: ExecutionDrift | None) -> str:
    return "-" if drift is None else f"{100 * np.sqrt(drift.variance):.2f}%"
