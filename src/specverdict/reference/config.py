"""Launch configuration of the reference engine, mirroring vLLM's flags and speculative config."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from specverdict.reference.model import MoESpec
from specverdict.reference.quant import Scheme
from specverdict.reference.sampling import AcceptanceMode, AcceptanceRule

SpecMethod = Literal["ngram", "draft_model", "mtp"]
PerRequestMetricsMode = Literal["none", "summary", "detailed"]


class SpeculativeConfig(BaseModel):
    """The JSON of ``--speculative-config``: the keys of vLLM's ``SpeculativeConfig`` that the
    reference engine implements, plus ``acceptance`` (``exact`` or the lossy ``relaxed``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    method: SpecMethod
    num_speculative_tokens: int = Field(gt=0, le=32)
    model: str | None = Field(
        default=None,
        description="draft model (draft_model) or MTP head (mtp) directory; default: the shipped one",
    )
    quantization: Scheme | None = Field(
        default=None,
        description="draft/head weight quantization (simulated): bf16, fp8, nvfp4, int4",
    )
    prompt_lookup_min: int | None = Field(default=None, ge=1)
    prompt_lookup_max: int | None = Field(default=None, ge=1)
    acceptance: AcceptanceMode = "exact"
    relaxed_topk: int = Field(
        default=1, ge=1, description="relaxed: a draft among the target's top-k may be accepted"
    )
    relaxed_delta: float = Field(
        default=0.0,
        ge=0.0,
        description="relaxed: ... if its log-probability is within delta of the top-1",
    )
    accept_threshold_single: float = Field(
        default=1.0,
        gt=0.0,
        le=1.0,
        description="threshold: a draft whose target probability reaches this is accepted",
    )

    @model_validator(mode="after")
    def _check(self) -> SpeculativeConfig:
        if self.method == "ngram" and self.quantization is not None:
            raise ValueError("method 'ngram' has no draft weights to quantize")
        lookup = self.prompt_lookup_min is not None or self.prompt_lookup_max is not None
        if self.method != "ngram" and lookup:
            raise ValueError("prompt_lookup_min/prompt_lookup_max apply to method 'ngram' only")
        if self.method == "ngram" and self.model is not None:
            raise ValueError("method 'ngram' takes no draft 'model'")
        relaxed = self.relaxed_topk != 1 or self.relaxed_delta != 0.0
        if relaxed and self.acceptance != "relaxed":
            raise ValueError("relaxed_topk/relaxed_delta apply to acceptance 'relaxed' only")
        if self.accept_threshold_single != 1.0 and self.acceptance != "threshold":
            raise ValueError("accept_threshold_single applies to acceptance 'threshold' only")
        lo, hi = self.lookup_range
        if lo > hi:
            raise ValueError(f"prompt_lookup_min ({lo}) must be <= prompt_lookup_max ({hi})")
        return self

    def rule(self) -> AcceptanceRule:
        return AcceptanceRule(
            self.acceptance, self.relaxed_topk, self.relaxed_delta, self.accept_threshold_single
        )

    @property
    def lookup_range(self) -> tuple[int, int]:
        """vLLM's defaulting: both unset -> 5; one unset -> the other."""
        lo, hi = self.prompt_lookup_min, self.prompt_lookup_max
        if lo is None and hi is None:
            return 5, 5
        low = lo if lo is not None else hi
        high = hi if hi is not None else lo
        assert low is not None and high is not None
        return low, high


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
    verify_numerics: Literal["exact", "kernel"] = Field(
        default="exact",
        description="kernel: verify passes quantize activations like a low-precision GEMM",
    )
    fault_draft_skip: str | None = Field(
        default=None, description="loader fault: draft/MTP tensors matching this glob stay at init"
    )

    @model_validator(mode="after")
    def _device(self) -> EngineConfig:
        from specverdict.reference.device import PROFILES

        if self.device_model is not None and self.device_model not in PROFILES:
            raise ValueError(
                f"unknown device model {self.device_model!r}; known: {', '.join(sorted(PROFILES))}"
            )
        return self
