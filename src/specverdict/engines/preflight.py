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


def problems(spec: RunSpec, models: Any, probe: Mapping[str, Any]) -> list[str]:
    """What the server says that contradicts the configuration it is measured as: another
    engine kind; speculation off on a candidate's server or on in a baseline's; fewer slots
    than the campaign's concurrency (requests would queue, and the queueing be timed as
    latency). Empty when nothing contradicts it or the server does not say."""
    url = spec.engine.base_url
    out: list[str] = []
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
