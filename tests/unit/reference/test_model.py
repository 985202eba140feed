"""The numpy inference against the torch forward it was trained with, and KV-cache semantics."""

from __future__ import annotations

import json

import numpy as np
import pytest

from specverdict.reference.model import GPTModel, MTPHeadModel
from specverdict.reference.weights import SHIPPED, shipped
from tests.conftest import FIXTURES

GOLDEN = json.loads((FIXTURES / "golden_logits.json").read_text())


@pytest.fixture(scope="module")
def target() -> GPTModel:
    return GPTModel.from_dir(shipped("target"))


@pytest.fixture(scope="module")
def draft() -> GPTModel:
    return GPTModel.from_dir(shipped("draft"))


def test_target_logits_match_the_torch_forward(target: GPTModel) -> None:
    logits, _ = target.forward(GOLDEN["tokens"], target.new_cache())
    np.testing.assert_allclose(logits[-1], GOLDEN["target_last_logits"], atol=2e-3)
    np.testing.assert_allclose(logits[0], GOLDEN["target_first_logits"], atol=2e-3)


def test_draft_logits_match_the_torch_forward(draft: GPTModel) -> None:
    logits, _ = draft.forward(GOLDEN["tokens"], draft.new_cache(), last_only=True)
    np.testing.assert_allclose(logits[-1], GOLDEN["draft_last_logits"], atol=2e-3)


def test_mtp_head_matches_the_torch_forward(target: GPTModel) -> None:
    head = MTPHeadModel.from_dir(shipped("mtp"), target)
    _, hidden = target.forward(GOLDEN["tokens"], target.new_cache(), last_only=True)
    _, logits = head.step(hidden[-1], GOLDEN["tokens"][-1])
    np.testing.assert_allclose(logits, GOLDEN["mtp_logits_from_last"], atol=2e-3)


def test_incremental_decoding_equals_one_full_forward(target: GPTModel) -> None:
    tokens = GOLDEN["tokens"][:20]
    full, _ = target.forward(tokens, target.new_cache())
    cache = target.new_cache()
    target.forward(tokens[:5], cache)
    steps = [target.forward([t], cache)[0][0] for t in tokens[5:]]
    np.testing.assert_allclose(np.stack(steps), full[5:], atol=1e-9)


def test_rollback_discards_rejected_positions(target: GPTModel) -> None:
    tokens = GOLDEN["tokens"][:16]
    cache = target.new_cache()
    target.forward(tokens[:10], cache)
    target.forward([1, 2, 3, 4], cache)  # "drafts" that get rejected
    cache.rollback(10)
    after, _ = target.forward(tokens[10:], cache)
    fresh, _ = target.forward(tokens, target.new_cache())
    np.testing.assert_allclose(after, fresh[10:], atol=1e-9)
    with pytest.raises(ValueError, match="roll back"):
        cache.rollback(99)


def test_shapes_fit_real_engines(target: GPTModel, draft: GPTModel) -> None:
    # vLLM's CPU attention supports head sizes 32, 64, ...; HumanEval prompts need >= 1024 tokens.
    for model in (target, draft):
        assert model.config.head_dim in (32, 64)
        assert model.config.n_positions >= 1024
    assert draft.config.vocab_size == target.config.vocab_size


def test_shipped_weights_stay_within_budget() -> None:
    total = sum(f.stat().st_size for name in SHIPPED for f in shipped(name).iterdir())
    assert total <= 25 * 2**20
