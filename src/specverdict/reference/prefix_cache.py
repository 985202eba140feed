"""Automatic prefix caching: the target's keys and values of earlier sequences, reused by a new
prompt that starts with the same tokens.

This is vLLM's automatic prefix caching (on by default in its V1 engine, ``--no-enable-prefix-
caching`` turns it off) reduced to what its measurements depend on:

- only whole blocks of ``block`` tokens are reused (vLLM hashes full 16-token blocks), and at
  least the prompt's last token is always computed, because its logits give the first output;
- the queried and hit token counts are what vLLM counts in ``vllm:prefix_cache_queries`` and
  ``vllm:prefix_cache_hits`` (tokens, not blocks);
- the capacity is a number of cached tokens; the least recently used sequences go first.

An agent's next turn re-sends the whole conversation: with the cache, only the tool's answer and
the new turn are prefilled, as on a real engine, and the modelled device time counts only them.
A sequence is stored when its prefill ends (the prompt: concurrent requests share a system
prompt) and when it finishes (the prompt and its answer: the next turn's prefix). A stored
sequence that a newer one extends is dropped, so a conversation holds one entry.

The reused values are those the earlier sequence computed (in decode or verify passes), not a
recomputation; they agree with one to float64 rounding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from specverdict.reference.model import KVCache
from specverdict.reference.options import PREFIX_BLOCK, PREFIX_CACHE_TOKENS


@dataclass(eq=False)  # entries are told apart by identity
class _Entry:
    tokens: NDArray[np.int64]
    k: NDArray[np.float64]  # [layer, head, position, dim], positions 0..len(tokens)-1
    v: NDArray[np.float64]


def common_prefix(a: NDArray[np.int64], b: NDArray[np.int64]) -> int:
    """Length of the longest common prefix of two token arrays."""
    n = min(len(a), len(b))
    if n == 0:
        return 0
    differ = np.flatnonzero(a[:n] != b[:n])
    return int(differ[0]) if len(differ) else n


class PrefixCache:
    def __init__(
        self, capacity_tokens: int = PREFIX_CACHE_TOKENS, block: int = PREFIX_BLOCK
    ) -> None:
        if capacity_tokens < 0 or block < 1:
            raise ValueError("the prefix cache needs a capacity of 0 or more and a block of 1+")
        self.capacity = capacity_tokens
        self.block = block
        self._entries: list[_Entry] = []  # least recently used first
        self.queried = 0
        self.hit = 0

    @property
    def cached_tokens(self) -> int:
        return sum(len(e.tokens) for e in self._entries)

    def lookup(self, prompt: Sequence[int], cache: KVCache) -> int:
        """Fill ``cache`` (empty) with the longest cached prefix of ``prompt`` in whole blocks,
        leaving at least its last token to compute; return how many tokens it holds."""
        if cache.length != 0:
            raise ValueError("a prefix is looked up for an empty cache only")
        ids = np.asarray(prompt, dtype=np.int64)
        self.queried += len(ids)
        best, best_len = None, 0
        for entry in self._entries:
            n = min(common_prefix(entry.tokens, ids), len(ids) - 1)
            n -= n % self.block
            if n > best_len:
                best, best_len = entry, n
        if best is None:
            return 0
        cache.k[:, :, :best_len] = best.k[:, :, :best_len]
        cache.v[:, :, :best_len] = best.v[:, :, :best_len]
        cache.length = best_len
        self._entries.remove(best)
        self._entries.append(best)  # most recently used
        self.hit += best_len
        return best_len

    def insert(self, tokens: Sequence[int], cache: KVCache) -> None:
        """Store the whole blocks of ``tokens`` whose keys and values ``cache`` holds."""
        n = min(len(tokens), cache.length)
        n -= n % self.block
        if n == 0 or n > self.capacity:
            return
        ids = np.asarray(tokens[:n], dtype=np.int64)
        # an entry this one extends (or repeats) is dropped; one that extends it keeps it
        kept = []
        for entry in self._entries:
            shared = common_prefix(entry.tokens, ids)
            if shared == len(ids) and len(entry.tokens) >= n:
                self._entries.remove(entry)
                self._entries.append(entry)  # already held: it is used again
                return
            if shared < len(entry.tokens):
                kept.append(entry)
        kept.append(_Entry(ids, cache.k[:, :, :n].copy(), cache.v[:, :, :n].copy()))
        total = sum(len(e.tokens) for e in kept)
        while total > self.capacity:
            total -= len(kept.pop(0).tokens)
        self._entries = kept
