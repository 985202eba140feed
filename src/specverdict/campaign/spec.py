"""Run identity: the frozen ``RunSpec``, its fingerprint, and the axes two specs differ in.

A fingerprint is the SHA-256 of the canonical JSON (sorted keys, no whitespace) of every axis the
comparison rules care about: engine, model, quantization, speculation, stage, suite, samples,
sampling and load. The engine's version is only known once a server answers; it is recorded in the
run manifest and checked when runs are compared, not part of the planned fingerprint. Each
execution of a spec gets its own run_id; repeats share the fingerprint.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict

from specverdict.campaign.model import EngineKind, Method, ParamValue, Samples, Scorer
from specverdict.reference.options import k_range


class Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EngineRef(Frozen):
    kind: EngineKind
    base_url: str | None = None
    launch_command: str | None = None
    launch_args: tuple[str, ...] = ()


class ModelRef(Frozen):
    family: str
    served_name: str


#: parameter prefixes shown in a candidate's label (acceptance rules: lossless or not)
LABELLED_PARAMS = (
    "acceptance",
    "relaxed_",
    "accept_threshold",
    "use_relaxed_acceptance",
    "speculative_accept_threshold",
    "rejection_sample_method",
    "synthetic_acceptance",
    "spec_decoding_acceptance_method",
)


class Speculation(Frozen):
    method: Method = "none"
    #: draft tokens per step; with a k schedule its largest k (vLLM's num_speculative_tokens)
    k: int | None = None
    draft: str | None = None
    draft_quantization: str | None = None
    params: tuple[tuple[str, ParamValue], ...] = ()
    #: k by batch size (inclusive ranges ``(start, end, k)`` from 1, vLLM's
    #: ``num_speculative_tokens_per_batch_size``); identity only when set
    k_schedule: tuple[tuple[int, int, int], ...] | None = None
    #: confidence-scheduled verification (vLLM's ``enable_adaptive_verification``): each step
    #: verifies 1..k drafts per request; identity only when set
    adaptive_verification: bool | None = None

    @property
    def k_text(self) -> str:
        """``4`` for a fixed k; ``4/2/1@8,32,1024`` for a schedule: its ks, then the batch
        size each range ends at (the ranges start at 1 and are contiguous, so this is all of
        it)."""
        if self.k_schedule is None:
            return str(self.k)
        ks = "/".join(str(k) for _, _, k in self.k_schedule)
        ends = ",".join(str(end) for _, end, _ in self.k_schedule)
        return f"{ks}@{ends}"

    def k_bounds(self, concurrency: int | None) -> tuple[int, int] | None:
        """The smallest and largest k the engine drafts per step when at most ``concurrency``
        requests run at once (None: any batch size); None without k."""
        if self.k is None:
            return None
        if self.adaptive_verification:
            return 1, self.k
        if self.k_schedule is None:
            return self.k, self.k
        if concurrency is None:
            ks = [k for _, _, k in self.k_schedule]
            return min(ks), max(ks)
        return k_range(self.k_schedule, concurrency)

    @property
    def label(self) -> str:
        if self.method == "none":
            return "none"
        parts = [self.method, f"k={self.k_text}"]
        if self.adaptive_verification:
            parts.append("adaptive")
        if self.draft_quantization:
            parts.append(f"draft-q={self.draft_quantization}")
        # acceptance rules change what a candidate is (lossy or not): always in its name
        parts += [f"{k}={v}" for k, v in self.params if k.startswith(LABELLED_PARAMS)]
        return " ".join(parts)


class SuiteRef(Frozen):
    name: str
    version: int

    @classmethod
    def parse(cls, text: str) -> SuiteRef:
        name, _, version = text.partition("@")
        return cls(name=name, version=int(version))

    def __str__(self) -> str:
        return f"{self.name}@{self.version}"


class DatasetRef(Frozen):
    """A stage's own prompts: the file's content hash, its format and its scorer are identity;
    where the file lies (``path``) is not, so the same file elsewhere is the same run."""

    path: str
    sha256: str
    format: str
    scorer: Scorer
    #: swe-bench: the snapshots folder (not identity) and its content hash (identity)
    snapshots: str | None = None
    snapshots_sha256: str | None = None
    #: how multi-turn rows are asked (``DatasetSection.replay``); None: the format's default
    replay: str | None = None


class SyntheticRef(Frozen):
    """A stage of fixed token lengths (``SyntheticSection``): every field is identity. The
    corpus the prompts are cut from is a shipped suite's reference solutions, named with its
    version (``corpus``), whose data are locked per version: a changed corpus is another
    run."""

    prompts: int
    input_tokens: int
    output_tokens: int
    range_ratio: float
    source: str
    seed: int
    ignore_eos: bool
    corpus: str = "synth-function@1"

    @property
    def suite_name(self) -> str:
        """The stage's suite as reports name it, e.g. ``synthetic:corpus-1024x256``."""
        return f"synthetic:{self.source}-{self.input_tokens}x{self.output_tokens}"


