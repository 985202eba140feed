"""The audits a run takes before its measured requests, recorded in its manifest.

- **Loader**: the checkpoints' inventories against what the engine loaded. On the reference
  engine this is automatic (its ``/debug/load_report``, the shipped or configured checkpoints);
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

from pathlib import Path

from specverdict.audit.inventory import Inventory, inventory_checkpoint
from specverdict.audit.loader import compare_loaded, read_loaded
from specverdict.audit.overrides import CommandPrefix, Directory, check_overrides, load_manifest
from specverdict.campaign.model import Campaign
from specverdict.campaign.spec import RunSpec
from specverdict.errors import SpecverdictError
from specverdict.records import Audits, LoaderOutcome, OverridesOutcome
from specverdict.reference.weights import shipped


def _reference_checkpoints(campaign: Campaign, spec: RunSpec) -> dict[str, Path]:
    out = {"target": Path(campaign.model.path) if campaign.model.path else shipped("target")}
    method = spec.speculation.method
    if method == "draft_model":
        out["draft"] = Path(spec.speculation.draft) if spec.speculation.draft else shipped("draft")
    elif method == "mtp":
        out["mtp"] = Path(spec.speculation.draft) if spec.speculation.draft else shipped("mtp")
    return out


def loader_audit(campaign: Campaign, spec: RunSpec, base_url: str) -> LoaderOutcome | None:
    """The loader audit of this run, or None when the campaign configures none."""
    cfg = campaign.audits.loader
    try:
        if campaign.engine.kind == "reference":
            paths = _reference_checkpoints(campaign, spec)
            if cfg is not None and cfg.checkpoint:
                paths["target"] = Path(cfg.checkpoint)
            if cfg is not None and cfg.draft_checkpoint and len(paths) > 1:
                paths[next(r for r in paths if r != "target")] = Path(cfg.draft_checkpoint)
            loaded = read_loaded(base_url + "/debug/load_report")
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
        audit = compare_loaded(inventories, loaded)
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
