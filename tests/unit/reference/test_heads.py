"""The modules trained on the frozen target (Medusa's heads): the numpy inference against the
torch forward (golden logits written at training time), the device work they are charged, and
exact sampled verification of their drafts (greedy identity is in ``test_decoding``)."""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chisquare

from specverdict.reference.engine import build_method
from specverdict.reference.model import (
    BlockDrafterModel,
    DSparkDrafterModel,
    Eagle3DrafterModel,
    GPTModel,
    MedusaHeadsModel,
)
from specverdict.reference.options import SpeculativeConfig
from specverdict.reference.proposers import (
    BlockDraftMethod,
    DraftContext,
    DSparkMethod,
    Eagle3Method,
    MedusaMethod,
    Method,
)
from specverdict.reference.sampling import SamplingParams, probabilities, verify_stochastic
from specverdict.reference.weights import shipped
from tests.conftest import untraced

GOLDEN = json.loads((Path(__file__).parents[2] / "fixtures" / "golden_heads.json").read_text())


@pytest.fixture(scope="module")
def target() -> GPTModel:
    return GPTModel.from_dir(shipped("target"))


def last_hidden(target: GPTModel, tokens: list[int]) -> np.ndarray:
    """The target's final hidden state before the last token (what a proposer is given)."""
    _, hidden = target.forward(tokens[:-1], target.new_cache(), last_only=True)
    return hidden[-1]


def context(
    target: GPTModel, m: Method, tokens: list[int], params: SamplingParams, seed: int
) -> DraftContext:
    """What the decoder gives a proposer after a prefill of ``tokens[:-1]``."""
    target.capture_layers = m.drafter.layers if isinstance(m, Eagle3Method) else ()
    _, hidden = target.forward(tokens[:-1], target.new_cache(), last_only=True)
    features = target.last_features[0] if target.capture_layers else None
    target.capture_layers = ()
    rng = np.random.default_rng(seed)
    return DraftContext(tokens, hidden[-1], params, rng, features, 0)


def method(spec: dict[str, object], target: GPTModel) -> Method:
    return build_method(SpeculativeConfig.model_validate(spec), target)


def test_medusa_logits_match_the_torch_forward(target: GPTModel) -> None:
    heads = MedusaHeadsModel.from_dir(shipped("medusa"), target)
    h = last_hidden(target, GOLDEN["tokens"])
    got = heads.logits(h, heads.num_heads)
    np.testing.assert_allclose(got, np.asarray(GOLDEN["medusa_logits"]), atol=2e-3)


def test_block_drafter_logits_match_the_torch_forward(target: GPTModel) -> None:
    drafter = BlockDrafterModel.from_dir(shipped("dflash"), target)
    h = last_hidden(target, GOLDEN["tokens"])
    got = drafter.logits(h, GOLDEN["tokens"][-1], drafter.block_size)
    np.testing.assert_allclose(got, np.asarray(GOLDEN["dflash_logits"]), atol=2e-3)


def test_block_drafter_drafts_a_whole_block_in_one_pass(target: GPTModel) -> None:
    m = method({"method": "dflash", "num_speculative_tokens": 8}, target)
    assert isinstance(m, BlockDraftMethod)
    for k in (1, 4, 8):
        work = m.draft_work(k)
        assert work is not None
        assert (work.passes, work.rows) == (1, k)
    with pytest.raises(ValueError, match="blocks of at most 8"):
        method({"method": "dflash", "num_speculative_tokens": 9}, target)


def test_dspark_chain_matches_the_torch_forward(target: GPTModel) -> None:
    """The greedy chain: each position's corrected logits (backbone plus the Markov head on the
    token drafted before it) and its confidence, as the torch modules computed them."""
    m = method({"method": "dspark", "num_speculative_tokens": 8}, target)
    assert isinstance(m, DSparkMethod) and isinstance(m.drafter, DSparkDrafterModel)
    tokens = GOLDEN["tokens"]
    ctx = context(target, m, tokens, SamplingParams(temperature=0.0), 0)
    proposal = m.new_sequence().propose(ctx, 8)
    expected = np.asarray(GOLDEN["dspark_logits"])
    assert proposal.tokens == [int(row.argmax()) for row in expected]
    d = m.drafter
    outputs = d.outputs(ctx.last_hidden, tokens[-1], 8)
    prev = [tokens[-1], *proposal.tokens[:-1]]
    got = np.stack(
        [o @ target.lm_head + d.correction(t) for o, t in zip(outputs, prev, strict=True)]
    )
    np.testing.assert_allclose(got, expected, atol=2e-3)
    assert proposal.confidence is not None
    np.testing.assert_allclose(proposal.confidence, GOLDEN["dspark_confidence"], atol=1e-3)


def test_dspark_drafts_a_block_in_one_pass_with_markov_corrections(target: GPTModel) -> None:
    m = method({"method": "dspark", "num_speculative_tokens": 7}, target)
    assert isinstance(m, DSparkMethod)
    work = m.draft_work(7)
    block = method({"method": "dflash", "num_speculative_tokens": 7}, target).draft_work(7)
    assert work is not None and block is not None
    assert (work.passes, work.rows) == (1, 7)  # one pass whatever k, a row per position
    # the Markov head adds rank x (d + V) parameters a row: a few percent of the block drafter
    assert work.params_per_row - block.params_per_row == m.drafter.markov_params()
    assert 0 < m.drafter.markov_params() < 0.1 * block.params_per_row
    with pytest.raises(ValueError, match="drafts blocks of at most 8"):
        method({"method": "dspark", "num_speculative_tokens": 9}, target)


