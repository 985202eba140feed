"""Draft proposers, one class per speculative method, registered by the method's name.

A method is built once per engine (it owns shared weights); it creates one ``SequenceProposer``
per request, which owns that request's draft state (e.g. the draft model's KV cache).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import NDArray

from specverdict.reference.model import GPTModel, MTPHeadModel
from specverdict.reference.sampling import SamplingParams, probabilities, sample

F64 = NDArray[np.float64]


@dataclass(frozen=True)
class Proposal:
    tokens: list[int]
    probs: F64 | None  # one row per token: the draft distribution it was drawn from; None = one-hot


@dataclass
class DraftContext:
    """What a proposer sees: all tokens so far (the last one, ``tokens[-1]``, is the token the
    target has not processed yet), the target's final hidden state at the position before it, and
    the request's sampling settings."""

    tokens: list[int]
    last_hidden: F64
    params: SamplingParams
    rng: np.random.Generator


class SequenceProposer(Protocol):
    def propose(self, ctx: DraftContext, k: int) -> Proposal: ...

    def commit(self, valid_prefix: int) -> None:
        """``tokens[:valid_prefix]`` are final and agree with what the proposer was shown."""


class Method(Protocol):
    name: str

    def new_sequence(self) -> SequenceProposer: ...


def _pick(logits: F64, params: SamplingParams, rng: np.random.Generator) -> tuple[int, F64 | None]:
    if params.greedy:
        return int(logits.argmax()), None
    q = probabilities(logits, params)
    return sample(q, rng), q


def _stack(tokens: list[int], rows: list[F64 | None]) -> Proposal:
    # A proposer's rows are all distributions (sampling) or all None (greedy).
    drawn = [r for r in rows if r is not None]
    return Proposal(tokens, np.stack(drawn) if drawn else None)


# --- n-gram (prompt lookup) -------------------------------------------------------------------


class NgramMethod:
    """Prompt lookup as vLLM's V1 n-gram proposer does it (``vllm/v1/spec_decode/ngram_proposer.py``):
    the longest suffix n-gram with ``prompt_lookup_min <= n <= prompt_lookup_max`` that occurs
    earlier in prompt + output; the earliest such occurrence; propose the (up to k) tokens that
    followed it; nothing when no n-gram matches."""

    name = "ngram"

    def __init__(self, lookup_min: int, lookup_max: int) -> None:
        self.lookup_min = lookup_min
        self.lookup_max = lookup_max

    def new_sequence(self) -> SequenceProposer:
        return _NgramSequence(self.lookup_min, self.lookup_max)


def ngram_lookup(tokens: list[int], k: int, lookup_min: int, lookup_max: int) -> list[int]:
    arr = np.asarray(tokens, dtype=np.int64)
    n_total = len(arr)
    for n in range(min(lookup_max, n_total - 1), lookup_min - 1, -1):
        suffix = arr[n_total - n :]
        windows = sliding_window_view(arr[:-1], n)  # starts 0 .. n_total-1-n
        hits = np.flatnonzero((windows == suffix).all(axis=1))
        if len(hits):
            start = int(hits[0]) + n
            return [int(t) for t in arr[start : start + k]]
    return []


class _NgramSequence:
    def __init__(self, lookup_min: int, lookup_max: int) -> None:
        self.lookup_min, self.lookup_max = lookup_min, lookup_max

    def propose(self, ctx: DraftContext, k: int) -> Proposal:
        return Proposal(ngram_lookup(ctx.tokens, k, self.lookup_min, self.lookup_max), None)

    def commit(self, valid_prefix: int) -> None:
        return None


# --- draft model ------------------------------------------------------------------------------


class DraftModelMethod:
    """A smaller model of the same tokenizer drafts k tokens autoregressively with its own cache."""

    name = "draft_model"

    def __init__(self, draft: GPTModel) -> None:
        self.draft = draft

    def new_sequence(self) -> SequenceProposer:
        return _DraftSequence(self.draft)


class _DraftSequence:
    def __init__(self, draft: GPTModel) -> None:
        self.draft = draft
        self.cache = draft.new_cache()

    def propose(self, ctx: DraftContext, k: int) -> Proposal:
        room = self.cache.capacity - len(ctx.tokens)
        k = min(k, room + 1)
        if k <= 0:
            return Proposal([], None)
        logits, _ = self.draft.forward(ctx.tokens[self.cache.length :], self.cache, last_only=True)
        tokens: list[int] = []
        rows: list[F64 | None] = []
        for i in range(k):
            tok, q = _pick(logits[-1], ctx.params, ctx.rng)
            tokens.append(tok)
            rows.append(q)
            if i < k - 1:
                logits, _ = self.draft.forward([tok], self.cache)
        return _stack(tokens, rows)

    def commit(self, valid_prefix: int) -> None:
        self.cache.rollback(min(self.cache.length, valid_prefix))


# --- MTP --------------------------------------------------------------------------------------


class MTPMethod:
    """Multi-token prediction: one head, applied recurrently on the target's hidden state."""

    name = "mtp"

    def __init__(self, head: MTPHeadModel) -> None:
        self.head = head

    def new_sequence(self) -> SequenceProposer:
        return _MTPSequence(self.head)


class _MTPSequence:
    def __init__(self, head: MTPHeadModel) -> None:
        self.head = head

    def propose(self, ctx: DraftContext, k: int) -> Proposal:
        h, tok = ctx.last_hidden, ctx.tokens[-1]
        tokens: list[int] = []
        rows: list[F64 | None] = []
        for _ in range(k):
            h, logits = self.head.step(h, tok)
            tok, q = _pick(logits, ctx.params, ctx.rng)
            tokens.append(tok)
            rows.append(q)
        return _stack(tokens, rows)

    def commit(self, valid_prefix: int) -> None:
        return None


# --- a fault: a draft that degrades while the server runs ---------------------------------------


class DegradedProposer:
    """The drift fault (``--fault degrade-draft-after=N``): wraps a request's proposer and
    replaces every drafted token by the next token id, as a draft whose weights went stale would
    propose. Verification stays exact (a one-hot draft row for each replaced token), so outputs
    are unchanged; only acceptance drops (to near 0: MAL near 1)."""

    def __init__(self, inner: SequenceProposer, vocab_size: int) -> None:
        self.inner = inner
        self.vocab_size = vocab_size

    def propose(self, ctx: DraftContext, k: int) -> Proposal:
        p = self.inner.propose(ctx, k)
        tokens = [(t + 1) % self.vocab_size for t in p.tokens]
        probs = p.probs
        if probs is not None:
            probs = probs.copy()
            for i in range(len(tokens)):
                probs[i] = 0.0
                probs[i, tokens[i]] = 1.0
        return Proposal(tokens, probs)

    def commit(self, valid_prefix: int) -> None:
        self.inner.commit(valid_prefix)
