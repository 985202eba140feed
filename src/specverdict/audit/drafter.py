"""What kind of drafter a checkpoint holds, from its tensor names and shapes, against the
method it is served as.

Drafters of different families can share a checkpoint layout: DeepSeek-V4-Flash-0731 stores a
DSpark drafter under ``mtp.*`` (a block drafter plus ``markov_head`` and ``confidence_head``,
without classic MTP's ``enorm``/``hnorm``/``eh_proj``), and served as ``method: mtp`` it half-
loads: the server starts, the outputs stay correct, acceptance drops (vLLM PR #41834). The
generic loader audit sees its extra tensors as "not loaded"; this module says what they mean.

- **DSpark served as MTP**: a checkpoint with ``markov_head`` or ``confidence_head`` tensors
  served as ``mtp``; each such tensor is a finding.
- **EAGLE-3 without its feature fusion**: served as ``eagle3``, a checkpoint with no ``fc``
  weight whose input is three times its output (EAGLE-3 fuses the target's low, middle and high
  layers' features); an EAGLE-1/2 head (``fc`` of twice the width) is not an EAGLE-3 head.
- **Medusa with fewer heads than k**: served as ``medusa`` with k draft tokens, a checkpoint
  whose head indices (``medusa_head.N``, vLLM's ``blocks.N``, the reference engine's
  ``medusa.res.N``) number fewer than k.
"""

from __future__ import annotations

import re

from specverdict.audit.inventory import Inventory
from specverdict.records.audits import Finding

DSPARK_PARTS = ("markov_head", "confidence_head")
#: a Medusa head's index: FasterDecoding's ``medusa_head.N``, vLLM's ``blocks.N``, the
#: reference engine's ``medusa.res.N``
_MEDUSA_HEAD = re.compile(r"(?:^|\.)(?:medusa_heads?|blocks|medusa\.res)\.(\d+)\.")


def drafter_findings(inventory: Inventory, method: str | None, k: int | None) -> list[Finding]:
    """Findings on a drafter checkpoint served as ``method`` with ``k`` draft tokens."""
    if method is None:
        return []
    names = [t.name for t in inventory.tensors]
    if method == "mtp":
        parts = [t for t in inventory.tensors if any(p in t.name for p in DSPARK_PARTS)]
        return [
            Finding(
                name=t.name,
                role=t.role,
                detail="a DSpark drafter's tensor (markov_head, confidence_head) served as mtp: "
                "the drafter half-loads (it starts, outputs stay correct, acceptance drops); "
                "serve it as method dspark",
            )
            for t in parts
        ]
    if method == "eagle3":
        fused = [
            t
            for t in inventory.tensors
            if re.search(r"(?:^|\.)fc\.weight$", t.name)
            and len(t.shape) == 2
            and t.shape[1] == 3 * t.shape[0]
        ]
        if fused:
            return []
        fcs = [n for n in names if re.search(r"(?:^|\.)fc\.weight$", n)]
        return [
            Finding(
                name=fcs[0] if fcs else "fc.weight",
                role="mtp_eagle",
                detail="served as eagle3 without EAGLE-3's feature fusion (an fc over three "
                "target layers' features, input three times its output): "
                + ("an EAGLE-1/2 head" if fcs else "no fc weight at all"),
            )
        ]
    if method == "medusa" and k is not None:
        heads = {int(m.group(1)) for n in names if (m := _MEDUSA_HEAD.search(n))}
        if heads and len(heads) < k:
            return [
                Finding(
                    name=f"medusa_head.{len(heads)}",
                    role="mtp_eagle",
                    detail=f"the checkpoint has {len(heads)} Medusa heads for k={k}: positions "
                    f"{len(heads) + 1} to {k} have no head",
                )
            ]
    return []
