"""``specverdict audit``: did the engine load the whole checkpoint; are the overrides in place.

Exit codes: 0 clean, 1 findings, 2 usage errors.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
from rich.console import Console

from specverdict.audit.inventory import Inventory, inventory_checkpoint
from specverdict.audit.loader import compare_loaded, read_loaded
from specverdict.audit.overrides import (
    CommandPrefix,
    Directory,
    check_overrides,
    load_manifest,
)
from specverdict.cli.inputs import finite, structured_file, text_file
from specverdict.records.audits import LoaderAudit, OverrideAudit

JSON = click.option("--json", "as_json", is_flag=True, help="print the audit as JSON")
#: findings listed per category before "... and N more"
SHOWN = 12


@click.group("audit")
def audit() -> None:
    """Catch silent deployment failures: a loader that skipped tensors, overrides that vanished.

    Example: specverdict audit loader --load-report http://127.0.0.1:8000
    """


#: the largest loader record or list of parameter names read (a large model's names are a
#: few megabytes)
LOADER_RECORD_BYTES = 256 << 20


def _checkpoints(values: tuple[str, ...]) -> tuple[Inventory | None, dict[str, Inventory]]:
    """``--checkpoint PATH`` (one model) and ``--checkpoint ROLE=PATH`` (per model)."""
    single: Inventory | None = None
    per_role: dict[str, Inventory] = {}
    for value in values:
        role, sep, path = value.partition("=")
        if sep and role and not Path(value).exists():
            per_role[role] = inventory_checkpoint(path)
        elif single is None:
            single = inventory_checkpoint(value)
        else:
            raise click.UsageError(
                "--checkpoint: give one PATH, or ROLE=PATH per model (e.g. draft=DIR)"
            )
    return single, per_role


def _render_loader(result: LoaderAudit, console: Console) -> None:
    for m in result.models:
        console.print(
            f"[bold]{m.model}[/bold] {m.checkpoint_tensors} checkpoint tensors ({m.checkpoint}), "
            f"{m.loaded_tensors} loaded ({m.origin}, {m.namespace} names)",
            highlight=False,
        )
        roles = ", ".join(f"{r} {c.checkpoint}" for r, c in m.roles.items() if c.checkpoint)
        console.print(f"  roles: {roles}", highlight=False, markup=False)
        for title, found in (
            ("not loaded", m.not_loaded),
            ("left at initialisation", m.left_at_init),
            ("unexpected", m.unexpected),
            ("shape mismatch", m.shape_mismatches),
            ("dtype mismatch", m.dtype_mismatches),
            ("drafter", m.drafter),
        ):
            for f in found[:SHOWN]:
                extra = f" ({f.detail})" if "mismatch" in title or title == "drafter" else ""
                console.print(
                    f"  {title:>22}  {f.role:<15} {f.name}{extra}", highlight=False, markup=False
                )
            if len(found) > SHOWN:
                console.print(f"  {'':>22}  ... and {len(found) - SHOWN} more", markup=False)
        for note in m.notes:
            console.print(f"  note: {note}", highlight=False, markup=False)
    for line in result.verdicts:
        console.print(line, highlight=False, markup=False)


@audit.command("loader")
@click.option(
    "--load-report",
    "report",
    metavar="URL|FILE",
    help="the reference engine's /debug/load_report (a base URL, a full URL or a saved file)",
)
@click.option(
    "--loaded-names",
    "names",
    metavar="FILE",
    help="the parameter names an engine loaded (one a line, or JSON; see "
    "docs/engines/loaded-parameters.md)",
)
@click.option(
    "--checkpoint",
    "checkpoints",
    multiple=True,
    metavar="[ROLE=]PATH",
    help="checkpoint directory, .safetensors file or index (ROLE=PATH per model; default for a "
    "load report: each model's recorded path)",
)
@click.option("--role", default="model", show_default=True, help="model name for --loaded-names")
@click.option(
    "--ignore", multiple=True, metavar="GLOB", help="checkpoint tensors to leave out (repeatable)"
)
@click.option(
    "--rename",
    multiple=True,
    metavar="OLD=NEW",
    help="rewrite a checkpoint-name prefix before matching engine names (repeatable)",
)
@click.option(
    "--method",
    metavar="METHOD",
    help="what the drafter is served as (mtp, eagle3, medusa, ...): names a drafter of another "
    "family served as this one (a DSpark drafter as mtp, an EAGLE-3 head without its fusion)",
)
@click.option("--k", type=click.IntRange(min=1), help="draft tokens per step, with --method")
@JSON
def loader(
    report: str | None,
    names: str | None,
    checkpoints: tuple[str, ...],
    role: str,
    ignore: tuple[str, ...],
    rename: tuple[str, ...],
    method: str | None,
    k: int | None,
    as_json: bool,
) -> None:
    """Compare a checkpoint's tensors (from safetensors headers) with what an engine loaded:
    tensors not loaded, left at initialisation, unexpected, or of another shape or dtype, by role.

    Example: specverdict audit loader --load-report http://127.0.0.1:8000 --json
    """
    if (report is None) == (names is None):
        raise click.UsageError("give exactly one of --load-report, --loaded-names")
    renames = []
    for r in rename:
        old, sep, new = r.partition("=")
        if not sep or not old:
            raise click.UsageError(f"--rename {r}: expected OLD=NEW")
        renames.append((old, new))
    source = report or names or ""
    if not re.match(r"^https?://", source) and not Path(source).is_dir():
        flag = "--load-report" if report is not None else "--loaded-names"
        text_file(source, flag, limit=LOADER_RECORD_BYTES)
    models = read_loaded(source, role=role)
    single, per_role = _checkpoints(checkpoints)
    if single is not None and len(models) == 1:
        inventories: Inventory | dict[str, Inventory] = single
    else:
        if single is not None:
            raise click.UsageError(
                f"the record has {len(models)} models: give --checkpoint ROLE=PATH for each"
            )
        inventories = dict(per_role)
        for m in models:
            if m.role in inventories:
                continue
            if m.path is None or not Path(m.path).exists():
                raise click.UsageError(
                    f"no checkpoint for model {m.role!r}: give --checkpoint {m.role}=PATH"
                )
            inventories[m.role] = inventory_checkpoint(m.path)
    result = compare_loaded(inventories, models, ignore=ignore, renames=renames, method=method, k=k)
    if as_json:
        click.echo(json.dumps(result.model_dump(mode="json"), indent=2))
    else:
        _render_loader(result, Console(soft_wrap=True))
    if not result.clean:
        raise SystemExit(1)


def _render_overrides(result: OverrideAudit, console: Console) -> None:
    for e in result.entries:
        detail = f"  ({e.detail})" if e.detail else ""
        console.print(
            f"  {e.status:>8}  {e.check:<6} {e.path}{detail}", highlight=False, markup=False
        )
    console.print(result.verdict, highlight=False, markup=False)


@audit.command("overrides")
@click.argument("manifest", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--dir", "directory", metavar="DIR", help="check files below this directory")
@click.option(
    "--prefix",
    metavar="COMMAND",
    help="check through this command prefix, e.g. 'docker exec vllm' (runs PREFIX sha256sum "
    "PATH and PREFIX cat PATH, no shell)",
)
@click.option("--timeout", type=float, default=30.0, show_default=True, help="seconds per command")
@JSON
def overrides(
    manifest: Path, directory: str | None, prefix: str | None, timeout: float, as_json: bool
) -> None:
    """Check a manifest of expected overrides (path -> sha256, marker or line) against a
    directory or through a command prefix; each entry ends ok, missing, changed or error.

    Example: specverdict audit overrides overrides.yaml --prefix 'docker exec vllm'
    """
    if (directory is None) == (prefix is None):
        raise click.UsageError("give exactly one of --dir, --prefix")
    finite(timeout, "--timeout", at_most=86_400)
    structured_file(manifest, "MANIFEST")
    target: Directory | CommandPrefix
    if directory is not None:
        if not Path(directory).is_dir():
            raise click.UsageError(f"--dir {directory}: not a directory")
        target = Directory(root=directory)
    else:
        try:
            target = CommandPrefix.parse(prefix or "", timeout_s=timeout)
        except ValueError as exc:  # shlex: an unclosed quotation
            raise click.UsageError(f"--prefix {prefix!r}: {exc}") from None
    result = check_overrides(load_manifest(manifest), target)
    if as_json:
        click.echo(json.dumps(result.model_dump(mode="json"), indent=2))
    else:
        _render_overrides(result, Console(soft_wrap=True))
    if not result.clean:
        raise SystemExit(1)
