"""Generator 8's inputs picked: generator 7's grown inputs, its own grown ones (``regrow.py``) and
its special values (``special.py``), each counted in the sandbox before it is kept.

In order, in front of generator 6's inputs (050):

1. generator 7's grown inputs, counted exactly as generator 7 counts them (``growing.py``);
2. per argument, the worked seed (``regrow.worked``) where the reference's count on it is the
   greatest and greater than on generator 7's seed at that size (only where generator 7's seed
   was counted at its larger probe); the extreme-last lists and wide rows
   (``regrow.extremes``) the reference answers within ``budget.BUDGET``; at most
   ``regrow.MOST``;
3. the special candidates admitted by the domain with the changed arguments free upwards
   (``free``), the contract, ``Context.counted`` (no value past ``special.COUNTED`` where the
   reference's work on it hides in built-ins) and, for a whole number past the seeds that
   generator 7 grew, the growth generator 7's counts show (``Forecast``), and whose count is
   within ``special.BUDGET``: round-robin over their groups, at most ``special.MOST``.

Steps 2 and 3 share one count in the sandbox (step 1 keeps its own, as generator 7 has it).
"""

from __future__ import annotations

import copy
import itertools
import math
import string
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from specverdict.suites.function import (
    budget,
    growing,
    ninth,
    regrow,
    special,
    tenth,
)
from specverdict.suites.function.admit import Contract, holds, key_or_none
from specverdict.suites.function.mutate import key
from specverdict.suites.function.profile import Args, Domain, Profile


@dataclass(frozen=True, slots=True)
class Context:
    """What generator 8 reads of a task to admit its special inputs: ``reading``; the domain
    generator 5's own inputs are admitted by (``wide``), freed upwards per input (``free``);
    the bounds the docstring states (``his``); the parameters' names and those whose work
    hides in built-ins (``hidden``, ``growth.hidden``)."""

    reading: special.Reading
    wide: Domain
    his: tuple[float | None, ...]
    params: tuple[str, ...]
    hidden: frozenset[str]

    def counted(self, args: Args, at: Sequence[int]) -> bool:
        """Whether the reference's work on ``args`` is all counted: no changed argument past
        ``special.COUNTED`` whose value some work of the reference grows with in built-ins."""
        for i in at:
            name = self.params[i] if i < len(self.params) else "*"
            hides = name in self.hidden or "*" in self.hidden or name == "*"
            if hides and special.magnitude(args[i]) > special.COUNTED:
                return False
        return True


@dataclass(frozen=True, slots=True)
class Forecast:
    """Generator 7's counts of the reference at its two probes (``budget.PROBES``) for a whole
    number it grew (``budget.OVER``: past the budget or failing), read as ``budget.size`` reads
    them: where the reference's work follows the value (at least one line event per unit at
    the larger probe), a value past the seeds is worth counting only if the growth they show
    keeps it within ``special.BUDGET``; none where the reference could not take the larger
    probe. Where the work does not follow the value (a factorization of 4096 takes a dozen
    steps, of a large prime thousands), only a count tells."""

    small: int
    large: int

    def within(self, value: float) -> bool:
        if self.small < 0 or self.large < 0:
            return False
        if value <= budget.PROBES[1] or self.large < budget.PROBES[1]:
            return True
        ratio = budget.PROBES[1] / budget.PROBES[0]
        p = max(1.0, math.log(max(self.large, 1) / max(self.small, 1)) / math.log(ratio))
        growth = p * math.log(value / budget.PROBES[1])
        return math.log(max(self.large, 1)) + growth <= math.log(special.BUDGET)


def _lift(p: Profile, hi: float | None, reading: special.Reading) -> None:
    top = math.inf if hi is None else hi
    if p.hi is not None:
        p.hi = max(p.hi, top)
    if p.lo is not None and p.lo < 0:
        p.lo = -p.hi if p.hi is not None else -math.inf
    elif p.lo is not None and p.lo > 0 and not reading.positive:
        p.lo = 0
    fixed = p.len_lo is not None and p.len_lo == p.len_hi and p.count > 1
    if p.len_hi is not None and not fixed:
        p.len_hi = math.inf  # type: ignore[assignment]
        texts = bool(p.pool) and all(type(v) is str for v in p.pool)
        if texts and reading.blank:
            p.len_lo = 0
    if "digit" in p.alphabet:
        p.alphabet["digit"] = set(string.digits)
        p.zero_led = True
    p.run_hi = dict.fromkeys(p.run_hi, 1 << 30)
    p.run_lo = dict.fromkeys(p.run_lo, 1)
    if p.item is not None:
        _lift(p.item, None, reading)


