"""TensorRT-LLM ``trtllm-serve``: speculation in an options YAML; acceptance from iteration stats.

Launch. ``trtllm-serve MODEL --backend pytorch --extra_llm_api_options FILE`` (the flag is also
spelled ``--config`` in recent releases; ``--extra_llm_api_options`` is accepted by old and new
ones, ``tensorrt_llm/commands/serve.py``). The YAML overrides the LLM API arguments
(``tensorrt_llm/llmapi/llm_args.py``): ``speculative_config`` selects the method by
``decoding_type`` and takes the draft length as ``max_draft_len`` and the draft checkpoint as
``speculative_model_dir`` (an alias of ``speculative_model`` in recent releases). Every run, the
baseline included, gets the file because it also switches on ``enable_iter_perf_stats``, without
which the server keeps no iteration stats.

Acceptance. Responses carry no acceptance, and ``/perf_metrics`` (per request) needs
``return_perf_metrics``, which also starts a server task that drains the iteration stats for
Prometheus, so it is not used. ``/metrics`` answers a JSON list of the iterations queued since
the last read and empties the queue (``tensorrt_llm/serve/openai_server.py``,
``get_iteration_stats``); the runner therefore reads it before the measured requests (which
discards the warm-up's iterations), polls it while they run, and reads it once more after. Each
iteration's ``specDecodingStats`` (``numDraftTokens``, ``numAcceptedTokens``,
``numRequestsWithDraftTokens``; ``cpp/tensorrt_llm/executor/jsonSerialization.cpp``) is summed
over the polls. Under attention data parallelism each iteration is reported once per rank with
rank 0's speculation figures copied into every row, so only rank-0 rows count.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import httpx
import yaml

from specverdict.campaign.spec import RunSpec
from specverdict.engines.base import EngineAdapter, fetch, unsupported_method
from specverdict.records import MetricsSnapshot, SampleRecord
from specverdict.records.acceptance import AcceptanceSummary, baseline_summary

#: the options file written into the run folder
OPTIONS_FILE = "extra_llm_api_options.yaml"
#: ``trtllm-serve``'s flag for it
OPTIONS_FLAG = "--extra_llm_api_options"
#: the drain-on-read iteration-stats endpoint
STATS_PATH = "/metrics"

#: specverdict method -> ``speculative_config.decoding_type``: the ``Literal`` tags of the
#: ``SpeculativeConfig`` union in ``tensorrt_llm/llmapi/llm_args.py`` (checked at commit
#: 0004396720054fd8e205cbf616f21f0b57c6b412, ``tests/fixtures/trtllm/spec_methods.json``).
#: ``suffix`` maps to the suffix-automaton drafter ``SA``; ``dflash`` and ``dspark`` need a recent
#: release.
DECODING_TYPES: dict[str, str] = {
    "mtp": "MTP",
    "eagle3": "Eagle3",
    "ngram": "NGram",
    # DraftTargetDecodingConfig's tag is "Draft_Target" (llm_args.py at the commit above): the
    # union is discriminated on it and nothing there maps "DraftTarget", the spelling of the
    # docs and of older releases, whose configs dispatched on a ClassVar
    "draft_model": "Draft_Target",
    "dflash": "DFlash",
    "dspark": "DSpark",
    "suffix": "SA",
}
#: methods TensorRT-LLM lacks -> why (``tensorrt_llm/llmapi/llm_args.py``)
UNSUPPORTED: dict[str, str] = {
    "eagle": "the PyTorch backend reads decoding_type Eagle as Eagle3, which EAGLE-1/2 drafts "
    "do not fit",
    "medusa": "no Medusa config in the LLM API's speculative_config union",
}
#: methods whose config is rejected by TRT-LLM without a draft checkpoint
NEEDS_DRAFT = frozenset({"eagle3", "draft_model", "dflash"})


def trtllm_speculative_config(spec: RunSpec) -> dict[str, Any] | None:
    """The ``speculative_config`` mapping for a run, None for the baseline.

    ``k`` is ``max_draft_len``; for MTP it is also written as ``num_nextn_predict_layers``, the
    field older releases read (recent ones fold it into ``max_draft_len``). The draft goes in as
    ``speculative_model_dir``; method parameters are passed through last, so they may override.
    """
    sp = spec.speculation
    if sp.method == "none":
        return None
    decoding_type = DECODING_TYPES.get(sp.method)
    if decoding_type is None:
        raise unsupported_method("trtllm", sp.method, DECODING_TYPES, UNSUPPORTED.get(sp.method))
    if sp.draft_quantization is not None:
        raise ValueError(
            "engine 'trtllm' has no draft quantization option: give a quantized draft "
            "checkpoint as the draft instead of draft_quantization"
        )
    if sp.method in NEEDS_DRAFT and sp.draft is None:
        raise ValueError(f"method {sp.method!r} on engine 'trtllm' needs a draft checkpoint")
    config: dict[str, Any] = {"decoding_type": decoding_type, "max_draft_len": sp.k}
    if sp.method == "mtp":
        config["num_nextn_predict_layers"] = sp.k
    if sp.draft is not None:
        config["speculative_model_dir"] = sp.draft
    config.update(dict(sp.params))
    return config


def llm_api_options(spec: RunSpec) -> dict[str, Any]:
    """The options file's content: iteration stats on, and the run's speculation if any."""
    options: dict[str, Any] = {"enable_iter_perf_stats": True}
    config = trtllm_speculative_config(spec)
    if config is not None:
        options["speculative_config"] = config
    return options


def _count(value: Any) -> float:
    """A JSON number as a float; anything else (missing, null, text) counts as 0."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return float(value)


