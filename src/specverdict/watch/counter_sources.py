"""Watch sources that read a Prometheus text exposition: vLLM's and llama.cpp's cumulative
spec-decode counters, SGLang's verify-call counter, and SGLang's acceptance gauge.

Every exposition is parsed with ``prometheus_client.parser``; series are summed over their
label sets (data-parallel engines, ranks, ``is_streaming``).
"""

from __future__ import annotations

from typing import ClassVar

from prometheus_client.parser import text_string_to_metric_families

from specverdict.engines.llamacpp import SPEC_PREFIX as LLAMACPP_PREFIX
from specverdict.engines.prometheus import PREFIX, read_spec_family
from specverdict.watch.detect import Counters
from specverdict.watch.source import MetricsSource, Reading, SourceError

START_TIME = "process_start_time_seconds"


def _families(text: str) -> list[tuple[str, dict[str, str], float]]:
    try:
        return [
            (s.name, dict(s.labels), s.value)
            for family in text_string_to_metric_families(text)
            for s in family.samples
        ]
    except ValueError as exc:
        raise SourceError(f"not a Prometheus text exposition ({exc})") from None


def parse_counters(text: str, prefix: str = PREFIX) -> Counters:
    """The spec-decode counters of one exposition (absent series count 0) and the process
    start time: ``process_start_time_seconds``, else the drafts counter's ``_created``."""
    fam = read_spec_family(text, prefix)
    start = created = None
    for name, _, value in _families(text):
        if name == START_TIME:
            start = value
        elif name == f"{prefix}num_drafts_created":
            created = value if created is None else min(created, value)
    return Counters(
        drafts=fam.drafts or 0.0,
        draft_tokens=fam.draft_tokens or 0.0,
        accepted=fam.accepted or 0.0,
        start_time=start if start is not None else created,
        absent=fam.drafts is None and fam.draft_tokens is None and fam.accepted is None,
    )


class VLLMSource(MetricsSource):
    """``PREFIX{num_drafts,num_draft_tokens,num_accepted_tokens}_total``: vLLM's counters
    (``vllm/v1/spec_decode/metrics.py``), which the reference engine serves too. A family of the
    same names under another prefix is read by giving ``prefix``."""

    kind: ClassVar[str] = "vllm"
    default_prefix: ClassVar[str] = PREFIX

    def __init__(self, prefix: str | None = None) -> None:
        self.prefix = prefix or self.default_prefix

    def read(self, text: str, last: Counters | None) -> Reading:
        return Reading(counters=parse_counters(text, self.prefix))


class LlamaCppSource(VLLMSource):
    """llama-server's ``--metrics`` counters, vLLM's names under ``llamacpp:spec_decode_``."""

    kind: ClassVar[str] = "llamacpp"
    default_prefix: ClassVar[str] = LLAMACPP_PREFIX


#: SGLang's counters (``python/sglang/srt/metrics/collector.py``, ``TokenizerMetricsCollector``):
#: all three are incremented together when a request finishes, by its ``spec_verify_ct``, its
#: ``completion_tokens`` and 1 (``observe_one_finished_request``)
SGLANG_VERIFY = "sglang:spec_verify_calls_total"
SGLANG_GENERATED = "sglang:generation_tokens_total"
SGLANG_REQUESTS = "sglang:num_requests_total"
SGLANG_ACCEPT_LENGTH = "sglang:spec_accept_length"


