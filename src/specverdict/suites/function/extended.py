"""Generator 5's domains and its own inputs: ``precision`` and ``letters``, picked.

Generator 5 keeps generator 4's domain with one more reading of the seeds: a whole-number
argument whose least seed is 1 admits 0 unless the prompt says positive (the seeds start where
the task's interesting values start, not where its domain does: ``is_prime(0)``, ``f(0)``,
``is_simple_power(0, 2)``). Mutation stays in that domain.

Its own inputs (``precision.py``, ``letters.py``) are admitted by a wider domain
(``widen_for_kinds``), so that the values they are made of, and only they, pass: no upper bound
(nor lower, where some seed is negative) for a number argument (or the items of a list of
them) whose value the reference's work does not
grow with (``growth.unbounded``) and whose docstring states no upper bound; runs of letters from
one letter up to ``precision``'s and ``letters``' lengths, digit runs up to twenty digits,
strings up to ``MAX_STRING`` characters; empty
string items where the prompt sets no least size. The task's contract and the reference still
have the last word.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable, Iterator, Sequence

from specverdict.suites.function import letters, precision
from specverdict.suites.function.boundary import Boundaries
from specverdict.suites.function.edges import UNKEYABLE, round_robin
from specverdict.suites.function.growth import computes_floats, unbounded
from specverdict.suites.function.profile import Args, Domain, Profile
from specverdict.suites.function.stated import Statement

#: every kind of generator 5's own inputs
KINDS = (*precision.KINDS, *letters.KINDS)
#: the longest run of letters and of digits the wider domain admits
MAX_LETTER_RUN = 30
MAX_DIGIT_RUN = 20
#: the longest string the wider domain admits (at least)
MAX_STRING = 60


def reach(
    reference: str, entry_point: str, params: tuple[str, ...], statement: Statement
) -> precision.Reach:
    """Which arguments may take values past float precision, and whether whole numbers may get
    fractions (``precision.Reach``)."""
    free = unbounded(reference, entry_point)
    large = frozenset(
        i
        for i, name in enumerate(params)
        if name in free and statement.values.get(name, (None, None))[1] is None
    )
    fractions = computes_floats(reference, entry_point) and not statement.integers
    return precision.Reach(large, fractions)


def widen_from_one(domain: Domain, bounds: Boundaries) -> Domain:
    """Generator 5's domain: 0 admitted for a whole-number argument whose least seed is 1,
    unless the prompt says positive."""
    wide = copy.deepcopy(domain)
    if bounds.positive:
        return wide
    for p in wide.args:
        ints = [v for v in p.pool if type(v) in (int, float)]
        if ints and all(type(v) is int for v in ints) and p.lo == 1:
            p.lo = 0
    return wide


def _lift(p: Profile) -> None:
    if p.hi is not None and p.lo is not None:
        p.hi = math.inf
        if p.lo < 0:
            p.lo = -math.inf


def _strings(p: Profile, bounds: Boundaries) -> None:
    if p.len_hi is not None and p.pool and all(type(v) is str for v in p.pool):
        p.len_hi = max(p.len_hi, MAX_STRING // 2)
    for cls in ("lower", "upper"):
        if cls in p.run_hi:
            p.run_lo[cls] = 1
            p.run_hi[cls] = max(p.run_hi[cls], MAX_LETTER_RUN)
    if "digit" in p.run_hi:
        p.run_hi["digit"] = max(p.run_hi["digit"], MAX_DIGIT_RUN)
    item = p.item
    if item is not None and item.len_lo is not None and all(type(v) is str for v in item.pool):
        item.len_lo = item.len_lo if bounds.sized else 0
    for child in (p.item, p.key, p.value):
        if child is not None:
            _strings(child, bounds)


def widen_for_kinds(domain: Domain, bounds: Boundaries, where: precision.Reach) -> Domain:
    """The domain that admits generator 5's own inputs (module docstring)."""
    wide = copy.deepcopy(domain)
    for i, p in enumerate(wide.args):
        if i in where.large:
            _lift(p)
            if p.item is not None:
                _lift(p.item)
        _strings(p, bounds)
    return wide


def _floats_at(seeds: Sequence[Args]) -> list[int]:
    return [i for i in range(len(seeds[0])) if any(type(s[i]) is float for s in seeds)]


def extended_inputs(
    seeds: Sequence[Args], where: precision.Reach, ascii_only: bool
) -> Iterator[tuple[str, Args]]:
    """Generator 5's candidates in a fixed order, each with its group ``"<argument>:<kind>"``
    (``*`` for several arguments at once)."""
    floats_at = _floats_at(seeds) if seeds else []
    for seed in seeds:
        for i, value in enumerate(seed):
            others = [v for j, v in enumerate(seed) if j != i]
            found = [
                *precision.variants(value, where, i, others),
                *letters.variants(value, ascii_only),
            ]
            for kind, new in found:
                changed = list(seed)
                changed[i] = new
                yield f"{i}:{kind}", tuple(changed)
        for kind, both in [
            *precision.joint_variants(seed, floats_at, where),
            *letters.pattern_variants(seed),
            *letters.space_zero_variants(seed),
        ]:
            yield f"*:{kind}", both


def pick_extended(
    seeds: Sequence[Args],
    where: precision.Reach,
    ascii_only: bool,
    limit: int,
    rng: random.Random,
    admits: Callable[[Args], bool],
    exclude: set[str],
) -> list[Args]:
    """Up to ``limit`` admitted inputs of generator 5's own kinds, none of whose keys is in
    ``exclude``, taken round-robin over the groups."""
    found = extended_inputs(seeds, where, ascii_only)
    return round_robin(found, set(exclude), admits, rng, limit, UNKEYABLE)
