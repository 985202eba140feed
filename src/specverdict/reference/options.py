"""The reference engine's launch vocabulary: its speculation methods, weight quantization
schemes, acceptance modes, and the model of its ``--speculative-config``.

Pure definitions (typing, dataclasses and pydantic, nothing else): the harness's reference adapter checks a
campaign against them without the engine's runtime (numpy kernels, safetensors, tokenizers, the
HTTP server), which is the ``reference`` extra. The engine parses its flags with the same
models, so what the adapter accepts is what the server accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

SpecMethod = Literal[
    "ngram", "suffix", "draft_model", "mtp", "medusa", "dflash", "eagle3", "dspark"
]
#: methods whose drafter scores its drafts (DSpark's confidence head): the reference engine's
#: adaptive verification needs that signal
CONFIDENCE_METHODS: frozenset[str] = frozenset({"dspark"})
#: methods that draft without weights of their own
MODEL_FREE: frozenset[str] = frozenset({"ngram", "suffix"})
PerRequestMetricsMode = Literal["none", "summary", "detailed"]

#: prefix caching: the block size of reuse (vLLM's default) and the default capacity, in tokens
PREFIX_BLOCK = 16
PREFIX_CACHE_TOKENS = 16384
#: simulated weight formats (see :mod:`specverdict.reference.quant`)
Scheme = Literal["none", "bf16", "fp8", "nvfp4", "int4"]
SCHEMES: tuple[str, ...] = get_args(Scheme)
#: ``exact`` keeps the target's distribution; ``relaxed`` and ``threshold`` are lossy
AcceptanceMode = Literal["exact", "relaxed", "threshold"]


#: vLLM's per-batch-size k schedule (``num_speculative_tokens_per_batch_size``): inclusive
#: batch-size ranges ``(start, end, k)``, the first from 1, each the next after the one before;
#: k = 0 turns speculation off in its range (vLLM's own example ``[[1, 4, 2], [5, 512, 0]]``);
#: batch sizes past the last range keep its k
KRange = tuple[int, int, int]


def k_schedule_problem(schedule: Sequence[Sequence[int]]) -> str | None:
    """Why a k schedule is malformed (one clause), or None: at least one range, each
    ``[start, end, k]`` of integers, the first from 1, contiguous (each starts one after the
    end before it), start <= end, k >= 0 and at least one k above 0."""
    if not schedule:
        return "expected at least one range [start, end, k]"
    expected_start = 1
    for i, item in enumerate(schedule):
        if len(item) != 3 or not all(isinstance(x, int) and not isinstance(x, bool) for x in item):
            return f"range {i + 1}: expected [start, end, k], three integers"
        start, end, k = item
        if start != expected_start:
            where = "from 1" if i == 0 else f"at {expected_start} (contiguous, no overlap)"
            return f"range {i + 1} [{start}, {end}, {k}]: expected to start {where}"
        if end < start:
            return f"range {i + 1} [{start}, {end}, {k}]: expected end >= start"
        if k < 0:
            return f"range {i + 1} [{start}, {end}, {k}]: expected k >= 0 (0: speculation off)"
        expected_start = end + 1
    if max(item[2] for item in schedule) < 1:
        return "every range has k = 0: that is no speculation (use method none)"
    return None


def k_at(schedule: Sequence[Sequence[int]], batch: int) -> int:
    """The k a schedule gives a step of ``batch`` requests (past the last range: its k)."""
    for start, end, k in schedule:
        if start <= batch <= end:
            return k
    return schedule[-1][2]


def k_range(schedule: Sequence[Sequence[int]], batches: int) -> tuple[int, int]:
    """The smallest and largest k a schedule gives over batch sizes 1..``batches``."""
    ks = [k for start, _, k in schedule if start <= max(batches, 1)]
    return min(ks), max(ks)


#: the speculative config's keys of method ``suffix``
SUFFIX_OPTIONS = (
    "suffix_decoding_max_tree_depth",
    "suffix_decoding_max_cached_requests",
    "suffix_decoding_max_spec_factor",
    "suffix_decoding_min_token_prob",
    "suffix_min_match",
)


@dataclass(frozen=True)
class SuffixSettings:
    max_depth: int
    max_cached_requests: int
    max_spec_factor: float
    min_token_prob: float
    min_match: int


class SpeculativeConfig(BaseModel):
    """The JSON of ``--speculative-config``: the keys of vLLM's ``SpeculativeConfig`` that the
    reference engine implements, plus ``acceptance`` (``exact`` or the lossy ``relaxed``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    method: SpecMethod
    num_speculative_tokens: int = Field(gt=0, le=32)
    num_speculative_tokens_per_batch_size: tuple[tuple[int, int, int], ...] | None = Field(
        default=None,
        description="vLLM's per-batch-size k schedule: inclusive ranges [start, end, k], the "
        "first from 1, contiguous; each step drafts the k of its batch size (the requests it "
        "runs), k at most num_speculative_tokens; past the last range its k",
    )
    model: str | None = Field(
        default=None,
        description="draft model (draft_model), MTP head (mtp), Medusa heads (medusa), block "
        "drafter (dflash), EAGLE-3 drafter (eagle3) or DSpark drafter (dspark) directory; "
        "default: the shipped one",
    )
    quantization: Scheme | None = Field(
        default=None,
        description="draft/head weight quantization (simulated): bf16, fp8, nvfp4, int4",
    )
    prompt_lookup_min: int | None = Field(default=None, ge=1)
    prompt_lookup_max: int | None = Field(default=None, ge=1)
    suffix_decoding_max_tree_depth: int | None = Field(
        default=None,
        ge=1,
        description="suffix: the longest context suffix matched (vLLM's name; default 24)",
    )
    suffix_decoding_max_cached_requests: int | None = Field(
        default=None,
        ge=0,
        description="suffix: earlier responses the engine keeps to match against, newest first "
        "(vLLM's name; default 10000; 0: the current request only)",
    )
    suffix_decoding_max_spec_factor: float | None = Field(
        default=None,
        gt=0.0,
        description="suffix: at most this many draft tokens per matched token (vLLM's name; "
        "default 1.0)",
    )
    suffix_decoding_min_token_prob: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="suffix: stop drafting when the continuation's estimated probability falls "
        "below this (vLLM's name; default 0.1)",
    )
    suffix_min_match: int | None = Field(
        default=None,
        ge=1,
        description="suffix: draft nothing when the longest match is shorter (default 1)",
    )
    enable_adaptive_verification: bool = Field(
        default=False,
        description="vLLM's name: each step verifies, per request, the longest prefix of its "
        "drafts whose cumulative confidence clears a threshold set by the step's batch and the "
        "device's step cost (at least one draft, at most k); dspark only here",
    )
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
        if self.method in MODEL_FREE and self.quantization is not None:
            raise ValueError(f"method {self.method!r} has no draft weights to quantize")
        lookup = self.prompt_lookup_min is not None or self.prompt_lookup_max is not None
        if self.method != "ngram" and lookup:
            raise ValueError("prompt_lookup_min/prompt_lookup_max apply to method 'ngram' only")
        if self.enable_adaptive_verification and self.method not in CONFIDENCE_METHODS:
            raise ValueError(
                f"enable_adaptive_verification with method {self.method!r}: expected method "
                "'dspark' (the reference engine verifies adaptively from DSpark's confidence head)"
            )
        if self.method in MODEL_FREE and self.model is not None:
            raise ValueError(f"method {self.method!r} takes no draft 'model'")
        suffix = [name for name in SUFFIX_OPTIONS if getattr(self, name) is not None]
        if self.method != "suffix" and suffix:
            raise ValueError(f"{suffix[0]} applies to method 'suffix' only")
        relaxed = self.relaxed_topk != 1 or self.relaxed_delta != 0.0
        if relaxed and self.acceptance != "relaxed":
            raise ValueError("relaxed_topk/relaxed_delta apply to acceptance 'relaxed' only")
        if self.accept_threshold_single != 1.0 and self.acceptance != "threshold":
            raise ValueError("accept_threshold_single applies to acceptance 'threshold' only")
        schedule = self.num_speculative_tokens_per_batch_size
        if schedule is not None:
            problem = k_schedule_problem(schedule)
            if problem is not None:
                raise ValueError(f"num_speculative_tokens_per_batch_size: {problem}")
            top = max(k for _, _, k in schedule)
            if top > self.num_speculative_tokens:
                raise ValueError(
                    f"num_speculative_tokens_per_batch_size: a k of {top} is above "
                    f"num_speculative_tokens ({self.num_speculative_tokens})"
                )
        lo, hi = self.lookup_range
        if lo > hi:
            raise ValueError(f"prompt_lookup_min ({lo}) must be <= prompt_lookup_max ({hi})")
        return self

    def k_for(self, batch: int) -> int:
        """The draft tokens of a step that runs ``batch`` requests."""
        schedule = self.num_speculative_tokens_per_batch_size
        return self.num_speculative_tokens if schedule is None else k_at(schedule, batch)

    @property
    def suffix(self) -> SuffixSettings:
        """The suffix proposer's settings, vLLM's defaults where unset."""
        return SuffixSettings(
            max_depth=self.suffix_decoding_max_tree_depth or 24,
            max_cached_requests=(
                10000
                if self.suffix_decoding_max_cached_requests is None
                else self.suffix_decoding_max_cached_requests
            ),
            max_spec_factor=self.suffix_decoding_max_spec_factor or 1.0,
            min_token_prob=(
                0.1
                if self.suffix_decoding_min_token_prob is None
                else self.suffix_decoding_min_token_prob
            ),
            min_match=self.suffix_min_match or 1,
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
