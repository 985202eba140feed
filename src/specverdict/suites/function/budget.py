"""Generator 7's own inputs: per argument, an input grown to what the reference does in a budget.

Generator 6 grows inputs to a fixed 1100 items (047); hand-written answers that are quadratic
where the reference is linear, or recurse once per item, still answer 1100 items in
milliseconds. Generator 7 sizes its inputs to the reference's work instead (049): for each
argument it can grow (a list cycled, a string repeated, a whole number raised), and for all the
sequence and string arguments of a seed at once, it counts the *line events* the reference
executes (``sys.settrace``, in the sandbox: ``counting_source``) at two probe sizes, fits the
growth ``c(n) = c(PROBES[1]) * (n / PROBES[1]) ** p`` with ``p`` at least 1, and takes the
largest size of ``LADDER`` (doubling) whose predicted count stays within ``BUDGET`` events.

A line event is a deterministic unit of the reference's work: the same reference on the same
input gives the same count on every machine (for one Python version), so the size, and with it
the suite, does not depend on how fast or loaded the machine that builds the ground truth is.
``BUDGET`` is about a twentieth of the candidate's one-second floor at the speed of a simple
line on a 2-core build host (about 85 ns), which leaves a right answer twenty times the
reference's work, or a machine that much slower, before its timeout. Only the reference's
own lines are counted: not work done inside built-ins (``sorted``, ``str.join``,
``list.count``), nor the lines of library code written in Python (``re``, ``collections``),
whose count depends on caches that other code in the process fills and empties (``re``'s
compiled patterns, an ABC's subclass checks). ``LADDER`` stops at ``2 ** 16`` items and an
input at ``MAX_CHARS`` tagged characters, which keeps most of that work to milliseconds; each
grown input comes with smaller ones (``SMALLER``), and the ground truth drops an input the
reference runs long on, so a reference quadratic inside built-ins keeps the smaller ones.

A linear reference reaches 65,536 items: an answer quadratic in the length (``list.count`` in
a loop, a prefix slice per item) runs for seconds there, and one that recurses once per item
passes Python's default limit of 1000 frames many times over.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

from specverdict.suites.function.profile import Args, Domain, Profile
from specverdict.suites.function.scale import _free as scale_free

#: the two sizes the reference's count is taken at
PROBES = (1024, 4096)
#: the sizes an input may be grown to, in order
LADDER = tuple(2**k for k in range(12, 17))
#: the line events the reference may execute on a grown input
BUDGET = 2**19
#: the most grown inputs per task; the ground truth keeps them on top of the ``count`` others,
#: so that they push none of generator 6's inputs out
MOST = 8
#: the most items where the docstring asks for unique items (``Statement.ties_forbidden``): a
#: right answer may compare arrangements of them (every rotation, HumanEval/109)
TIED = PROBES[1]
#: the longest tagged input a grown input may have
MAX_CHARS = 2**21
#: the longest tagged output the ground truth keeps for generator 7 (generator 6: 4000)
MAX_OUTPUT_CHARS = 2**22
#: each grown input comes with ones these times smaller, where that is at least
#: ``PROBES[1] // 2`` items: work hidden in built-ins can make the reference too slow at the
#: full size (the ground truth then drops that one; HumanEval/70's reference, quadratic in
#: ``min`` and ``list.remove``, runs over its time at 8,192 items already)
SMALLER = (8, 32)
#: the name of the counting function ``counting_source`` defines next to the reference
COUNTER = "_specverdict_line_events"
#: a probe's count when the reference went past ``BUDGET`` or failed on it
OVER = -1


class Cost(Protocol):
    """Counts the line events of the reference's call on each input (``OVER`` when past the
    input's limit, ``BUDGET`` unless ``limits`` says otherwise, or failing)."""

    def __call__(
        self, inputs: Sequence[Args], limits: Sequence[int] | None = None
    ) -> list[int]: ...


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def growable(value: Any, hi: float | None) -> bool:
    """Whether ``value`` can be grown: a non-empty list or tuple, a non-empty string that is
    not a number other than a run of digits (repeated, it stays one), or a whole number (not a bool) of at least 0 under a stated bound ``hi`` of at
    least ``LADDER[0]``."""
    if type(value) is int:
        return 0 <= value < PROBES[0] and (hi is None or hi >= LADDER[0])
    if type(value) in (list, tuple):
        return bool(value)
    if type(value) is str:
        return bool(value.strip()) and (value.isdigit() or not _number(value))
    return False


def distinct_whole(value: Sequence[Any]) -> bool:
    return all(type(v) is int for v in value) and len(set(value)) == len(value)


