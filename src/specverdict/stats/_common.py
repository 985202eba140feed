"""Value types and input checks shared by the statistics modules.

Inputs are validated here, once, with messages that name the argument; the estimators then trust
their arrays. Missing measurements (``None`` or NaN) are data, not errors: they become NaN here and
each estimator decides how to drop them and reports how many it dropped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
Samples = Sequence[float | None] | NDArray[np.floating[Any]] | NDArray[np.integer[Any]]
"""Per-sample measurements; ``None`` or NaN marks a sample that has no value."""


@dataclass(frozen=True, slots=True)
class Interval:
    """A closed confidence interval ``[lower, upper]``."""

    lower: float
    upper: float

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int | float) and self.lower <= value <= self.upper

    @property
    def width(self) -> float:
        return self.upper - self.lower


def check_count(name: str, value: object) -> int:
    """A non-negative integer count; ``bool`` is refused because ``True`` is not a count."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be a non-negative integer count, got {value!r}")
    count = int(value)
    if count < 0:
        raise ValueError(f"{name} must be a non-negative integer count, got {count}")
    return count


def check_unit_open(name: str, value: float) -> float:
    """A probability strictly between 0 and 1 (alpha, a confidence level, a margin)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating):
        raise ValueError(f"{name} must be a number in (0, 1), got {value!r}")
    x = float(value)
    if not 0.0 < x < 1.0:
        raise ValueError(f"{name} must be in (0, 1), got {x}")
    return x


def check_positive(name: str, value: float) -> float:
    """A finite number > 0 (a time, a cost, a ratio)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    x = float(value)
    if not (math.isfinite(x) and x > 0.0):
        raise ValueError(f"{name} must be a positive finite number, got {x}")
    return x


def z_two_sided(alpha: float) -> float:
    """The standard normal quantile z_{1-alpha/2}."""
    from scipy.stats import norm

    return float(norm.ppf(1.0 - alpha / 2.0))


def as_float_array(name: str, values: Samples) -> FloatArray:
    """One-dimensional float64 copy of ``values`` with ``None`` turned into NaN."""
    if any(isinstance(v, str | bytes) for v in values):
        raise ValueError(f"{name} must hold numbers or None, not text")
    try:
        arr = np.array(
            [math.nan if v is None else float(v) for v in values],
            dtype=np.float64,
        )
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must hold numbers or None: {exc}") from exc
    return arr


def paired_complete(
    arrays: Sequence[tuple[str, Samples]],
) -> tuple[tuple[FloatArray, ...], int]:
    """Keep the samples where every array has a finite value; return them and how many were dropped.

    Arrays are paired by position, so they must have the same length.
    """
    converted = [as_float_array(name, values) for name, values in arrays]
    lengths = {len(a) for a in converted}
    if len(lengths) > 1:
        detail = ", ".join(
            f"{name}={len(a)}" for (name, _), a in zip(arrays, converted, strict=True)
        )
        raise ValueError(f"paired samples must have equal lengths, got {detail}")
    keep = np.ones(len(converted[0]) if converted else 0, dtype=bool)
    for a in converted:
        keep &= np.isfinite(a)
    dropped = int(keep.size - np.count_nonzero(keep))
    return tuple(a[keep] for a in converted), dropped


def confidence_label(confidence: float) -> str:
    """'95%' for 0.95: the level as people write it."""
    return f"{100.0 * confidence:g}%"
