"""Whether an output is right: comparison with the reference's output, or a task's oracle.

All of this runs in the parent on decoded built-in values (``values.decode``), never in the
sandbox. An oracle serves tasks whose right answer is not unique, or whose reference output is
not the thing to compare:

``find_zero`` (HumanEval/32)
    any ``x`` with ``|poly(xs, x)| <= tol`` is a zero; ``tol`` is the task's ``atol``, or
    1e-4 as HumanEval's own check uses. Replaces comparison.
MBPP+ (EvalPlus's special cases, ``evalplus/eval/_special_oracle.py`` and ``unsafe_execute`` in
``evalplus/eval/__init__.py``, evalplus/evalplus@26d6d00)
    ``are_equivalent`` (anything goes), ``sum_div`` (also 0), ``surface_Area`` (the slant
    height read as perpendicular height also counts), ``digit_distance_nums`` (numbers padded
    to one length also count), set comparison for eight tasks, and "is not None" for three
    tasks whose outputs are match objects. These widen comparison.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from specverdict.suites.function.checkast import CompareMode
from specverdict.suites.values import Unserializable, equal

Args = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Oracle:
    """``check(args, output, reference_output, atol)``; ``replaces``: the oracle alone decides
    (otherwise it only adds accepted answers to plain comparison); ``any_type``: outputs of
    types the format does not carry (match objects) are judged too, as "not None"."""

    check: Callable[[Args, Any, Any, float], bool]
    replaces: bool = False
    any_type: bool = False


def _real(x: Any) -> bool:
    return type(x) in (int, float) and math.isfinite(x)


def poly(xs: list[Any], x: float) -> float:
    """HumanEval/32's polynomial, ``sum(c * x**i)``."""
    return float(sum(c * math.pow(x, i) for i, c in enumerate(xs)))


def _find_zero(args: Args, out: Any, exp: Any, atol: float) -> bool:
    if not _real(out) or len(args) != 1 or type(args[0]) is not list:
        return False
    try:
        return abs(poly(args[0], out)) <= (atol or 1e-4)
    except (OverflowError, TypeError, ValueError):
        return False


def _surface_area(base_edge: float, height: float) -> int:
    slant = math.sqrt((base_edge / 2) ** 2 + height**2)
    return round(base_edge**2 + 2 * base_edge * slant)


def _digit_distance(a: int, b: int) -> int:
    sa, sb = str(a), str(b)
    width = max(len(sa), len(sb))
    return sum(abs(int(x) - int(y)) for x, y in zip(sa.zfill(width), sb.zfill(width), strict=True))


def _guard(fn: Callable[[Args, Any, Any, float], bool]) -> Callable[[Args, Any, Any, float], bool]:
    def safe(args: Args, out: Any, exp: Any, atol: float) -> bool:
        try:
            return fn(args, out, exp, atol)
        except (TypeError, ValueError, ArithmeticError):
            return False

    return safe


def _as_set(x: Any) -> set[Any] | None:
    if type(x) not in (list, tuple, set, frozenset):
        return None
    try:
        return set(x)
    except TypeError:
        return None


def _set_eq(args: Args, out: Any, exp: Any, atol: float) -> bool:
    a, b = _as_set(out), _as_set(exp)
    return a is not None and a == b


def _not_none(args: Args, out: Any, exp: Any, atol: float) -> bool:
    flag = exp is not None
    return out == flag if type(out) is bool else flag == (out is not None)


ORACLES: dict[str, Oracle] = {
    "find_zero": Oracle(_find_zero, replaces=True),
    "mbpp:are_equivalent": Oracle(lambda a, o, e, t: True),
    "mbpp:sum_div": Oracle(_guard(lambda a, o, e, t: o == 0)),
    "mbpp:surface_Area": Oracle(
        _guard(lambda a, o, e, t: _real(o) and abs(o - _surface_area(*a)) <= t)
    ),
    "mbpp:digit_distance_nums": Oracle(_guard(lambda a, o, e, t: o == _digit_distance(*a))),
    "mbpp:set_eq": Oracle(_set_eq),
    "mbpp:not_none": Oracle(_not_none, any_type=True),
}


def compare(mode: CompareMode, out: Any, exp: Any, atol: float) -> bool:
    """Comparison with the reference's output, by the task's mode (see ``checkast``)."""
    tol = atol or 1e-6
    if mode == "sequence":
        seqs = (list, tuple)
        return type(out) in seqs and type(exp) in seqs and equal(tuple(out), tuple(exp), tol)
    if mode == "truthy":
        return bool(out) == bool(exp)
    if mode == "strict_bool":
        return type(out) is bool and out == exp
    return equal(out, exp, tol)


def is_right(
    mode: CompareMode, oracle: str | None, atol: float, args: Args, out: Any, exp: Any
) -> bool:
    """Whether ``out`` is a right answer on ``args``; an unserializable output never is."""
    chosen = ORACLES[oracle] if oracle else None
    if type(out) is Unserializable and (chosen is None or not chosen.any_type):
        return False
    if chosen is not None and chosen.replaces:
        return chosen.check(args, out, exp, atol)
    if compare(mode, out, exp, atol):
        return True
    return chosen is not None and chosen.check(args, out, exp, atol)
