"""Suffix decoding: the proposer against a brute-force oracle, the engine's shared response
cache, and exactness of verification (greedy identity is in ``test_decoding``)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from specverdict.reference.engine import GenerationRequest, generate
from specverdict.reference.options import SpeculativeConfig, SuffixSettings
from specverdict.reference.proposers import (
    SEP,
    DraftContext,
    ResponseCache,
    SuffixMethod,
    suffix_lookup,
    suffix_match,
)
from specverdict.reference.sampling import SamplingParams
from tests.conftest import make_core
from tests.unit.reference.test_decoding import stdlib_prompts

LOOSE = SuffixSettings(
    max_depth=24, max_cached_requests=10, max_spec_factor=8.0, min_token_prob=0.0, min_match=1
)


def oracle(sources: list[list[int]], context: list[int], k: int, s: SuffixSettings) -> list[int]:
    """Brute force: every (source, end) whose preceding tokens equal the longest suffix."""

    def occurrences(n: int) -> list[tuple[int, int]]:
        suffix = context[len(context) - n :]
        return [
            (i, e)
            for i, src in enumerate(sources)
            for e in range(n - 1, len(src) - 1)
            if src[e - n + 1 : e + 1] == suffix and src[e + 1] != SEP
        ]

    length = 0
    for n in range(1, min(s.max_depth, len(context)) + 1):
        if occurrences(n):
            length = n
    if length < s.min_match or length == 0:
        return []
    live = occurrences(length)
    out: list[int] = []
    prob = 1.0
    while len(out) < min(k, int(s.max_spec_factor * length)):
        counts = Counter(
            sources[i][e + 1]
            for i, e in live
            if e + 1 < len(sources[i]) and sources[i][e + 1] != SEP
        )
        if not counts:
            break
        top = max(counts.values())
        token = min(t for t, c in counts.items() if c == top)
        prob *= top / sum(counts.values())
        if prob < s.min_token_prob:
            break
        out.append(token)
        live = [
            (i, e + 1) for i, e in live if e + 1 < len(sources[i]) and sources[i][e + 1] == token
        ]
        live = [(i, e) for i, e in live if e < len(sources[i]) - 1]
    return out


def arr(tokens: list[int]) -> np.ndarray:
    return np.asarray(tokens, dtype=np.int64)


def test_the_longest_suffix_in_any_source_decides() -> None:
    context = [5, 1, 2, 3]
    current = arr([1, 2, 3, 9, 5, 1, 2, 3])
    cache = arr([0, 5, 1, 2, 3, 7, 7, SEP])  # a longer match (5 1 2 3) in an earlier response
    assert suffix_match(cache, arr(context), 24)[0] == 4
    assert suffix_lookup([current, cache], arr(context), 2, LOOSE) == [7, 7]
    # with the depth capped at 3 both sources match (1 2 3): 9 and 7 tie, the smaller id wins
    capped = SuffixSettings(3, 10, 8.0, 0.0, 1)
    assert suffix_lookup([current, cache], arr(context), 1, capped) == [7]


def test_the_most_frequent_continuation_is_followed_and_low_probability_stops_it() -> None:
    source = arr([1, 2, 4, SEP, 1, 2, 4, SEP, 1, 2, 6, 6, SEP])
    assert suffix_lookup([source], arr([1, 2]), 4, LOOSE) == [4]  # after 4 comes a separator
    # the first token's frequency is 2/3: a threshold above it drafts nothing
    strict = SuffixSettings(24, 10, 8.0, 0.7, 1)
    assert suffix_lookup([source], arr([1, 2]), 4, strict) == []


def test_spec_factor_and_min_match_bound_the_draft() -> None:
    source = arr([3, 4, 5, 6, 7, 8, 9])
    ctx = arr([0, 4])
    assert suffix_lookup([source], ctx, 8, LOOSE) == [5, 6, 7, 8, 9]
    one_per_match = SuffixSettings(24, 10, 1.0, 0.0, 1)
    assert suffix_lookup([source], ctx, 8, one_per_match) == [5]
    assert suffix_lookup([source], ctx, 8, SuffixSettings(24, 10, 8.0, 0.0, 2)) == []


def test_no_match_crosses_a_separator() -> None:
    source = arr([1, 2, SEP, 3, 4])
    assert suffix_match(source, arr([2, 3]), 24)[0] == 1  # "2 3" only spans the separator
    assert suffix_lookup([source], arr([9, 2]), 4, LOOSE) == []  # 2 is followed by SEP


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 3), max_size=20), min_size=1, max_size=3),
    st.lists(st.integers(0, 3), min_size=1, max_size=12),
    st.integers(1, 8),
    st.integers(1, 6),
    st.sampled_from([0.0, 0.2, 0.5]),
    st.sampled_from([0.5, 1.0, 4.0]),
)
def test_matches_the_brute_force_oracle(
    responses: list[list[int]],
    context: list[int],
    k: int,
    depth: int,
    min_prob: float,
    factor: float,
) -> None:
    cache = ResponseCache(10)
    for r in responses:
        cache.add(r)
    s = SuffixSettings(depth, 10, factor, min_prob, 1)
    sources = [list(context), [int(t) for t in cache.array]]
    got = suffix_lookup([arr(context), cache.array], arr(context), k, s)
    assert got == oracle(sources, context, k, s)


def test_the_response_cache_is_bounded_newest_first() -> None:
    cache = ResponseCache(2)
    for r in ([1], [2, 2], [3, 3, 3]):
        cache.add(r)
    assert cache.array.tolist() == [2, 2, SEP, 3, 3, 3, SEP]
    off = ResponseCache(0)
    off.add([1, 2])
    assert off.array.size == 0


def test_options_apply_to_suffix_only_and_default_like_vllm() -> None:
    spec = SpeculativeConfig(method="suffix", num_speculative_tokens=4)
    assert spec.suffix == SuffixSettings(24, 10000, 1.0, 0.1, 1)
    with pytest.raises(ValidationError, match="applies to method 'suffix' only"):
        SpeculativeConfig(method="ngram", num_speculative_tokens=4, suffix_min_match=2)
    with pytest.raises(ValidationError, match="takes no draft 'model'"):
        SpeculativeConfig(method="suffix", num_speculative_tokens=4, model="x")


def test_a_later_request_drafts_from_an_earlier_response() -> None:
    """What separates suffix decoding from n-gram lookup: the second request's own context has
    no earlier occurrence to copy, the first request's response does."""
    core = make_core({"method": "suffix", "num_speculative_tokens": 4})
    assert isinstance(core.method, SuffixMethod)
    prompt = tuple(core.tokenizer.encode(stdlib_prompts(1)[0]))
    first = generate(core, GenerationRequest("a", prompt, 24, SamplingParams(temperature=0.0)))
    second = generate(core, GenerationRequest("b", prompt, 24, SamplingParams(temperature=0.0)))
    assert [t for o in first for t in o.token_ids] == [t for o in second for t in o.token_ids]
    spec1, spec2 = first[-1].spec, second[-1].spec
    assert spec1 is not None and spec2 is not None
    assert spec2.num_accepted_draft_tokens > spec1.num_accepted_draft_tokens
    assert spec2.num_accepted_draft_tokens >= 16  # most of the repeat is drafted


def test_drafts_are_one_hot_for_sampled_requests() -> None:
    method = SuffixMethod(LOOSE)
    method.finished([4, 5, 6, 7])
    seq = method.new_sequence()
    ctx = DraftContext(
        [1, 4], np.zeros(4), SamplingParams(temperature=0.9), np.random.default_rng(0)
    )
    proposal = seq.propose(ctx, 3)
    assert proposal.tokens == [5, 6, 7]
    assert proposal.probs is None  # exact verification treats them as one-hot (test_sampling)
