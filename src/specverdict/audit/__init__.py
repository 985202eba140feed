"""Diagnostics that catch silent deployment failures before anyone blames the method.

- :func:`inventory_checkpoint`: what a checkpoint holds (safetensors headers only), by role.
- :func:`compare_loaded`: what an engine loaded against that inventory (missing, unexpected,
  left at initialisation, shape or dtype mismatches), with one verdict line per model.
- :func:`check_overrides`: whether the expected override files are present and unchanged, in a
  directory or through a command prefix such as ``docker exec NAME``.

Every result is a frozen pydantic model; ``model_dump(mode="json")`` gives its JSON form.
"""

from specverdict.audit.inventory import ROLES, Inventory, TensorInfo, inventory_checkpoint, role_of
from specverdict.audit.loader import (
    LoadedModel,
    compare_loaded,
    parse_loaded,
    read_loaded,
)
from specverdict.audit.overrides import (
    CommandPrefix,
    Directory,
    OverrideManifest,
    check_overrides,
    load_manifest,
    parse_manifest,
)
from specverdict.records.audits import LoaderAudit, ModelAudit, OverrideAudit

__all__ = [
    "ROLES",
    "CommandPrefix",
    "Directory",
    "Inventory",
    "LoadedModel",
    "LoaderAudit",
    "ModelAudit",
    "OverrideAudit",
    "OverrideManifest",
    "TensorInfo",
    "check_overrides",
    "compare_loaded",
    "inventory_checkpoint",
    "load_manifest",
    "parse_loaded",
    "parse_manifest",
    "read_loaded",
    "role_of",
]
