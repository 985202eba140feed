"""Pre-flight checks of an attached server against the configuration it is measured as, from
what the server says about itself before the first measured request: its kind, whether it
speculates, its slots against the campaign's concurrency.

Field names are the engines' own, read in their source: ``/v1/models`` ``owned_by`` is
``"vllm"`` (vLLM ``entrypoints/openai`` protocol ``ModelCard``), ``"sglang"`` (SGLang
``srt/entrypoints/openai/protocol.py``) and ``"llamacpp"`` (llama.cpp ``tools/server``); the
reference engine says ``"specverdict"``. llama.cpp's ``/props`` carries ``total_slots`` and its
``/slots`` a ``speculative`` flag per slot (recorded by ``LlamaCppAdapter.probe``).

SGLang (``SGLangAdapter.probe``, ``server_args``): ``/get_server_info`` (``/server_info`` in recent
versions) returns ``dataclasses.asdict(server_args)`` at its top level
(``python/sglang/srt/entrypoints/http_server.py``). ``speculative_algorithm`` is None without
speculation; NEXTN and EAGLE are both reported as ``EAGLE`` (``FROZEN_KV_MTP`` for a Gemma 4
assistant draft), the alias being resolved at start
(``python/sglang/srt/arg_groups/speculative_hook.py``, ``_resolve_speculative_algorithm_alias``).
The draft shape is compared only with the flags the campaign's configuration launches with
(``sglang_speculative_options``), where SGLang keeps them as given: with topk 1 it forces
``num_draft_tokens = num_steps + 1`` (``_handle_eagle_family``), which the launch flags already
satisfy; NGRAM derives steps and topk itself (``_handle_ngram``) and only its
``num_draft_tokens`` is launched; a method parameter that sets one of these flags, or
``speculative_adaptive`` (steps chosen while running), turns the comparison off. Slots are the
sum over data-parallel ranks of ``internal_states[i].effective_max_running_requests_per_dp``
(the scheduler's own cap), else, as an upper bound, ``max_running_requests`` times ``dp_size``.

vLLM (``VLLMAdapter.probe``): its configuration is served only by the development endpoint
``/server_info`` (``VLLM_SERVER_DEV_MODE=1``; ``vllm_config`` with ``speculative_config``,
``scheduler_config.max_num_seqs``, ``parallel_config.data_parallel_size``); otherwise
``/metrics`` tells: the ``vllm:spec_decode_*`` counters exist only when ``speculative_config``
is set, with one ``position`` of ``..._num_accepted_tokens_per_pos`` per speculative token
(``vllm/v1/spec_decode/metrics.py``, ``SpecDecodingProm``; seen on vLLM 0.32.0, the captures of
``tests/fixtures/vllm-0.32.0-cpu``).

A field a server does not state (an older version) never contradicts anything: only what it
positively says does.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from specverdict.campaign.spec import RunSpec
from specverdict.engines.sglang import ALGORITHMS, option_name, sglang_speculative_options

#: ``owned_by`` of ``/v1/models`` -> the engine kind that serves it
OWNERS = {"vllm": "vllm", "sglang": "sglang", "llamacpp": "llamacpp", "specverdict": "reference"}
#: kinds that drive any OpenAI-compatible server: no kind to contradict
GENERIC = frozenset({"openai"})


def served_kind(models: Any) -> str | None:
    """The engine kind a server's ``/v1/models`` answer names (``owned_by``), None if unknown."""
    if not isinstance(models, Mapping):
        return None
    data = models.get("data")
    if not isinstance(data, list):
        return None
    owners = {str(m.get("owned_by")) for m in data if isinstance(m, Mapping)}
    kinds = {OWNERS[o] for o in owners if o in OWNERS}
    return kinds.pop() if len(kinds) == 1 else None