def free(
    domain: Domain, at: Sequence[int], his: Sequence[float | None], reading: special.Reading
) -> Domain:
    """``domain`` with the arguments ``at`` free upwards: their values (and their items') up to
    a bound the docstring states (``his``) or without one, down to 0 unless the prompt says
    positive, and as far down as up where the seeds hold negative ones; lengths not fixed by
    every seed (strings down to empty where no least size is stated), digits and runs of
    letters and digits free. Order, distinct items, parity and the rest stay."""
    wide = copy.deepcopy(domain)
    for i in at:
        _lift(wide.args[i], his[i] if i < len(his) else None, reading)
    return wide


def floor(domain: Domain, at: Sequence[int], reading: special.Reading) -> Domain:
    """``domain`` with the whole-number arguments ``at`` free down to their least value (0, or
    1 where the prompt says positive), their upper bounds kept (generator 9's ``least``)."""
    low = copy.deepcopy(domain)
    least = 1 if reading.positive else 0
    for i in at:
        p = low.args[i]
        if p.lo is not None and p.lo > least:
            p.lo = least
    return low


#: a later generator's candidates of a pool (``eleventh.candidates`` read for a task) and the
#: most of them kept
Later = tuple[Callable[[Sequence[Args]], Iterable[tuple[str, Args, tuple[int, ...]]]], int]


