"""The audits a run takes before its measured requests, recorded in its manifest.

- **Loader**: the checkpoints' inventories against what the engine loaded. On the reference
  engine this is automatic: its adapter reads ``GET /debug/load_report`` over HTTP, and each
  model is audited against the checkpoint the campaign names or else the directory the report
  says it was loaded from (the shipped one when the engine was given none);
  elsewhere it needs ``audits.loader`` in the campaign (checkpoint paths and a file of loaded
  parameter names, see ``docs/engines/loaded-parameters.md``).
- **Overrides**: the campaign's override manifest checked in a directory or through a command
  prefix (``docker exec NAME``).

Each result is stored as its JSON with a ``findings`` list (one line per problem), which the
verdicts attach to a triage; override entries keep their per-path ``status`` so that drift
between runs of the same fingerprint is visible. An audit that cannot run is recorded with
``error``, never silently skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from specverdict.audit.inventory import Inventory, inventory_checkpoint
from specverdict.audit.loader import LoadedModel, compare_loaded, read_loaded
from specverdict.audit.overrides import CommandPrefix, Directory, check_overrides, load_manifest
from specverdict.campaign.model import Campaign
from specverdict.campaign.spec import RunSpec
from specverdict.engines.reference import ReferenceAdapter
from specverdict.errors import ConfigError, SpecverdictError
from specverdict.records import Audits, LoaderOutcome, OverridesOutcome

#: the model a speculation method adds beside the target, by the role the engine reports
_SPEC_ROLE = {
    "draft_model": "draft",
    "mtp": "mtp",
    "medusa": "medusa",
    "dflash": "dflash",
    "eagle3": "eagle3",
    "dspark": "dspark",
}


def _reference_checkpoints(
    campaign: Campaign, spec: RunSpec, loaded: Sequence[LoadedModel]
) -> dict[str, Path]:
    """The checkpoint to audit each model of this run against: the one the campaign names
    (``audits.loader``, then ``model.path`` or ``speculation.draft``), else the directory the
    engine's load report says the model came from (its shipped checkpoint when it was given
    none)."""
    cfg = campaign.audits.loader
    named: dict[str, str | None] = {
        "target": (cfg.checkpoint if cfg else None) or campaign.model.path
    }
    role = _SPEC_ROLE.get(spec.speculation.method)
    if role is not None:
        named[role] = (cfg.draft_checkpoint if cfg else None) or spec.speculation.draft
    reported = {m.role: m.path for m in loaded}
    out: dict[str, Path] = {}
    for r, path in named.items():
        chosen = path or reported.get(r)
        if chosen is None:
            raise ConfigError(
                f"the engine's load report names no checkpoint for model {r!r}: give "
                "audits.loader.checkpoint / draft_checkpoint"
            )
        out[r] = Path(chosen)
    return out


def loader_audit(campaign: Campaign, spec: RunSpec, base_url: str) -> LoaderOutcome | None:
    """The loader audit of this run, or None when the campaign configures none."""
    cfg = campaign.audits.loader
    try:
        if campaign.engine.kind == "reference":
            loaded = ReferenceAdapter().load_report(base_url)
            paths = _reference_checkpoints(campaign, spec, loaded)
        elif cfg is not None and cfg.loaded_names:
            role = "draft" if cfg.draft_checkpoint else "target"
            ckpt = cfg.draft_checkpoint or cfg.checkpoint
            if not ckpt:
                return LoaderOutcome(
                    error="audits.loader.loaded_names needs checkpoint or draft_checkpoint"
                )
            paths = {role: Path(ckpt)}
            loaded = read_loaded(cfg.loaded_names, role=role)
        else:
            return None
        inventories: dict[str, Inventory] = {r: inventory_checkpoint(p) for r, p in paths.items()}
        sp = spec.speculation
        audit = compare_loaded(inventories, loaded, method=sp.method, k=sp.k)
    except (SpecverdictError, OSError, ValueError, KeyError) as exc:
        return LoaderOutcome(error=f"loader audit could not run: {exc}")
    return LoaderOutcome(audit=audit)


def overrides_audit(campaign: Campaign) -> OverridesOutcome | None:
    cfg = campaign.audits.overrides
    if cfg is None:
        return None
    try:
        manifest = load_manifest(cfg.manifest)
        target: Directory | CommandPrefix = (
            CommandPrefix.parse(cfg.via) if cfg.via else Directory(root=cfg.root or ".")
        )
        audit = check_overrides(manifest, target)
    except (SpecverdictError, OSError, ValueError) as exc:
        return OverridesOutcome(error=f"override audit could not run: {exc}")
    return OverridesOutcome(audit=audit)


def run_audits(campaign: Campaign, spec: RunSpec, base_url: str) -> Audits:
    """Every configured audit for this run."""
    return Audits(
        loader=loader_audit(campaign, spec, base_url), overrides=overrides_audit(campaign)
    )
