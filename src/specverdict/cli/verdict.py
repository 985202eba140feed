"""``specverdict verdict`` and ``specverdict compare``: the decision per stage and pair.

Exit codes: 0 ADOPT, 1 REJECT, 3 INCONCLUSIVE, 4 INVALID (the most severe verdict among those
named by ``--fail-on``; 0 when none of them occurs), 2 usage errors.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import click
from pydantic import ValidationError
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from specverdict.campaign import build_plan, load_campaign
from specverdict.campaign.model import Gates
from specverdict.cli.runs import DB_OPTION, find_run, open_registry
from specverdict.measure.summary import SPEED_METRIC_WORDS
from specverdict.records import OUTPUT_SCHEMA_VERSION
from specverdict.verdict import (
    EXIT_CODES,
    SEVERITY,
    PairVerdict,
    Verdict,
    campaign_verdicts,
    compare_runs,
    worst,
)

ALL_FAILING = "REJECT,INCONCLUSIVE,INVALID"


def parse_fail_on(value: str) -> set[Verdict]:
    chosen: set[Verdict] = set()
    for raw in (v.strip().upper() for v in value.split(",") if v.strip()):
        match = next((v for v in SEVERITY if v == raw), None)
        if match is None:
            raise click.BadParameter(
                f"unknown verdict {raw!r}; expected a comma-separated list of "
                f"{', '.join(SEVERITY)}",
                param_hint="--fail-on",
            )
        chosen.add(match)
    return chosen


FAIL_ON = click.option(
    "--fail-on",
    default=ALL_FAILING,
    show_default=True,
    help="verdicts that fail the command (its exit code is the most severe of them)",
)
JSON = click.option("--json", "as_json", is_flag=True, help="print the verdicts as JSON")


def exit_code(verdicts: Sequence[PairVerdict], fail_on: set[Verdict]) -> int:
    failing = worst([v.verdict for v in verdicts if v.verdict in fail_on])
    return 0 if failing is None else EXIT_CODES[failing]


#: the order reasons are listed in: what decided the verdict first
DECIDING = ("invalid", "reject", "inconclusive")
_ORDER = {status: i for i, status in enumerate((*DECIDING, "pass", "vacuous", "info"))}


def short_load(load: str) -> str:
    """``concurrency=8`` -> ``c=8``, ``request_rate=4.0`` -> ``4/s``: a load that fits a column."""
    if load.startswith("concurrency="):
        return "c=" + load.removeprefix("concurrency=")
    if load.startswith("request_rate="):
        return f"{float(load.removeprefix('request_rate=')):g}/s"
    return load


#: how a verdict table's title names the clock its speeds were timed on
CLOCK_WORDS = {
    "host": ", host wall clock",
    "device": ", modelled device clock",
    "mixed": ", mixed clocks",
}


def verdict_table(stage: str, rows: Sequence[PairVerdict]) -> Table:
    """One stage's pairs in 80 columns: the verdict and the figures never truncated, the
    candidate's label (with the k its engine ran beside the declared one, when another:
    ``draft_model k=8 (engine: 3)``) wrapped when it is long."""
    table = Table(
        title=f"stage {stage} ({rows[0].suite}), speed on "
        f"{SPEED_METRIC_WORDS.get(rows[0].speed_metric, rows[0].speed_metric)}"
        + CLOCK_WORDS.get(next((v.clock for v in rows if v.clock), ""), ""),
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1),
    )
    table.add_column("verdict", no_wrap=True)
    # wide enough for the longest word of any label (acceptance=relaxed, [category=strings]):
    # a label wraps at its spaces, never inside a word
    labels = [_label(v) for v in rows]
    longest = max((len(w) for label in labels for w in label.split()), default=12)
    table.add_column("candidate", ratio=1, overflow="fold", min_width=min(max(12, longest), 24))
    table.add_column("load", no_wrap=True)
    table.add_column("speed-up [CI]", no_wrap=True)  # at the pair's level (note 032)
    table.add_column("pass b/c", no_wrap=True)
    table.add_column("MAL", no_wrap=True, justify="right")
    for v, label in zip(rows, labels, strict=True):
        speed = "n/a"
        if v.speedup is not None:
            speed = f"{v.speedup:.2f}x"
            if v.speedup_interval is not None:
                lo, hi = v.speedup_interval
                speed += f" [{lo:.2f}, {hi:.2f}]"
        passes = (
            "no signal"
            if v.base_pass_rate is None or v.cand_pass_rate is None
            else f"{100 * v.base_pass_rate:.0f}%/{100 * v.cand_pass_rate:.0f}%"
        )
        mal = "n/a" if v.mean_accepted_length is None else f"{v.mean_accepted_length:.2f}"
        who = escape(label)
        table.add_row(f"[bold]{v.verdict}[/]", who, short_load(v.load), speed, passes, mal)
    return table


def _label(v: PairVerdict) -> str:
    """The candidate's label (with the k its engine ran, when another than declared) and its
    slice, as the verdict table shows it."""
    return v.candidate_label if v.slice is None else f"{v.candidate_label} [{v.slice}]"


def reasons_grid(v: PairVerdict) -> Table:
    """A pair's reasons, what decided it first (marked), each message wrapped under itself."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, justify="right", min_width=14)
    grid.add_column(ratio=1, overflow="fold")
    for r in sorted(v.reasons, key=lambda r: _ORDER.get(r.status, len(_ORDER))):
        deciding = r.status in DECIDING and v.verdict != "ADOPT"
        status = Text(("> " if deciding else "") + r.status, style="bold" if deciding else "")
        grid.add_row(status, Text(str(r)))
    return grid


