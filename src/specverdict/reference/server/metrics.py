"""Prometheus metrics with vLLM's names, help texts and labels.

Names and labels follow ``vllm/v1/spec_decode/metrics.py`` (``SpecDecodingProm``) and
``vllm/v1/metrics/loggers.py``: counters registered without ``_total`` (the client library adds it),
labels ``model_name`` and ``engine`` (``"0"`` for a single engine), ``position`` ``"0".."k-1"`` on
the per-position counter, and every ``finished_reason`` of ``vllm:request_success`` created at 0.
Spec-decode counters exist only when speculation is configured, as in vLLM.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, ProcessCollector, generate_latest

FINISHED_REASONS = ("stop", "length", "abort", "error", "repetition")
LABELS = ["model_name", "engine"]


class PrometheusSink:
    def __init__(self, model_name: str, num_spec_tokens: int | None) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        # process_* series as vLLM exports them, its start time among them: a client that
        # reads two scrapes from two processes can tell that the server restarted in between
        ProcessCollector(registry=self.registry)
        base = {"model_name": model_name, "engine": "0"}
        r = self.registry
        self._prompt = Counter(
            "vllm:prompt_tokens", "Number of prefill tokens processed.", LABELS, registry=r
        ).labels(**base)
        self._generation = Counter(
            "vllm:generation_tokens", "Number of generation tokens processed.", LABELS, registry=r
        ).labels(**base)
        success = Counter(
            "vllm:request_success",
            "Count of successfully processed requests.",
            [*LABELS, "finished_reason"],
            registry=r,
        )
        self._success = {f: success.labels(**base, finished_reason=f) for f in FINISHED_REASONS}
        self.running = Gauge(
            "vllm:num_requests_running",
            "Number of requests in model execution batches.",
            LABELS,
            registry=r,
        ).labels(**base)
        self.waiting = Gauge(
            "vllm:num_requests_waiting",
            "Number of requests waiting to be processed.",
            LABELS,
            registry=r,
        ).labels(**base)
        self._cache_queries = Counter(
            "vllm:prefix_cache_queries",
            "Prefix cache queries, in terms of number of queried tokens.",
            LABELS,
            registry=r,
        ).labels(**base)
        self._cache_hits = Counter(
            "vllm:prefix_cache_hits",
            "Prefix cache hits, in terms of number of cached tokens.",
            LABELS,
            registry=r,
        ).labels(**base)
        self._spec = num_spec_tokens is not None
        if num_spec_tokens is not None:
            self._drafts = Counter(
                "vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", LABELS, registry=r
            ).labels(**base)
            self._draft_tokens = Counter(
                "vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", LABELS, registry=r
            ).labels(**base)
            self._accepted = Counter(
                "vllm:spec_decode_num_accepted_tokens",
                "Number of accepted tokens.",
                LABELS,
                registry=r,
            ).labels(**base)
            per_pos = Counter(
                "vllm:spec_decode_num_accepted_tokens_per_pos",
                "Accepted tokens per draft position.",
                [*LABELS, "position"],
                registry=r,
            )
            self._per_pos = [
                per_pos.labels(**base, position=str(i)) for i in range(num_spec_tokens)
            ]

    def prompt_tokens(self, n: int) -> None:
        self._prompt.inc(n)

    def generation_tokens(self, n: int) -> None:
        self._generation.inc(n)

    def spec_step(self, drafted: int, accepted: int) -> None:
        if not self._spec:
            return
        self._drafts.inc()
        self._draft_tokens.inc(drafted)
        self._accepted.inc(accepted)
        for i in range(accepted):
            self._per_pos[i].inc()

    def request_finished(self, reason: str) -> None:
        self._success[reason].inc()

    def prefix_cache(self, queried: int, hit: int) -> None:
        self._cache_queries.inc(queried)
        self._cache_hits.inc(hit)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
