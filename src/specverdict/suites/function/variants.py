"""Generator 4's own inputs: the variants of ``charclass``, ``magnitude`` and ``joint``, picked.

Every seed (base input or docstring example) gives, one argument at a time, its
character-class variants (strings, and the first and last string item of a sequence) and its
magnitude variants (numbers and lists of numbers), and, for all its sequence arguments at once,
its joint variants. They are grouped by ``(argument, kind)`` and taken round-robin, as
generator 2's edges and generator 3's corners are, so that each kind gets its share.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator, Sequence

from specverdict.suites.function import charclass, joint, magnitude
from specverdict.suites.function.edges import UNKEYABLE, round_robin
from specverdict.suites.function.profile import Args, Domain
from specverdict.suites.function.stated import Statement

#: every kind of generator 4's own inputs
KINDS = (*charclass.KINDS, *magnitude.KINDS, *joint.KINDS)


def variant_inputs(
    seeds: Sequence[Args], domain: Domain, statement: Statement
) -> Iterator[tuple[str, Args]]:
    """Variant candidates in a fixed order, each with its group ``"<argument>:<kind>"`` (the
    argument ``*`` for variants of several arguments at once)."""
    for seed in seeds:
        for i, value in enumerate(seed):
            p = domain.args[i]
            others = [v for j, v in enumerate(seed) if j != i]
            found = [
                *charclass.variants(value, p, statement),
                *magnitude.variants(value, p, others),
            ]
            for kind, new in found:
                changed = list(copy.deepcopy(seed))
                changed[i] = new
                yield f"{i}:{kind}", tuple(changed)
        for kind, both in joint.joint_variants(seed):
            yield f"*:{kind}", both


def pick_variants(
    seeds: Sequence[Args],
    domain: Domain,
    statement: Statement,
    limit: int,
    rng: random.Random,
    admits: Callable[[Args], bool],
    exclude: set[str],
) -> list[Args]:
    """Up to ``limit`` admitted variant inputs, none of whose keys is in ``exclude``, taken
    round-robin over the groups (each group shuffled by ``rng``)."""
    found = variant_inputs(seeds, domain, statement)
    return round_robin(found, set(exclude), admits, rng, limit, UNKEYABLE)