def problems(
    spec: RunSpec, models: Any, probe: Mapping[str, Any], needs_metrics: bool = False
) -> list[str]:
    """What the server says that contradicts the configuration it is measured as: another
    engine kind; speculation off on a candidate's server or on in a baseline's; fewer slots
    than the campaign's concurrency (requests would queue, and the queueing be timed as
    latency); and, when ``needs_metrics`` (an engine whose counters are where its drafted and
    accepted tokens are read), no ``/metrics`` on a server measured as speculating: its actual
    speculation could not be checked, nor its acceptance measured. Empty when nothing
    contradicts it or the server does not say."""
    url = spec.engine.base_url
    out: list[str] = []
    metrics = probe.get("/metrics")
    if needs_metrics and spec.speculation.method != "none" and metrics not in (None, "ok"):
        out.append(
            f"the server at {url} serves no metrics (/metrics: {metrics}): the acceptance of "
            f"{spec.speculation.label} and whether it speculates at all cannot be measured"
        )
    kind = served_kind(models)
    if kind is not None and spec.engine.kind not in GENERIC and kind != spec.engine.kind:
        out.append(
            f"the server at {url} is {kind} (its /v1/models owned_by), the campaign declares "
            f"engine.kind {spec.engine.kind}"
        )
    declared = spec.speculation.method != "none"
    flags = probe.get("slots_speculative")
    if isinstance(flags, list) and flags and all(isinstance(f, bool) for f in flags):
        if declared and not any(flags):
            out.append(
                f"the server at {url} runs no speculation (/slots: speculative false on every "
                f"slot), the campaign measures it as {spec.speculation.label}"
            )
        if not declared and any(flags):
            out.append(
                f"the baseline's server at {url} speculates (/slots: speculative true): it is "
                "no baseline"
            )
    props = probe.get("props")
    slots = props.get("total_slots") if isinstance(props, Mapping) else None
    conc = spec.load.concurrency
    if isinstance(slots, int) and conc is not None and slots < conc:
        out.append(
            f"the server at {url} has {slots} slot(s) (/props total_slots) for concurrency "
            f"{conc}: requests would queue and the queueing be timed as latency (start it with "
            f"--parallel {conc}, or lower load.concurrency)"
        )
    info = probe.get("server_args")
    if isinstance(info, Mapping):
        out += sglang_problems(spec, info, probe.get("running_requests_per_rank"))
    out += vllm_problems(spec, probe.get("vllm_config"), probe.get("spec_decode_family"))
    return out