class SGLangSource(MetricsSource):
    """SGLang's cumulative figures: verify steps D = ``spec_verify_calls``, accepted drafts
    A = generated tokens - D - finished requests (each request's first token comes from its
    prefill, each verify step gives its accepted drafts plus one token). MAL = 1 + A / D.

    SGLang counts no draft tokens, so windows have no acceptance rate, only MAL. The counters
    move when requests finish, so a window holds the requests finished in it (whole requests:
    run-delimited at request granularity). Tokens of requests that never speculated (verify
    count 0 past their first token) would count as accepted: a server that turns speculation off
    for some requests reads high. Restarts: counters going down only (SGLang's multiprocess
    exposition has no ``_created`` samples and no process start time)."""

    kind: ClassVar[str] = "sglang"
    caveat: ClassVar[str | None] = (
        "sglang: MAL from spec_verify_calls and generation tokens of finished requests; no "
        "acceptance rate (SGLang counts no draft tokens)"
    )

    def read(self, text: str, last: Counters | None) -> Reading:
        totals = {SGLANG_VERIFY: 0.0, SGLANG_GENERATED: 0.0, SGLANG_REQUESTS: 0.0}
        seen: set[str] = set()
        start = None
        for name, _, value in _families(text):
            if name in totals:
                totals[name] += value
                seen.add(name)
            elif name == START_TIME:
                start = value
        if SGLANG_VERIFY not in seen:
            gauges = any(n == SGLANG_ACCEPT_LENGTH for n, _, _ in _families(text))
            hint = " (it has the gauges: --source sglang-gauge)" if gauges else ""
            raise SourceError(f"no {SGLANG_VERIFY} in the exposition{hint}")
        verify = totals[SGLANG_VERIFY]
        accepted = max(0.0, totals[SGLANG_GENERATED] - verify - totals[SGLANG_REQUESTS])
        return Reading(
            counters=Counters(drafts=verify, draft_tokens=0.0, accepted=accepted, start_time=start)
        )


class SGLangGaugeSource(MetricsSource):
    """Windows from ``sglang:spec_accept_length``, for SGLang servers without the verify-call
    counter. The gauge holds the mean accept length (accepted drafts plus the bonus token per
    verify step) of the scheduler's last logging interval, ``--decode-log-interval`` decode
    batches (40 by default; ``Scheduler.log_decode_stats``), with no count behind it.

    Each new value of a label set (one per rank) counts as ``steps`` verify steps with
    ``steps * (value - 1)`` accepted drafts. A decode batch verifies at least one request, so
    ``steps`` = the logging interval is a lower bound on the steps behind a value: the detector
    then overstates each window's spread, which keeps its false alarms at or below the stated
    rate and makes detection slower. A value equal to the last one read is taken for the same
    interval and not counted again; intervals logged between two scrapes are not seen at all.
    Not a run-delimited figure: nothing ties a value to the requests behind it. No restart is
    seen (the gauges do not reset); a failed scrape in between is the only sign."""

    kind: ClassVar[str] = "sglang-gauge"
    caveat: ClassVar[str | None] = (
        "sglang-gauge: windows from sglang:spec_accept_length, the mean of the server's last "
        "logging interval at each scrape: not a run-delimited figure, intervals between scrapes "
        "unseen, each new value counted as 40 verify steps (the default logging interval, a "
        "lower bound), restarts not seen"
    )

    def __init__(self, steps: int = 40) -> None:
        self.steps = steps

    def read(self, text: str, last: Counters | None) -> Reading:
        values = [
            (tuple(sorted(labels.items())), value)
            for name, labels, value in _families(text)
            if name == SGLANG_ACCEPT_LENGTH
        ]
        if not values:
            raise SourceError(f"no {SGLANG_ACCEPT_LENGTH} in the exposition")
        values.sort()
        marks = tuple(v for _, v in values)
        before = last.marks if last is not None and len(last.marks) == len(marks) else ()
        drafts = last.drafts if last is not None else 0.0
        accepted = last.accepted if last is not None else 0.0
        for i, value in enumerate(marks):
            # below 1 the mean is undefined (SGLang logs 0 while a rank verified nothing)
            if value < 1.0 or (before and before[i] == value):
                continue
            drafts += self.steps
            accepted += self.steps * (value - 1.0)
        return Reading(
            counters=Counters(drafts=drafts, draft_tokens=0.0, accepted=accepted, marks=marks)
        )
