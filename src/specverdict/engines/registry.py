"""Engine adapters by kind; a miss lists the kinds that exist."""

from __future__ import annotations

from specverdict.engines.base import EngineAdapter
from specverdict.engines.llamacpp import LlamaCppAdapter
from specverdict.engines.openai_generic import OpenAIAdapter
from specverdict.engines.reference import ReferenceAdapter
from specverdict.engines.sglang import SGLangAdapter
from specverdict.engines.trtllm import TRTLLMAdapter
from specverdict.engines.vllm import VLLMAdapter

_ADAPTERS: dict[str, type[EngineAdapter]] = {
    a.kind: a
    for a in (
        VLLMAdapter,
        ReferenceAdapter,
        OpenAIAdapter,
        SGLangAdapter,
        TRTLLMAdapter,
        LlamaCppAdapter,
    )
}


def adapter_for(kind: str) -> EngineAdapter:
    if kind not in _ADAPTERS:
        raise KeyError(
            f"no adapter for engine kind {kind!r} yet; available: {', '.join(sorted(_ADAPTERS))}"
        )
    return _ADAPTERS[kind]()
