"""What every generator's inputs must pass: a key (the tagged JSON text that names an input)
and the task's contract, where it has one."""

from __future__ import annotations

from collections.abc import Callable

from specverdict.suites.function.mutate import key
from specverdict.suites.function.profile import Args
from specverdict.suites.values import TagError

Contract = Callable[[Args], bool]


def key_or_none(args: Args) -> str | None:
    """``key(args)``, or None where the input cannot be tagged."""
    try:
        return key(args)
    except (TagError, ValueError, OverflowError):
        return None


def holds(contract: Contract, args: Args) -> bool:
    """Whether ``contract`` holds for ``args`` (a contract that raises does not)."""
    try:
        return bool(contract(args))
    except (TypeError, ValueError, IndexError, KeyError, ArithmeticError):
        return False
