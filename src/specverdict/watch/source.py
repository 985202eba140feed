"""Where a watch's counters come from: one ``MetricsSource`` class per kind of metrics endpoint,
looked up by kind in :data:`SOURCES`.

A source turns one body of a target's metrics endpoint, and the previous reading, into the
next :class:`~specverdict.watch.detect.Counters`: cumulative drafts, draft tokens and accepted
tokens that the detector differences into windows. Servers with cumulative counters (vLLM,
llama.cpp, SGLang's ``spec_verify_calls``) are read as they are; for the others the source
accumulates (TensorRT-LLM's drained iteration stats) or stands in (SGLang's gauges), and says
so in its :attr:`MetricsSource.caveat`.

Built-in kinds (the default for each expectations ``engine`` in :data:`DEFAULT_SOURCES`):

    vllm          vllm:spec_decode_* counters (vLLM, the reference engine)
    llamacpp      llamacpp:spec_decode_* counters (llama-server --metrics)
    trtllm        trtllm-serve /metrics: JSON iteration stats, drained on read
    sglang        sglang:spec_verify_calls_total with generation tokens and requests
    sglang-gauge  sglang:spec_accept_length, the last logging interval's mean (no counts)

Other packages add kinds through the ``specverdict.watch_sources`` entry-point group.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from specverdict.errors import ConfigError
from specverdict.plugins import PluginError, Registry
from specverdict.watch.detect import Counters


class SourceError(ValueError):
    """A body that answered but is not what the source reads (a missing family, not JSON):
    the scrape counts as failed and the message says why."""


class Reading(BaseModel):
    """One read of a target: its counters and what the source noticed on the way."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    counters: Counters
    notes: tuple[str, ...] = ()


class MetricsSource(ABC):
    """Reads one kind of metrics endpoint into cumulative counters."""

    #: the registry name
    kind: ClassVar[str]
    #: the path scraped under each target's base URL
    path: ClassVar[str] = "/metrics"
    #: said once when a watch starts: how far this source's windows can be trusted
    caveat: ClassVar[str | None] = None

    @abstractmethod
    def read(self, text: str, last: Counters | None) -> Reading:
        """The counters after this body, given the previous reading of the same target (None
        for the first). Raises :class:`SourceError` for a body it cannot read."""


#: watch sources by kind (built-in and plugins)
SOURCES: Registry[type] = Registry(
    "watch source",
    "specverdict.watch_sources",
    {
        "vllm": "specverdict.watch.counter_sources:VLLMSource",
        "llamacpp": "specverdict.watch.counter_sources:LlamaCppSource",
        "sglang": "specverdict.watch.counter_sources:SGLangSource",
        "sglang-gauge": "specverdict.watch.counter_sources:SGLangGaugeSource",
        "trtllm": "specverdict.watch.trtllm_source:TRTLLMSource",
    },
)

#: the source a watch uses when the expectations name this engine and no --source is given
DEFAULT_SOURCES = {
    "vllm": "vllm",
    "reference": "vllm",
    "llamacpp": "llamacpp",
    "sglang": "sglang",
    "trtllm": "trtllm",
}


def source_for(kind: str) -> MetricsSource:
    """A fresh source of ``kind``; an unknown kind is a one-line ``ConfigError``."""
    cls = SOURCES.get(kind)
    if not (isinstance(cls, type) and issubclass(cls, MetricsSource)):
        raise SOURCES.wrong_kind(kind, cls, "a MetricsSource subclass")
    if cls.kind != kind:
        raise PluginError(f"watch source {kind!r} says its kind is {cls.kind!r}")
    return cls()


def default_source(engine: str, where: str) -> str:
    """The source kind for an expectations file's engine."""
    if engine not in DEFAULT_SOURCES:
        raise ConfigError(
            f"{where}: engine {engine!r} has no speculative-decoding metrics watch knows "
            f"({', '.join(sorted(DEFAULT_SOURCES))}); give --source "
            f"({', '.join(SOURCES.names())}) or --prefix for a counter family of vLLM's names"
        )
    return DEFAULT_SOURCES[engine]