class SamplingRef(Frozen):
    temperature: float
    top_p: float
    max_tokens: int
    seed: int | None


class LoadPoint(Frozen):
    concurrency: int | None = None
    request_rate: float | None = None
    warmup: int = 0

    @property
    def level(self) -> float:
        """The load as one number: the request rate, else the concurrency."""
        if self.request_rate is not None:
            return self.request_rate
        return float(self.concurrency or 1)

    @property
    def label(self) -> str:
        if self.request_rate is not None:
            return f"rate={self.request_rate:g}/s"
        return f"concurrency={self.concurrency}"


class RunSpec(Frozen):
    """Everything that fixes what a run measures. Frozen; hashed into the fingerprint."""

    campaign: str
    engine: EngineRef
    model: ModelRef
    quantization: str
    speculation: Speculation
    stage: str
    suite: SuiteRef
    samples: Samples
    sampling: SamplingRef
    load: LoadPoint
    dataset: DatasetRef | None = None
    synthetic: SyntheticRef | None = None

    def identity(self) -> dict[str, Any]:
        """The fields hashed into the fingerprint (the campaign name is a label, not an axis).
        Fields added after the first release are left out while at their default, so that
        stored runs keep their fingerprints."""
        out = self.model_dump(mode="json", exclude={"campaign"})
        for key in ("k_schedule", "adaptive_verification"):
            if out["speculation"][key] is None:
                del out["speculation"][key]
        if not out["engine"]["launch_args"]:
            del out["engine"]["launch_args"]
        if isinstance(out["samples"], dict) and out["samples"].get("stratify", "") is None:
            del out["samples"]["stratify"]
        if out["synthetic"] is None:
            del out["synthetic"]
        if out["dataset"] is None:
            del out["dataset"]
        else:
            ds = out["dataset"]
            del ds["path"], ds["snapshots"]
            for key in ("snapshots_sha256", "replay"):
                if ds[key] is None:
                    del ds[key]
        return out

    @property
    def fingerprint(self) -> str:
        canonical = json.dumps(self.identity(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]

    @property
    def label(self) -> str:
        return (
            f"{self.speculation.label} | {self.engine.kind} | {self.model.family} | "
            f"{self.quantization} | {self.stage} {self.suite} | {self.load.label}"
        )


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for key, sub in value.items():
            _flatten(f"{prefix}.{key}" if prefix else key, sub, out)
    else:
        out[prefix] = value


def differing_axes(a: RunSpec, b: RunSpec) -> list[str]:
    """Dotted names of the identity fields in which two specs differ, sorted."""
    fa: dict[str, Any] = {}
    fb: dict[str, Any] = {}
    _flatten("", a.identity(), fa)
    _flatten("", b.identity(), fb)
    return sorted(k for k in fa.keys() | fb.keys() if fa.get(k) != fb.get(k))


class PairingError(ValueError):
    """Two runs that must not be compared; the message lists the differing axes."""


#: identity fields that belong to another speculation axis
_AXIS = {"k_schedule": "k", "adaptive_verification": "k"}


def check_pair(base: RunSpec, cand: RunSpec) -> list[str]:
    """Refuse a comparison that changes more than speculation, or more than one speculation axis.

    A baseline (method ``none``) may face any speculative candidate of the same engine, model,
    quantization, stage, suite version, samples, sampling and load. Two speculative runs may be
    compared only when they differ in exactly one speculation axis (method, k, draft, draft
    quantization or parameters; a k schedule is part of k). Returns the speculation axes that differ.
    """
    # in attach mode each configuration may have its own server: where, not what it runs
    axes = [a for a in differing_axes(base, cand) if a != "engine.base_url"]
    if not axes:
        raise PairingError("the two runs have the same fingerprint: nothing to compare")
    outside = [a for a in axes if not a.startswith("speculation.")]
    if outside:
        raise PairingError("runs differ outside speculation: " + ", ".join(outside))
    if base.speculation.method != "none":
        # a k schedule and its largest k (vLLM's num_speculative_tokens) are one axis: k
        spec_axes = {_AXIS.get(a.split(".")[1], a.split(".")[1]) for a in axes}
        if len(spec_axes) > 1:
            raise PairingError(
                "speculative runs differ in more than one speculation axis: " + ", ".join(axes)
            )
    return axes
