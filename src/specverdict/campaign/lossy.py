"""Lossy speculation recognised from a run's configuration: the candidate's parameters and the
engine's launch arguments, per engine, as their sources name them.

Lossless speculation reproduces the target's outputs (greedy) or their distribution (sampling);
these modes do not, and a verdict must never judge them as lossless:

- ``synthetic``: vLLM's ``rejection_sample_method: synthetic`` with
  ``synthetic_acceptance_rates`` or ``synthetic_acceptance_length`` (``speculative_config``):
  drafts are accepted at a set rate, for benchmarking. The output is not the model's, and its
  speed is set, not measured: nothing about the configuration can be judged;
- ``synthetic`` too: llama.cpp's ``--spec-synth-len`` / ``--spec-synth-rates`` ("benchmarking
  only", ``common/arg.cpp``);
- ``forced``: a forced acceptance length (AMD ATOM's ``--spec-decode-acceptance-length``), the
  same for a fixed length;
- ``relaxed``: TensorRT-LLM's MTP ``use_relaxed_acceptance_for_thinking`` (with
  ``relaxed_topk`` / ``relaxed_delta``), and the reference engine's ``acceptance: relaxed``;
- ``threshold``: SGLang's ``--speculative-accept-threshold-single`` or
  ``--speculative-accept-threshold-acc`` below their lossless default 1.0 (``server_args.py``);
- ``typical``: typical acceptance (Medusa's; vLLM's V0 ``spec_decoding_acceptance_method:
  typical_acceptance_sampler``), and ``acceptance: typical``.

The quality gates decide whether a ``relaxed``, ``threshold`` or ``typical`` candidate kept
quality; a ``synthetic`` or ``forced`` one is INVALID for quality and speed alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from specverdict.campaign.spec import RunSpec

LossyKind = Literal["synthetic", "forced", "relaxed", "threshold", "typical"]

#: kinds whose outputs are not the model's: neither quality nor speed can be judged
NOT_THE_MODELS: frozenset[LossyKind] = frozenset({"synthetic", "forced"})


@dataclass(frozen=True)
class LossyMode:
    kind: LossyKind
    #: the setting that makes it lossy, as the configuration spells it
    setting: str

    @property
    def judgeable(self) -> bool:
        """False when the outputs are not the model's (synthetic or forced acceptance)."""
        return self.kind not in NOT_THE_MODELS

    def describe(self) -> str:
        if self.kind in NOT_THE_MODELS:
            return (
                f"{self.kind} acceptance ({self.setting}): drafts are accepted at a set rate, "
                "so the outputs are not the model's and the speed is set, not measured"
            )
        return f"lossy {self.kind} acceptance ({self.setting}): judged on quality, not as lossless"


def _flag(args: tuple[str, ...], name: str) -> str | None:
    """The value of ``--name VALUE`` or ``--name=VALUE`` in launch arguments."""
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(name + "="):
            return arg.partition("=")[2]
    return None


def _below_one(value: object) -> bool:
    try:
        return float(str(value)) < 1.0
    except ValueError:
        return False


def lossy_mode(spec: RunSpec) -> LossyMode | None:
    """The lossy mode a run's configuration asks for, or None when it is lossless."""
    sp = spec.speculation
    if sp.method == "none":
        return None
    params = dict(sp.params)
    args = spec.engine.launch_args
    if str(params.get("rejection_sample_method", "")) == "synthetic":
        return LossyMode("synthetic", "rejection_sample_method=synthetic")
    for key in ("synthetic_acceptance_rates", "synthetic_acceptance_length"):
        if params.get(key) not in (None, ""):
            return LossyMode("synthetic", f"{key}={params[key]}")
    for flag in ("--spec-synth-len", "--spec-synth-rates"):
        value = _flag(args, flag)
        if value is not None:
            return LossyMode("synthetic", f"{flag} {value}")
    forced = _flag(args, "--spec-decode-acceptance-length")
    if forced is not None:
        return LossyMode("forced", f"--spec-decode-acceptance-length {forced}")
    acceptance = str(params.get("acceptance", "exact"))
    if acceptance in ("relaxed", "typical", "threshold"):
        return LossyMode(acceptance, f"acceptance={acceptance}")  # type: ignore[arg-type]
    if params.get("use_relaxed_acceptance_for_thinking") in (True, "true", "True", 1):
        return LossyMode("relaxed", "use_relaxed_acceptance_for_thinking=true")
    for key in ("speculative_accept_threshold_single", "speculative_accept_threshold_acc"):
        flag = "--" + key.replace("_", "-")
        threshold: object = params.get(key, _flag(args, flag))
        if threshold is not None and _below_one(threshold):
            return LossyMode("threshold", f"{flag} {threshold}")
    if str(params.get("spec_decoding_acceptance_method", "")) == "typical_acceptance_sampler":
        return LossyMode("typical", "spec_decoding_acceptance_method=typical_acceptance_sampler")
    return None
