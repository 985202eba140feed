"""The reference engine's launch vocabulary: its speculation methods, weight quantization
schemes, acceptance modes, and the model of its ``--speculative-config``.

Pure definitions (typing and pydantic, nothing else): the harness's reference adapter checks a
campaign against them without the engine's runtime (numpy kernels, safetensors, tokenizers, the
HTTP server), which is the ``reference`` extra. The engine parses its flags with the same
models, so what the adapter accepts is what the server accepts.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

SpecMethod = Literal["ngram", "draft_model", "mtp"]
PerRequestMetricsMode = Literal["none", "summary", "detailed"]

#: prefix caching: the block size of reuse (vLLM's default) and the default capacity, in tokens
PREFIX_BLOCK = 16
PREFIX_CACHE_TOKENS = 16384
#: simulated weight formats (see :mod:`specverdict.reference.quant`)
Scheme = Literal["none", "bf16", "fp8", "nvfp4", "int4"]
SCHEMES: tuple[str, ...] = get_args(Scheme)
#: ``exact`` keeps the target's distribution; ``relaxed`` and ``threshold`` are lossy
AcceptanceMode = Literal["exact", "relaxed", "threshold"]


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
