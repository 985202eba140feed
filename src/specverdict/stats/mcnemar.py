"""The exact McNemar test on paired pass/fail outcomes, and its vacuity.

McNemar answers "do baseline and candidate differ?" from the discordant pairs alone. Its
non-rejection is not evidence of equality, and with few discordant pairs it cannot reject at all;
the result says so (``vacuous``) instead of looking like a pass. The non-inferiority decision rests
on :mod:`specverdict.stats.noninferiority`; this test is reported beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

from specverdict.stats._common import check_count, check_unit_open


@dataclass(frozen=True, slots=True, kw_only=True)
class McNemarResult:
    """Exact McNemar test of one paired 2x2 table.

    ``b`` counts baseline-only passes, ``c`` candidate-only passes, ``d = b + c``.
    ``vacuous`` means no data with ``d`` discordant pairs could reach ``alpha``;
    ``significant`` means the test ran (not vacuous) and ``p_value <= alpha``.
    """

    b: int
    c: int
    d: int
    alpha: float
    p_value: float
    min_attainable_p: float
    vacuous: bool
    significant: bool
    decidable: bool
    why: str


def min_attainable_p(d: int) -> float:
    """Smallest two-sided exact p-value with ``d`` discordant pairs: min(1, 2 * 0.5**d).

    Reached when all discordance goes one way (min(b, c) = 0).
    """
    return min(1.0, 2.0 * 0.5 ** check_count("d", d))


def mcnemar_exact(b: int, c: int, alpha: float = 0.05) -> McNemarResult:
    """Exact two-sided McNemar test.

    With d = b + c discordant pairs, under H0 min(b, c) ~ Binomial(d, 1/2) and

        p = min(1, 2 * F(min(b, c); d, 1/2)),   p = 1 when d = 0,

    which equals ``scipy.stats.binomtest(min(b, c), d, 0.5).pvalue``. The test is vacuous when
    min(1, 2 * 0.5**d) > alpha: at alpha = 0.05 that is every d <= 5.

    Reference: McNemar Q. (1947), "Note on the sampling error of the difference between
    correlated proportions or percentages", Psychometrika 12:153-157; the exact (binomial) form
    as in Agresti A. (2013), *Categorical Data Analysis*, 3rd ed., section 11.1.
    """
    from scipy.stats import binom

    b = check_count("b", b)
    c = check_count("c", c)
    alpha = check_unit_open("alpha", alpha)
    d = b + c
    p_value = 1.0 if d == 0 else min(1.0, 2.0 * float(binom.cdf(min(b, c), d, 0.5)))
    floor = min_attainable_p(d)
    vacuous = floor > alpha
    significant = not vacuous and p_value <= alpha
    if vacuous:
        why = f"vacuous: {d} discordant pairs, min attainable p = {floor:.3g} > alpha {alpha:g}"
    elif significant:
        why = (
            f"difference: {d} discordant pairs (b={b}, c={c}), "
            f"exact p = {p_value:.3g} <= alpha {alpha:g}"
        )
    else:
        why = (
            f"no significant difference: {d} discordant pairs (b={b}, c={c}), "
            f"exact p = {p_value:.3g} > alpha {alpha:g} (not evidence of equality)"
        )
    return McNemarResult(
        b=b,
        c=c,
        d=d,
        alpha=alpha,
        p_value=p_value,
        min_attainable_p=floor,
        vacuous=vacuous,
        significant=significant,
        decidable=not vacuous,
        why=why,
    )
