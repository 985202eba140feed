"""Token sampling and speculative verification.

Verification follows the speculative-sampling rule of Leviathan et al. (2023, "Fast Inference from
Transformers via Speculative Decoding") and Chen et al. (2023, "Accelerating Large Language Model
Decoding with Speculative Sampling"): draft token x with draft probability q(x) is accepted with
probability min(1, p(x)/q(x)); on the first rejection the replacement is drawn from the residual
norm(max(0, p - q)); if every draft is accepted a bonus token is drawn from the next p. This keeps
the output distribution exactly the target's. Drafts without a distribution (n-gram) count as
one-hot q, so x is accepted with probability p(x) and the residual is p with x removed, as vLLM's
rejection sampler does (``vllm/v1/sample/rejection_sampler.py``, no-draft-probs path).

Greedy requests accept a draft iff it equals the target's argmax (prefix match).

``relaxed`` verification is a deliberately lossy mode, like the lossy modes real engines offer:
it accepts any draft token whose target probability is at least ``RELAXED_MIN_PROB``. It is faster
and does not preserve the target's distribution; the tests show the frequency test failing on it.
Greedy requests verify by prefix match under ``exact``. Two lossy rules act on greedy requests
too, each after a real engine's option:

* ``relaxed`` with ``relaxed_topk`` > 1 or ``relaxed_delta`` > 0 (TensorRT-LLM's relaxed MTP
  acceptance, ``MTPDecodingConfig.relaxed_topk`` / ``relaxed_delta``): a draft is accepted if it
  is among the target's top-k tokens and its log-probability is within delta of the top-1's;
* ``threshold`` (SGLang's ``speculative_accept_threshold_single``): a draft is accepted if its
  target probability reaches the threshold, or if it is the target's choice; sampled requests
  accept it on that threshold too, else by the exact rule.

With their defaults (top-k 1, delta 0, threshold 1.0) both are lossless.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from specverdict.reference.options import AcceptanceMode, SpeculativeConfig

F64 = NDArray[np.float64]
RELAXED_MIN_PROB = 0.05


@dataclass(frozen=True)
class AcceptanceRule:
    mode: AcceptanceMode = "exact"
    relaxed_topk: int = 1
    relaxed_delta: float = 0.0
    threshold_single: float = 1.0

    @classmethod
    def of(cls, spec: SpeculativeConfig) -> AcceptanceRule:
        """The rule a ``--speculative-config`` asks for."""
        return cls(
            spec.acceptance, spec.relaxed_topk, spec.relaxed_delta, spec.accept_threshold_single
        )

    def accepts_greedy(self, draft: int, logits: F64) -> bool:
        """Whether a greedy request accepts ``draft`` against one position's logits."""
        best = int(logits.argmax())
        if draft == best:
            return True
        if self.mode == "relaxed" and (self.relaxed_topk > 1 or self.relaxed_delta > 0):
            rank = int((logits > logits[draft]).sum())
            if rank >= self.relaxed_topk:
                return False
            z = logits - logits.max()
            logp = z - np.log(np.exp(z).sum())
            return bool(logp[draft] >= logp[best] - self.relaxed_delta)
        if self.mode == "threshold" and self.threshold_single < 1.0:
            z = np.exp(logits - logits.max())
            return bool(z[draft] / z.sum() >= self.threshold_single)
        return False


@dataclass(frozen=True)
class SamplingParams:
    temperature: float = 1.0
    top_p: float = 1.0

    @property
    def greedy(self) -> bool:
        return self.temperature < 1e-5  # vLLM's threshold


def probabilities(logits: F64, params: SamplingParams) -> F64:
    """Softmax at the request's temperature, then nucleus (top-p) truncation, renormalised."""
    z = logits / params.temperature
    z = np.exp(z - z.max(axis=-1, keepdims=True))
    p: F64 = z / z.sum(axis=-1, keepdims=True)
    if params.top_p < 1.0:
        p = np.apply_along_axis(_top_p_1d, -1, p, params.top_p)
    return p


def _top_p_1d(p: F64, top_p: float) -> F64:
    order = np.argsort(-p, kind="stable")
    cum = np.cumsum(p[order])
    keep = int(np.searchsorted(cum, top_p) + 1)
    out = np.zeros_like(p)
    out[order[:keep]] = p[order[:keep]]
    result: F64 = out / out.sum()
    return result


def sample(p: F64, rng: np.random.Generator) -> int:
    """Inverse-CDF draw from a probability vector."""
    cum = np.cumsum(p)
    idx = int(np.searchsorted(cum, rng.random() * cum[-1], side="right"))
    return min(idx, len(p) - 1)


@dataclass(frozen=True)
class Verification:
    accepted: int  # number of draft tokens accepted (0..len(drafts))
    next_token: int  # the correction (on rejection) or the bonus token


def verify_greedy(
    drafts: list[int], target_logits: F64, rule: AcceptanceRule | None = None
) -> Verification:
    """``target_logits[i]`` is the target's distribution for the position of ``drafts[i]``;
    ``target_logits[len(drafts)]`` the one after the last draft."""
    argmax = target_logits.argmax(axis=-1)
    for i, d in enumerate(drafts):
        if int(argmax[i]) != d and (rule is None or not rule.accepts_greedy(d, target_logits[i])):
            return Verification(i, int(argmax[i]))
    return Verification(len(drafts), int(argmax[len(drafts)]))


def verify_stochastic(
    drafts: list[int],
    draft_probs: F64 | None,
    target_probs: F64,
    rng: np.random.Generator,
    mode: AcceptanceMode = "exact",
    threshold_single: float = 1.0,
) -> Verification:
    """Speculative sampling over processed (temperature, top-p) distributions.

    ``draft_probs[i]`` is q for ``drafts[i]`` (None: one-hot drafts); ``target_probs`` has one more
    row than there are drafts.
    """
    for i, d in enumerate(drafts):
        p = target_probs[i]
        q = draft_probs[i] if draft_probs is not None else None
        if mode == "relaxed":
            ok = p[d] >= RELAXED_MIN_PROB
        elif mode == "threshold" and p[d] >= threshold_single:
            ok = True
        else:
            qd = 1.0 if q is None else float(q[d])
            ok = qd > 0 and rng.random() < min(1.0, float(p[d]) / qd)
        if ok:
            continue
        if q is None or mode == "relaxed":
            residual = p.copy()
            residual[d] = 0.0
        else:
            residual = np.maximum(p - q, 0.0)
        total = residual.sum()
        if total <= 0:  # p == q exactly: any draw from p is correct
            residual, total = p, p.sum()
        return Verification(i, sample(residual / total, rng))
    return Verification(len(drafts), sample(target_probs[len(drafts)], rng))
