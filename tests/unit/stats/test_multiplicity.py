"""Family control of a campaign's ADOPTs: p-values dual to the gates' intervals, Holm and BH."""

from __future__ import annotations

import numpy as np

from specverdict.stats.multiplicity import adjust


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