def pick(
    pool: Sequence[Args],
    domain: Domain,
    context: Context,
    contract: Contract | None,
    cost: budget.Cost,
    most: int,
    max_chars: int,
    nine: ninth.Reading | None = None,
    ten: bool = False,
    later: Sequence[Later] = (),
) -> list[Args]:
    """Generator 8's inputs in front of generator 6's (module docstring); ``most``: the most
    items a grown input may have, ``max_chars`` the longest special input's tagged text.
    ``nine`` (generator 9; None for 8): what generator 9 reads of the reference; its own inputs
    (``ninth``) come after generator 8's, counted with them; ``ten`` (generator 10, with
    ``nine``): generator 10's own (``tenth``) after generator 9's; ``later`` (generators 11 on,
    with ``ten``): each later generator's candidates of a pool and the most it keeps, in order
    (``eleventh``, ``twelfth``), admitted as generator 9's own and kept after generator 10's."""
    found = growing.growers(pool, domain, context.his, contract)
    seven = cost(growing.probes(found)) if found else []  # generator 7's count, as it is
    grown = growing.grown(found, seven, contract, most)
    feasible = {g[0] for j, g in enumerate(found) if seven[2 * j + 1] >= 0}
    worked: list[tuple[int, Args]] = []
    for i, make in regrow.worked(pool, context.his):
        args = make(regrow.WORKED)
        if (i,) in feasible and growing.admitted(budget.free(domain, (i,)), args, contract):
            worked.append((i, args))
    ordered = [p.ordered and p.count > 0 for p in domain.args]
    extremes = [
        args
        for at, args in regrow.extremes(pool, ordered)
        if growing.admitted(budget.free(domain, (at,)), args, contract)
    ]
    forecasts = {
        g[0][0]: Forecast(seven[2 * j], seven[2 * j + 1])
        for j, g in enumerate(found)
        if len(g[0]) == 1 and all(type(s[g[0][0]]) is int for s in pool)
    }
    specials = _candidates(
        special.candidates(pool, context.reading), context, contract, max_chars, forecasts
    )
    nines = (
        []
        if nine is None
        else _candidates(
            ninth.candidates(pool, nine, context.reading.positive),
            context,
            contract,
            max_chars,
            forecasts,
            2 * ninth.MOST,
        )
    )
    tens = (
        _candidates(tenth.candidates(pool), context, contract, max_chars, forecasts, 2 * tenth.MOST)
        if ten
        else []
    )
    lates = [
        _candidates(make(pool), context, contract, max_chars, forecasts, 2 * late_most)
        for make, late_most in later
    ]
    ceiling, over = _ceiling(pool, cost) if nines or tens or any(lates) else (special.BUDGET, False)
    longs = (
        []
        if nine is None
        else [
            args
            for at, args in ninth.longs(pool)
            if growing.admitted(budget.free(domain, (at,)), args, contract)
        ]
    )
    tokens = (
        [
            args
            for at, args in tenth.tokens(pool)
            if growing.admitted(budget.free(domain, (at,)), args, contract)
        ]
        if ten
        else []
    )
    probes = [*(a for _, a in worked), *extremes, *longs, *tokens]
    limits = [budget.BUDGET] * len(probes) + [special.BUDGET] * len(specials)
    limits += [ceiling] * (len(nines) + len(tens) + sum(len(late) for late in lates))
    specials_and_more = [
        *(a for _, a in specials),
        *(a for _, a in nines),
        *(a for _, a in tens),
        *(a for late in lates for _, a in late),
    ]
    counts = cost([*probes, *specials_and_more], limits) if limits else []
    regrown = _worked(found, seven, worked, counts)
    regrown += [a for a, n in zip(extremes, counts[len(worked) :], strict=False) if n >= 0]
    sizes = [len(longs), len(tokens), len(specials), len(nines), len(tens)]
    _, of_longs, of_tokens, of_specials, of_nines, of_tens, *of_lates = _segments(
        counts, [len(worked) + len(extremes), *sizes, *(len(late) for late in lates)]
    )
    sorted_long = [a for a, n in zip(longs, of_longs, strict=True) if n >= 0]
    long_tokens = [a for a, n in zip(tokens, of_tokens, strict=True) if n >= 0]
    cheap = [
        (group, args)
        for (group, args), n in zip(specials, of_specials, strict=True)
        if 0 <= n <= special.BUDGET
    ]
    cheap_nines = [
        (group, args)
        for (group, args), n in zip(nines, of_nines, strict=True)
        if 0 <= n <= ceiling or (over and n < 0 and group.endswith(":least"))
    ]
    cheap_tens = [
        (group, args) for (group, args), n in zip(tens, of_tens, strict=True) if 0 <= n <= ceiling
    ]
    cheap_lates = [
        [(g, a) for (g, a), n in zip(late, of_late, strict=True) if 0 <= n <= ceiling]
        for late, of_late in zip(lates, of_lates, strict=True)
    ]
    taken = {key(a) for a in [*pool, *grown]}
    kept: list[Args] = []
    for args in regrown:
        text = key(args)
        if text not in taken and len(kept) < regrow.MOST:
            taken.add(text)
            kept.append(args)
    eights = _round_robin(cheap, taken, special.MOST)
    if nine is None:
        return [*grown, *kept, *eights]
    taken |= {key(a) for a in eights}
    long_kept = [a for a in sorted_long if key(a) not in taken][: ninth.LONGS]
    taken |= {key(a) for a in long_kept}
    rest = _round_robin(cheap_nines, taken, ninth.MOST - len(long_kept))
    if not ten:
        return [*grown, *kept, *eights, *long_kept, *rest]
    taken |= {key(a) for a in rest}
    token_kept = [a for a in long_tokens if key(a) not in taken][: tenth.TOKENS]
    taken |= {key(a) for a in token_kept}
    more = _round_robin(cheap_tens, taken, tenth.MOST - len(token_kept))
    out = [*grown, *kept, *eights, *long_kept, *rest, *token_kept, *more]
    taken |= {key(a) for a in more}
    for cheap_late, (_, most_late) in zip(cheap_lates, later, strict=True):
        got = _round_robin(cheap_late, taken, most_late)
        taken |= {key(a) for a in got}
        out += got
    return out


def _segments(counts: Sequence[int], sizes: Sequence[int]) -> list[Sequence[int]]:
    """``counts`` cut into consecutive runs of ``sizes`` (the counts of each group of
    candidates, in the order they were counted together); empty runs where ``counts`` is empty
    (nothing was counted)."""
    out: list[Sequence[int]] = []
    at = 0
    for size in sizes:
        out.append(counts[at : at + size])
        at += size
    return out


def _ceiling(pool: Sequence[Args], cost: budget.Cost) -> tuple[int, bool]:
    """The count generator 9's own inputs are kept within: ``special.BUDGET``, or the
    reference's greatest count on a seed where that is more (a least value may take the
    reference through all its work, as the costliest seed does), at most ``budget.BUDGET``;
    and whether a seed is past ``budget.BUDGET`` (or fails): a least value past it is then
    kept too, the ground truth's time limit its bound, as the seed's is."""
    counts = cost(pool, [budget.BUDGET] * len(pool)) if pool else []
    return max(special.BUDGET, *(n for n in counts if n >= 0), 0), any(n < 0 for n in counts)


