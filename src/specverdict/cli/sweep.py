"""``specverdict sweep``: find where each configuration's server saturates, then measure the
pairs at the load levels around it (``run.sweep``, design note 040)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import click
import yaml
from rich import box
from rich.console import Console
from rich.table import Table

from specverdict.campaign import load_campaign
from specverdict.campaign.yamlfile import read_text
from specverdict.cli.inputs import not_blank
from specverdict.cli.run import local_runner, run
from specverdict.cli.runs import DB_OPTION, DEFAULT_DB
from specverdict.cli.validate import check_feasible
from specverdict.cli.wrap import print_next
from specverdict.engines.reference import launches_reference, require_extra
from specverdict.measure.results import run_results
from specverdict.run.sweep import (
    DEFAULT_GAIN,
    DEFAULT_LATENCY,
    DEFAULT_LEVELS,
    Knee,
    Point,
    chosen_levels,
    exploration,
    knee,
    requests_for,
)
from specverdict.store import open_store


def _levels(text: str) -> list[int]:
    try:
        levels = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise click.BadParameter(
            f"{text!r}: expected concurrencies separated by commas, e.g. 1,2,4,8",
            param_hint="--levels",
        ) from None
    if len(levels) < 2 or any(v < 1 for v in levels) or levels != sorted(set(levels)):
        raise click.BadParameter(
            f"{text!r}: expected two or more increasing concurrencies, each at least 1",
            param_hint="--levels",
        )
    return levels


def knee_table(knees: list[Knee]) -> Table:
    """One row per configuration and level: throughput, median TPOT, and where it turned."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), show_edge=False)
    for col in ("configuration", "c", "tok/s", "TPOT ms", "ladder"):
        table.add_column(col, justify="right" if col in ("c", "tok/s", "TPOT ms") else "left")
    for k in knees:
        for p in k.points:
            note = ""
            if p.level == k.level:
                note = "knee" if k.saturated_at is not None else "top (still scaling)"
            elif p.level == k.saturated_at:
                note = f"saturated: {k.why}"
            table.add_row(
                k.configuration if p is k.points[0] else "",
                str(p.level),
                "-" if p.tokens_per_s is None else f"{p.tokens_per_s:.0f}",
                "-" if p.tpot_p50_s is None else f"{1000 * p.tpot_p50_s:.1f}",
                note,
            )
    return table


def write_swept(source: Path, out: Path, levels: list[int], knees: list[Knee]) -> None:
    """The campaign as written, at the chosen concurrencies, with what chose them on top."""
    data = yaml.safe_load(read_text(source))
    load = dict(data.get("load") or {})
    load.pop("request_rate", None)
    load["concurrency"] = levels
    data["load"] = load
    found = "; ".join(
        f"{k.configuration} c={k.level}"
        + (f" ({k.why} at c={k.saturated_at})" if k.saturated_at else f" ({k.why})")
        for k in knees
    )
    head = (
        f"# {source.name} at the load levels its saturation sweep chose "
        f"(specverdict sweep, {date.today().isoformat()}).\n# knees: {found}\n"
    )
    out.write_text(head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=96))


@click.command()
@click.argument("campaign", type=click.Path(path_type=Path, dir_okay=False))
@DB_OPTION
@click.option("--stage", help="the stage swept (default: the campaign's first)")
@click.option(
    "--levels",
    default=",".join(str(v) for v in DEFAULT_LEVELS),
    show_default=True,
    help="the concurrency ladder climbed, increasing, separated by commas",
)
@click.option(
    "--requests",
    type=click.IntRange(min=2),
    default=None,
    help="requests per level and configuration (default: twice the top level, at least 16)",
)
@click.option(
    "--gain",
    type=click.FloatRange(min=0.0, max=1.0, min_open=True),
    default=DEFAULT_GAIN,
    show_default=True,
    help="a level whose throughput grew less than this share over the level below saturates",
)
@click.option(
    "--latency",
    type=click.FloatRange(min=1.0, min_open=True),
    default=DEFAULT_LATENCY,
    show_default=True,
    help="a level whose median TPOT is more than this multiple of the lowest level's saturates",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="the swept campaign written (default: CAMPAIGN's name with .swept.yaml, beside it)",
)
@click.option(
    "--explore-only",
    is_flag=True,
    help="find the knees and write the swept campaign, without measuring it",
)
@click.option(
    "--force",
    is_flag=True,
    help="measure even when a checklist item is missing (as run --force)",
)
@click.pass_context
def sweep(
    ctx: click.Context,
    campaign: Path,
    db: Path | str,
    stage: str | None,
    levels: str,
    requests: int | None,
    gain: float,
    latency: float,
    out: Path | None,
    explore_only: bool,
    force: bool,
) -> None:
    """Find where each configuration's server stops scaling, then measure the pairs there.

    Each configuration (the baseline and every candidate) climbs a concurrency ladder on the
    first samples of one stage, one execution a level; its knee is the highest level whose
    throughput still grew by GAIN and whose median TPOT stayed within LATENCY times the
    lowest level's. The pairs are then measured, as run measures them, at each knee halved,
    itself and doubled: the campaign at those levels is written beside CAMPAIGN
    (NAME.swept.yaml), so that verdict, report and policy read it. The verdicts end with the
    load past which each candidate stops paying.

    Example: specverdict sweep examples/demo.yaml --stage function --levels 1,2,4,8,16
    """
    not_blank(stage, "--stage")
    ladder = _levels(levels)
    spec = load_campaign(campaign)
    stage = stage or next(iter(spec.stages))
    if stage not in spec.stages:
        raise click.BadParameter(
            f"{stage!r}: the campaign's stages are {', '.join(spec.stages)}", param_hint="--stage"
        )
    out = out or campaign.with_name(f"{campaign.stem}.swept.yaml")
    if out.resolve().parent != campaign.resolve().parent:
        raise click.BadParameter(
            f"{out}: write the swept campaign beside {campaign} (its relative paths are read "
            "from its folder)",
            param_hint="--out",
        )
    if out.resolve() == campaign.resolve():
        raise click.BadParameter(f"{out} is the campaign itself", param_hint="--out")
    plan = exploration(spec, stage, ladder, requests_for(ladder, requests))
    check_feasible(plan, campaign)
    if launches_reference(plan.runs, plan.campaign.engine.launch):
        require_extra()
    store = open_store(db)
    console = Console()
    with store.exclusive_runner():
        runner = local_runner(
            store,
            db,
            console,
            force=force,
        )
        records = runner.run_plan(plan)
    measured: dict[str, list[Point]] = {}
    for record in records:
        res = run_results(store, record.run_id)
        label = record.spec.speculation.label
        measured.setdefault(label, []).append(
            Point(
                int(record.spec.load.level),
                res.summary.tokens_per_s,
                res.summary.tpot_p50_s,
            )
        )
    knees = [knee(label, points, gain, latency) for label, points in measured.items()]
    console.print(
        f"sweep of stage {stage} ({records[0].spec.suite if records else ''}):", highlight=False
    )
    console.print(knee_table(knees))
    chosen = chosen_levels(knees, cap=max(ladder))
    write_swept(campaign, out, chosen, knees)
    console.print(
        f"levels chosen: concurrency {', '.join(str(v) for v in chosen)}; written to {out}",
        highlight=False,
        soft_wrap=True,
    )
    db_flag = "" if db == DEFAULT_DB else f" --db {db}"
    if explore_only:
        print_next(console, f"specverdict run {out}{db_flag}", "measure the pairs there")
        return
    ctx.invoke(run, campaign=out, db=db, force=force)
