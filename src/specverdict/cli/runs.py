"""``specverdict runs``: list stored runs and show one."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import click
from rich import box
from rich.console import Console, Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from specverdict.cli.lazy import LazyGroup
from specverdict.measure.results import RunResults, run_results
from specverdict.records import OUTPUT_SCHEMA_VERSION, RunRecord, SampleRecord
from specverdict.records import override_drift as manifest_drift
from specverdict.records.failures import failure_kind
from specverdict.store import Store, is_registry_url, open_store

DEFAULT_DB = Path(".specverdict/runs.db")


class RegistryLocation(click.ParamType[Path | str]):
    """``--db``: a SQLite file (a ``Path``) or a ``postgresql://`` URL (kept as text)."""

    name = "FILE|URL"

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> Path | str:
        if isinstance(value, Path):
            return value
        text = str(value)
        if is_registry_url(text):
            return text
        if "://" in text:
            self.fail(
                f"{text.split('://', 1)[0]}://...: not a registry this version knows; expected a "
                "SQLite file or postgresql://user@host/database",
                param,
                ctx,
            )
        path = Path(text)
        if path.is_dir():
            self.fail(
                f"{text} is a folder; expected a SQLite file or a postgresql:// URL", param, ctx
            )
        return path


DB_OPTION = click.option(
    "--db",
    type=RegistryLocation(),
    default=DEFAULT_DB,
    show_default=True,
    envvar="SPECVERDICT_DB",
    help="the run registry: a SQLite file, or postgresql://user@host/database for a shared one "
    "(also SPECVERDICT_DB)",
)


def registry_dir(db: Path | str) -> Path:
    """Where run folders (engine logs) go: beside a SQLite file; ``.specverdict`` in the
    working directory for a database server's registry."""
    return Path(".specverdict") if isinstance(db, str) else db.parent


def open_registry(db: Path | str) -> Store:
    """The registry of a read-only command: it must exist (reading never creates one)."""
    if isinstance(db, Path) and not db.exists():
        raise click.UsageError(f"no run registry at {db}: run a campaign first, or pass --db")
    return open_store(db)


def find_run(store: Store, run_id: str) -> RunRecord:
    """The run whose id is ``run_id`` or starts with it (a unique prefix, as git takes)."""
    runs = store.list_runs()
    exact = [r for r in runs if r.run_id == run_id]
    if exact:
        return exact[0]
    found = [r for r in runs if r.run_id.startswith(run_id)] if run_id else []
    if not found:
        raise click.UsageError(f"no run {run_id!r} in {store.path} (see: specverdict runs list)")
    if len(found) > 1:
        ids = ", ".join(r.run_id for r in found[:5])
        raise click.UsageError(f"run id {run_id!r} is ambiguous: {ids}; give more characters")
    return found[0]


def _ms(x: float | None) -> str:
    if x is None:
        return "n/a"
    ms = 1000 * x
    return f"{ms:.0f}" if ms >= 10 else f"{ms:.1f}"


def _finish(reasons: dict[str, int]) -> str:
    """Finish reasons, abbreviated: ``length:7 stop:9`` -> ``L7 S9``."""
    return " ".join(f"{k[:1].upper()}{v}" for k, v in sorted(reasons.items()))


