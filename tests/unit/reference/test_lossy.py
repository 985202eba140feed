"""The lossy behaviours real engines have: relaxed and thresholded acceptance on greedy
requests, and a verify path whose numerics differ from decode at low precision."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from specverdict.reference.config import SpeculativeConfig
from specverdict.reference.model import GPTModel
from specverdict.reference.sampling import AcceptanceRule, verify_greedy
from specverdict.reference.weights import shipped


def logits_from(probs: list[float]) -> np.ndarray:
    return np.log(np.asarray(probs))


def test_exact_rule_accepts_only_the_argmax() -> None:
    row = logits_from([0.5, 0.3, 0.2])
    assert AcceptanceRule().accepts_greedy(0, row)
    assert not AcceptanceRule().accepts_greedy(1, row)
    # relaxed with its defaults (top-1, delta 0) is lossless too
    assert not AcceptanceRule("relaxed").accepts_greedy(1, row)


def test_relaxed_top_k_and_delta() -> None:
    row = logits_from([0.5, 0.3, 0.15, 0.05])
    rule = AcceptanceRule("relaxed", relaxed_topk=3, relaxed_delta=1.5)
    assert rule.accepts_greedy(1, row)  # rank 2, log(0.5/0.3) = 0.51 <= 1.5
    assert rule.accepts_greedy(2, row)  # rank 3, log(0.5/0.15) = 1.20 <= 1.5
    assert not rule.accepts_greedy(3, row)  # rank 4: outside the top 3
    tight = AcceptanceRule("relaxed", relaxed_topk=3, relaxed_delta=1.0)
    assert tight.accepts_greedy(1, row) and not tight.accepts_greedy(2, row)


def test_single_threshold() -> None:
    row = logits_from([0.5, 0.35, 0.15])
    rule = AcceptanceRule("threshold", threshold_single=0.3)
    assert rule.accepts_greedy(1, row) and not rule.accepts_greedy(2, row)


def test_a_relaxed_verify_keeps_a_runner_up_draft_and_emits_the_next_argmax() -> None:
    rows = np.stack([logits_from([0.5, 0.4, 0.1]), logits_from([0.1, 0.1, 0.8])])
    exact = verify_greedy([1], rows)
    relaxed = verify_greedy([1], rows, AcceptanceRule("relaxed", 2, 1.0))
    assert (exact.accepted, exact.next_token) == (0, 0)
    assert (relaxed.accepted, relaxed.next_token) == (1, 2)


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        ({"relaxed_topk": 3}, "relaxed_topk/relaxed_delta apply to acceptance 'relaxed'"),
        ({"accept_threshold_single": 0.5}, "applies to acceptance 'threshold'"),
        ({"acceptance": "relaxed", "relaxed_topk": 0}, "greater than or equal to 1"),
    ],
)
def test_options_are_checked(raw: dict[str, object], needle: str) -> None:
    with pytest.raises(ValidationError, match=needle):
        SpeculativeConfig.model_validate({"method": "mtp", "num_speculative_tokens": 2, **raw})


def verify_against_decode(model: GPTModel, tokens: list[int]) -> float:
    """Largest logit difference between one multi-token verify pass and token-by-token decode
    from the same prefix."""
    prefix, tail = tokens[:8], tokens[8:]
    a = model.new_cache()
    model.forward(prefix, a, last_only=True)
    verify, _ = model.forward(tail, a)
    b = model.new_cache()
    model.forward(prefix, b, last_only=True)
    decode = np.stack([model.forward([t], b)[0][0] for t in tail])
    return float(np.abs(verify - decode).max())


TOKENS = [5, 17, 300, 41, 9, 88, 120, 7, 33, 250, 61, 12]


def test_verify_numerics_differ_from_decode_only_when_asked() -> None:
    model = GPTModel.from_dir(shipped("target"), quantization="nvfp4")
    assert verify_against_decode(model, TOKENS) < 1e-8  # exact: the same numerics
    model.verify_activations = "nvfp4"
    nvfp4 = verify_against_decode(model, TOKENS)
    model.verify_activations = "bf16"  # what an fp8 verify GEMM reads (VERIFY_ACTIVATIONS)
    bf16 = verify_against_decode(model, TOKENS)
    assert nvfp4 > 0.05
    assert 0 < bf16 < nvfp4 / 10  # bf16 activations perturb far less than 4-bit ones
