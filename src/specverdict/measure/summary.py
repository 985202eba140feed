"""Latency, throughput and outcome summaries of one run's samples.

- TTFT: time to the first chunk that carried output.
- Output tokens of a sample (``output_tokens``): the harness's own count of its text's tokens
  when the runner could count them (``engines.tokens``), else the server's
  ``usage.completion_tokens``. A server's count is not believed: one that overstates it would
  look faster by the same factor.
- TPOT (vLLM's definition, over the output tokens above): (e2e - TTFT) / (tokens - 1), for
  samples with >= 2 tokens that did not arrive in a single event (then it is not measured:
  None, never 0).
- Output tokens/s of a run: its completion tokens / the wall time from the first send to the last
  arrival (``wall_s``, measured by the runner); per-request figures are not averaged into it.
- Clock: when every answered sample was timed on the engine's modelled device clock (the
  reference engine's ``--device-clock virtual``), every figure is on that clock, tokens/s over
  the samples' span on it (first arrival to last end); ``clock`` says which.
- ITL (inter-token latency, as vLLM's benchmark reports it): the gaps between consecutive chunks
  that carried output, pooled over the run's samples (a speculative step's chunk carries several
  tokens, so its gap is one gap). E2E: time from sending to the last output.
- Request throughput: answered requests per second of the same wall time as tokens/s.
- Speed metric of a sample (``speed_value``, what the speed gate compares; design note 023):
  ``tpot`` as above; ``e2e`` the end-to-end latency (an agent episode's turns on engine time);
  ``ttft``; ``output_throughput`` through its inverse, e2e / completion tokens (seconds per
  output token of the whole request, first token included), so that for every metric lower is
  faster and the speed-up is the baseline's mean over the candidate's.
- Goodput (vLLM's ``--goodput``): a successful request is good when each metric named by the
  targets (``ttft``, ``tpot``, ``e2el``, in seconds) is at most its target; a TPOT not
  measured meets its target (vLLM counts it 0). Goodput: good requests per second of the same
  wall time as request throughput; failed requests are never good.
- Percentiles: linear interpolation between order statistics (numpy's default), None when there
  are no values; p50, p90, p95 and p99 as vLLM's and GuideLLM's reports give them. Failed
  samples are counted apart and never enter latency figures.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from specverdict.records import SampleRecord


def percentile(values: Sequence[float], q: float) -> float | None:
    return float(np.percentile(np.asarray(values, dtype=float), q)) if values else None


def counted_tokens(sample: SampleRecord) -> int | None:
    """The harness's count of the sample's output tokens (``engines.tokens``), if it has one."""
    counted = sample.extra.counted_tokens
    return counted if counted is not None and counted >= 0 else None


def output_tokens(sample: SampleRecord) -> int | None:
    """The sample's output tokens as counted by the harness, else as the server reported."""
    counted = counted_tokens(sample)
    return counted if counted is not None else sample.completion_tokens


def tpot(sample: SampleRecord) -> float | None:
    tokens = output_tokens(sample)
    if sample.ttft_s is None or sample.e2e_s is None or not tokens:
        return None
    if tokens < 2 or sample.e2e_s <= sample.ttft_s:
        # all tokens in one event (a short answer under speculation, a server that buffers):
        # the time per token after the first is not measured, not zero
        return None
    return (sample.e2e_s - sample.ttft_s) / (tokens - 1)


SPEED_METRIC_WORDS = {
    "tpot": "TPOT",
    "e2e": "end-to-end latency",
    "ttft": "TTFT",
    "output_throughput": "output throughput",
}


def speed_value(sample: SampleRecord, metric: str) -> float | None:
    """The sample's value of a speed metric, lower is faster (None: not measured)."""
    if metric == "tpot":
        return tpot(sample)
    value: float | None
    if metric == "ttft":
        value = sample.ttft_s
    elif metric == "e2e":
        value = sample.e2e_s
    elif metric == "output_throughput":
        tokens = output_tokens(sample)
        value = sample.e2e_s / tokens if sample.e2e_s is not None and tokens else None
    else:
        known = ", ".join(SPEED_METRIC_WORDS)
        raise ValueError(f"unknown speed metric {metric!r}; known: {known}")
    # a time that is not a positive number was not measured (a clock fault, a lost event)
    return value if value is not None and 0 < value < math.inf else None


