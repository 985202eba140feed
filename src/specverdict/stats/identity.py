"""Greedy identity: at temperature 0, does the candidate emit exactly the baseline's tokens?

Lossless speculation verifies every draft against the target's own argmax, so greedy output
should be token-identical; the engines document rare numeric exceptions (a batched verify pass
rounding differently from single-token decoding and flipping a near-tie).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

TokenIds = Sequence[int]


@dataclass(frozen=True, slots=True)
class Divergence:
    """Sample ``index`` first differs at token ``position`` (a prefix diverges at its end)."""

    index: int
    position: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GreedyIdentity:
    """Share of compared samples whose token ids are identical, and where the others part.

    ``missing`` counts samples with no output on one side (not compared); ``share`` is None
    when nothing was compared.
    """

    n: int
    identical: int
    share: float | None
    divergences: tuple[Divergence, ...]
    missing: int
    decidable: bool
    why: str


def first_divergence(base: TokenIds, cand: TokenIds) -> int | None:
    """First position where the sequences differ; len(shorter) if one is a prefix of the other;
    None if identical."""
    for pos, (x, y) in enumerate(zip(base, cand, strict=False)):
        if x != y:
            return pos
    if len(base) != len(cand):
        return min(len(base), len(cand))
    return None


def greedy_identity(pairs: Sequence[tuple[TokenIds | None, TokenIds | None]]) -> GreedyIdentity:
    """Identical share = #{i : cand_i == base_i} / #compared, with the first divergent position of
    every differing sample. ``pairs[i]`` is (baseline ids, candidate ids) of sample i; None on
    either side marks a failed request, which is counted as missing rather than compared.
    """
    divergences: list[Divergence] = []
    missing = identical = 0
    for index, (base, cand) in enumerate(pairs):
        if base is None or cand is None:
            missing += 1
            continue
        pos = first_divergence(base, cand)
        if pos is None:
            identical += 1
        else:
            divergences.append(Divergence(index, pos))
    n = identical + len(divergences)
    skipped = f", {missing} missing" if missing else ""
    if n == 0:
        return GreedyIdentity(
            n=0,
            identical=0,
            share=None,
            divergences=(),
            missing=missing,
            decidable=False,
            why=f"no samples to compare{skipped}",
        )
    share = identical / n
    why = f"{identical} of {n} samples token-identical ({100.0 * share:.1f}%){skipped}"
    if divergences:
        first = divergences[0]
        why += f"; first divergence: sample {first.index} at token {first.position}"
    return GreedyIdentity(
        n=n,
        identical=identical,
        share=share,
        divergences=tuple(divergences),
        missing=missing,
        decidable=True,
        why=why,
    )