#: the ``speculative_algorithm`` a SGLang server reports for each campaign method (the
#: ``--speculative-algorithm`` of ``engines.sglang.ALGORITHMS`` once SGLang resolved its alias)
SGLANG_REPORTED: dict[str, frozenset[str]] = {
    method: frozenset({algorithm})
    for method, algorithm in ALGORITHMS.items()
    if algorithm not in ("NEXTN", "EAGLE")
}
SGLANG_REPORTED["mtp"] = frozenset({"NEXTN", "EAGLE", "FROZEN_KV_MTP"})
SGLANG_REPORTED["eagle"] = frozenset({"NEXTN", "EAGLE", "FROZEN_KV_MTP"})
#: launch flags of the draft shape -> the ``ServerArgs`` field the server reports them in
SGLANG_SHAPE = {
    "--speculative-num-steps": "speculative_num_steps",
    "--speculative-eagle-topk": "speculative_eagle_topk",
    "--speculative-num-draft-tokens": "speculative_num_draft_tokens",
    "--speculative-dspark-block-size": "speculative_dspark_block_size",
}
SGLANG_INFO = "/get_server_info"


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def sglang_problems(spec: RunSpec, info: Mapping[str, Any], per_rank: Any = None) -> list[str]:
    """What a SGLang server's ``/get_server_info`` (``SGLangAdapter.probe``: ``server_args``
    and ``running_requests_per_rank``) says against the configuration it is measured as:
    speculation off on a candidate's server or on in a baseline's (``speculative_algorithm``);
    another algorithm than the declared method's; another draft shape than the configuration's
    launch flags; fewer requests run at once than the campaign's concurrency."""
    url = spec.engine.base_url
    sp = spec.speculation
    out: list[str] = []
    declared = sp.method != "none"
    algorithm = info.get("speculative_algorithm")  # absent (an older version): unknown
    if "speculative_algorithm" in info and algorithm is None and declared:
        out.append(
            f"the server at {url} runs no speculation ({SGLANG_INFO} speculative_algorithm "
            f"null), the campaign measures it as {sp.label}"
        )
    elif isinstance(algorithm, str) and not declared:
        out.append(
            f"the baseline's server at {url} speculates ({SGLANG_INFO} speculative_algorithm "
            f"{algorithm}): it is no baseline"
        )
    elif isinstance(algorithm, str) and sp.method in SGLANG_REPORTED:
        reported = algorithm.upper()
        expected = SGLANG_REPORTED[sp.method]
        known = frozenset().union(*SGLANG_REPORTED.values())
        if reported in known and reported not in expected:
            out.append(
                f"the server at {url} runs {algorithm} ({SGLANG_INFO} speculative_algorithm), "
                f"the campaign declares method {sp.method} (reported as "
                f"{' or '.join(sorted(expected))})"
            )
        elif reported in expected and reported != "FROZEN_KV_MTP":  # its shape: not read
            out += _sglang_shape(spec, info)
    conc = spec.load.concurrency
    limits = per_rank if isinstance(per_rank, list) and per_rank else None
    if limits is not None and all(_int(v) is not None for v in limits):
        slots: int | None = sum(limits)
        field = "internal_states effective_max_running_requests_per_dp"
        if len(limits) > 1:
            field += f", summed over {len(limits)} ranks"
    else:
        most, dp = _int(info.get("max_running_requests")), _int(info.get("dp_size"))
        slots = most * dp if most is not None and dp is not None and dp >= 1 else None
        field = "max_running_requests" + (f" x dp_size {dp}" if dp not in (None, 1) else "")
    if slots is not None and conc is not None and slots < conc:
        out.append(
            f"the server at {url} runs at most {slots} request(s) at once ({SGLANG_INFO} "
            f"{field}) for concurrency {conc}: requests would queue and the queueing be timed "
            f"as latency (start it with --max-running-requests {conc}, or lower "
            "load.concurrency)"
        )
    return out


def _sglang_shape(spec: RunSpec, info: Mapping[str, Any]) -> list[str]:
    """The reported draft shape against the configuration's own launch flags, where SGLang keeps
    them as given (see the module's notes); empty when it cannot be compared."""
    if info.get("speculative_adaptive") is True:
        return []
    if any(option_name(name) in SGLANG_SHAPE for name, _ in spec.speculation.params):
        return []
    try:
        options = sglang_speculative_options(spec)
    except ValueError:
        return []
    out: list[str] = []
    for flag, field in SGLANG_SHAPE.items():
        want, got = (options or {}).get(flag), _int(info.get(field))
        if isinstance(want, int) and got is not None and got != want:
            out.append(
                f"the server at {spec.engine.base_url} has {field} {got} ({SGLANG_INFO}), the "
                f"campaign's {spec.speculation.label} launches with {flag} {want}"
            )
    return out


