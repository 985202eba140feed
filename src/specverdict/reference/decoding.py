"""One request's decoding: prefill, then draft-and-verify steps with KV-cache rollback.

Each step feeds the target ``[pending, d_1 .. d_k]`` where ``pending`` is the last emitted token
(not yet in the cache) and ``d_i`` the drafts. The k+1 output distributions verify the drafts and
give the correction or bonus token, so one step emits ``accepted + 1`` tokens. The cache is rolled
back to the accepted prefix; rejected drafts leave no trace. With no drafts (method ``none``, an
n-gram miss, or a full context) the same code is a plain decode step.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from specverdict.reference.model import GPTModel
from specverdict.reference.options import AcceptanceMode
from specverdict.reference.proposers import DraftContext, SequenceProposer
from specverdict.reference.sampling import (
    AcceptanceRule,
    SamplingParams,
    probabilities,
    sample,
    verify_greedy,
    verify_stochastic,
)

F64 = NDArray[np.float64]


@dataclass(frozen=True)
class StepResult:
    tokens: list[int]
    drafted: int  # 0 for a step without drafts (not a speculative step)
    accepted: int


@dataclass
class SpecCounts:
    """Per-request speculation counts in the shape of vLLM's per-request metrics."""

    num_spec_tokens: int
    histogram: list[int] = field(init=False)  # steps by number of accepted drafts, 0..k
    per_step_accepted: list[int] = field(default_factory=list)
    per_step_drafted: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.histogram = [0] * (self.num_spec_tokens + 1)

    def record(self, drafted: int, accepted: int) -> None:
        self.histogram[accepted] += 1
        self.per_step_accepted.append(accepted)
        self.per_step_drafted.append(drafted)

    @property
    def num_spec_steps(self) -> int:
        return sum(self.histogram)

    @property
    def num_accepted_draft_tokens(self) -> int:
        return sum(self.per_step_accepted)

    @property
    def num_draft_tokens(self) -> int:
        return sum(self.per_step_drafted)


