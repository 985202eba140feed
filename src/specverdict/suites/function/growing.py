"""Generator 7's grown inputs picked (``budget.py`` makes them): per group, the seed grown to the
largest size whose counted cost is within the budget, admitted by the domain with the grown
arguments freed (``budget.free``) and the task's contract. Generator 8 takes the same steps,
with its own counts after them (``eight.py``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from specverdict.suites.function import budget
from specverdict.suites.function.admit import Contract, holds, key_or_none
from specverdict.suites.function.profile import Args, Domain

#: a group of grown inputs: the arguments grown, the domain admitting them, how they grow
Grower = tuple[tuple[int, ...], Domain, Callable[[int], Args]]


def pick(
    pool: Sequence[Args],
    domain: Domain,
    his: Sequence[float | None],
    contract: Contract | None,
    cost: budget.Cost,
    most: int = budget.LADDER[-1],
) -> list[Args]:
    """Generator 7's own inputs: per group, the seed grown to the largest size whose counted
    cost is within the budget, in group order; none past ``most`` items, at most
    ``budget.MOST``."""
    found = growers(pool, domain, his, contract)
    if not found:
        return []
    return grown(found, cost(probes(found)), contract, most)


def admitted(where: Domain, args: Args, contract: Contract | None) -> bool:
    """Whether a grown input is admitted: tagged within ``budget.MAX_CHARS`` characters, by
    ``where`` and by the contract."""
    text = key_or_none(args)
    if text is None or len(text) > budget.MAX_CHARS or not where.admits(args):
        return False
    return contract is None or holds(contract, args)


def growers(
    pool: Sequence[Args],
    domain: Domain,
    his: Sequence[float | None],
    contract: Contract | None,
) -> list[Grower]:
    """Generator 7's groups (``budget.candidates``), those admitted at the larger probe."""
    found = [(at, budget.free(domain, at), make) for _, at, make in budget.candidates(pool, his)]
    return [g for g in found if admitted(g[1], g[2](budget.PROBES[1]), contract)]


def probes(found: Sequence[Grower]) -> list[Args]:
    """The inputs counted to size the groups: each at both ``budget.PROBES``, in order."""
    return [make(n) for _, _, make in found for n in budget.PROBES]


def grown(
    found: Sequence[Grower], counts: Sequence[int], contract: Contract | None, most: int
) -> list[Args]:
    """Each group's grown input (and its smaller copies) from its probes' ``counts``."""
    out: list[Args] = []
    for j, (_, where, make) in enumerate(found):
        n = sized(where, make, counts[2 * j : 2 * j + 2], contract, most)
        if n is not None:
            out.append(make(n))
            out += [make(n // k) for k in budget.SMALLER if n // k >= budget.PROBES[1] // 2]
    return out[: budget.MOST]


def sized(
    where: Domain,
    make: Callable[[int], Args],
    counts: Sequence[int],
    contract: Contract | None,
    most: int,
) -> int | None:
    """The size a group grows to from its probes' ``counts``, not past ``most`` items nor past
    the longest input (a size down), if any is admitted."""
    n = budget.size(counts)
    n = None if n is None else min(n, most)
    while n is not None and n > budget.PROBES[1] and not admitted(where, make(n), contract):
        n //= 2  # past the longest input: a size down
    return n if n is not None and admitted(where, make(n), contract) else None
