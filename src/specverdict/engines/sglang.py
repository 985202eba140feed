"""SGLang: ``python -m sglang.launch_server`` flags; acceptance per request, else the server's
cumulative average (never a run figure).

Launch flags follow ``ServerArgs`` in sgl-project/sglang ``python/sglang/srt/server_args.py``
(fields become ``--field-name``; booleans are ``store_true``) and the checks of
``python/sglang/srt/arg_groups/speculative_hook.py``:

- EAGLE, EAGLE3, NEXTN (alias of EAGLE, SGLang's MTP) and STANDALONE (a separate draft model)
  take ``--speculative-num-steps`` / ``--speculative-eagle-topk`` /
  ``--speculative-num-draft-tokens``: all three set or none (SGLang then chooses them). With
  topk 1 SGLang forces ``num_draft_tokens = num_steps + 1``, so ``k`` drafts per step are
  ``k`` steps, topk 1 and ``k + 1`` draft tokens (the verified root counts as one).
- NGRAM ignores steps and topk (it sets topk to ``--speculative-ngram-max-bfs-breadth`` and steps
  to ``num_draft_tokens // topk``): only ``--speculative-num-draft-tokens k + 1``.
- DFLASH forces steps and topk to 1; its block size (verify window, the root included) is
  ``--speculative-num-draft-tokens``, so ``k + 1``.
- DSPARK takes ``--speculative-dspark-block-size`` = gamma, the number of proposed drafts: ``k``.

Method parameters become ``--speculative-<name>`` (``value``; a true boolean is a bare flag, a
false one is left out) whether SGLang's version knows them or not: names move between versions
(the ngram options, e.g. ``ngram_max_trie_depth``, were ``ngram_branch_length`` and
``ngram_*_match_window_size`` in older builds). Checked against ``server_args.py`` at commit
001067fffe33427bee0ed2f007fb7551a1d76b44 and ``speculative_hook.py`` at
004c82e07d876f6e4a0ad6e15325706b0f478f1a; the algorithm names and the flags each method takes
against SGLang v0.5.23 (``tests/fixtures/sglang/spec_methods.json``, checked by
``tests/unit/engines/test_method_mappings.py``).

Acceptance:

1. Per request: with ``return_spec_tokens_details: true`` in the body (sgl-project/sglang PR
   #33518, ``ChatCompletionRequest``/``CompletionRequest`` in
   ``python/sglang/srt/entrypoints/openai/protocol.py``), a streamed answer carries one chunk with
   ``choices: []`` and ``sglext.spec_tokens_details`` (built by ``spec_tokens_details_from_meta_info``
   in ``entrypoints/openai/utils.py`` from the tokenizer manager's ``meta_info``):
   ``spec_verify_ct`` (verify steps), ``spec_num_correct_drafts`` (accepted drafts, no bonus),
   ``spec_num_proposed_drafts`` (``spec_verify_ct * (num_draft_tokens - 1)``: the configured
   width, not a count of what was actually drafted), ``spec_correct_drafts_histogram`` (steps that
   accepted 0, 1, ... drafts), ``spec_accept_rate`` and ``spec_accept_length``
   (``completion_tokens / spec_verify_ct``: the bonus token and the token of the prefill step are
   both included, so it is slightly above ``1 + accepted / steps``). Servers without that field
   ignore it (the request models do not forbid unknown fields) and send no ``sglext``.
   ``return_meta_info`` is not used: SGLang rejects it on streamed requests.
2. ``/get_server_info``: ``internal_states[rank].avg_spec_accept_length`` per data-parallel rank,
   a running average since server start (accepted drafts + bonus per verify step) with no counts
   behind it, so no run's own figure can be derived from two reads.
3. ``/metrics`` gauges ``sglang:spec_accept_length`` / ``sglang:spec_accept_rate`` hold the last
   logging interval's value (``multiprocess_mode="mostrecent"``), not counters: recorded by the
   probe only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from specverdict.campaign.model import ParamValue
from specverdict.campaign.spec import RunSpec
from specverdict.engines.base import EngineAdapter, fetch, unsupported_method
from specverdict.records import MetricsSnapshot, SampleRecord, snapshot_key
from specverdict.records.acceptance import (
    AcceptanceSummary,
    baseline_summary,
    canonical_acceptance,
    per_request_summary,
)

#: campaign speculation methods -> ``--speculative-algorithm`` (``SpeculativeAlgorithm`` in
#: ``python/sglang/srt/speculative/spec_info.py``; NEXTN is its reserved alias of EAGLE)
ALGORITHMS = {
    "mtp": "NEXTN",
    "eagle": "EAGLE",
    "eagle3": "EAGLE3",
    "draft_model": "STANDALONE",
    "ngram": "NGRAM",
    "dflash": "DFLASH",
    "dspark": "DSPARK",
}
#: campaign methods SGLang lacks -> why (``python/sglang/srt/speculative/spec_info.py`` at v0.5.23)
UNSUPPORTED: dict[str, str] = {
    "medusa": "no Medusa algorithm among SGLang's built-ins",
    "suffix": "no suffix-decoding algorithm among SGLang's built-ins (NGRAM is another drafter)",
}
#: algorithms tuned by ``--speculative-num-steps`` / ``-eagle-topk`` / ``-num-draft-tokens``
EAGLE_FAMILY = frozenset({"NEXTN", "EAGLE", "EAGLE3", "STANDALONE"})

#: campaign quantization labels that are plain dtypes (``--dtype`` choices of ``ServerArgs``)
DTYPES = {
    "bf16": "bfloat16",
    "bfloat16": "bfloat16",
    "fp16": "float16",
    "float16": "float16",
    "half": "half",
    "fp32": "float32",
    "float32": "float32",
    "float": "float",
    "auto": "auto",
}
#: the draft's ``--speculative-draft-model-quantization`` for an unquantized draft; without the
#: flag SGLang gives the draft the target's ``--quantization``
UNQUANTIZED_DRAFT = "unquant"

#: speculative options whose flag has no ``--speculative-`` prefix
UNPREFIXED_PARAMS = frozenset({"enable_multi_layer_eagle"})

SERVER_INFO = "/get_server_info"
#: the same answer under the name recent versions give it (``/get_server_info`` is deprecated
#: there): asked only when the older name does not answer
SERVER_INFO_NEW = "/server_info"
SPEC_GAUGES = ("sglang:spec_accept_length", "sglang:spec_accept_rate")
#: the fields of ``/get_server_info`` that pre-flight reads and the server's identity records:
#: ``ServerArgs`` fields (``dataclasses.asdict(server_args)`` at the top level of the answer,
#: ``python/sglang/srt/entrypoints/http_server.py``) and the package ``version``; all fixed while
#: the server runs (``internal_states`` holds running figures and is left out)
SERVER_ARGS = (
    "model_path",
    "served_model_name",
    "version",
    "dp_size",
    "max_running_requests",
    "speculative_algorithm",
    "speculative_draft_model_path",
    "speculative_num_steps",
    "speculative_eagle_topk",
    "speculative_num_draft_tokens",
    "speculative_dspark_block_size",
    "speculative_adaptive",
)


def option_name(param: str) -> str:
    """The ``--flag`` of a method parameter: ``ngram_capacity`` -> ``--speculative-ngram-capacity``
    (a name already starting with ``speculative_`` keeps it)."""
    name = param.replace("-", "_")
    if name not in UNPREFIXED_PARAMS and not name.startswith("speculative_"):
        name = "speculative_" + name
    return "--" + name.replace("_", "-")


def _flag(option: str, value: ParamValue) -> list[str]:
    """argv for one option; booleans are ``store_true`` flags, so False means leaving it out."""
    if isinstance(value, bool):
        return [option] if value else []
    return [option, str(value)]


def sglang_speculative_options(spec: RunSpec) -> dict[str, ParamValue] | None:
    """The run's speculative options (``--flag`` -> value, in order), None for the baseline.

    Method parameters come last and replace a derived option of the same flag (e.g.
    ``eagle_topk: 4`` replaces topk 1).
    """
    sp = spec.speculation
    if sp.method == "none":
        return None
    algorithm = ALGORITHMS.get(sp.method)
    if algorithm is None:
        raise unsupported_method("sglang", sp.method, ALGORITHMS, UNSUPPORTED.get(sp.method))
    options: dict[str, ParamValue] = {"--speculative-algorithm": algorithm}
    if sp.k is not None:
        if algorithm in EAGLE_FAMILY:
            options["--speculative-num-steps"] = sp.k
            options["--speculative-eagle-topk"] = 1
            options["--speculative-num-draft-tokens"] = sp.k + 1
        elif algorithm == "DSPARK":
            options["--speculative-dspark-block-size"] = sp.k
        else:  # NGRAM, DFLASH: the verify window holds the root and k drafts
            options["--speculative-num-draft-tokens"] = sp.k + 1
    if sp.draft is not None:
        options["--speculative-draft-model-path"] = sp.draft
    if sp.draft_quantization is not None:
        q = sp.draft_quantization
        options["--speculative-draft-model-quantization"] = UNQUANTIZED_DRAFT if q in DTYPES else q
    for name, value in sp.params:
        options[option_name(name)] = value
    return options


def _server_info(snapshot: MetricsSnapshot | None) -> dict[str, Any] | None:
    if snapshot is None:
        return None
    try:
        payload = json.loads(snapshot.text)
    except ValueError:
        return None
    return payload if isinstance(payload, dict) else None


def rank_accept_lengths(info: Mapping[str, Any] | None) -> list[float | None]:
    """``avg_spec_accept_length`` of each data-parallel rank (None where a rank has none yet)."""
    states = info.get("internal_states") if info is not None else None
    if not isinstance(states, list):
        return []
    values: list[float | None] = []
    for state in states:
        v = state.get("avg_spec_accept_length") if isinstance(state, dict) else None
        # a defined average is at least 1 (the bonus token); SGLang leaves it out, or reports a
        # placeholder, while a rank has verified nothing
        if isinstance(v, bool) or not isinstance(v, int | float) or v < 1.0:
            values.append(None)
        else:
            values.append(float(v))
    return values


def server_args(info: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of ``SERVER_ARGS`` that a ``/get_server_info`` answer holds (a field this
    version does not have stays out: unknown, not None)."""
    return {k: info[k] for k in SERVER_ARGS if k in info}


