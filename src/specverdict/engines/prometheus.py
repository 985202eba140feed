"""Reading vLLM-style speculative-decoding counters from a Prometheus text exposition.

Parsed with ``prometheus_client.parser`` (never by string splitting: ``..._accepted_tokens_per_pos``
contains ``..._accepted_tokens``). ``_created`` samples are ignored; series are summed over the
``engine`` label (one per data-parallel engine). Counters are cumulative since boot, so a run's
figures are deltas of two scrapes.
"""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

PREFIX = "vllm:spec_decode_"


@dataclass(frozen=True)
class SpecCounters:
    drafts: float = 0.0
    draft_tokens: float = 0.0
    accepted: float = 0.0
    accepted_per_pos: tuple[float, ...] = ()
    requests: float = 0.0  # vllm:request_success_total summed over reasons

    def __sub__(self, other: SpecCounters) -> SpecCounters:
        n = max(len(self.accepted_per_pos), len(other.accepted_per_pos))
        a = self.accepted_per_pos + (0.0,) * (n - len(self.accepted_per_pos))
        b = other.accepted_per_pos + (0.0,) * (n - len(other.accepted_per_pos))
        return SpecCounters(
            self.drafts - other.drafts,
            self.draft_tokens - other.draft_tokens,
            self.accepted - other.accepted,
            tuple(x - y for x, y in zip(a, b, strict=True)),
            self.requests - other.requests,
        )

    @property
    def acceptance_rate(self) -> float | None:
        """accepted / drafted tokens (no bonus token)."""
        return self.accepted / self.draft_tokens if self.draft_tokens else None

    @property
    def mean_accepted_length(self) -> float | None:
        """1 + accepted / drafts: tokens per verify step, bonus included."""
        return 1.0 + self.accepted / self.drafts if self.drafts else None


def parse_spec_counters(text: str) -> SpecCounters:
    values = {"num_drafts": 0.0, "num_draft_tokens": 0.0, "num_accepted_tokens": 0.0}
    per_pos: dict[int, float] = {}
    requests = 0.0
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if not sample.name.endswith("_total"):
                continue
            if sample.name == "vllm:request_success_total":
                requests += sample.value
            if not sample.name.startswith(PREFIX):
                continue
            key = sample.name[len(PREFIX) : -len("_total")]
            if key == "num_accepted_tokens_per_pos":
                pos = int(sample.labels["position"])
                per_pos[pos] = per_pos.get(pos, 0.0) + sample.value
            elif key in values:
                values[key] += sample.value
    n = max(per_pos) + 1 if per_pos else 0
    return SpecCounters(
        values["num_drafts"],
        values["num_draft_tokens"],
        values["num_accepted_tokens"],
        tuple(per_pos.get(i, 0.0) for i in range(n)),
        requests,
    )
