"""Slices of a stage: the same pair judged on the samples of one category, prompt-length bin
or metadata value, so that a verdict over a mix does not hide where a setting wins or loses
(acceptance decays with context length; a category can break while the mix holds).

A slice's arms keep only its samples, and its acceptance is what those samples carried per
request (counters cover the whole run and cannot be sliced). Slice verdicts join the
campaign's family: Holm (or BH) holds their ADOPTs too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import pairwise

from specverdict.campaign.model import MetadataSlice, PromptLengthSlice, Slice
from specverdict.engines.registry import adapter_for
from specverdict.suites import Sample
from specverdict.verdict.judge import Arm


def bin_label(tokens: int, bins: Sequence[int]) -> str:
    """``prompt_tokens<b0``, ``prompt_tokens b0-b1`` (b1 excluded), ``prompt_tokens>=bn``."""
    if tokens < bins[0]:
        return f"prompt_tokens<{bins[0]}"
    for lo, hi in pairwise(bins):
        if lo <= tokens < hi:
            return f"prompt_tokens {lo}-{hi}"
    return f"prompt_tokens>={bins[-1]}"


def slice_of(spec: Slice, samples: Sequence[Sample], base: Arm) -> dict[str, str]:
    """Each sample's slice value (``sample id -> label``); samples without one are left out."""
    if isinstance(spec, PromptLengthSlice):
        return {
            s.sample_id: bin_label(s.prompt_tokens, spec.prompt_tokens)
            for s in base.first
            if s.prompt_tokens is not None
        }
    key = "category" if spec == "category" else f"metadata.{spec.metadata}"
    assert spec == "category" or isinstance(spec, MetadataSlice)
    return {s.id: f"{key}={s.labels[key]}" for s in samples if key in s.labels}


def restrict(arm: Arm, ids: set[str]) -> Arm:
    """The arm on ``ids`` only, its acceptance recomputed from their per-request figures."""
    runs = tuple(tuple(s for s in run if s.sample_id in ids) for run in arm.samples)
    adapter = adapter_for(arm.spec.engine.kind)
    acc = tuple(adapter.summarize_acceptance(arm.spec, run, {}, 0) for run in runs)
    return replace(arm, samples=runs, acceptance=acc[0] if acc else None, acceptances=acc)


def groups(spec: Slice, values: Mapping[str, str]) -> dict[str, set[str]]:
    """Sample ids by slice label: prompt-length bins shortest first, other labels sorted."""
    out: dict[str, set[str]] = {}
    for sid, label in values.items():
        out.setdefault(label, set()).add(sid)
    if isinstance(spec, PromptLengthSlice):
        bins = spec.prompt_tokens
        order = [bin_label(b - 1, bins) for b in bins] + [bin_label(bins[-1], bins)]
        return {label: out[label] for label in order if label in out}
    return dict(sorted(out.items()))
