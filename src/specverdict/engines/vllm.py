"""vLLM: ``--speculative-config`` JSON; acceptance from per-request metrics, else counter deltas.

Per-request: ``metrics.speculative_decoding`` (``--per-request-spec-decode-metrics``; fields of
``SpeculativeDecodingMetrics`` in ``vllm/entrypoints/generate/base/protocol.py``). Counters:
``vllm:spec_decode_*_total`` summed over ``engine`` labels (``vllm/v1/spec_decode/metrics.py``),
valid only if the server's request count moved by exactly this run's requests: other traffic would
pollute the figures.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from specverdict.campaign.spec import RunSpec
from specverdict.engines.base import (
    AcceptanceSummary,
    EngineAdapter,
    canonical_acceptance,
    per_request_summary,
)
from specverdict.engines.prometheus import PREFIX, parse_spec_counters
from specverdict.store.records import MetricsSnapshot, SampleRecord

#: campaign quantization labels that are plain dtypes for vLLM
DTYPES = {
    "bf16": "bfloat16",
    "bfloat16": "bfloat16",
    "fp16": "float16",
    "float16": "float16",
    "fp32": "float32",
    "float32": "float32",
    "auto": "auto",
}


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


class VLLMAdapter(EngineAdapter):
    kind = "vllm"

    def speculative_args(self, spec: RunSpec, run_dir: str = ".") -> list[str]:
        config = vllm_speculative_config(spec)
        if config is None:
            return []
        return ["--speculative-config", json.dumps(config, separators=(",", ":"))]

    def builtin_command(
        self, spec: RunSpec, model: str, host: str, port: int, run_dir: str
    ) -> list[str] | None:
        """``vllm serve`` (docs/cli/serve.md); a dtype-like quantization is passed as ``--dtype``,
        anything else as ``--quantization``."""
        command = ["vllm", "serve", model, "--host", host, "--port", str(port)]
        command += ["--served-model-name", spec.model.served_name]
        q = spec.quantization
        command += ["--dtype", DTYPES[q]] if q in DTYPES else ["--quantization", q]
        return command + self.speculative_args(spec, run_dir)

    def per_request_acceptance(self, extras: Mapping[str, Any]) -> dict[str, Any] | None:
        metrics = extras.get("metrics")
        sd = metrics.get("speculative_decoding") if isinstance(metrics, dict) else None
        if not isinstance(sd, dict):
            return None
        return canonical_acceptance(
            sd,
            sd.get("num_draft_tokens"),
            sd.get("num_accepted_draft_tokens"),
            sd.get("num_spec_steps"),
            sd.get("acceptance_histogram"),
        )

    async def probe(self, client: httpx.AsyncClient, base_url: str) -> dict[str, Any]:
        try:
            resp = await client.get(base_url + "/metrics", timeout=10)
        except httpx.HTTPError as exc:
            return {"/metrics": f"unavailable: {type(exc).__name__}"}
        if resp.status_code != 200:
            return {"/metrics": f"HTTP {resp.status_code}"}
        found = sorted(
            {
                line.split("{")[0].split(" ")[0]
                for line in resp.text.splitlines()
                if line.startswith(PREFIX) and "_total" in line
            }
        )
        return {
            "/metrics": "ok",
            "spec_counters": found,
            "per_request": "metrics.speculative_decoding, if the server was started with "
            "--per-request-spec-decode-metrics (seen on the first answer)",
        }

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
                polluted=True,
                **common,
                why=f"polluted: the server finished {delta.requests:g} requests during the run, "
                f"the run sent {segment_requests}",
            )
        return AcceptanceSummary(source="metrics-delta", valid=True, **common)
