"""The exact size of the quality REJECT at small n, worst case over the nuisance parameter.

A lossless candidate (as good as the baseline) has, per paired sample, the same chance p of
passing where the baseline fails as of failing where it passes; the concordant rest is the
nuisance. Its chance of a quality REJECT is a sum over the trinomial outcomes (b, c, n - b - c),
exactly, for every n up to 30 and p over a grid: no simulation. Tango's score interval is
asymptotic, so its exact size is what must be checked (docs/statistics.md section 8, small samples).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import gammaln

from specverdict.campaign.model import Gates
from specverdict.stats import mcnemar_exact, tango_interval
from specverdict.verdict.judge import reject_level

GATES = Gates(alpha=0.05, margin=0.05)


def trinomial(n: int, p: float) -> np.ndarray:
    """pmf[b, c] of (b, c, n - b - c) with cell probabilities (p, p, 1 - 2p); 0 off the simplex."""
    b, c = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    rest = n - b - c
    ok = rest >= 0
    r = np.where(ok, rest, 0)
    log = (
        gammaln(n + 1)
        - gammaln(b + 1)
        - gammaln(c + 1)
        - gammaln(r + 1)
        + (b + c) * np.log(p)
        + r * np.log1p(-2 * p)
    )
    return np.where(ok, np.exp(log), 0.0)


def regions(n: int, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Where each test rejects a drop: Tango's lower bound above 0; McNemar significant, b > c."""
    tango = np.zeros((n + 1, n + 1), bool)
    mcnemar = np.zeros((n + 1, n + 1), bool)
    for b in range(n + 1):
        for c in range(n + 1 - b):
            tango[b, c] = tango_interval(b, c, n, level).lower > 0
            mc = mcnemar_exact(b, c, level)
            mcnemar[b, c] = mc.significant and b > c
    return tango, mcnemar


@pytest.mark.parametrize("n", range(4, 31))
def test_quality_reject_of_a_lossless_candidate_is_within_its_share_exactly(n: int) -> None:
    level = reject_level(GATES)  # each test two-sided at alpha/2: alpha/4 on the harmful side
    tango, mcnemar = regions(n, level)
    worst_tango = worst_union = 0.0
    for p in np.linspace(0.0025, 0.4975, 100):
        pmf = trinomial(n, float(p))
        assert pmf.sum() == pytest.approx(1.0)
        worst_tango = max(worst_tango, float(pmf[tango].sum()))
        worst_union = max(worst_union, float(pmf[tango | mcnemar].sum()))
    # Tango alone can pass its nominal alpha/4 (0.0125): 0.0188 at n = 9, where nearly every
    # pair is discordant (p near 0.5 each way). The two tests of the drop share alpha/2 of the
    # one rejection budget (the finish-reason test has the other half), and exactly, over every
    # nuisance value, their union stays inside it.
    assert worst_tango <= GATES.alpha / 2
    assert worst_union <= GATES.alpha / 2


def test_the_enumeration_sees_a_rejection_region() -> None:
    """Not vacuous: a clear drop is rejected, and with enough samples a lossless one sometimes."""
    tango, mcnemar = regions(30, reject_level(GATES))
    assert tango[10, 0] and mcnemar[10, 0] and not tango[5, 5]
    assert float(trinomial(30, 0.25)[tango].sum()) > 0.005