def test_eagle3_logits_match_the_torch_forward(target: GPTModel) -> None:
    drafter = Eagle3DrafterModel.from_dir(shipped("eagle3"), target)
    tokens = GOLDEN["tokens"]
    probe = GPTModel.from_dir(shipped("target"))
    probe.capture_layers = drafter.layers
    probe.forward(tokens[:-1], probe.new_cache())
    g = drafter.fuse_features(probe.last_features[0])
    out = drafter.forward(g, tokens[1:], drafter.new_cache(), 0)
    np.testing.assert_allclose(
        drafter.logits(out[-1]), np.asarray(GOLDEN["eagle3_last_logits"]), atol=2e-3
    )


def test_eagle3_drafts_one_pass_a_token_and_fuses_three_target_layers(target: GPTModel) -> None:
    m = method({"method": "eagle3", "num_speculative_tokens": 4}, target)
    assert isinstance(m, Eagle3Method)
    assert len(m.drafter.layers) == 3
    assert target.capture_layers == m.drafter.layers
    target.capture_layers = ()
    work = m.draft_work(4)
    assert work is not None and (work.passes, work.rows) == (4, 1)


def test_medusa_refuses_more_draft_tokens_than_heads(target: GPTModel) -> None:
    with pytest.raises(ValueError, match="has 4 heads"):
        method({"method": "medusa", "num_speculative_tokens": 5}, target)


def test_medusa_drafts_in_one_pass_of_the_heads_it_uses(target: GPTModel) -> None:
    m = method({"method": "medusa", "num_speculative_tokens": 4}, target)
    assert isinstance(m, MedusaMethod)
    lm, head = target.lm_head.size, m.heads.head_params()
    work = m.draft_work(3)
    assert work is not None
    assert (work.passes, work.params_read, work.rows) == (1, 3 * head + lm, 3)
    mtp = method({"method": "mtp", "num_speculative_tokens": 4}, target).draft_work(3)
    assert mtp is not None and mtp.passes == 3  # an autoregressive drafter: one pass a token


DRAWS = 4000
SEEDS = range(5)


def first_token_pvalues(m: Method, target: GPTModel, tokens: list[int]) -> list[float]:
    """Each draw: the method's proposal (token and the distribution it was drawn from) verified
    against the target's distribution at that position; the emitted token must follow the
    target's distribution (the chi-square test of ``test_sampling``, on five streams)."""
    params = SamplingParams(temperature=1.0)
    p = probabilities(target.forward(tokens, target.new_cache())[0][-1], params)
    order = np.argsort(-p)[:15]
    out = []
    for seed in SEEDS:
        ctx = context(target, m, tokens, params, seed)
        rng = ctx.rng
        counts = np.zeros(len(p))
        # the first stream runs traced; the others repeat its code with other draws
        with nullcontext() if seed == SEEDS[0] else untraced():
            for _ in range(DRAWS):
                seq = m.new_sequence()
                proposal = seq.propose(ctx, 1)
                assert proposal.probs is not None
                d = proposal.tokens[0]
                v = verify_stochastic([d], proposal.probs[:1], np.stack([p, p]), rng, "exact")
                counts[d if v.accepted else v.next_token] += 1
        observed = np.append(counts[order], DRAWS - counts[order].sum())
        expected = np.append(p[order], 1.0 - p[order].sum()) * DRAWS
        out.append(float(chisquare(observed, expected).pvalue))
    return out


@pytest.mark.parametrize("name", ["medusa", "dflash", "eagle3", "dspark"])
def test_sampled_drafts_keep_the_target_distribution(name: str, target: GPTModel) -> None:
    m = method({"method": name, "num_speculative_tokens": 1}, target)
    tokens = GOLDEN["tokens"][:24]
    assert np.median(first_token_pvalues(m, target, tokens)) > 0.01


def test_dspark_samples_each_position_from_its_markov_corrected_distribution(
    target: GPTModel,
) -> None:
    """Under sampling, position i's draft is drawn from the distribution the Markov head gives
    it after the token drawn before it, and that distribution is the row verification reads:
    a valid autoregressive draft chain, so rejection sampling stays exact past position 1."""
    m = method({"method": "dspark", "num_speculative_tokens": 7}, target)
    assert isinstance(m, DSparkMethod)
    params = SamplingParams(temperature=0.8)
    tokens = GOLDEN["tokens"][:32]
    ctx = context(target, m, tokens, params, 3)
    proposal = m.new_sequence().propose(ctx, 7)
    assert proposal.probs is not None and proposal.confidence is not None
    d = m.drafter
    outputs = d.outputs(ctx.last_hidden, tokens[-1], 7)
    prev = [tokens[-1], *proposal.tokens[:-1]]
    for i, (o, t) in enumerate(zip(outputs, prev, strict=True)):
        row = probabilities(o @ target.lm_head + d.correction(t), params)
        np.testing.assert_allclose(proposal.probs[i], row, atol=1e-12)
        assert proposal.probs[i][proposal.tokens[i]] > 0
    assert np.all((proposal.confidence > 0) & (proposal.confidence < 1))
