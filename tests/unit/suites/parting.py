"""Where a hand-written wrong answer parts from a HumanEval task's reference, run in this
process: the check behind the generator tests (``test_eight.py``, ``test_ninth.py``) that a
wrong answer agrees with the reference on one generator's inputs and not on the next one's."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from specverdict.suites.function.humaneval import humaneval_tasks
from specverdict.suites.function.oracles import is_right
from specverdict.suites.function.profile import Args

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
