"""Draft proposers, one class per speculative method, registered by the method's name.

A method is built once per engine (it owns shared weights); it creates one ``SequenceProposer``
per request, which owns that request's draft state (e.g. the draft model's KV cache).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import NDArray

from specverdict.reference.model import (
    BlockDrafterModel,
    DSparkDrafterModel,
    Eagle3DrafterModel,
    GPTModel,
    MedusaHeadsModel,
    MTPHeadModel,
)
from specverdict.reference.options import SuffixSettings
from specverdict.reference.sampling import SamplingParams, probabilities, sample

F64 = NDArray[np.float64]


@dataclass(frozen=True)
class Proposal:
    tokens: list[int]
    probs: F64 | None  # one row per token: the draft distribution it was drawn from; None = one-hot
    #: per token, the drafter's estimate that the target accepts it given it accepted the ones
    #: before (DSpark's confidence head); None for a method without one
    confidence: F64 | None = None


@dataclass
class DraftContext:
    """What a proposer sees: all tokens so far (the last one, ``tokens[-1]``, is the token the
    target has not processed yet), the target's final hidden state at the position before it, and
    the request's sampling settings."""

    tokens: list[int]
    last_hidden: F64
    params: SamplingParams
    rng: np.random.Generator
    #: the target's captured layer outputs by position (``GPTModel.capture_layers``), known
    #: from ``features_from`` up to the position before the pending token; None when not captured
    features: F64 | None = None
    features_from: int = 0


class SequenceProposer(Protocol):
    def propose(self, ctx: DraftContext, k: int) -> Proposal: ...

    def commit(self, valid_prefix: int) -> None:
        """``tokens[:valid_prefix]`` are final and agree with what the proposer was shown."""


@dataclass(frozen=True)
class DraftWork:
    """What drafting ``drafts`` tokens costs a request on the device (``device.DeviceModel``):
    ``passes`` sequential forward passes, each reading ``params_read`` parameters and computing
    ``rows`` rows of ``params_per_row`` parameters."""

    passes: int
    params_read: int
    params_per_row: int
    rows: int


class Method(Protocol):
    name: str

    def new_sequence(self) -> SequenceProposer: ...

    def draft_work(self, drafts: int) -> DraftWork | None:
        """The device work of drafting ``drafts`` tokens; None for a model-free method."""


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

    def draft_work(self, drafts: int) -> DraftWork | None:
        return None


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


# --- suffix decoding ------------------------------------------------------------------------------

#: separates responses in the suffix cache (never a token id)
SEP = -1
_EMPTY = np.empty(0, dtype=np.int64)


class ResponseCache:
    """The engine's shared, bounded memory of earlier responses (the ``max_requests`` newest),
    held as one array with a separator after each response, so that one vectorised search covers
    them all and no match crosses from one response into the next."""

    def __init__(self, max_requests: int) -> None:
        self.max_requests = max_requests
        self.responses: deque[NDArray[np.int64]] = deque()
        self.array: NDArray[np.int64] = _EMPTY

    def add(self, tokens: list[int]) -> None:
        if self.max_requests == 0 or not tokens:
            return
        self.responses.append(np.asarray(tokens, dtype=np.int64))
        while len(self.responses) > self.max_requests:
            self.responses.popleft()
        self.array = np.concatenate([np.append(r, SEP) for r in self.responses])


def suffix_match(
    arr: NDArray[np.int64], context: NDArray[np.int64], max_depth: int
) -> tuple[int, NDArray[np.int64]]:
    """The longest suffix of ``context`` (at most ``max_depth`` tokens) found in ``arr`` followed
    by a token: (its length, the positions in ``arr`` of every occurrence's last token). A suffix
    array's binary search would find the same set; this walks the candidates back one token at a
    time, which on these sizes is one vectorised comparison per matched token."""
    if len(arr) < 2 or not len(context):
        return 0, _EMPTY
    ends = np.flatnonzero(arr[:-1] == context[-1])
    ends = ends[arr[ends + 1] != SEP]
    depth = min(max_depth, len(context))
    length, best = 0, _EMPTY
    j = 1
    while len(ends):
        length, best = j, ends
        if j == depth:
            break
        ends = ends[ends >= j]
        ends = ends[arr[ends - j] == context[-1 - j]]
        j += 1
    return length, best


