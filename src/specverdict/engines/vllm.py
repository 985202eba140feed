"""vLLM: ``--speculative-config`` JSON; acceptance from per-request metrics, else counter deltas.

Per-request: ``metrics.speculative_decoding`` (``--per-request-spec-decode-metrics``; fields of
``SpeculativeDecodingMetrics`` in ``vllm/entrypoints/generate/base/protocol.py``). Counters:
``vllm:spec_decode_*_total`` summed over ``engine`` labels (``vllm/v1/spec_decode/metrics.py``),
valid only if the server's request count moved by exactly this run's requests: other traffic would
pollute the figures.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from specverdict.campaign.spec import RunSpec
from specverdict.engines.base import AcceptanceSummary, EngineAdapter
from specverdict.engines.prometheus import parse_spec_counters
from specverdict.store.records import MetricsSnapshot, SampleRecord


def vllm_speculative_config(spec: RunSpec) -> dict[str, Any] | None:
    sp = spec.speculation
    if sp.method == "none":
        return None
    config: dict[str, Any] = {"method": sp.method, "num_speculative_tokens": sp.k}
    if sp.draft is not None:
        config["model"] = sp.draft
    if sp.draft_quantization is not None:
        config["quantization"] = sp.draft_quantization
    config.update(dict(sp.params))
    return config


def per_request_summary(samples: Sequence[SampleRecord]) -> AcceptanceSummary | None:
    """Sum per-request speculation counts; None unless every answered sample carries them."""
    answered = [s for s in samples if s.status == "ok"]
    found = [s.acceptance for s in answered if s.acceptance]
    if not answered or len(found) != len(answered):
        return None
    k = max(len(m.get("acceptance_histogram", [])) for m in found) - 1
    per_pos = [0.0] * max(k, 0)
    for m in found:
        hist = m.get("acceptance_histogram", [])
        for pos in range(len(per_pos)):
            per_pos[pos] += sum(hist[pos + 1 :])
    return AcceptanceSummary(
        source="per-request",
        valid=True,
        drafts=float(sum(m["num_spec_steps"] for m in found)),
        draft_tokens=float(sum(m["num_draft_tokens"] for m in found)),
        accepted=float(sum(m["num_accepted_draft_tokens"] for m in found)),
        accepted_per_pos=tuple(per_pos),
    )


class VLLMAdapter(EngineAdapter):
    kind = "vllm"

    def speculative_args(self, spec: RunSpec) -> list[str]:
        config = vllm_speculative_config(spec)
        if config is None:
            return []
        return ["--speculative-config", json.dumps(config, separators=(",", ":"))]

    def summarize_acceptance(
        self,
        spec: RunSpec,
        samples: Sequence[SampleRecord],
        snapshots: dict[str, MetricsSnapshot],
        segment_requests: int,
    ) -> AcceptanceSummary:
        if spec.speculation.method == "none":
            return AcceptanceSummary(source="none", valid=True, why="no speculation")
        per_request = per_request_summary(samples)
        if per_request is not None:
            return per_request
        if "before" not in snapshots or "after" not in snapshots:
            return AcceptanceSummary(
                source="none", valid=False, why="no per-request metrics and no /metrics snapshots"
            )
        delta = parse_spec_counters(snapshots["after"].text) - parse_spec_counters(
            snapshots["before"].text
        )
        common = {
            "drafts": delta.drafts,
            "draft_tokens": delta.draft_tokens,
            "accepted": delta.accepted,
            "accepted_per_pos": delta.accepted_per_pos,
        }
        if delta.requests != segment_requests:
            return AcceptanceSummary(
                source="metrics-delta",
                valid=False,
                **common,
                why=f"polluted: the server finished {delta.requests:g} requests during the run, "
                f"the run sent {segment_requests}",
            )
        return AcceptanceSummary(source="metrics-delta", valid=True, **common)
