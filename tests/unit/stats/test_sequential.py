"""The betting test of non-inferiority: anytime-valid size under peeking, exactness at small n,
and what it says when it cannot decide."""

from __future__ import annotations

import numpy as np
import pytest

from specverdict.stats.sequential import betting_noninferiority


def outcomes(n: int, base_only: float, cand_only: float, rng: np.random.Generator) -> list[int]:
    u = rng.random(n)
    return list(np.where(u < base_only, -1, np.where(u < base_only + cand_only, 1, 0)))


def test_the_error_stays_under_the_level_however_often_the_data_are_read() -> None:
    """Truly worse by exactly the margin (10% baseline-only, 5% candidate-only): the running
    maximum is read after every single sample up to 400, the harshest peeking there is. Fixed-n
    Tango re-read every 50 samples passed 6.8% of such pairs; the target is 2.5%."""
    rng = np.random.default_rng(7)
    sims = 300
    hits = sum(
        betting_noninferiority(outcomes(400, 0.10, 0.05, rng), 0.05, 0.025).decided
        for _ in range(sims)
    )
    assert hits <= 17, f"{hits}/{sims}"  # P(X >= 18) < 1e-3 for Binomial(300, 0.025)


def test_identical_outputs_decide_at_a_size_the_margin_sets() -> None:
    # 1/0.025 = 40 needs n with (1 + 0.9 * 0.05 / 0.95)^n >= 40: about 80 at 5 pp
    assert not betting_noninferiority([0] * 70, 0.05, 0.025).decided
    assert betting_noninferiority([0] * 100, 0.05, 0.025).decided
    small = betting_noninferiority([0] * 40, 0.05, 0.025)
    assert not small.decided and small.n_needed is not None and 70 < small.n_needed < 100
    assert small.smallest_margin is not None and 0.05 < small.smallest_margin < 0.15


def test_a_worse_candidate_is_never_decided_and_the_answer_says_why() -> None:
    worse = betting_noninferiority([-1] * 10 + [0] * 90, 0.05, 0.025)  # 10 pp worse
    assert not worse.decided and worse.n_needed is None  # no sample size can pass
    assert worse.smallest_margin is not None and worse.smallest_margin > 0.1
    assert worse.p_value == pytest.approx(min(1.0, 1 / worse.max_wealth))


def test_exact_at_small_n() -> None:
    """Ville's bound holds at every n: the largest wealth 6 samples can reach is below 1/0.025
    unless they all favour the candidate."""
    assert not betting_noninferiority([0] * 6, 0.05, 0.025).decided
    assert not betting_noninferiority([1, 1, 1, 1], 0.05, 0.025).decided
    assert betting_noninferiority([], 0.05, 0.025).max_wealth == 1.0


@pytest.mark.parametrize(
    "args, message",
    [
        (([0], 0.0, 0.025), "margin must be in"),
        (([0], 0.05, 1.5), "level must be in"),
        (([2], 0.05, 0.025), "differences must be -1, 0 or 1"),
    ],
)
def test_bad_input(args: tuple[list[int], float, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        betting_noninferiority(*args)


def test_a_sample_size_past_any_use_is_not_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """A drop exactly at the margin can never pass (its bet grows at rate 0), and neither can
    outcomes whose growth rate is near 0: the projection is then "none" (None), not a 34-digit
    count of samples that a floating-point rounding of the mean would otherwise produce."""
    from specverdict.stats import sequential

    at_margin = [-1] + [0] * 19  # drop 5 pp at a 5 pp margin: mean of d + margin rounds to 8e-18
    assert betting_noninferiority(at_margin, 0.05, 0.025).n_needed is None
    near = betting_noninferiority([0] * 40, 0.05, 0.025)
    assert near.n_needed is not None and near.n_needed <= sequential.MAX_NEEDED
    # a slow but real lean towards the candidate: named only up to MAX_NEEDED
    slow = [1] + [-1] * 9 + [0] * 190  # drop 4 pp at a 5 pp margin
    needed = betting_noninferiority(slow, 0.05, 0.025).n_needed
    assert needed is not None and needed > 200
    monkeypatch.setattr(sequential, "MAX_NEEDED", needed - 1)
    assert betting_noninferiority(slow, 0.05, 0.025).n_needed is None