def suffix_lookup(
    sources: list[NDArray[np.int64]], context: NDArray[np.int64], k: int, settings: SuffixSettings
) -> list[int]:
    """Suffix decoding's proposal (Oliaro et al. 2025, "SuffixDecoding", as Arctic Inference
    serves it in vLLM): match the longest suffix of the context in every source, then follow the
    most frequent continuation of all the occurrences, one token at a time, while the product of
    the chosen tokens' frequencies stays at or above ``min_token_prob``; at most k tokens and at
    most ``max_spec_factor`` per matched token. Ties go to the smaller token id."""
    matches = [suffix_match(a, context, settings.max_depth) for a in sources]
    length = max((m[0] for m in matches), default=0)
    if length < max(1, settings.min_match):
        return []
    live = [(a, ends) for a, (n, ends) in zip(sources, matches, strict=True) if n == length]
    limit = min(k, int(settings.max_spec_factor * length))
    out: list[int] = []
    prob = 1.0
    while len(out) < limit:
        following = np.concatenate([a[e + 1] for a, e in live])
        following = following[following != SEP]
        if not len(following):
            break
        values, counts = np.unique(following, return_counts=True)
        top = int(counts.argmax())
        prob *= counts[top] / counts.sum()
        if prob < settings.min_token_prob:
            break
        token = int(values[top])
        out.append(token)
        live = [(a, e[a[e + 1] == token] + 1) for a, e in live]
        live = [(a, e[e < len(a) - 1]) for a, e in live]
    return out


class SuffixMethod:
    """Suffix decoding, model-free: like n-gram lookup it drafts what followed an earlier
    occurrence of the context's suffix, but it searches the engine's earlier responses too (a
    shared, bounded cache filled as requests finish), takes the longest match of any length,
    and follows the continuation most of the occurrences agree on. Its drafts are one-hot, so
    greedy and sampled verification stay exact."""

    name = "suffix"

    def __init__(self, settings: SuffixSettings) -> None:
        self.settings = settings
        self.cache = ResponseCache(settings.max_cached_requests)

    def new_sequence(self) -> SequenceProposer:
        return _SuffixSequence(self)

    def draft_work(self, drafts: int) -> DraftWork | None:
        return None

    def finished(self, output: list[int]) -> None:
        """A request's response, remembered for the requests after it."""
        self.cache.add(output)


class _SuffixSequence:
    def __init__(self, method: SuffixMethod) -> None:
        self.method = method

    def propose(self, ctx: DraftContext, k: int) -> Proposal:
        tokens = np.asarray(ctx.tokens, dtype=np.int64)
        sources = [tokens, self.method.cache.array]
        return Proposal(suffix_lookup(sources, tokens, k, self.method.settings), None)

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

    def draft_work(self, drafts: int) -> DraftWork | None:
        """Autoregressive: one pass of the whole draft model per drafted token."""
        params = self.draft.weight_params()[0]
        return DraftWork(drafts, params, params, 1)


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

    def draft_work(self, drafts: int) -> DraftWork | None:
        """Recurrent: one pass of the head (and the LM head) per drafted token."""
        params = self.head.weight_params()
        return DraftWork(drafts, params, params, 1)


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


# --- Medusa -----------------------------------------------------------------------------------


class MedusaMethod:
    """Medusa: k independent heads on the target's last hidden state, one pass for all of them.
    Head i drafts the token i + 1 places after the pending one; the chain is the heads' top-1
    (greedy) or one draw from each head's distribution (sampling), verified against it."""

    name = "medusa"

    def __init__(self, heads: MedusaHeadsModel) -> None:
        self.heads = heads

    def new_sequence(self) -> SequenceProposer:
        return _MedusaSequence(self.heads)

    def draft_work(self, drafts: int) -> DraftWork | None:
        """One pass: ``drafts`` heads read once (the LM head too), one row each."""
        lm_head = self.heads.target.lm_head.size
        head = self.heads.head_params()
        return DraftWork(1, drafts * head + lm_head, head + lm_head, drafts)


class _MedusaSequence:
    def __init__(self, heads: MedusaHeadsModel) -> None:
        self.heads = heads

    def propose(self, ctx: DraftContext, k: int) -> Proposal:
        logits = self.heads.logits(ctx.last_hidden, min(k, self.heads.num_heads))
        tokens: list[int] = []
        rows: list[F64 | None] = []
        for row in logits:
            tok, q = _pick(row, ctx.params, ctx.rng)
            tokens.append(tok)
            rows.append(q)
        return _stack(tokens, rows)

    def commit(self, valid_prefix: int) -> None:
        return None


# --- DFlash: a block drafter ------------------------------------------------------------------


class BlockDraftMethod:
    """A block drafter (DFlash's shape): one forward pass on the target's last hidden state and
    the pending token emits the distributions of all k draft positions at once. The chain is
    their top-1 (greedy) or one draw from each (sampling), verified against it."""

    name = "dflash"

    def __init__(self, drafter: BlockDrafterModel) -> None:
        self.drafter = drafter

    def new_sequence(self) -> SequenceProposer:
        return _BlockSequence(self.drafter)

    def draft_work(self, drafts: int) -> DraftWork | None:
        """One pass over ``drafts`` rows, whatever k is."""
        params = self.drafter.weight_params()
        return DraftWork(1, params, params, drafts)