def is_good(sample: SampleRecord, targets_s: Mapping[str, float]) -> bool:
    """Whether a request meets every named target (vLLM's goodput rule: each <= its SLO)."""
    if sample.status != "ok":
        return False
    values = {"ttft": sample.ttft_s, "tpot": tpot(sample) or 0.0, "e2el": sample.e2e_s}
    for name, target in targets_s.items():
        value = values[name]
        if value is None or value > target:
            return False
    return True


class RunSummary(BaseModel):
    model_config = ConfigDict(frozen=True)

    samples: int
    ok: int
    errored: int
    output_tokens: int
    tokens_per_s: float | None
    ttft_p50_s: float | None
    ttft_p95_s: float | None
    tpot_p50_s: float | None
    tpot_p95_s: float | None
    mean_tpot_s: float | None
    ttft_p90_s: float | None = None
    ttft_p99_s: float | None = None
    tpot_p90_s: float | None = None
    tpot_p99_s: float | None = None
    itl_p50_s: float | None = None
    itl_p90_s: float | None = None
    itl_p99_s: float | None = None
    e2e_p50_s: float | None = None
    e2e_p90_s: float | None = None
    e2e_p99_s: float | None = None
    requests_per_s: float | None = None
    #: the goodput targets applied (seconds, keyed ttft / tpot / e2el); None: no slo given
    slo_s: dict[str, float] | None = None
    good_requests: int | None = None
    goodput_per_s: float | None = None
    finish_reasons: dict[str, int]
    errors: dict[str, int]
    clock: str = "host"


def summarize_samples(
    samples: Sequence[SampleRecord],
    wall_s: float | None,
    slo_s: Mapping[str, float] | None = None,
) -> RunSummary:
    """The run's figures; ``slo_s`` (seconds, keyed ttft / tpot / e2el) adds its goodput."""
    ok = [s for s in samples if s.status == "ok"]
    ttfts = [s.ttft_s for s in ok if s.ttft_s is not None]
    tpots = [t for s in ok if (t := tpot(s)) is not None]
    itls = [b - a for s in ok for a, b in itertools.pairwise(s.chunk_arrivals_s)]
    e2es = [s.e2e_s for s in ok if s.e2e_s is not None]
    tokens = sum(output_tokens(s) or 0 for s in ok)
    clock = "device" if ok and all(s.clock == "device" for s in ok) else "host"
    if clock == "device":
        spans = [span for s in ok if (span := s.device_span_s) is not None]
        if len(spans) == len(ok):
            wall_s = max(e for _, e in spans) - min(a for a, _ in spans)
    return RunSummary(
        samples=len(samples),
        ok=len(ok),
        errored=len(samples) - len(ok),
        output_tokens=tokens,
        tokens_per_s=tokens / wall_s if wall_s else None,
        ttft_p50_s=percentile(ttfts, 50),
        ttft_p95_s=percentile(ttfts, 95),
        tpot_p50_s=percentile(tpots, 50),
        tpot_p95_s=percentile(tpots, 95),
        mean_tpot_s=float(np.mean(tpots)) if tpots else None,
        ttft_p90_s=percentile(ttfts, 90),
        ttft_p99_s=percentile(ttfts, 99),
        tpot_p90_s=percentile(tpots, 90),
        tpot_p99_s=percentile(tpots, 99),
        itl_p50_s=percentile(itls, 50),
        itl_p90_s=percentile(itls, 90),
        itl_p99_s=percentile(itls, 99),
        e2e_p50_s=percentile(e2es, 50),
        e2e_p90_s=percentile(e2es, 90),
        e2e_p99_s=percentile(e2es, 99),
        requests_per_s=len(ok) / wall_s if wall_s else None,
        slo_s=dict(slo_s) if slo_s else None,
        good_requests=sum(is_good(s, slo_s) for s in ok) if slo_s else None,
        goodput_per_s=sum(is_good(s, slo_s) for s in ok) / wall_s if slo_s and wall_s else None,
        finish_reasons=dict(Counter(s.finish_reason or "none" for s in ok)),
        errors=dict(Counter(s.status for s in samples if s.status != "ok")),
        clock=clock,
    )
