"""TensorRT-LLM's ``trtllm-serve`` as a watch source: iteration stats drained on read, summed
into counters here.

``GET /metrics`` answers a JSON list of the iterations queued since the last read and empties
the queue (``tensorrt_llm/serve/openai_server.py``: the route ``/metrics`` is
``get_iteration_stats``, which collects ``generator.get_stats_async(2)``). Each row is one
``IterationStats`` serialised by ``cpp/tensorrt_llm/executor/jsonSerialization.cpp``
(``timestamp, iter, iterLatencyMS, ..., numCompletedRequests, ..., inflightBatchingStats,
specDecodingStats``), and ``specDecodingStats`` is ``numDraftTokens, numAcceptedTokens,
numRequestsWithDraftTokens, acceptanceLength, iterLatencyMS, draftOverhead``. The PyTorch
backend adds ``attentionDpRank``; under attention data parallelism rank 0's speculation figures
are copied into every rank's row, so only rank-0 rows count (as in
:mod:`specverdict.engines.trtllm`). The server keeps these stats only with
``enable_iter_perf_stats: true`` in its options file.

Counters. The stats are not cumulative: one read holds exactly the iterations since the
previous read, so the source adds them to the previous reading's counters (verify steps D =
``numRequestsWithDraftTokens``: each request with drafts in an iteration is verified once;
draft tokens T = ``numDraftTokens``; accepted drafts A = ``numAcceptedTokens``, no bonus) and
the detector's window is exactly the iterations drained by this read. The queue is the only
record: another reader of ``/metrics`` (a second scraper, or the server's own Prometheus task
when ``return_perf_metrics`` is on) takes iterations this source never sees, and the queue is
bounded. Iterations are numbered by the executor's ``iter`` counter, one per iteration, so a
gap in the numbers between or within reads is reported as iterations not seen.

Restarts. Nothing here resets (the counters are ours) and the endpoint exposes no process start
time. A new process numbers its iterations from the start again, so a read whose lowest
``iter`` is below the last one read is a restart: the counters start over from that read and
``Counters.epoch`` goes up. A restart is missed when the new process has run past the old
one's last iteration before the next read, or when it has served no iteration yet (an empty
read says nothing); a failed scrape during the restart is then the only sign.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from specverdict.engines.trtllm import STATS_PATH
from specverdict.watch.detect import Counters
from specverdict.watch.source import MetricsSource, Reading, SourceError


def _number(value: Any) -> float:
    """A JSON number as a float; anything else (missing, null, text) counts as 0."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return float(value)


def _rank0(row: Mapping[str, Any]) -> bool:
    """Rows without a rank field come from a single-rank server."""
    return all(row.get(key) in (None, 0) for key in ("attentionDpRank", "rank"))


def iteration_rows(text: str) -> list[dict[str, Any]]:
    """The rank-0 rows of one ``/metrics`` body; SourceError when it is not a JSON list."""
    try:
        body = json.loads(text)
    except ValueError:
        raise SourceError(f"{STATS_PATH} answered no JSON (is this trtllm-serve?)") from None
    if not isinstance(body, list):
        raise SourceError(f"{STATS_PATH} answered {type(body).__name__}, not a list of iterations")
    return [row for row in body if isinstance(row, dict) and _rank0(row)]


def _unseen(iters: list[int], after: int | None) -> int:
    """Iteration numbers missing from ``iters`` (sorted, repeats allowed: micro-batches) and
    between ``after`` and the first of them."""
    distinct = sorted(set(iters))
    missing = distinct[-1] - distinct[0] + 1 - len(distinct)
    if after is not None:
        missing += max(0, distinct[0] - after - 1)
    return missing


class TRTLLMSource(MetricsSource):
    """``trtllm-serve``'s drained iteration stats, accumulated into counters."""

    kind: ClassVar[str] = "trtllm"
    path: ClassVar[str] = STATS_PATH
    caveat: ClassVar[str | None] = (
        "trtllm: /metrics empties the server's iteration-stats queue, so this watch must be its "
        "only reader (no other scraper, no return_perf_metrics); restarts are seen from the "
        "iteration counter going back only"
    )

    def read(self, text: str, last: Counters | None) -> Reading:
        rows = iteration_rows(text)
        iters = sorted(int(r["iter"]) for r in rows if isinstance(r.get("iter"), int))
        previous = int(last.marks[0]) if last is not None and last.marks else None
        restarted = previous is not None and bool(iters) and iters[0] < previous
        notes: list[str] = []
        if restarted:
            assert last is not None and previous is not None
            epoch, why = last.epoch + 1, f"iteration counter went back ({previous} -> {iters[0]})"
            drafts = draft_tokens = accepted = 0.0
        else:
            epoch = last.epoch if last is not None else 0
            why = last.epoch_why if last is not None else ""
            drafts = last.drafts if last is not None else 0.0
            draft_tokens = last.draft_tokens if last is not None else 0.0
            accepted = last.accepted if last is not None else 0.0
        for row in rows:
            spec = row.get("specDecodingStats")
            if isinstance(spec, dict):
                drafts += _number(spec.get("numRequestsWithDraftTokens"))
                draft_tokens += _number(spec.get("numDraftTokens"))
                accepted += _number(spec.get("numAcceptedTokens"))
        if iters:
            lost = _unseen(iters, None if restarted or last is None else previous)
            if lost:
                notes.append(
                    f"{lost} iterations not seen (another reader of {STATS_PATH}, or the "
                    "server's bounded stats queue): their drafts are missing from the window"
                )
        marks = (float(iters[-1]),) if iters else (last.marks if last is not None else ())
        return Reading(
            counters=Counters(
                drafts=drafts,
                draft_tokens=draft_tokens,
                accepted=accepted,
                epoch=epoch,
                epoch_why=why,
                marks=marks,
            ),
            notes=tuple(notes),
        )