def summary_table(results: Sequence[RunResults]) -> Table:
    """One row per run: the figures of a run summary, compact enough for 80 columns. Finish
    reasons are abbreviated by their initial (L length, S stop, A abort, E error)."""
    groups = {(r.run.spec.stage, r.run.spec.load.label) for r in results}
    title = "runs"
    if len(groups) == 1:
        stage, load = next(iter(groups))
        title = f"runs: stage {stage}, {load}"
    clocks = {r.summary.clock for r in results}
    title += (
        ", mixed clocks"
        if len(clocks) > 1
        else (", modelled device clock" if clocks == {"device"} else ", host wall clock")
    )
    table = Table(
        title=title,
        box=box.SIMPLE_HEAD,
        title_justify="left",
        pad_edge=False,
        show_edge=False,
        padding=(0, 1),
        collapse_padding=True,
    )
    columns = ["run", "speculation"]
    if len(groups) > 1:
        columns.append("stage, load")
    columns += ["ok", "tok/s", "acc.\nrate", "MAL", "TTFT ms\np50/95", "TPOT ms\np50/95", "finish"]
    for col in columns:
        # the labels wrap (a long speculation label would otherwise squeeze every figure to an
        # ellipsis at 80 columns); the figures never do
        wraps = col in ("speculation", "stage, load")
        table.add_column(
            col,
            justify="left" if col in ("run", "speculation", "stage, load") else "right",
            no_wrap=not wraps,
            overflow="fold" if wraps else "ellipsis",
            min_width=12 if col == "speculation" else None,
        )
    for r in results:
        s, a, spec = r.summary, r.acceptance, r.run.spec
        acc = "n/a" if a.acceptance_rate is None else f"{a.acceptance_rate:.3f}"
        if not a.valid and spec.speculation.method != "none":
            acc = "invalid"
        row = [r.run.run_id[:6], spec.speculation.label]
        if len(groups) > 1:
            row.append(f"{spec.stage}, {spec.load.label}")
        row += [
            f"{s.ok}/{s.samples}",
            "n/a" if s.tokens_per_s is None else f"{s.tokens_per_s:.0f}",
            acc,
            "n/a" if a.mean_accepted_length is None else f"{a.mean_accepted_length:.2f}",
            f"{_ms(s.ttft_p50_s)}/{_ms(s.ttft_p95_s)}",
            f"{_ms(s.tpot_p50_s)}/{_ms(s.tpot_p95_s)}",
            _finish(s.finish_reasons),
        ]
        table.add_row(*row)
    table.caption = "finish reasons: L length, S stop, A abort, E error"
    if results and all(r.summary.clock == "device" for r in results):
        table.caption += "; times on the engine's modelled device clock"
    return table


def summary_tables(results: Sequence[RunResults]) -> list[Table]:
    """One summary table per stage and load level, in the order the runs came."""
    groups: dict[tuple[str, str], list[RunResults]] = {}
    for r in results:
        groups.setdefault((r.run.spec.stage, r.run.spec.load.label), []).append(r)
    return [summary_table(rows) for rows in groups.values()]


@click.group(cls=LazyGroup, lazy={"export": "specverdict.cli.export:export"})
def runs() -> None:
    """Inspect the run registry.

    Example: specverdict runs list
    """


@runs.command("list")
@DB_OPTION
@click.option("--campaign", help="only the runs of this campaign")
@click.option("--user", help="only the runs this user started")
@click.option("--host", help="only the runs created on this host (a node, for a cluster run)")
def list_runs(db: Path | str, campaign: str | None, user: str | None, host: str | None) -> None:
    """List stored runs, oldest first: everyone's, in a shared registry.

    Example: specverdict runs list --db postgresql://team@db/specverdict --user ana
    """
    store = open_registry(db)
    chosen = store.list_runs(campaign=campaign, user=user, host=host)
    origins = {r.run_id: store.origin(r.run_id) for r in chosen}
    shared = len({(o.user, o.host) for o in origins.values()}) > 1 or bool(user or host)
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1))
    # at 80 columns there is no room for more columns: who ran a run and where goes under its
    # id, as user@host, when the registry holds more than one's runs
    for col in ("run", "status", "ok", "stage", "speculation", "load", "rep"):
        table.add_column(
            col,
            no_wrap=col != "speculation",
            overflow="fold",
            ratio=1 if col == "speculation" else None,
            min_width=12 if col == "speculation" else None,
        )
    causes = []
    for r in chosen:
        samples = store.samples(r.run_id)
        ok = sum(s.status == "ok" for s in samples)
        cause = r.manifest.interruption.cause if r.manifest.interruption else None
        if cause:
            causes.append(f"{r.run_id}: {r.status}: {cause}")
        who = origins[r.run_id]
        table.add_row(
            f"{r.run_id}\n{who.user}@{who.host}" if shared else r.run_id,
            str(r.status),
            f"{ok}/{len(samples)}",
            r.spec.stage,
            r.spec.speculation.label,
            r.spec.load.label.replace("concurrency=", "c="),
            str(r.repeat),
        )
    console = Console()
    console.print(table)
    for line in causes:
        console.print(line, highlight=False, markup=False)