def _worked(
    found: Sequence[growing.Grower],
    seven: Sequence[int],
    worked: Sequence[tuple[int, Args]],
    counts: Sequence[int],
) -> list[Args]:
    """Per argument, the worked seed (``regrow.worked``, grown to ``regrow.WORKED`` items) whose
    count is the greatest and greater than generator 7's seed's at that size."""
    done = {g[0]: seven[2 * j + 1] for j, g in enumerate(found)}
    best: dict[int, tuple[int, Args]] = {}
    for (i, args), n in zip(worked, counts, strict=False):
        if n > done.get((i,), -1) and n > best.get(i, (-1, ()))[0]:
            best[i] = (n, args)
    return [args for _, args in best.values()]


def _candidates(
    found: Iterable[tuple[str, Args, tuple[int, ...]]],
    context: Context,
    contract: Contract | None,
    max_chars: int,
    forecasts: dict[int, Forecast],
    most: int = special.CANDIDATES,
) -> list[tuple[str, Args]]:
    """The special candidates ``found`` admitted (module docstring, step 3; generator 9's
    ``least`` by the domain lowered to its least value, ``floor``), at most
    ``special.PER_GROUP`` per group, in the order ``_round_robin`` takes them, the first
    ``most``: the rest would not be taken unless many of these were dropped."""
    wheres: dict[tuple[tuple[int, ...], bool], Domain] = {}
    per_group: dict[str, int] = {}
    out: list[tuple[str, Args]] = []
    seen: set[str] = set()
    for group, args, at in found:
        if per_group.get(group, 0) >= special.PER_GROUP:
            continue
        text = key_or_none(args)
        if text is None or text in seen or len(text) > max_chars:
            continue
        low = group.endswith(":least")
        if (at, low) not in wheres:
            wheres[at, low] = (
                floor(context.wide, at, context.reading)
                if low
                else free(context.wide, at, context.his, context.reading)
            )
        # generator 11's floats: no built-in's work grows with a float's size (none can be
        # a range's bound or a repetition's count), so the reference's count holds for them;
        # generator 12's lists past the largest float: as generator 10's huge numbers, only
        # the count tells, and the ground truth's time limit bounds a reference that hides
        # work on them in built-ins
        free_of_count = group.endswith((":float-shift", ":list-huge"))
        if not wheres[at, low].admits(args) or not (free_of_count or context.counted(args, at)):
            continue
        # generators 10 and 13: only the count tells (``tenth``, ``thirteenth``)
        huge = group.endswith((":huge", ":item-long", ":fib-pair"))
        if not huge and not all(_forecast(context.wide, forecasts, args, i) for i in at):
            continue
        if contract is not None and not holds(contract, args):
            continue
        seen.add(text)
        per_group[group] = per_group.get(group, 0) + 1
        out.append((group, args))
    groups: dict[str, list[Args]] = {}
    for group, args in out:
        groups.setdefault(group, []).append(args)
    rows = itertools.zip_longest(*([(g, a) for a in kept] for g, kept in groups.items()))
    return [pair for row in rows for pair in row if pair is not None][:most]


def _forecast(wide: Domain, forecasts: dict[int, Forecast], args: Args, i: int) -> bool:
    """Whether argument ``i`` of ``args`` is a whole number within the seeds' range or one
    generator 7's counts forecast the reference's work on within the budget."""
    value: Any = args[i]
    hi = wide.args[i].hi
    if type(value) is not int or i not in forecasts or hi is None or value <= hi:
        return True
    return forecasts[i].within(value)


def _round_robin(found: Sequence[tuple[str, Args]], taken: set[str], most: int) -> list[Args]:
    """Up to ``most`` of the ``(group, input)`` pairs ``found``, none of whose keys is
    in ``taken``, one group after the other in turn, the groups and their inputs in order."""
    groups: dict[str, list[Args]] = {}
    seen = set(taken)
    for group, args in found:
        text = key(args)
        if text not in seen:
            seen.add(text)
            groups.setdefault(group, []).append(args)
    out: list[Args] = []
    for row in itertools.zip_longest(*groups.values()):
        out += [a for a in row if a is not None]
    return out[:most]
