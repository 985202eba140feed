"""Automatic prefix caching: whole blocks reused, the last prompt token always computed, least
recently used sequences evicted, and a conversation's next turn prefilled from where it left
off, with the same greedy answers as without the cache."""

from __future__ import annotations

import numpy as np
import pytest

from specverdict.reference.config import EngineConfig, SpeculativeConfig
from specverdict.reference.engine import EngineCore, GenerationRequest, generate
from specverdict.reference.model import GPTConfig, KVCache
from specverdict.reference.prefix_cache import PrefixCache, common_prefix
from specverdict.reference.sampling import SamplingParams
from specverdict.reference.server.cli import build_config, parser
from specverdict.reference.weights import shipped

GREEDY = SamplingParams(temperature=0.0)
SMALL = GPTConfig(
    vocab_size=16, n_positions=64, n_embd=8, n_layer=2, n_head=2, layer_norm_epsilon=1e-5
)


def filled(tokens: list[int]) -> KVCache:
    """A cache whose keys and values at position p are p (so copies can be checked)."""
    cache = KVCache(SMALL)
    n = len(tokens)
    cache.k[:, :, :n] = np.arange(n)[None, None, :, None]
    cache.v[:, :, :n] = -np.arange(n)[None, None, :, None]
    cache.length = n
    return cache


def test_common_prefix() -> None:
    a = np.array([1, 2, 3, 4])
    assert common_prefix(a, np.array([1, 2, 9])) == 2
    assert common_prefix(a, np.array([1, 2])) == 2
    assert common_prefix(a, np.array([7])) == 0
    assert common_prefix(a, np.array([], dtype=np.int64)) == 0


def test_whole_blocks_are_reused_and_the_last_prompt_token_is_computed() -> None:
    pc = PrefixCache(capacity_tokens=1000, block=4)
    seq = list(range(10))
    pc.insert(seq, filled(seq))  # blocks 0..7 stored; 8, 9 are not a whole block
    assert pc.cached_tokens == 8
    new = KVCache(SMALL)
    # shares 9 tokens with the stored sequence: 8 of them in whole blocks
    assert pc.lookup([*range(9), 15, 15], new) == 8
    assert new.length == 8
    assert np.array_equal(new.k[0, 0, :8, 0], np.arange(8))
    assert np.array_equal(new.v[1, 1, :8, 3], -np.arange(8))
    assert not new.k[:, :, 8:].any()
    # a prompt that is exactly a stored prefix still computes its last token: 8 - 1 -> 4
    assert pc.lookup(list(range(8)), KVCache(SMALL)) == 4
    # nothing in common
    assert pc.lookup([9, 9, 9, 9, 9], KVCache(SMALL)) == 0
    assert (pc.queried, pc.hit) == (11 + 8 + 5, 12)


def test_an_extended_sequence_replaces_its_prefix_and_the_oldest_go_first() -> None:
    pc = PrefixCache(capacity_tokens=12, block=4)
    turn1 = [1] * 8
    pc.insert(turn1, filled(turn1))
    turn2 = [*turn1, 2, 2, 2, 2]
    pc.insert(turn2, filled(turn2))
    assert pc.cached_tokens == 12  # one entry: the conversation, not both turns
    pc.insert(turn1, filled(turn1))  # already held as a prefix: nothing is added
    assert pc.cached_tokens == 12
    other = [5] * 8
    pc.insert(other, filled(other))  # 20 > 12: the least recently used (turn 2) goes
    assert pc.cached_tokens == 8
    assert pc.lookup([*turn2, 3], KVCache(SMALL)) == 0
    assert pc.lookup([*other, 3], KVCache(SMALL)) == 8
    # a sequence longer than the whole cache is not stored, and evicts nothing
    big = [7] * 16
    pc.insert(big, filled(big))
    assert pc.cached_tokens == 8
    with pytest.raises(ValueError, match="empty cache"):
        pc.lookup([1, 2], filled([1, 2]))


def core(cached: bool, spec: dict[str, object] | None = None, device: bool = False) -> EngineCore:
    return EngineCore(
        EngineConfig(
            model_dir=shipped("target"),
            served_model_name="t",
            speculative=SpeculativeConfig.model_validate(spec) if spec else None,
            enable_prefix_caching=cached,
            device_model="accel-2b" if device else None,
            device_clock="virtual" if device else "paced",
        )
    )


def conversation(c: EngineCore) -> tuple[list[int], list[int], float]:
    """Two turns: the second prompt is the first, its answer and a follow-up. Returns both
    answers and the modelled device time of the second turn's first output."""
    tok = c.tokenizer
    first = tuple(tok.encode('def read_lines(path):\n    """Return the lines of the file."""\n'))
    outs = generate(c, GenerationRequest("a", first, 40, GREEDY, ignore_eos=True))
    answer1 = [t for o in outs for t in o.token_ids]
    second = (*first, *answer1, *tok.encode("\n\ndef count_lines(path):\n"))
    outs = generate(c, GenerationRequest("b", second, 30, GREEDY, ignore_eos=True))
    answer2 = [t for o in outs for t in o.token_ids]
    return answer1, answer2, outs[0].device_s or 0.0


@pytest.mark.parametrize("spec", [None, {"method": "mtp", "num_speculative_tokens": 2}])
def test_the_next_turn_is_prefilled_from_the_cache_with_the_same_answers(
    spec: dict[str, object] | None,
) -> None:
    on, off = core(True, spec, device=True), core(False, spec, device=True)
    a_on, b_on, ttft_on = conversation(on)
    a_off, b_off, ttft_off = conversation(off)
    assert (a_on, b_on) == (a_off, b_off)
    assert on.prefix_cache is not None and off.prefix_cache is None
    # the second prompt shares the first prompt and answer (their KV is held up to the last
    # answer token's predecessor): all of it but the last partial block is reused
    tok = on.tokenizer
    n_first = len(tok.encode('def read_lines(path):\n    """Return the lines of the file."""\n'))
    held = n_first + len(a_on) - 1
    assert on.prefix_cache.hit == held - held % 16
    # and the prefill the device model times is only the rest: a shorter first output
    assert ttft_on < ttft_off


def test_prefix_caching_is_vllms_flag_and_on_by_default() -> None:
    assert build_config(parser().parse_args([])).enable_prefix_caching is True
    off = build_config(parser().parse_args(["--no-enable-prefix-caching"]))
    assert off.enable_prefix_caching is False
    assert (
        build_config(parser().parse_args(["--prefix-cache-tokens", "0"])).prefix_cache_tokens == 0
    )
