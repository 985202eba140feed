"""``specverdict demo``: the demo campaign on the reference engine, its runs and verdicts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
from rich.console import Console

from specverdict.campaign import build_plan, load_campaign
from specverdict.campaign.plan import Plan
from specverdict.cli.progress import progress_for
from specverdict.cli.report import verdict_tables
from specverdict.cli.runs import summary_tables
from specverdict.engines.reference import require_extra
from specverdict.report import campaign_report, write_report_files
from specverdict.run.demo import run_demo, write_report
from specverdict.store import SQLiteStore

#: the demo's campaigns: the main one (written to --out), then the quantization pair and the
#: reference engine's methods side by side (each written to --out/<campaign name>)
DEMO_CAMPAIGNS = (
    Path("examples/demo.yaml"),
    Path("examples/demo-fp8.yaml"),
    Path("examples/demo-nvfp4.yaml"),
    Path("examples/demo-methods.yaml"),
)


@click.command()
@click.option(
    "--campaign",
    "campaigns",
    type=click.Path(path_type=Path, dir_okay=False),
    multiple=True,
    default=DEMO_CAMPAIGNS,
    show_default=True,
    help="a campaign to run (its engine must be kind: reference); repeat for several",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("reports/demo"),
    show_default=True,
    help="folder for the fresh run registry, engine logs, report.md and demo.json",
)
@click.option(
    "--alongside",
    is_flag=True,
    hidden=True,
    help="run every campaign into OUT/<its name>, one after the other (a demo's further process)",
)
def demo(campaigns: tuple[Path, ...], out: Path, alongside: bool) -> None:
    """Run the demo campaigns on the embedded reference engine: baseline and candidates, one
    server per run, then each run's summary and the verdicts, stage by stage. The first
    campaign's report goes to OUT, each further campaign's to OUT/<its name>. When every
    campaign times speed on the modelled device clock, the further campaigns run alongside the
    first, each in a process of its own, and their output follows the first's.

    Example: specverdict demo --out reports/demo
    """
    plans = []
    for campaign in campaigns:
        plan = build_plan(load_campaign(campaign))
        if plan.campaign.engine.kind != "reference" or any(r.engine.base_url for r in plan.runs):
            raise click.UsageError(
                f"{campaign}: engine: the demo launches the reference engine itself; "
                "expected kind: reference without base_url"
            )
        plans.append((campaign, plan))
    require_extra()  # before the registry is replaced: a one-line error, exit code 2
    console = Console()
    if alongside:  # this process runs the further campaigns of a parent demo
        for campaign, plan in plans:
            _run_campaign(console, campaign, plan, out / plan.campaign.name)
        return
    side: list[tuple[subprocess.Popen[bytes], Path]] = []
    if len(plans) > 1 and all(_virtual(plan) for _, plan in plans):
        side = [_start_alongside(c, plan, out, console.width) for c, plan in plans[1:]]
        names = ", ".join(str(c) for c, _ in plans[1:])
        console.print(
            f"[bold]specverdict demo[/]: {names} run alongside, each in a process of its own: "
            "every campaign times speed on the modelled device clock, so sharing the host's "
            "cores does not move its speed figures; their output follows",
            highlight=False,
            soft_wrap=True,  # campaign paths to copy, never folded
        )
        plans = plans[:1]
    try:
        for n, (campaign, plan) in enumerate(plans):
            _run_campaign(console, campaign, plan, out if n == 0 else out / plan.campaign.name)
    except BaseException:
        for process, _ in side:
            process.terminate()
        for process, _ in side:
            process.wait()
        raise
    failed = 0
    for process, output in side:  # in campaign order, each when it is done
        code = process.wait()
        console.file.write(output.read_text(errors="replace"))
        console.file.flush()
        failed = failed or code
    if failed:
        raise SystemExit(failed)


def _virtual(plan: Plan) -> bool:
    """Does the campaign time speed on the modelled device clock (``--device-clock virtual``)?"""
    args = list(plan.runs[0].engine.launch_args)
    if "--device-model" not in args or "--device-clock" not in args:
        return False
    return args[args.index("--device-clock") + 1 :][:1] == ["virtual"]


def _start_alongside(
    campaign: Path, plan: Plan, out: Path, width: int
) -> tuple[subprocess.Popen[bytes], Path]:
    """A further campaign in a ``specverdict demo --alongside`` process of its own, its output
    to ``OUT/alongside-<campaign name>.log`` (printed when the first campaign is done)."""
    out.mkdir(parents=True, exist_ok=True)
    output = out / f"alongside-{plan.campaign.name}.log"
    command = [sys.executable, "-m", "specverdict", "demo", "--alongside", "--out", str(out)]
    command += ["--campaign", str(campaign)]
    with output.open("wb") as sink:
        process = subprocess.Popen(
            command,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, "COLUMNS": str(width), "PYTHONUNBUFFERED": "1"},
        )
    return process, output


def _run_campaign(console: Console, campaign: Path, plan: Plan, where: Path) -> None:
    console.print(
        f"[bold]specverdict demo[/]: {len(plan.runs)} runs ({plan.executions} executions) "
        f"of {campaign}, one reference server per execution",
        soft_wrap=True,  # a path to copy, never folded
    )
    args = list(plan.runs[0].engine.launch_args)
    if _virtual(plan):
        device = args[args.index("--device-model") + 1]
        console.print(
            f"  speed is timed on the modelled device clock of {device} (--device-clock "
            "virtual): every token is computed for real on this host, and each engine step "
            "takes the time the device model gives for the work it did, so host load does "
            "not move the speed verdicts; the verdicts say so",
            highlight=False,
        )
    elif "--device-model" in args:
        device = args[args.index("--device-model") + 1]
        console.print(
            f"  step times are paced to the modelled device {device} (--device-model), so "
            "that host noise moves speed less; a step the host computes more slowly (long "
            "prompts' prefill, a loaded machine) still takes the host's time, and the "
            "baseline's two executions measure that drift",
            highlight=False,
        )
    result = run_demo(
        plan,
        where,
        log=lambda m: console.print(m, highlight=False, soft_wrap=True),
        progress=progress_for(console),
    )
    for table in summary_tables(result.results):
        console.print(table)
    write_report(plan, result, where)  # demo.json (with the acceptance cross-check)
    store = SQLiteStore(result.db)
    try:
        data = campaign_report(store, plan, source=str(campaign))
    finally:
        store.close()
    files = write_report_files(data, where)
    for table in verdict_tables(data):
        console.print(table)
    console.print(f"report: {files['html']}", soft_wrap=True)  # a path to copy, never folded