def render(verdicts: Sequence[PairVerdict], console: Console) -> None:
    """One table per stage (never a cross-stage aggregate), then each pair's reasons."""
    for stage in dict.fromkeys(v.stage for v in verdicts):
        rows = [v for v in verdicts if v.stage == stage]
        console.print(verdict_table(stage, rows))
        for v in rows:
            console.print(
                Text.assemble(
                    (v.verdict, "bold"),
                    f" {v.candidate_label} vs {v.baseline} ({short_load(v.load)})"
                    + (f", slice {v.slice}" if v.slice else ""),
                )
            )
            console.print(reasons_grid(v))
            if v.supplement:
                ids = ", ".join(d.sample_id for d in v.supplement[:10])
                console.print(f"  discordant samples: {ids}", highlight=False, markup=False)


def _finish(verdicts: list[PairVerdict], as_json: bool, fail_on: str) -> None:
    chosen = parse_fail_on(fail_on)
    if as_json:
        payload = {
            "schema_version": OUTPUT_SCHEMA_VERSION,
            "verdicts": [v.model_dump(mode="json") for v in verdicts],
        }
        click.echo(json.dumps(payload, indent=2))
    else:
        render(verdicts, Console())
    code = exit_code(verdicts, chosen)
    if code:
        raise SystemExit(code)


@click.command("verdict")
@click.argument("campaign", type=click.Path(path_type=Path, dir_okay=False))
@DB_OPTION
@JSON
@FAIL_ON
def verdict(campaign: Path, db: Path, as_json: bool, fail_on: str) -> None:
    """Judge every pair of a campaign from its stored runs, stage by stage.

    Example: specverdict verdict examples/demo.yaml --fail-on reject,invalid
    """
    parse_fail_on(fail_on)  # a bad --fail-on is a usage error before any work
    plan = build_plan(load_campaign(campaign))
    _finish(campaign_verdicts(open_registry(db), plan), as_json, fail_on)


@click.command("compare")
@click.argument("base_run")
@click.argument("candidate_run")
@DB_OPTION
@JSON
@FAIL_ON
@click.option("--alpha", type=float, default=Gates().alpha, show_default=True)
@click.option("--margin", type=float, default=Gates().margin, show_default=True)
@click.option("--min-speedup", type=float, default=Gates().min_speedup, show_default=True)
def compare(
    base_run: str,
    candidate_run: str,
    db: Path,
    as_json: bool,
    fail_on: str,
    alpha: float,
    margin: float,
    min_speedup: float,
) -> None:
    """Judge one candidate run against one baseline run.

    Example: specverdict compare 3f2a9c1d0b7e 9b8e7d6c5a4f --json
    """
    parse_fail_on(fail_on)
    try:
        gates = Gates(alpha=alpha, margin=margin, min_speedup=min_speedup)
    except ValidationError as exc:
        err = exc.errors()[0]
        flag = "--" + str(err["loc"][0]).replace("_", "-")
        raise click.UsageError(
            f"gate settings: {flag} {err['input']!r}: {err['msg'].lower()}"
        ) from None
    store = open_registry(db)
    runs = [find_run(store, run_id) for run_id in (base_run, candidate_run)]
    _finish([compare_runs(store, runs[0], runs[1], gates)], as_json, fail_on)
