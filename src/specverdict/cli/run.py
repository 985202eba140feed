"""``specverdict run``: execute a campaign's runs against its engine, storing every sample."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from specverdict.campaign import build_plan, load_campaign
from specverdict.campaign.plan import Execution as PlannedExecution
from specverdict.campaign.plan import Plan
from specverdict.cli.checklist import checklist_table
from specverdict.cli.inputs import not_blank
from specverdict.cli.progress import progress_for
from specverdict.cli.runs import DB_OPTION, DEFAULT_DB, find_run, registry_dir, summary_tables
from specverdict.cli.validate import check_feasible
from specverdict.cli.verdict import verdict_table
from specverdict.cli.wrap import print_next
from specverdict.engines.reference import launches_reference, require_extra
from specverdict.errors import SpecverdictError
from specverdict.measure.results import run_results
from specverdict.records import EngineTime, RunRecord
from specverdict.run.checklist import blocking, evaluate
from specverdict.run.executors.claims import ClaimingRunner
from specverdict.run.runner import Runner, failed_runs, select_runs
from specverdict.run.sequential import run_until_decided
from specverdict.store import Store, open_store
from specverdict.verdict import campaign_verdicts
from specverdict.verdict.paying import paying


def ask_on_terminal(console: Console) -> Callable[[str], None] | None:
    """A pause for ``engine.reconfigure: between-runs`` when a person is at the terminal."""
    if not sys.stdin.isatty():
        return None

    def ask(message: str) -> None:
        console.print(f"[bold]reconfigure[/]: {message}", highlight=False)
        click.prompt("press Enter when the server is ready", default="", show_default=False)

    return ask


#: samples added to each open pair per look of --until-decided
DEFAULT_BATCH = 40


@click.command()
@click.argument("campaign", type=click.Path(path_type=Path, dir_okay=False))
@DB_OPTION
@click.option(
    "--only", help="run one stage or speculation (e.g. function, mtp, 'mtp k=2') and its baselines"
)
@click.option("--resume", "resume_id", metavar="RUN_ID", help="finish this stored run only")
@click.option(
    "--force",
    is_flag=True,
    help="run even when a checklist item is missing or an attached server's pre-flight "
    "contradicts the campaign (recorded in the manifest; figures for study)",
)
@click.option(
    "--remeasure",
    is_flag=True,
    help="measure every execution anew instead of extending the registry's (a server restarted "
    "or reconfigured in a way it does not report); the new executions replace the old in verdicts",
)
@click.option(
    "--no-retry",
    is_flag=True,
    help="do not send again the samples whose last attempt failed (timeouts, connection and "
    "server errors)",
)
@click.option(
    "--until-decided",
    is_flag=True,
    help="add samples in batches (--batch) until each pair's verdict is settled (ADOPT, REJECT "
    "or INVALID), then stop that pair; at most --max-samples per stage",
)
@click.option(
    "--max-samples",
    type=int,
    default=None,
    help="with --until-decided: the most samples of a stage's selection a pair takes "
    "(default: the whole selection)",
)
@click.option(
    "--batch",
    type=int,
    default=None,
    help="with --until-decided: samples added to each open pair per look (default 40, or the "
    "campaign's sequential.batch)",
)
@click.option(
    "--executor",
    type=click.Choice(["local", "ray"]),
    help="where runs execute: local (one at a time, here) or ray (one per cluster node at a "
    "time); default: the campaign's executor.kind",
)
@click.option(
    "--address",
    help="the Ray cluster to join (--executor ray); default: the campaign's executor.address, "
    "else RAY_ADDRESS",
)
@click.option(
    "--request-timeout",
    type=click.FloatRange(min=1.0, min_open=False),
    default=600.0,
    show_default=True,
    metavar="SECONDS",
    help="the deadline of one request, from sending it to the end of its answer: a request "
    "past it fails as a timeout, and CONSECUTIVE_FAULTS of them in a row (3) stop the run as "
    "a hung engine, so a hung engine at concurrency 1 stops a run after about 3 x SECONDS",
)
def run(
    campaign: Path,
    db: Path | str,
    only: str | None,
    resume_id: str | None,
    force: bool,
    remeasure: bool,
    no_retry: bool,
    until_decided: bool,
    max_samples: int | None,
    batch: int | None,
    executor: str | None,
    address: str | None,
    request_timeout: float,
) -> None:
    """Run a campaign: baseline and candidates, each sample stored as it completes.

    An unfinished run of the same fingerprint is resumed: only its missing samples are sent,
    and those whose last attempt failed transiently (unless --no-retry). An engine that dies or
    stops answering stops the campaign (exit code 5) with every finished sample saved.

    With --until-decided the samples go in batches, each pair stopping once its verdict is
    settled; the looks are recorded, and the verdict's fixed-n gates spend alpha over them.

    With --executor ray each run is placed on a node of a Ray cluster that has the campaign's
    engine.launch.resources, one run per node at a time, into a registry every node reaches
    (--db postgresql://...); docs/cluster.md.

    Example: specverdict run examples/demo.yaml --only mtp --db .specverdict/runs.db
    """
    for value, flag in ((only, "--only"), (resume_id, "--resume"), (address, "--address")):
        not_blank(value, flag)
    plan = build_plan(load_campaign(campaign))
    declared = plan.campaign.sequential  # the campaign file's form of --until-decided
    if not until_decided and declared is None and (max_samples is not None or batch is not None):
        given = "--max-samples" if max_samples is not None else "--batch"
        raise click.UsageError(f"{given} is an option of --until-decided: add --until-decided")
    if declared is not None and resume_id is None:
        until_decided = True
        batch = declared.batch if batch is None else batch
        max_samples = declared.max_samples if max_samples is None else max_samples
    if until_decided and resume_id is not None:
        raise click.UsageError(
            "--resume finishes one run; --until-decided resumes a sequential campaign by itself "
            "(run the same command again)"
        )
    kind = executor or plan.campaign.executor.kind
    address = address or plan.campaign.executor.address
    if kind == "local" and address is not None:
        raise click.UsageError(
            f"--address {address}: only the ray executor joins a cluster; add --executor ray"
        )
    if until_decided and kind == "ray":
        raise click.UsageError(
            "--until-decided runs on the local executor: its looks are taken one after another"
        )
    check_feasible(plan, campaign)  # never --force'd: it would fail or mislead later
    if launches_reference(plan.runs, plan.campaign.engine.launch):
        require_extra()  # before any run is recorded
    store = open_store(db)
    console = Console()
    items = evaluate(plan, store)
    missing = blocking(items)
    if missing and not force:
        console.print(checklist_table(items))
        raise click.UsageError(
            f"{campaign}: checklist item(s) missing: "
            + "; ".join(f"{i.name} ({i.why})" for i in missing)
            + ". Fix the campaign, or pass --force to measure anyway"
        )
    #: the engine time the executions of this command spent (local: the runner's own count)
    spent: EngineTime | None = None
    with store.exclusive_runner():
        if kind == "ray":
            records = _run_on_ray(plan, store, db, console, address, only, resume_id, no_retry)
        else:
            runner = local_runner(
                store,
                db,
                console,
                reconfigure=ask_on_terminal(console),
                retry_failed=not no_retry,
                force=force,
                remeasure=remeasure,
                request_timeout_s=request_timeout,
            )
            if until_decided:
                result = run_until_decided(
                    runner,
                    store,
                    plan,
                    batch=DEFAULT_BATCH if batch is None else batch,
                    max_samples=max_samples,
                    only=only,
                    log=lambda line: console.print(line, highlight=False, soft_wrap=True),
                )
                latest = {r.run_id: r for r in result.records}
                records = list(latest.values())
            elif resume_id is not None:
                records = [runner.resume(plan, find_run(store, resume_id).run_id)]
            else:
                records = runner.run_plan(plan, only)
            spent = EngineTime.total(runner.engine_times.values())
    for table in summary_tables([run_results(store, r.run_id) for r in records]):
        console.print(table)
    if until_decided:
        for p in result.pairs:
            console.print(
                f"{p.label}: {p.design.stopped or 'open'}; {p.samples} of "
                f"{p.design.max_samples} samples, {len(p.design.taken)} of {p.design.looks} looks",
                highlight=False,
                soft_wrap=True,
            )
        console.print(
            f"samples per pair: {result.samples_used()} against {result.samples_fixed()} for the "
            "fixed-n design",
            highlight=False,
        )
    db_flag = "" if db == DEFAULT_DB else f" --db {db}"
    print_verdict_matrix(store, plan, console)
    for command, what in (
        (f"specverdict verdict {campaign}{db_flag}", "each pair's reasons"),
        (f"specverdict report {campaign}{db_flag} --out report", "the HTML report"),
        (f"specverdict policy {campaign}{db_flag}", "what to deploy, from the ADOPTs"),
    ):
        print_next(console, command, what)
    if spent is None:  # on a cluster: the executions' own figures
        spent = EngineTime.total(r.manifest.engine_time for r in records)
    if spent.engine_s > 0:  # where the engine time went (docs/engine-time.md)
        console.print(spent.busy_line(), highlight=False)
    failed = failed_runs(store, records, plan.campaign.gates.max_failure_rate)
    if failed is not None:
        raise failed


def local_runner(store: Store, db: Path | str, console: Console, **options: Any) -> ClaimingRunner:
    """The runner of a command that measures here: its log and progress on ``console``, its
    runs' folders beside the registry; ``options`` are ``Runner``'s own."""
    return ClaimingRunner(
        store,
        db,
        log=lambda m: console.print(m, highlight=False, soft_wrap=True),
        runs_dir=registry_dir(db) / "runs",
        progress=progress_for(console),
        **options,
    )


def print_verdict_matrix(store: Store, plan: Plan, console: Console) -> None:
    """The campaign's verdicts as they stand, one table per stage, when every pair has data
    (a partial run, ``--only`` say, shows only the pairs it completed)."""
    try:
        verdicts = campaign_verdicts(store, plan)
    except SpecverdictError as exc:  # the runs are stored; judging them is the next command's
        console.print(f"verdicts not shown: {exc}", highlight=False, soft_wrap=True)
        return
    judged = [v for v in verdicts if v.slice is None and v.candidate_run_ids]
    for stage in dict.fromkeys(v.stage for v in judged):
        console.print(verdict_table(stage, [v for v in judged if v.stage == stage]))
    for line in paying(judged):  # over several load levels: where each candidate stops paying
        console.print(line.line, highlight=False)


def _run_on_ray(
    plan: Plan,
    store: Store,
    db: Path | str,
    console: Console,
    address: str | None,
    only: str | None,
    resume_id: str | None,
    no_retry: bool,
) -> list[RunRecord]:
    """The executions of ``run`` (or the one ``--resume`` names) on a Ray cluster."""
    from specverdict.run.executors.cluster import Execution, RayExecutor

    if plan.campaign.engine.launch is None:
        raise click.UsageError(
            "--executor ray launches one engine per run on a node: the campaign attaches to "
            "running servers (engine.base_url); give engine.launch, or run locally"
        )
    if resume_id is not None:
        run = find_run(store, resume_id)
        spec = next((r for r in plan.runs if r.fingerprint == run.fingerprint), None)
        if spec is None:
            raise click.UsageError(f"--resume {resume_id}: that run is not part of this campaign")
        executions = [Execution(spec=spec, repeat=run.repeat)]
    else:
        specs = select_runs(plan, only) if only else list(plan.runs)
        executions = [
            Execution(spec=e.spec, repeat=e.repeat, order=(e.repeat, e.position))
            # in server sessions, as the local runner orders them: a node keeps a session's
            # server up for its next execution
            for e in Runner.schedule(plan, specs)
            if isinstance(e, PlannedExecution)
        ]
    location = db if isinstance(db, str) else str(db.resolve())
    ray_executor = RayExecutor(
        store=store,
        location=location,
        console=console,
        address=address,
        runs_dir=registry_dir(db) / "runs",
        retry_failed=not no_retry,
        log=lambda m: console.print(m, highlight=False, soft_wrap=True),
    )
    return ray_executor.run(plan, executions)