@runs.command("show")
@click.argument("run_id")
@DB_OPTION
@click.option(
    "--json", "as_json", is_flag=True, help="print the run, its summary and acceptance as JSON"
)
def show(run_id: str, db: Path, as_json: bool) -> None:
    """Show one run: spec, manifest, summary and acceptance.

    Example: specverdict runs show 3f2a9c1d0b7e --json
    """
    store = open_registry(db)
    results = run_results(store, find_run(store, run_id).run_id)
    drift = override_drift(store, results.run)
    if as_json:
        payload = {"schema_version": OUTPUT_SCHEMA_VERSION, **results.model_dump(mode="json")}
        payload["override_drift"] = drift
        click.echo(json.dumps(payload, indent=2))
        return
    console = Console()
    console.print(summary_table([results]))
    for line in drift:
        console.print(f"[bold]WARNING[/bold] {line}", highlight=False)
    engine_time = results.run.manifest.engine_time
    if engine_time is not None:  # where the engine's time went: docs/engine-time.md
        console.print(engine_time.split_line(), highlight=False)
    session = results.run.manifest.session
    if session is not None:  # a launched server that served several executions (035)
        shared = [
            r.run_id[:12]
            for r in store.list_runs()
            if r.manifest.session == session and r.run_id != results.run.run_id
        ]
        also = f", also serving {', '.join(shared)}" if shared else ""
        console.print(f"server session {session}{also}", highlight=False, soft_wrap=True)
    interruption = results.run.manifest.interruption
    cause = interruption.cause if interruption else None
    if cause:
        console.print(f"[bold]{results.run.status}[/bold]: {cause}", highlight=False)
    failures = error_rows(store.attempts(results.run.run_id))
    if failures:
        console.print(errors_table(failures))
    console.print_json(results.run.manifest.model_dump_json())


