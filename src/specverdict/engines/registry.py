"""Engine adapters by kind, from ``specverdict.plugins.ENGINES`` (built-in and plugins)."""

from __future__ import annotations

from specverdict.engines.base import EngineAdapter
from specverdict.plugins import ENGINES


def adapter_for(kind: str) -> EngineAdapter:
    """A fresh adapter for ``kind``; an unknown kind is a one-line ``UnknownNameError``."""
    cls = ENGINES.get(kind)
    if not (isinstance(cls, type) and issubclass(cls, EngineAdapter)):
        raise ENGINES.wrong_kind(kind, cls, "an EngineAdapter subclass")
    if cls.kind != kind:
        raise ENGINES.wrong_kind(
            kind, cls, f"an adapter whose kind is {kind!r} (it says {cls.kind!r})"
        )
    return cls()