def vllm_problems(spec: RunSpec, config: Any, family: Any) -> list[str]:
    """What a vLLM server says (``VLLMAdapter.probe``) against the configuration it is measured
    as: its configuration where the development endpoint serves it (``config``: speculation on
    or off, ``num_speculative_tokens`` against k, ``max_num_seqs`` against the concurrency),
    else its ``vllm:spec_decode_*`` counters (``family``): none on a candidate's server, some on
    a baseline's, as many positions as speculative tokens."""
    url = spec.engine.base_url
    sp = spec.speculation
    declared = sp.method != "none"
    sets_k = any(name == "num_speculative_tokens" for name, _ in sp.params)
    out: list[str] = []
    config = config if isinstance(config, Mapping) else {}
    family = family if isinstance(family, Mapping) else None
    if "speculative_config" in config:
        sc = config["speculative_config"]
        if sc is None and declared:
            out.append(
                f"the server at {url} runs no speculation (/server_info speculative_config "
                f"null), the campaign measures it as {sp.label}"
            )
        elif isinstance(sc, Mapping) and not declared:
            out.append(
                f"the baseline's server at {url} speculates (/server_info speculative_config "
                f"method {sc.get('method')}): it is no baseline"
            )
        elif isinstance(sc, Mapping):
            n = _int(sc.get("num_speculative_tokens"))
            if n is not None and sp.k is not None and not sets_k and n != sp.k:
                out.append(
                    f"the server at {url} has num_speculative_tokens {n} (/server_info "
                    f"speculative_config), the campaign measures k {sp.k}"
                )
    elif family is not None:
        families, series = family.get("families"), family.get("series")
        if declared and families == []:
            out.append(
                f"the server at {url} runs no speculation (/metrics: no vllm:spec_decode_* "
                f"counters, which vLLM registers only with a --speculative-config), the campaign "
                f"measures it as {sp.label}"
            )
        elif not declared and isinstance(series, list) and series:
            out.append(
                f"the baseline's server at {url} speculates (/metrics: {series[0]}, which vLLM "
                "registers only with a --speculative-config): it is no baseline"
            )
        elif declared:
            n = _int(family.get("positions"))
            if n and sp.k is not None and not sets_k and n != sp.k:
                out.append(
                    f"the server at {url} drafts {n} token(s) per step (/metrics: {n} positions "
                    f"of vllm:spec_decode_num_accepted_tokens_per_pos), the campaign measures k "
                    f"{sp.k}"
                )
    most, dp = _int(config.get("max_num_seqs")), _int(config.get("data_parallel_size"))
    conc = spec.load.concurrency
    if most is not None and dp is not None and dp >= 1 and conc is not None and most * dp < conc:
        field = "max_num_seqs" + (f" x data_parallel_size {dp}" if dp != 1 else "")
        out.append(
            f"the server at {url} runs at most {most * dp} request(s) at once (/server_info "
            f"{field}) for concurrency {conc}: requests would queue and the queueing be timed "
            f"as latency (start it with --max-num-seqs {conc}, or lower load.concurrency)"
        )
    return out


#: what ``/v1/models`` says of a model that does not change while the server runs (vLLM's
#: ``created`` is the time of the request, so it is left out)
MODEL_FACTS = ("id", "owned_by", "root", "parent", "max_model_len", "meta")
#: what the adapters' probes record that names the server's build, model file and setup
#: (llama.cpp: ``props``, ``slots_speculative``, ``props_speculative``; SGLang: ``server_args``;
#: vLLM: ``vllm_config``, ``spec_decode_family``). Keys only ever added: a key an engine's probe
#: never sets leaves that engine's facts, and the digests stored from them, as they were
PROBE_FACTS = (
    "props",
    "slots_speculative",
    "props_speculative",
    "server_args",
    "vllm_config",
    "spec_decode_family",
)


def server_facts(engine_version: Any, models: Any, probe: Mapping[str, Any]) -> dict[str, Any]:
    """What an attached server says about itself that does not change while it runs: its
    version or build (``/version``, llama.cpp ``/props`` build_info), its model (``/v1/models``
    ids, roots, llama.cpp's model meta and path), its slots and whether they speculate."""
    facts: dict[str, Any] = {"version": engine_version}
    if isinstance(models, Mapping) and isinstance(models.get("data"), list):
        facts["models"] = [
            {k: m[k] for k in MODEL_FACTS if k in m}
            for m in models["data"]
            if isinstance(m, Mapping)
        ]
    else:
        facts["models"] = models
    for key in PROBE_FACTS:
        if key in probe:
            facts[key] = probe[key]
    return facts


def facts_digest(facts: Mapping[str, Any]) -> str:
    """A short digest of ``server_facts``: equal digests, the same server as far as it says."""
    text = json.dumps(facts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
