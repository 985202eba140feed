"""A pair's history in the registry is its look history.

A fixed design (no ``--until-decided``) fixes its sample count and seed before its first
sample, so its verdict is one look. But users re-run: the verdict was INCONCLUSIVE at
``first: 120``, so they raise it to 400 and read the verdict again, or try another seed at
temperature > 0. Each re-run is new executions of the same comparison, and a fixed-n gate read
at full alpha on every one errs more often the more re-runs (simulated: 27.9% false ADOPT at the
speed bar with 3% run drift when ``first: N`` is raised until ADOPT). So the registry's
executions of the same comparison on other samples or seeds are earlier looks of this pair,
and its verdict is read at the next look's share of alpha (``stats.looks.rerun_share``).

The same comparison is the candidate's configuration with everything equal but the sample
selection and the sampling seed (``family_key``); an earlier look is another such
configuration (a distinct fingerprint) with a completed execution created before the
candidate's first one. Resample executions (``RunManifest.resample_of``) are the resample
budget's looks, not these. A registry the user deletes takes its history with it: the look
count is what the registry knows.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

from specverdict.campaign.spec import RunSpec
from specverdict.records import RunRecord

#: family keys by fingerprint (a fingerprint fixes the identity, so its family)
_KEYS: dict[str, str] = {}


def family_key(spec: RunSpec, fingerprint: str | None = None) -> str:
    """The comparison a configuration is part of: its identity without the sample selection
    and the sampling seed (what a re-run changes to look again). ``fingerprint``: the spec's,
    when the caller has it stored (it keys a cache)."""
    fingerprint = spec.fingerprint if fingerprint is None else fingerprint
    found = _KEYS.get(fingerprint)
    if found is not None:
        return found
    identity = spec.identity()
    identity.pop("samples", None)
    sampling = dict(identity.get("sampling") or {})
    sampling.pop("seed", None)
    identity["sampling"] = sampling
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    key = _KEYS[fingerprint] = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    return key


@dataclass(frozen=True, slots=True)
class Earlier:
    """An earlier look: a configuration of the same comparison, first executed at ``at``."""

    fingerprint: str
    run_id: str
    samples: str
    seed: int | None
    at: float


def _samples(spec: RunSpec) -> str:
    sel = spec.samples
    if isinstance(sel, str):
        return sel
    return json.dumps(sel.model_dump(mode="json", exclude_none=True), sort_keys=True)


def earlier_looks(
    runs: Sequence[RunRecord], spec: RunSpec, run_ids: Sequence[str]
) -> list[Earlier]:
    """The configurations of ``spec``'s comparison, on other samples or seeds, executed (and
    completed) before the first of ``run_ids``, oldest first."""
    ours = [r for r in runs if r.run_id in set(run_ids)]
    start = min((r.created_at for r in ours), default=time.time())
    mine = spec.fingerprint
    key = family_key(spec, mine)
    first: dict[str, RunRecord] = {}
    for r in sorted(runs, key=lambda r: r.created_at):
        if r.fingerprint == mine or r.status != "completed":
            continue
        if r.created_at >= start or r.manifest.resample_of is not None:
            continue
        if r.fingerprint in first or family_key(r.spec, r.fingerprint) != key:
            continue
        first[r.fingerprint] = r
    return [
        Earlier(
            fingerprint=f,
            run_id=r.run_id,
            samples=_samples(r.spec),
            seed=r.spec.sampling.seed,
            at=r.created_at,
        )
        for f, r in first.items()
    ]


def describe(earlier: Sequence[Earlier]) -> str:
    """The earlier looks in a line: "judged before on first 120 (run ab12cd)" ..."""
    parts = []
    for e in earlier[:3]:
        seed = "" if e.seed is None else f", seed {e.seed}"
        parts.append(f"samples {e.samples}{seed} (run {e.run_id})")
    more = f" and {len(earlier) - 3} more" if len(earlier) > 3 else ""
    return "measured before on " + "; ".join(parts) + more
