"""Family control of a campaign's ADOPTs: p-values dual to the gates' intervals, Holm and BH."""

from __future__ import annotations

import numpy as np
import pytest

from specverdict.stats import tango_interval
from specverdict.stats.multiplicity import adjust, noninferiority_p, ratio_p


@pytest.mark.parametrize(("b", "c", "n"), [(0, 0, 240), (3, 1, 120), (10, 12, 400), (5, 0, 60)])
def test_the_noninferiority_p_value_is_dual_to_tangos_interval(b: int, c: int, n: int) -> None:
    margin = 0.05
    upper = tango_interval(b, c, n, 0.05).upper
    assert (noninferiority_p(b, c, n, margin) < 0.025) == (upper < margin)
    # and at the level where the bound meets the margin, p meets alpha/2
    for alpha in (0.01, 0.1, 0.2):
        upper = tango_interval(b, c, n, alpha).upper
        if abs(upper - margin) > 1e-3:
            assert (noninferiority_p(b, c, n, margin) < alpha / 2) == (upper < margin)


def test_the_ratio_p_value_is_dual_to_a_log_symmetric_interval() -> None:
    lo, hi = 1.1, 1.3
    point = float(np.sqrt(lo * hi))
    assert ratio_p(point, lo, hi, lo) == pytest.approx(0.025, abs=1e-9)
    assert ratio_p(point, lo, hi, 1.0) < 0.025 < ratio_p(point, lo, hi, 1.2)


def test_holm_and_bh_on_a_textbook_family() -> None:
    ps = [0.01, 0.04, 0.03, 0.005]
    holm = adjust(ps, 0.05, "holm")
    # sorted 0.005 (0.05/4), 0.01 (0.05/3), 0.03 (0.05/2: 0.025, fails), 0.04 (stops)
    assert [a.rejected for a in holm] == [True, False, False, True]
    assert [round(a.threshold, 4) for a in holm] == [0.0167, 0.05, 0.025, 0.0125]
    bh = adjust(ps, 0.05, "bh")
    assert [a.rejected for a in bh] == [True, True, True, True]  # 0.04 <= 4 * 0.05 / 4
    assert [a.rejected for a in adjust(ps, 0.05, "none")] == [True, True, True, True]


def test_holm_controls_the_family_wise_error_of_twelve_true_nulls() -> None:
    rng = np.random.default_rng(0)
    trials, m, alpha = 4000, 12, 0.025
    alone = held = 0
    for _ in range(trials):
        ps = rng.uniform(size=m)  # every candidate truly at the bar
        alone += bool((ps <= alpha).any())
        held += any(a.rejected for a in adjust(list(ps), alpha, "holm"))
    assert alone / trials > 0.2  # the audit's 21-23% without control
    assert held / trials <= alpha + 0.008  # binomial slack at 4000 trials