def grow(value: Any, n: int) -> Any:
    """``value`` grown to size ``n``: a list or tuple cycled to ``n`` items (whole numbers all
    distinct are repeated in blocks shifted by their span, so that they stay distinct, and
    sorted where they are), a string repeated (joined by a space where it has spaces inside) to
    at least ``n`` characters, a whole number made ``n``."""
    if type(value) is int:
        return n
    if type(value) in (list, tuple) and len(value) > 1 and distinct_whole(value):
        span = max(value) - min(value) + 1
        m = len(value)
        return type(value)(value[i % m] + (i // m) * span for i in range(n))
    if type(value) in (list, tuple):
        items = [value[i % len(value)] for i in range(n)]
        if not all(type(v) in (int, float, str, bool) for v in value):
            items = [copy.deepcopy(v) for v in items]
        return type(value)(items)
    if " " in value.strip():
        return " ".join([value] * (n // (len(value) + 1) + 1))
    return value * math.ceil(n / len(value))


def size_of(value: Any) -> int:
    """The size ``grow`` speaks of: a whole number's value, a sequence's length."""
    return value if type(value) is int else len(value)


def candidates(
    seeds: Sequence[Args], his: Sequence[float | None]
) -> Iterator[tuple[str, tuple[int, ...], Callable[[int], Args]]]:
    """Per argument, the seed with the largest growable value there (the first among equals) as
    a function of the size, with its group ``"<argument>:budget"``; then, where a seed has two
    or more sequence or string arguments, all of them grown together (``"*:budget"``, the seed
    with the most items in them); each with the arguments it grows."""
    arity = len(seeds[0])
    for i in range(arity):
        found = [s for s in seeds if growable(s[i], his[i] if i < len(his) else None)]
        if found:
            best = max(found, key=lambda s: size_of(s[i]))
            yield f"{i}:budget", (i,), _grower(best, (i,))
    joint = []
    for s in seeds:
        at = tuple(i for i, v in enumerate(s) if type(v) is not int and growable(v, None))
        if len(at) >= 2:
            joint.append((sum(len(s[i]) for i in at), s, at))
    if joint:
        _, seed, at = max(joint, key=lambda t: t[0])
        yield "*:budget", at, _grower(seed, at)


def _free(p: Profile) -> None:
    scale_free(p)
    p.run_lo = dict.fromkeys(p.run_lo, 1)
    p.run_hi = dict.fromkeys(p.run_hi, 1 << 30)
    if p.item is not None:
        _free(p.item)


def free(domain: Domain, at: Sequence[int]) -> Domain:
    """``domain`` with the arguments ``at`` freed as generator 6 frees one (``scale.free``:
    length, range, order, parity) and their letter and digit runs of any length."""
    wide = copy.deepcopy(domain)
    for i in at:
        _free(wide.args[i])
    return wide


def _grower(seed: Args, at: tuple[int, ...]) -> Callable[[int], Args]:
    def make(n: int) -> Args:
        return tuple(grow(v, n) if i in at else v for i, v in enumerate(seed))

    return make


def size(counts: Sequence[int]) -> int | None:
    """The largest size of ``LADDER`` whose predicted count is within ``BUDGET``, from the
    counts at the two ``PROBES`` (``None`` if the reference went past the budget or failed at
    the larger probe)."""
    small, large = counts
    if OVER in (small, large):
        return None
    ratio = PROBES[1] / PROBES[0]
    p = max(1.0, math.log(max(large, 1) / max(small, 1)) / math.log(ratio))
    chosen = None
    for n in LADDER:
        if n <= PROBES[1] or max(large, 1) * (n / PROBES[1]) ** p <= BUDGET:
            chosen = n
        else:
            break
    return chosen


def counting_source(reference: str, entry_point: str) -> str:
    """``reference`` with a function ``COUNTER(limit, *args)`` that calls ``entry_point`` on
    ``args`` and returns the number of line events it executed in the reference's own code
    (``OVER`` past ``limit`` or if it raised)."""
    return f"""{reference}


def {COUNTER}(limit, *args):
    import sys

    class _Over(BaseException):
        pass

    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
            if count > limit:
                raise _Over
        return local

    own = sys._getframe().f_code.co_filename

    def start(frame, event, arg):
        return local if frame.f_code.co_filename == own else None

    before = sys.gettrace()
    sys.settrace(start)
    try:
        {entry_point}(*args)
    except BaseException:
        return {OVER}
    finally:
        sys.settrace(before)
    return count
"""


def count_here(reference: str, entry_point: str) -> Cost:
    """A ``Cost`` that runs ``reference`` in this process: for trusted references only (the
    tests); the ground truth counts in the sandbox (``groundtruth.TruthStore``)."""
    namespace: dict[str, Any] = {}
    exec(compile(counting_source(reference, entry_point), "<reference>", "exec"), namespace)
    counter = namespace[COUNTER]

    def cost(inputs: Sequence[Args], limits: Sequence[int] | None = None) -> list[int]:
        caps = list(limits) if limits is not None else [BUDGET] * len(inputs)
        return [int(counter(n, *copy.deepcopy(a))) for n, a in zip(caps, inputs, strict=True)]

    return cost