class _BlockSequence:
    def __init__(self, drafter: BlockDrafterModel) -> None:
        self.drafter = drafter

    def propose(self, ctx: DraftContext, k: int) -> Proposal:
        n = min(k, self.drafter.block_size)
        logits = self.drafter.logits(ctx.last_hidden, ctx.tokens[-1], n)
        tokens: list[int] = []
        rows: list[F64 | None] = []
        for row in logits:
            tok, q = _pick(row, ctx.params, ctx.rng)
            tokens.append(tok)
            rows.append(q)
        return _stack(tokens, rows)

    def commit(self, valid_prefix: int) -> None:
        return None


# --- DSpark: a block drafter with a Markov head and a confidence head ---------------------------


class DSparkMethod:
    """DSpark: the block drafter's one pass gives every position's backbone output; then, position
    by position, the Markov head adds a low-rank term from the token drafted just before (so the
    block is semi-autoregressive at the cost of one small product per position), the draft is
    the corrected distribution's top-1 (greedy) or one draw from it (sampling, verified against
    it), and the confidence head scores it. The confidences let the engine verify fewer than k
    (``adaptive_verification``)."""

    name = "dspark"

    def __init__(self, drafter: DSparkDrafterModel) -> None:
        self.drafter = drafter

    def new_sequence(self) -> SequenceProposer:
        return _DSparkSequence(self.drafter)

    def draft_work(self, drafts: int) -> DraftWork | None:
        """One pass over ``drafts`` rows whatever k is; each row also computes its Markov
        correction (rank x (d + V) parameters)."""
        params = self.drafter.weight_params()
        per_row = params - self.drafter.conf_w.size - 1
        return DraftWork(1, params, per_row, drafts)


class _DSparkSequence:
    def __init__(self, drafter: DSparkDrafterModel) -> None:
        self.drafter = drafter

    def propose(self, ctx: DraftContext, k: int) -> Proposal:
        n = min(k, self.drafter.block_size)
        prev = ctx.tokens[-1]
        outputs = self.drafter.outputs(ctx.last_hidden, prev, n)
        base = outputs @ self.drafter.target.lm_head
        tokens: list[int] = []
        rows: list[F64 | None] = []
        confidence = np.empty(n)
        for i in range(n):
            logits = base[i] + self.drafter.correction(prev)
            confidence[i] = self.drafter.confidence(outputs[i], logits)
            prev, q = _pick(logits, ctx.params, ctx.rng)
            tokens.append(prev)
            rows.append(q)
        p = _stack(tokens, rows)
        return Proposal(p.tokens, p.probs, confidence)

    def commit(self, valid_prefix: int) -> None:
        return None


# --- EAGLE-3 ----------------------------------------------------------------------------------


class Eagle3Method:
    """EAGLE-3: a one-layer draft decoder over the fusion of the target's low, middle and high
    layers' outputs; it keeps its own KV cache of the accepted positions and drafts k tokens
    autoregressively, feeding its own output back (k draft passes)."""

    name = "eagle3"

    def __init__(self, drafter: Eagle3DrafterModel) -> None:
        self.drafter = drafter

    def new_sequence(self) -> SequenceProposer:
        return _Eagle3Sequence(self.drafter)

    def draft_work(self, drafts: int) -> DraftWork | None:
        """Autoregressive: one pass of the layer (and the LM head) per drafted token."""
        params = self.drafter.weight_params()
        return DraftWork(drafts, params, params, 1)


class _Eagle3Sequence:
    def __init__(self, drafter: Eagle3DrafterModel) -> None:
        self.drafter = drafter
        self.cache = drafter.new_cache()
        self.length = 0  # cached positions computed from the target's features
        self.start = 0  # the first position the cache holds (after a prefix-cache hit, later)

    def propose(self, ctx: DraftContext, k: int) -> Proposal:
        if ctx.features is None:
            return Proposal([], None)
        if self.length == 0:
            self.start = ctx.features_from
        n = len(ctx.tokens) - 1  # the pending token's position
        first = self.start + self.length
        if n <= first:
            return Proposal([], None)
        room = self.cache[0].shape[1] - (n - self.start)
        k = min(k, room)
        if k <= 0:
            return Proposal([], None)
        # the accepted positions not yet in the cache: the target's features and their next tokens
        g = self.drafter.fuse_features(ctx.features[first:n])
        out = self.drafter.forward(g, ctx.tokens[first + 1 : n + 1], self.cache, self.length)
        self.length = n - self.start
        o = out[-1]
        tokens: list[int] = []
        rows: list[F64 | None] = []
        for i in range(k):
            tok, q = _pick(self.drafter.logits(o), ctx.params, ctx.rng)
            tokens.append(tok)
            rows.append(q)
            if i < k - 1:
                o = self.drafter.forward(o[None], [tok], self.cache, self.length + i)[-1]
        return _stack(tokens, rows)

    def commit(self, valid_prefix: int) -> None:
        # the drafted positions are dropped: the target's features replace them next step
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
        return Proposal(tokens, probs, p.confidence)

    def commit(self, valid_prefix: int) -> None:
        self.inner.commit(valid_prefix)
