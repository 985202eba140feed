"""Open-loop arrival times."""

from __future__ import annotations

import numpy as np
import pytest

from specverdict.run.loadgen import poisson_offsets


def test_arrivals_are_seeded_increasing_and_at_the_requested_rate() -> None:
    a = poisson_offsets(5000, rate=8.0, seed=3)
    assert a == poisson_offsets(5000, rate=8.0, seed=3)
    assert a != poisson_offsets(5000, rate=8.0, seed=4)
    assert a[0] == 0.0 and bool((np.diff(a) > 0).all())
    gaps = np.diff(a)
    assert gaps.mean() == pytest.approx(1 / 8.0, rel=0.05)
    assert gaps.std() == pytest.approx(1 / 8.0, rel=0.07)  # exponential: sd == mean


def test_a_rate_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        poisson_offsets(3, rate=0.0, seed=0)