class SequenceDecoder:
    """Target state of one sequence plus its proposer; no text, no stop rules."""

    def __init__(
        self,
        target: GPTModel,
        prompt: list[int],
        params: SamplingParams,
        rng: np.random.Generator,
        proposer: SequenceProposer | None,
        k: int,
        mode: AcceptanceMode | AcceptanceRule = "exact",
        max_len: int | None = None,
    ) -> None:
        if not prompt:
            raise ValueError("prompt must contain at least one token")
        self.target = target
        self.cache = target.new_cache()
        # Drafts never reach past the served context (vLLM trims k the same way).
        self.max_len = min(max_len or self.cache.capacity, self.cache.capacity)
        self.tokens = list(prompt)
        self.params = params
        self.rng = rng
        self.proposer = proposer
        self.k = k
        self.rule = mode if isinstance(mode, AcceptanceRule) else AcceptanceRule(mode)
        self.mode = self.rule.mode
        self.last_hidden: F64 = np.zeros(target.config.n_embd)
        #: the target's captured layer outputs by position, when it captures any (EAGLE-3)
        self.features: F64 | None = None
        self.features_from = 0
        self.prefilled = False
        self.last_drafts = 0  # drafts the last planned step verifies
        self.last_proposed = 0  # drafts the proposer computed for it (the device's draft work)
        #: the drafter's confidence in each planned draft (DSpark), else None
        self.last_confidence: F64 | None = None
        self._planned: tuple[int, list[int], F64 | None] = (0, [], None)

    @property
    def room(self) -> int:
        """How many more tokens the context can hold, counting the pending one."""
        return self.max_len - len(self.tokens)

    def _pick(self, logits: F64) -> int:
        if self.params.greedy:
            return int(logits.argmax())
        return sample(probabilities(logits, self.params), self.rng)

    def begin(self, k: int | None = None) -> tuple[list[int], bool]:
        """Plan this step: the tokens to feed the target and whether only the last position's
        output is needed (the prefill). Drafts are proposed here, at most ``k`` (default the
        sequence's k; a k schedule gives each step its own); the target's forward may then
        run alone or batched with other sequences, and :meth:`complete` finishes the step."""
        self.last_confidence = None
        if not self.prefilled:
            self.last_drafts = self.last_proposed = 0
            # a prefix already in the cache (prefix caching) is not computed again
            return self.tokens[self.cache.length :], True
        if self.room <= 0:
            raise ValueError("the context is full")
        drafts: list[int] = []
        draft_probs: F64 | None = None
        k = min(self.k if k is None else min(k, self.k), self.room - 1)
        if self.proposer is not None and k > 0:
            ctx = DraftContext(
                self.tokens,
                self.last_hidden,
                self.params,
                self.rng,
                self.features,
                self.features_from,
            )
            proposal = self.proposer.propose(ctx, k)
            drafts = proposal.tokens[:k]
            if proposal.probs is not None:
                draft_probs = proposal.probs[: len(drafts)]
            if proposal.confidence is not None:
                self.last_confidence = proposal.confidence[: len(drafts)]
        self._planned = (self.cache.length, drafts, draft_probs)
        self.last_drafts = self.last_proposed = len(drafts)
        return [self.tokens[-1], *drafts], False

    def verify_only(self, n: int) -> list[int]:
        """Keep only the first ``n`` planned drafts for verification (adaptive verification,
        after :meth:`begin`); the tokens to feed the target. Verifying a prefix of a valid
        draft chain keeps the step lossless: the target still corrects the first rejection."""
        start, drafts, draft_probs = self._planned
        drafts = drafts[:n]
        if draft_probs is not None:
            draft_probs = draft_probs[:n]
        self._planned = (start, drafts, draft_probs)
        self.last_drafts = len(drafts)
        return [self.tokens[-1], *drafts]

    def _keep_features(self, start: int, rows: F64 | None) -> None:
        """The captured layer outputs of the fed positions from ``start`` on."""
        if rows is None:
            return
        if self.features is None:
            self.features = np.zeros((self.cache.capacity, rows.shape[1]))
            self.features_from = start
        self.features[start : start + len(rows)] = rows

    def complete(self, logits: F64, hidden: F64, features: F64 | None = None) -> StepResult:
        """Verify the planned drafts against the target's outputs for the fed tokens (and keep
        the accepted positions' captured layer outputs, ``features``, when there are any)."""
        if not self.prefilled:
            self.prefilled = True
            if features is not None:  # the fed positions end where the cache now ends
                self._keep_features(self.cache.length - len(features), features)
            first = self._pick(logits[-1])
            self.last_hidden = hidden[-1]
            self.tokens.append(first)
            return StepResult([first], 0, 0)
        start, drafts, draft_probs = self._planned
        if self.params.greedy:
            v = verify_greedy(drafts, logits, self.rule)
        else:
            v = verify_stochastic(
                drafts,
                draft_probs,
                probabilities(logits, self.params),
                self.rng,
                self.mode,
                self.rule.threshold_single,
            )
        self.cache.rollback(start + 1 + v.accepted)
        if features is not None:
            self._keep_features(start, features[: 1 + v.accepted])
        valid_prefix = len(self.tokens) + v.accepted
        emitted = [*drafts[: v.accepted], v.next_token]
        self.tokens.extend(emitted)
        self.last_hidden = hidden[v.accepted]
        if self.proposer is not None:
            self.proposer.commit(valid_prefix)
        return StepResult(emitted, len(drafts), v.accepted)

    def prefill(self) -> StepResult:
        if self.prefilled:
            raise ValueError("the sequence is already prefilled")
        tokens, last_only = self.begin()
        return self.complete(*self.target.forward(tokens, self.cache, last_only))

    def step(self) -> StepResult:
        """One decode step; the caller must stop when ``room`` reaches 0."""
        if not self.prefilled:
            raise ValueError("prefill first")
        tokens, last_only = self.begin()
        return self.complete(*self.target.forward(tokens, self.cache, last_only))