def _is_rank0(row: Mapping[str, Any]) -> bool:
    """Rows without a rank field come from a single-rank server."""
    return all(row.get(key) in (None, 0) for key in ("attentionDpRank", "rank"))


def _poll_order(snapshot: MetricsSnapshot) -> tuple[int, str]:
    return (1, "") if snapshot.phase == "after" else (0, snapshot.phase)


def window_snapshots(snapshots: Mapping[str, MetricsSnapshot]) -> list[MetricsSnapshot]:
    """The ``/metrics`` reads that cover the measured requests, in order: every poll, then the
    read after them. The read before them holds the warm-up's iterations and is left out."""
    window = [
        s
        for s in snapshots.values()
        if s.source == STATS_PATH and (s.phase.startswith("poll-") or s.phase == "after")
    ]
    return sorted(window, key=_poll_order)


def iteration_rows(
    snapshots: Iterable[MetricsSnapshot],
) -> tuple[list[dict[str, Any]], list[str]]:
    """Rank-0 iteration rows across the reads, each iteration once; and the phases whose body
    was not a JSON list (their iterations are lost, since the read emptied the queue).

    An iteration is identified by ``iter`` and, under pipeline parallelism, the micro-batch.
    """
    rows: list[dict[str, Any]] = []
    seen: set[tuple[Any, Any]] = set()
    unreadable: list[str] = []
    for snapshot in snapshots:
        try:
            body = json.loads(snapshot.text)
        except ValueError:
            body = None
        if not isinstance(body, list):
            unreadable.append(snapshot.phase)
            continue
        for row in body:
            if not isinstance(row, dict) or not _is_rank0(row):
                continue
            batching = row.get("inflightBatchingStats")
            micro_batch = batching.get("microBatchId") if isinstance(batching, dict) else None
            key = (row.get("iter"), micro_batch)
            if key[0] is not None:
                if key in seen:
                    continue
                seen.add(key)
            rows.append(row)
    return rows, unreadable


