"""Reading speculative-decoding counters from a Prometheus text exposition: one reader of the
counter family for every engine that exports it (vLLM, SGLang, llama.cpp).

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
    def went_back(self) -> bool:
        """A delta in which a cumulative counter fell: the server restarted between the two
        scrapes (its counters began again at zero), not other traffic."""
        return min(self.drafts, self.draft_tokens, self.accepted, self.requests) < 0 or any(
            x < 0 for x in self.accepted_per_pos
        )

    @property
    def acceptance_rate(self) -> float | None:
        """accepted / drafted tokens (no bonus token)."""
        return self.accepted / self.draft_tokens if self.draft_tokens else None

    @property
    def mean_accepted_length(self) -> float | None:
        """1 + accepted / drafts: tokens per verify step, bonus included."""
        return 1.0 + self.accepted / self.drafts if self.drafts else None


@dataclass(frozen=True)
class SpecFamily:
    """The speculative-decoding counter family of one scrape, under an engine's prefix
    (``vllm:spec_decode_``, ``llamacpp:spec_decode_``, ...); a series the server did not expose
    is None. ``totals`` holds the other ``_total`` counters asked for, by name."""

    drafts: float | None
    draft_tokens: float | None
    accepted: float | None
    accepted_per_pos: tuple[float, ...]
    totals: dict[str, float | None]


def read_spec_family(text: str, prefix: str, totals: tuple[str, ...] = ()) -> SpecFamily:
    """``PREFIX{num_drafts,num_draft_tokens,num_accepted_tokens,num_accepted_tokens_per_pos}``
    and the ``totals`` named, each summed over its label sets (one per data-parallel engine;
    per position for ``..._per_pos``). Counter samples only (``_total``): ``_created`` is not a
    count."""
    keys = ("num_drafts", "num_draft_tokens", "num_accepted_tokens")
    values: dict[str, float] = {}
    per_pos: dict[int, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            name = sample.name
            if not name.endswith("_total"):
                continue
            if name == f"{prefix}num_accepted_tokens_per_pos_total":
                pos = int(sample.labels["position"])
                per_pos[pos] = per_pos.get(pos, 0.0) + sample.value
            elif name in totals or (name.startswith(prefix) and name[len(prefix) : -6] in keys):
                values[name] = values.get(name, 0.0) + sample.value
    n = max(per_pos) + 1 if per_pos else 0
    return SpecFamily(
        drafts=values.get(f"{prefix}num_drafts_total"),
        draft_tokens=values.get(f"{prefix}num_draft_tokens_total"),
        accepted=values.get(f"{prefix}num_accepted_tokens_total"),
        accepted_per_pos=tuple(per_pos.get(i, 0.0) for i in range(n)),
        totals={name: values.get(name) for name in totals},
    )


def parse_spec_counters(text: str) -> SpecCounters:
    """vLLM's counters (absent series count 0) and its finished requests."""
    f = read_spec_family(text, PREFIX, ("vllm:request_success_total",))
    return SpecCounters(
        f.drafts or 0.0,
        f.draft_tokens or 0.0,
        f.accepted or 0.0,
        f.accepted_per_pos,
        f.totals["vllm:request_success_total"] or 0.0,
    )


def process_start(text: str) -> float | None:
    """The serving process's start time (``process_start_time_seconds``, which
    prometheus-client's default process collector exports, vLLM's among them), or None. Two
    scrapes with different start times came from two processes: a restart between them."""
    for line in text.splitlines():
        if line.startswith("process_start_time_seconds "):
            try:
                return float(line.split()[1])
            except (IndexError, ValueError):
                return None
    return None
