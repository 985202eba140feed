"""Pre-flight checks of an attached server against the configuration it is measured as, from
what the server says about itself before the first measured request: its kind, whether it
speculates, its slots against the campaign's concurrency.

Field names are the engines' own, read in their source: ``/v1/models`` ``owned_by`` is
``"vllm"`` (vLLM ``entrypoints/openai`` protocol ``ModelCard``), ``"sglang"`` (SGLang
``srt/entrypoints/openai/protocol.py``) and ``"llamacpp"`` (llama.cpp ``tools/server``); the
reference engine says ``"specverdict"``. llama.cpp's ``/props`` carries ``total_slots`` and its
``/slots`` a ``speculative`` flag per slot (recorded by ``LlamaCppAdapter.probe``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from specverdict.campaign.spec import RunSpec

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
    return out


#: what ``/v1/models`` says of a model that does not change while the server runs (vLLM's
#: ``created`` is the time of the request, so it is left out)
MODEL_FACTS = ("id", "owned_by", "root", "parent", "max_model_len", "meta")
#: what the adapters' probes record that names the server's build, model file and setup
PROBE_FACTS = ("props", "slots_speculative", "props_speculative")


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
