"""Where a hand-written wrong answer parts from a HumanEval task's reference, run in this
process: the check behind the generator tests (``test_eight.py`` to ``test_thirteenth.py``) that
a wrong answer agrees with the reference on one generator's inputs and not on the next one's,
with the amplifications those tests share (``made``, ``kept``) and their pinned digests."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from functools import cache
from typing import Any

from specverdict.suites.function import (
    budget,
    eleventh,
    ninth,
    regrow,
    special,
    tenth,
    thirteenth,
    twelfth,
)
from specverdict.suites.function.amplify import AmplifyConfig, amplify, key
from specverdict.suites.function.humaneval import humaneval_tasks
from specverdict.suites.function.oracles import is_right
from specverdict.suites.function.profile import Args
from tests.conftest import untraced

TASKS = {t.task_id: t for t in humaneval_tasks()}


def _function(source: str, name: str) -> Callable[..., Any]:
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    return namespace[name]  # type: ignore[no-any-return]


def _outcome(fn: Callable[..., Any], args: Args) -> Any:
    try:
        return ("ok", fn(*copy.deepcopy(args)))
    except (
        RecursionError,
        ValueError,
        TypeError,
        IndexError,
        ZeroDivisionError,
        OverflowError,
    ) as exc:
        return ("raised", type(exc).__name__)


def parted(task_id: str, wrong: str, inputs: tuple[Args, ...]) -> list[Args]:
    """The inputs on which ``wrong`` answers otherwise than the task's reference (inputs the
    reference raises on are skipped)."""
    t = TASKS[task_id]
    reference = _function(t.reference, t.entry_point)
    candidate = _function(wrong, t.entry_point)
    out = []
    for args in inputs:
        expected, got = _outcome(reference, args), _outcome(candidate, args)
        if expected[0] != "ok":
            continue
        if got[0] != "ok" or not is_right(t.compare, t.oracle, t.atol, args, got[1], expected[1]):
            out.append(args)
    return out


#: the count of inputs the generator tests amplify to (seed 0)
COUNT = 100
#: what each generator from 8 on adds at most to the inputs the ground truth keeps
#: (``groundtruth.TruthStore``), beyond those of the generator before
OWN_MOST = {
    8: regrow.MOST + special.MOST,
    9: ninth.MOST,
    10: tenth.MOST,
    11: eleventh.MOST,
    12: twelfth.MOST,
    13: thirteenth.MOST,
}


@cache
def made(task_id: str, generator: int) -> tuple[Args, ...]:
    """Every input ``generator`` makes for the task at seed 0 and ``COUNT``, in order (cached in
    the process: the generator test files share their amplifications)."""
    t = TASKS[task_id]
    assert t.base_inputs is not None
    config = AmplifyConfig(seed=0, count=COUNT, generator=generator)
    args = (t.contract, t.reference, t.entry_point, t.prompt)
    return tuple(amplify(task_id, t.base_inputs, config, *args))


@cache
def keys(task_id: str, generator: int) -> tuple[str, ...]:
    """``made``'s inputs as ``amplify.key`` strings."""
    return tuple(key(a) for a in made(task_id, generator))


def most_kept(generator: int) -> int:
    """How many inputs the ground truth keeps at most for ``generator`` (7 or later)."""
    return COUNT + budget.MOST + sum(OWN_MOST.get(g, 0) for g in range(8, generator + 1))


def kept(task_id: str, generator: int) -> tuple[Args, ...]:
    """The inputs the ground truth keeps at most, in order."""
    return made(task_id, generator)[: most_kept(generator)]


def own_inputs_are_kept(task_id: str, generator: int) -> None:
    """Generator ``generator - 1``'s inputs are all among ``generator``'s, which adds some of
    its own (at most ``OWN_MOST``), every one of them within what the ground truth keeps."""
    older = set(keys(task_id, generator - 1))
    newer = keys(task_id, generator)
    assert older <= set(newer), task_id
    own = [k for k in newer if k not in older]
    assert 0 < len(own) <= OWN_MOST[generator] and len(set(own)) == len(own), task_id
    assert set(own) <= set(newer[: most_kept(generator)]), task_id


def digest(generator: int, first: int) -> str:
    """The first 16 hex digits of a SHA-256 over ``generator``'s inputs for the first
    ``first`` HumanEval tasks with base inputs (the generator tests pin it). Amplified
    ``untraced``: a pin checks output, and the generator's code runs traced in the tests beside
    it (coverage's tracer made generator 13's digest 2.5 times slower)."""
    h = hashlib.sha256()
    for task in list(TASKS.values())[:first]:
        if task.base_inputs is not None:
            with untraced():
                made_here = keys(task.task_id, generator)
            for k in made_here:
                h.update(k.encode())
    return h.hexdigest()[:16]