class TRTLLMAdapter(EngineAdapter):
    """``trtllm-serve`` (PyTorch backend), acceptance from polled iteration stats."""

    kind = "trtllm"
    tokenize_style = None
    methods = frozenset(DECODING_TYPES)
    method_names = MappingProxyType({m: (t,) for m, t in DECODING_TYPES.items()})
    unsupported = UNSUPPORTED
    no_adaptive_verification = (
        "its speculative configs have no key known to be vLLM's enable_adaptive_verification"
    )
    no_k_schedule = (
        "TensorRT-LLM's draft_len_schedule maps batch-size thresholds to draft lengths (above "
        "its largest threshold nothing is drafted), not inclusive ranges; the adapter does not "
        "map a schedule to it yet"
    )
    #: read before the measured requests to empty the queue of warm-up iterations, and after
    #: them to collect what arrived after the last poll
    snapshot_paths = (STATS_PATH,)
    poll_paths = (STATS_PATH,)

    def launch_files(self, spec: RunSpec) -> dict[str, str]:
        return {OPTIONS_FILE: yaml.safe_dump(llm_api_options(spec), sort_keys=False)}

    def speculative_args(self, spec: RunSpec, run_dir: str = ".") -> list[str]:
        """The options-file flag, for the baseline too: the file also turns the iteration stats
        on. Raises ValueError for a method TRT-LLM cannot run, as ``launch_files`` does."""
        trtllm_speculative_config(spec)
        return [OPTIONS_FLAG, f"{run_dir}/{OPTIONS_FILE}"]

    def builtin_command(
        self, spec: RunSpec, model: str, host: str, port: int, run_dir: str
    ) -> list[str] | None:
        """``trtllm-serve`` on the PyTorch backend, whose arguments the options file sets.

        It has no served-name flag (``/v1/models`` lists the checkpoint's folder name; requests
        are not checked against it) and no quantization flag: the checkpoint carries its own.
        """
        command = ["trtllm-serve", model, "--host", host, "--port", str(port)]
        command += ["--backend", "pytorch"]
        return command + self.speculative_args(spec, run_dir)

    async def probe(self, client: httpx.AsyncClient, base_url: str) -> dict[str, Any]:
        """Whether ``/metrics`` answers a JSON list (this read empties it, before any warm-up)
        and ``/version`` a version; and whether ``/prometheus/metrics`` is served, which means
        ``return_perf_metrics`` is on and a server task competes for the iteration stats."""
        found: dict[str, Any] = {
            "per_request": "none: trtllm-serve puts no acceptance in OpenAI responses"
        }
        version_resp = await fetch(client, base_url + "/version")
        version = None
        if not isinstance(version_resp, str):
            try:
                version = version_resp.json().get("version")
            except (ValueError, AttributeError):
                version = None
        found["version"] = version if isinstance(version, str) else None
        resp = await fetch(client, base_url + STATS_PATH)
        if isinstance(resp, str):
            found[STATS_PATH] = resp
        else:
            try:
                body = resp.json()
            except ValueError:
                body = None
            if isinstance(body, list):
                found[STATS_PATH] = "json"
                found["iterations_read"] = len(body)
                found["spec_decoding_stats_seen"] = any(
                    isinstance(r, dict) and isinstance(r.get("specDecodingStats"), dict)
                    for r in body
                )
            else:
                found[STATS_PATH] = "not a JSON list"
        competing = await fetch(client, base_url + "/prometheus/metrics")
        found["competing_stats_reader"] = not isinstance(competing, str)
        return found

    def summarize_acceptance(
        self,
        spec: RunSpec,
        samples: Sequence[SampleRecord],
        snapshots: dict[str, MetricsSnapshot],
        segment_requests: int,
    ) -> AcceptanceSummary:
        """Sums of the window's iteration stats. Invalid when no iteration carried speculation
        stats, when a read was not JSON, or when the iterations' ``numCompletedRequests`` do
        not add up to the run's requests: more means other traffic (polluted), fewer means
        iterations were missed (dropped from the bounded queue, read by another client, not
        yet published at the last read, or requests that failed before reaching the engine)."""
        window = window_snapshots(snapshots)
        if spec.speculation.method == "none":
            rows, unreadable = iteration_rows(window)
            if not rows or unreadable:
                return baseline_summary("none")
            stats = [
                r["specDecodingStats"] for r in rows if isinstance(r.get("specDecodingStats"), dict)
            ]
            return baseline_summary(
                "iteration-stats",
                sum(_count(s.get("numRequestsWithDraftTokens")) for s in stats),
                sum(_count(s.get("numDraftTokens")) for s in stats),
                sum(_count(s.get("numAcceptedTokens")) for s in stats),
            )
        if not window:
            return AcceptanceSummary(
                source="none", valid=False, why="no /metrics reads during the run"
            )
        rows, unreadable = iteration_rows(window)
        stats = [
            r["specDecodingStats"] for r in rows if isinstance(r.get("specDecodingStats"), dict)
        ]
        if not stats:
            return AcceptanceSummary(
                source="iteration-stats",
                valid=False,
                why=f"no iteration carried specDecodingStats ({len(rows)} iterations read; "
                "is enable_iter_perf_stats on and speculation active?)",
            )
        common = {
            "drafts": sum(_count(s.get("numRequestsWithDraftTokens")) for s in stats),
            "draft_tokens": sum(_count(s.get("numDraftTokens")) for s in stats),
            "accepted": sum(_count(s.get("numAcceptedTokens")) for s in stats),
        }
        if unreadable:
            return AcceptanceSummary(
                source="iteration-stats",
                valid=False,
                **common,
                why=f"/metrics reads {', '.join(unreadable)} were not JSON lists: "
                "their iterations are lost",
            )
        if any("numCompletedRequests" in r for r in rows):
            completed = sum(_count(r.get("numCompletedRequests")) for r in rows)
            if completed > segment_requests:
                return AcceptanceSummary(
                    source="iteration-stats",
                    valid=False,
                    polluted=True,
                    **common,
                    why=f"polluted: the server finished {completed:g} requests during the run, "
                    f"the run sent {segment_requests}",
                )
            if completed < segment_requests:
                return AcceptanceSummary(
                    source="iteration-stats",
                    valid=False,
                    **common,
                    why=f"incomplete: the iterations read finished {completed:g} requests, "
                    f"the run sent {segment_requests}",
                )
        return AcceptanceSummary(source="iteration-stats", valid=True, **common)