def rank_running_limits(info: Mapping[str, Any]) -> list[int] | None:
    """``effective_max_running_requests_per_dp`` of each data-parallel rank: the scheduler's
    own cap on requests it runs at once, after its own limits (``get_internal_state`` in
    ``python/sglang/srt/managers/scheduler.py`` sets it to ``self.max_running_requests``). None
    unless every rank states it (older versions do not)."""
    states = info.get("internal_states")
    if not isinstance(states, list) or not states:
        return None
    limits = [
        s.get("effective_max_running_requests_per_dp") if isinstance(s, dict) else None
        for s in states
    ]
    if all(isinstance(v, int) and not isinstance(v, bool) for v in limits):
        return [int(v) for v in limits if isinstance(v, int)]
    return None


def _fmt(values: Sequence[float | None]) -> str:
    return ", ".join(
        f"rank {i}: {'none' if v is None else f'{v:.3f}'}" for i, v in enumerate(values)
    )


class SGLangAdapter(EngineAdapter):
    kind = "sglang"
    takes_ignore_eos = True
    methods = frozenset(ALGORITHMS)
    method_names = MappingProxyType({m: (a,) for m, a in ALGORITHMS.items()})
    unsupported = UNSUPPORTED
    no_adaptive_verification = (
        "its server arguments have no key known to be vLLM's enable_adaptive_verification (DSPARK's "
        "confidence and SPS table paths are not mapped by this adapter)"
    )
    no_k_schedule = (
        "SGLang has no k by batch size (its speculative_adaptive_config picks num_steps from "
        "acceptance while running, not from the batch size)"
    )
    snapshot_paths = (SERVER_INFO,)

    def speculative_args(self, spec: RunSpec, run_dir: str = ".") -> list[str]:
        options = sglang_speculative_options(spec)
        if options is None:
            return []
        return [arg for option, value in options.items() for arg in _flag(option, value)]

    def builtin_command(
        self, spec: RunSpec, model: str, host: str, port: int, run_dir: str
    ) -> list[str] | None:
        """``python -m sglang.launch_server`` with Prometheus metrics on; a dtype-like
        quantization is passed as ``--dtype``, anything else as ``--quantization``."""
        command = ["python", "-m", "sglang.launch_server", "--model-path", model]
        command += ["--host", host, "--port", str(port)]
        command += ["--served-model-name", spec.model.served_name]
        q = spec.quantization
        command += ["--dtype", DTYPES[q]] if q in DTYPES else ["--quantization", q]
        command += ["--enable-metrics"]
        return command + self.speculative_args(spec, run_dir)

    def request_extras(self, spec: RunSpec) -> dict[str, Any]:
        if spec.speculation.method == "none":
            return {}
        return {"return_spec_tokens_details": True}

    def per_request_acceptance(self, extras: Mapping[str, Any]) -> dict[str, Any] | None:
        sglext = extras.get("sglext")
        details = sglext.get("spec_tokens_details") if isinstance(sglext, dict) else None
        if isinstance(details, list):  # one entry per choice when n > 1
            details = details[0] if details else None
        if not isinstance(details, dict):
            return None
        histogram = details.get("spec_correct_drafts_histogram") or None
        return canonical_acceptance(
            details,
            details.get("spec_num_proposed_drafts"),
            details.get("spec_num_correct_drafts"),
            details.get("spec_verify_ct"),
            histogram,
        )

    version_field = f"{SERVER_INFO} version"

    def version_of(self, probe: Mapping[str, Any]) -> Any:
        return probe.get("version")

    async def probe(self, client: httpx.AsyncClient, base_url: str) -> dict[str, Any]:
        found: dict[str, Any] = {
            "per_request": "sglext.spec_tokens_details, if the server knows "
            "return_spec_tokens_details (seen on the first answer)",
        }
        info = None
        resp = await fetch(client, base_url + SERVER_INFO)
        if isinstance(resp, str) and resp.startswith("HTTP"):
            newer = await fetch(client, base_url + SERVER_INFO_NEW)
            if not isinstance(newer, str):
                found[SERVER_INFO_NEW] = "ok"
                resp = newer
        if isinstance(resp, str):
            found[SERVER_INFO] = resp
        else:
            try:
                info, found[SERVER_INFO] = resp.json(), "ok"
            except ValueError as exc:
                found[SERVER_INFO] = f"unavailable: {type(exc).__name__}"
        if isinstance(info, dict):
            found["speculative_settings"] = {
                k: v
                for k, v in sorted(info.items())
                if k.startswith("speculative_") and v is not None and v is not False
            }
            found["dp_size"] = info.get("dp_size")
            found["version"] = info.get("version")
            found["avg_spec_accept_length"] = rank_accept_lengths(info)
            found["server_args"] = server_args(info)
            found["running_requests_per_rank"] = rank_running_limits(info)
        metrics = await fetch(client, base_url + "/metrics")
        if isinstance(metrics, str):
            hint = " (is --enable-metrics set?)" if metrics.startswith("HTTP") else ""
            found["/metrics"] = metrics + hint
            return found
        found["/metrics"] = "ok"
        found["spec_gauges_last_interval"] = spec_gauges(metrics.text)
        return found

    def summarize_acceptance(
        self,
        spec: RunSpec,
        samples: Sequence[SampleRecord],
        snapshots: dict[str, MetricsSnapshot],
        segment_requests: int,
    ) -> AcceptanceSummary:
        per_request = per_request_summary(samples)
        if spec.speculation.method == "none":
            return per_request.as_baseline() if per_request else baseline_summary("none")
        if per_request is not None:
            return per_request
        after = rank_accept_lengths(_server_info(snapshots.get(snapshot_key("after", SERVER_INFO))))
        if not any(v is not None for v in after):
            return AcceptanceSummary(
                source="none",
                valid=False,
                why="no per-request spec_tokens_details and no avg_spec_accept_length in "
                f"{SERVER_INFO}",
            )
        before = rank_accept_lengths(
            _server_info(snapshots.get(snapshot_key("before", SERVER_INFO)))
        )
        why = (
            "SGLang reports only avg_spec_accept_length, a running average since server start "
            "(accepted drafts + bonus per verify step) without the counts behind it, so this "
            f"run's own figure cannot be isolated; after the run: {_fmt(after)}"
        )
        if before and not any(v is not None for v in before):
            why += "; the server had verified no draft before the run, so this covers the run's "
            why += "requests and any other traffic during it"
        elif before:
            why += f"; before the run: {_fmt(before)}"
        return AcceptanceSummary(source="server-cumulative", valid=False, why=why)


def spec_gauges(text: str) -> dict[str, list[float]]:
    """Values of SGLang's speculative gauges (one per rank label set), last interval only."""
    out: dict[str, list[float]] = {}
    try:
        families = list(text_string_to_metric_families(text))
    except ValueError:
        return out
    for family in families:
        for sample in family.samples:
            if sample.name in SPEC_GAUGES:
                out.setdefault(sample.name, []).append(sample.value)
    return out
