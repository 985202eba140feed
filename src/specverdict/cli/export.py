"""``specverdict runs export``: stored runs as request rows (JSONL, CSV, Parquet) or as one
result document per run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError

from specverdict.campaign import build_plan, load_campaign
from specverdict.campaign.model import Slo
from specverdict.cli.inputs import output_file
from specverdict.cli.runs import DB_OPTION, find_run, open_registry
from specverdict.errors import SpecverdictError
from specverdict.measure.results import run_acceptance, run_results
from specverdict.plugins import OUTPUTS
from specverdict.records import RunRecord, SampleRecord
from specverdict.records.acceptance import AcceptanceSummary
from specverdict.report.export import PARQUET_PACKAGE, RunResult, request_row, run_result
from specverdict.report.outputs import (
    FileOutput,
    TrackingOutput,
    file_output,
    listed,
    rendered,
    tracking_output,
)
from specverdict.store import Store
from specverdict.suites import suite_for


class OutputName(click.ParamType[FileOutput[Any]]):
    """A registered output that writes request rows or a run's result (``report.outputs``),
    checked when given: listing the formats imports no output module."""

    name = "format"

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> FileOutput[Any]:
        if isinstance(value, FileOutput):
            return value
        try:
            return file_output(str(value), "rows", "result")
        except SpecverdictError as exc:
            self.fail(str(exc), param, ctx)


def parse_slo(text: str | None) -> dict[str, float] | None:
    """``ttft:500,tpot:50`` (vLLM's --goodput form, milliseconds; commas or spaces between
    targets) as targets in seconds; a malformed one is a usage error."""
    if text is None:
        return None
    targets: dict[str, float | str] = {}
    for item in text.replace(",", " ").split():
        name, sep, value = item.partition(":")
        if not sep:
            raise click.UsageError(f"--slo {text!r}: expected METRIC:MS, e.g. ttft:500,tpot:50")
        if name in targets:
            raise click.UsageError(f"--slo {text!r}: {name} given twice")
        try:
            targets[name] = float(value)
        except ValueError:
            targets[name] = value  # refused below as not a number, naming the metric
    try:
        return Slo.model_validate(targets).targets_s()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise click.UsageError(
            f"--slo {text!r}: {where + ': ' if where else ''}{first['msg']} "
            "(metrics ttft, tpot, e2el in milliseconds)"
        ) from None


def _write(data: bytes, out: Path | None) -> None:
    if out is None:
        click.echo(data, nl=False)
        return
    try:
        out.write_bytes(data)
    except OSError as exc:
        raise click.UsageError(f"--out {out}: cannot write: {exc.strerror}") from None


def _results(
    store: Store,
    runs: list[RunRecord],
    out: Path | None,
    slo_s: dict[str, float] | None,
    output: FileOutput[RunResult],
) -> None:
    """One result document per run: to --out FILE (or stdout) for one run, else into --out DIR."""
    docs = {r.run_id: run_result(run_results(store, r.run_id, slo_s)) for r in runs}
    if len(docs) == 1:
        (doc,) = docs.values()
        _write(rendered(output, doc), out)
        return
    if out is None or (out.exists() and not out.is_dir()):
        raise click.UsageError(
            f"--format result with {len(docs)} runs writes one file per run: give --out DIR "
            f"(a directory{'' if out is None else f'; {out} is a file'})"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.UsageError(
            f"--out {out}: cannot create the directory: {exc.strerror}"
        ) from None
    for run_id, doc in docs.items():
        _write(rendered(output, doc), out / f"{run_id}{output.filename}")
    click.echo(f"wrote {len(docs)} run results to {out}", err=True)


def _prompts(run: RunRecord) -> dict[str, str]:
    """The prompts of a run's samples (chat messages as JSON), from its suite; empty when the
    suite cannot be read here (a dataset file that moved)."""
    try:
        samples = suite_for(run.spec).select(run.spec.samples)
    except (ValueError, OSError, SpecverdictError):
        return {}
    return {
        s.id: s.prompt if s.prompt is not None else json.dumps(list(s.messages or ()))
        for s in samples
    }


def _acceptance(
    store: Store, run: RunRecord, samples: list[SampleRecord]
) -> AcceptanceSummary | None:
    """The run's acceptance as its engine's adapter reads it (the rows' engine_k and
    drafted_per_step); None when that adapter is not installed here (a plugin's engine)."""
    try:
        return run_acceptance(store, run, samples)
    except SpecverdictError:
        return None


def _chosen_runs(
    store: Store, run_ids: tuple[str, ...], campaign: Path | None, every: bool
) -> list[RunRecord]:
    if sum((bool(run_ids), campaign is not None, every)) != 1:
        raise click.UsageError(
            "name what to export: RUN_ID..., --campaign FILE (its runs) or --all (every run)"
        )
    if every:
        return store.list_runs()
    if campaign is not None:
        name = load_campaign(campaign).name
        runs = store.list_runs(campaign=name)
        if not runs:
            raise click.UsageError(f"--campaign {campaign}: no stored run of campaign {name!r}")
        return runs
    return list({r.run_id: r for r in (find_run(store, i) for i in run_ids)}.values())


@click.command("export")
@click.argument("run_ids", nargs=-1)
@click.option(
    "--campaign",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="export every stored run of this campaign file's campaign",
)
@click.option("--all", "every", is_flag=True, help="export every stored run")
@click.option(
    "--text", is_flag=True, help="rows carry the output text and the prompt (larger files)"
)
@DB_OPTION
@click.option(
    "--format",
    "output",
    type=OutputName(),
    default="jsonl",
    show_default=True,
    help="jsonl, csv or parquet: one row per request; result: one JSON document per run "
    f"(spec, manifest, summary, acceptance); or a plugin's output. parquet needs "
    f"{PARQUET_PACKAGE}",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="the file to write (default: standard output; parquet needs a file; result with "
    "several runs a directory)",
)
@click.option(
    "--all-attempts",
    is_flag=True,
    help="every attempt of every sample (retried failures too), not only each sample's last",
)
@click.option(
    "--slo",
    default=None,
    metavar="METRIC:MS,...",
    help="goodput targets as vLLM's --goodput, e.g. ttft:500,tpot:50 (metrics ttft, tpot, "
    "e2el in ms): rows get slo_met, results their goodput",
)
def export(
    run_ids: tuple[str, ...],
    campaign: Path | None,
    every: bool,
    text: bool,
    db: Path,
    output: FileOutput[Any],
    out: Path | None,
    all_attempts: bool,
    slo: str | None,
) -> None:
    """Export runs: one row per request (the run's configuration, timings, tokens, acceptance,
    score, error) or a result document per run. Run ids may be unique prefixes.

    Example: specverdict runs export --campaign examples/demo.yaml --format csv --out requests.csv
    """
    slo_s = parse_slo(slo)
    output_file(out, "--out")
    if not output.text and out is None:
        raise click.UsageError(f"--format {output.name} writes a binary file: give --out FILE")
    rows_out = output.reads == "rows"
    if out is not None and out.parent != Path() and not out.parent.is_dir() and rows_out:
        raise click.UsageError(f"--out {out}: no directory {out.parent}")
    store = open_registry(db)
    runs = _chosen_runs(store, run_ids, campaign, every)
    if not rows_out:
        _results(store, runs, out, slo_s, output)
        return
    rows = []
    for r in runs:
        prompts = _prompts(r) if text else {}
        samples = store.samples(r.run_id)
        acc = _acceptance(store, r, samples)  # the k the engine ran, once per run
        for s in store.attempts(r.run_id) if all_attempts else samples:
            rows.append(request_row(s, slo_s, r, prompts.get(s.sample_id), text, acc))
    _write(rendered(output, rows), out)
    if out is not None:
        click.echo(f"wrote {len(rows)} requests of {len(runs)} run(s) to {out}", err=True)


class TrackingGroup(click.Group):
    """``export NAME``: one command per registered tracking output (``report.outputs``), built
    when asked for; the list reads the registry, so a plugin's output is a command too."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [o.name for o in listed() if isinstance(o, TrackingOutput)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in OUTPUTS.names():
            return None
        try:
            output = tracking_output(cmd_name)
        except SpecverdictError as exc:
            raise click.UsageError(str(exc)) from None
        return _tracking_command(output)


def _tracking_command(output: TrackingOutput) -> click.Command:
    example = (
        f"specverdict export {output.name} examples/demo.yaml --db .specverdict/runs.db "
        "--tracking-uri URI"
    )
    about = f"Log a campaign's stored runs to {output.description}.\n\nExample: {example}"

    @click.command(output.name, help=about)
    @click.argument("campaign", type=click.Path(path_type=Path, dir_okay=False))
    @DB_OPTION
    @click.option("--tracking-uri", required=True, help=output.uri_help)
    def send(campaign: Path, db: Path, tracking_uri: str) -> None:
        problem = output.check_uri(tracking_uri)
        if problem is not None:
            raise click.UsageError(f"--tracking-uri {tracking_uri!r}: {problem}")
        plan = build_plan(load_campaign(campaign))
        logged, skipped = output.send(open_registry(db), plan, tracking_uri)
        click.echo(
            f"logged {logged} run(s) of {plan.campaign.name} to {tracking_uri}"
            + (f" ({skipped} already there)" if skipped else "")
        )

    return send


@click.group("export", cls=TrackingGroup)
def export_group() -> None:
    """Export a campaign's stored runs to another tool's tracking server: one command per
    output that logs runs (mlflow, and any a plugin registers).

    Example: specverdict export mlflow examples/demo.yaml --db .specverdict/runs.db --tracking-uri sqlite:///mlflow.db
    """