def error_rows(attempts: Sequence[SampleRecord]) -> list[tuple[str, int, int, str, str]]:
    """Failed attempts by kind: (kind, attempts, of them retried since, example sample id,
    example error), most frequent first."""
    last = {a.sample_id: a.attempt for a in attempts}
    kinds: dict[str, list[SampleRecord]] = {}
    for a in attempts:
        kind = failure_kind(a.status, a.error)
        if kind is not None:
            kinds.setdefault(kind, []).append(a)
    rows = []
    for kind, failed in sorted(kinds.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        superseded = sum(a.attempt < last[a.sample_id] for a in failed)
        first = failed[0]
        rows.append((kind, len(failed), superseded, first.sample_id, (first.error or "")[:160]))
    return rows


def errors_table(rows: Sequence[tuple[str, int, int, str, str]]) -> Group:
    """Failed attempts by kind in a table, then each kind's example error on lines of its own,
    wrapped at spaces: an error (an engine's JSON body, a traceback's last line) is read whole,
    never folded into a narrow column."""
    table = Table(title="failed attempts", title_justify="left", box=box.SIMPLE_HEAD)
    for col in ("kind", "attempts", "retried since", "example sample"):
        table.add_column(col, overflow="fold", no_wrap=col != "example sample")
    for kind, n, superseded, sid, _ in rows:
        table.add_row(kind, str(n), str(superseded), sid)
    shown: list[Text | Padding] = []
    for kind, _, _, sid, error in rows:
        shown.append(Text(f"{kind}, e.g. {sid}:"))
        shown.append(Padding(Text(error or "(no error text)", overflow="fold"), (0, 0, 0, 4)))
    return Group(table, *shown)


@runs.command("errors")
@click.argument("run_id")
@DB_OPTION
def errors(run_id: str, db: Path) -> None:
    """Show a run's failed attempts by kind, with counts and an example of each.

    Example: specverdict runs errors 3f2a9c
    """
    store = open_registry(db)
    run = find_run(store, run_id)
    console = Console()
    interruption = run.manifest.interruption
    cause = (interruption.cause if interruption else None) or run.manifest.error
    if cause:
        console.print(f"[bold]{run.status}[/bold]: {cause}", highlight=False)
    rows = error_rows(store.attempts(run.run_id))
    if not rows:
        console.print(f"run {run.run_id}: no failed attempts")
        return
    console.print(errors_table(rows))


def _delete(store: Store, db: Path | str, runs_: Sequence[RunRecord]) -> None:
    with store.exclusive_runner():  # never under a runner that is writing
        for r in runs_:
            store.delete_run(r.run_id)
            shutil.rmtree(registry_dir(db) / "runs" / r.run_id, ignore_errors=True)


@runs.command("delete")
@click.argument("run_ids", nargs=-1, required=True)
@DB_OPTION
@click.option("--yes", is_flag=True, help="do not ask for confirmation")
def delete(run_ids: tuple[str, ...], db: Path, yes: bool) -> None:
    """Delete runs with their samples, scores, snapshots and engine logs.

    Example: specverdict runs delete 3f2a9c 81b0d2 --yes
    """
    store = open_registry(db)
    chosen = list({r.run_id: r for r in (find_run(store, i) for i in run_ids)}.values())
    _confirm(chosen, yes)
    _delete(store, db, chosen)
    click.echo(f"deleted {len(chosen)} run(s) from {db}")


@runs.command("prune")
@DB_OPTION
@click.option(
    "--status",
    "statuses",
    type=click.Choice(["failed", "interrupted", "running"]),
    multiple=True,
    default=("failed", "interrupted"),
    show_default=True,
    help="delete the runs in this state (repeatable); completed runs are never pruned",
)
@click.option("--dry-run", is_flag=True, help="list what would be deleted, delete nothing")
@click.option("--yes", is_flag=True, help="do not ask for confirmation")
def prune(db: Path, statuses: tuple[str, ...], dry_run: bool, yes: bool) -> None:
    """Delete unfinished runs (failed, interrupted; ``running`` ones left by a killed runner).

    A later ``run`` would resume them instead; prune when their samples are not wanted.

    Example: specverdict runs prune --dry-run
    """
    store = open_registry(db)
    chosen = [r for r in store.list_runs() if r.status in statuses]
    if not chosen:
        click.echo(f"nothing to prune in {db}")
        return
    if dry_run:
        for r in chosen:
            click.echo(f"would delete {r.run_id} {r.status} {r.spec.label}")
        return
    _confirm(chosen, yes)
    _delete(store, db, chosen)
    click.echo(f"pruned {len(chosen)} run(s) from {db}")


def _confirm(chosen: Sequence[RunRecord], yes: bool) -> None:
    if yes:
        return
    for r in chosen:
        click.echo(f"{r.run_id} {r.status} {r.spec.label}")
    if not sys.stdin.isatty():
        raise click.UsageError("not a terminal: pass --yes to delete without confirmation")
    click.confirm(f"delete these {len(chosen)} run(s)?", abort=True)


def override_drift(store: Store, run: RunRecord) -> list[str]:
    """Overrides in place for an earlier run of the same fingerprint and not for this one."""
    earlier = sorted(
        (
            r
            for r in store.list_runs()
            if r.fingerprint == run.fingerprint and r.created_at < run.created_at
        ),
        key=lambda r: r.created_at,
    )
    history = [(r.run_id, r.manifest) for r in (*earlier, run)]
    out = [
        f"overrides drifted: {d.path} was in place for run {d.was_ok_in} and is {d.status} now"
        for d in manifest_drift(history)
        if d.run_id == run.run_id
    ]
    return list(dict.fromkeys(out))
