"""Launch configuration of the reference engine, mirroring vLLM's flags; the speculative config
and the other pure definitions are in :mod:`specverdict.reference.options`."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from specverdict.reference.model import MoESpec
from specverdict.reference.options import (
    PREFIX_CACHE_TOKENS,
    PerRequestMetricsMode,
    Scheme,
    SpeculativeConfig,
)

__all__ = ["EngineConfig", "SpeculativeConfig"]


class EngineConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    model_dir: Path
    served_model_name: str
    max_model_len: int | None = None
    speculative: SpeculativeConfig | None = None
    per_request_spec_decode_metrics: PerRequestMetricsMode = "none"
    seed: int = 0
    quantization: Scheme = "none"
    moe: MoESpec | None = None
    max_num_seqs: int = Field(default=256, ge=1, description="requests per batched step")
    override_dir: Path | None = None
    device_model: str | None = Field(
        default=None, description="pace steps to a device time model (device.PROFILES)"
    )
    device_clock: Literal["paced", "virtual"] = Field(
        default="paced",
        description="paced: each step is held for its modelled time on the wall clock; virtual: "
        "steps run at host speed and every streamed chunk carries the modelled device time",
    )
    virtual_admission_wait_s: float = Field(
        default=0.5,
        ge=0.0,
        description="virtual clock: how long (host time) a slot freed by a finished request "
        "waits for the client's next request before the next step (0: never waits)",
    )
    verify_numerics: Literal["exact", "kernel"] = Field(
        default="exact",
        description="kernel: verify passes quantize activations like a low-precision GEMM",
    )
    fault_draft_skip: str | None = Field(
        default=None, description="loader fault: draft/MTP tensors matching this glob stay at init"
    )
    enable_prefix_caching: bool = Field(
        default=True,
        description="reuse the keys and values of earlier sequences for a prompt that starts "
        "with the same tokens (vLLM's automatic prefix caching, on by default in its V1 engine)",
    )
    prefix_cache_tokens: int = Field(
        default=PREFIX_CACHE_TOKENS,
        ge=0,
        description="tokens the prefix cache holds (least recently used go)",
    )
    fault_degrade_draft_after: int | None = Field(
        default=None,
        ge=0,
        description="drift fault: requests started after this many get a corrupted draft (every "
        "drafted token is replaced by the next token id), silently",
    )

    @model_validator(mode="after")
    def _device(self) -> EngineConfig:
        from specverdict.reference.device import PROFILES

        if self.device_model is not None and self.device_model not in PROFILES:
            raise ValueError(
                f"unknown device model {self.device_model!r}; known: {', '.join(sorted(PROFILES))}"
            )
        if self.device_clock == "virtual" and self.device_model is None:
            raise ValueError("device_clock 'virtual' needs a device model (--device-model)")
        return self
