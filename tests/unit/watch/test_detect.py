"""The detector without I/O: its threshold against the target run length, a stationary run of
30 minutes of windows without alarm, the false-alarm rate measured against the configured one,
the delay to detect a drop, restarts and targets that go away."""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
import pytest

from specverdict.stats.steps import design_effect, per_token_rate, step_variance
from specverdict.watch.detect import (
    Baseline,
    Counters,
    DetectorConfig,
    DetectorState,
    cusum_arl,
    cusum_threshold,
    step,
)
from tests.conftest import untraced

K = 3
BASE = Baseline(mal_lower=2.1, mal_upper=2.3, acceptance_lower=0.36, k=K)


def step_law(mean_accepted: float, k: int = K) -> np.ndarray:
    """P(X = j), j = 0..k, of the truncated geometric law with E[X] = mean_accepted."""
    a = per_token_rate(mean_accepted, k)
    tail = np.array([a**j for j in range(k + 2)])
    tail[k + 1] = 0.0
    return tail[:-1] - tail[1:]


def simulate(
    rng: np.random.Generator,
    windows: int,
    mean_accepted: float,
    config: DetectorConfig,
    drafts_per_window: float = 200.0,
    stop_at_alarm: bool = True,
) -> tuple[int | None, DetectorState]:
    """Feed ``windows`` scrapes of a stationary server; the window of the first alarm."""
    law = step_law(mean_accepted)
    state = DetectorState()
    c = Counters(drafts=0.0, draft_tokens=0.0, accepted=0.0, start_time=1.0)
    state, _ = step(state, c, BASE, config)
    for i in range(windows):
        d = int(rng.poisson(drafts_per_window))
        counts = rng.multinomial(d, law)
        accepted = float(np.dot(counts, np.arange(K + 1)))
        c = Counters(
            drafts=c.drafts + d,
            draft_tokens=c.draft_tokens + K * d,
            accepted=c.accepted + accepted,
            start_time=1.0,
        )
        state, events = step(state, c, BASE, config)
        if any(e.kind == "alarm" for e in events) and stop_at_alarm:
            return i + 1, state
    return None, state


def test_threshold_gives_the_target_run_length() -> None:
    for arl0 in (100.0, 10_000.0):
        h = cusum_threshold(arl0, 0.5)
        assert cusum_arl(h, 0.5) == pytest.approx(arl0, rel=1e-3)
    # Page's CUSUM with k = 0.5, h = 5: in-control ARL about 930 (Brook & Evans' tables)
    assert 880 < cusum_arl(5.0, 0.5) < 980
    # a shift of one standard unit is found in about 10 windows at h = 5
    assert 9.0 < cusum_arl(5.0, 0.5, shift=1.0) < 11.5


def test_step_law_matches_its_moments() -> None:
    law = step_law(1.2)
    x = np.arange(K + 1)
    assert float(law @ x) == pytest.approx(1.2, abs=1e-9)
    assert float(law @ x**2) - 1.2**2 == pytest.approx(step_variance(1.2, K), rel=1e-6)


def test_thirty_minutes_stationary_without_alarm() -> None:
    # 5-second windows for 30 minutes, acceptance at the expectation's middle (MAL 2.2)
    config = DetectorConfig()  # ARL0 10,000 windows
    first, state = simulate(np.random.default_rng(1), 360, 1.2, config, stop_at_alarm=False)
    assert first is None and not state.alarm
    assert state.windows == 360


def test_false_alarm_rate_measured_against_configured() -> None:
    # At the band's edge (the worst in-control case) with ARL0 = 100 windows: the mean run
    # length to a false alarm over 300 simulated runs (its standard error about 6 %).
    config = DetectorConfig(arl0=100.0)
    rng = np.random.default_rng(7)
    lengths = []
    for n in range(300):
        # the first run traced, the others repeat its code
        with nullcontext() if n == 0 else untraced():
            first, _ = simulate(rng, 5_000, BASE.mal_lower - 1.0, config)
        assert first is not None
        lengths.append(first)
    measured = 1.0 / float(np.mean(lengths))
    configured = 1.0 / config.arl0
    print(f"false alarms per window: measured {measured:.5f}, configured {configured:.5f}")
    assert 0.8 * configured < measured < 1.25 * configured


def test_a_drop_is_found_within_a_few_windows() -> None:
    # MAL 2.2 -> 1.7 (the drift fault's size on the reference engine): detected within 3
    config = DetectorConfig()
    delays = [simulate(np.random.default_rng(s), 50, 0.7, config)[0] for s in range(20)]
    assert all(d is not None and d <= 3 for d in delays), delays


def test_restart_is_not_a_drift_and_down_is_not_a_restart() -> None:
    config = DetectorConfig()
    s, _ = step(
        DetectorState(), Counters(drafts=500, draft_tokens=1500, accepted=600), BASE, config
    )
    s, ev = step(s, None, BASE, config)
    assert [e.kind for e in ev] == ["down"] and not s.up
    s, ev = step(s, Counters(drafts=900, draft_tokens=2700, accepted=1080), BASE, config)
    assert [e.kind for e in ev] == ["up", "window"]
    s, ev = step(s, Counters(drafts=10, draft_tokens=30, accepted=2), BASE, config)
    assert [e.kind for e in ev] == ["restart"] and s.restarts == 1 and s.cusum == 0.0
    t = Counters(drafts=100, draft_tokens=300, accepted=200, start_time=5.0)
    s, _ = step(s, t, BASE, config)
    s, ev = step(s, t.model_copy(update={"start_time": 6.0, "drafts": 300}), BASE, config)
    assert ev[0].kind == "restart" and "start time" in ev[0].message


def test_few_drafts_wait_for_the_next_scrape() -> None:
    config = DetectorConfig(min_drafts=50)
    s, _ = step(DetectorState(), Counters(drafts=0, draft_tokens=0, accepted=0), BASE, config)
    s, ev = step(s, Counters(drafts=10, draft_tokens=30, accepted=12), BASE, config)
    assert [e.kind for e in ev] == ["skipped"] and s.windows == 0
    s, ev = step(s, Counters(drafts=60, draft_tokens=180, accepted=72), BASE, config)
    assert ev[0].kind == "window" and ev[0].window is not None and ev[0].window.drafts == 60


def test_design_effect_of_correlated_requests() -> None:
    rng = np.random.default_rng(3)
    steps = [50] * 40
    # each request has its own acceptance: far more spread than independent steps
    accepted = [int(rng.binomial(50 * K, p)) for p in rng.uniform(0.1, 0.9, 40)]
    assert design_effect(accepted, steps, K) > 3.0
    assert design_effect([60] * 40, steps, K) == 1.0


def test_fewer_drafted_tokens_per_step_is_a_configuration_change_not_a_drift() -> None:
    """A fixed-k method pinned at k=3 whose server now drafts 1 token per step (an override
    lost when its container was re-created with k=1): named a configuration change at the
    first window, where a drift alarm would have blamed acceptance."""
    config = DetectorConfig()
    fixed = BASE.model_copy(update={"fixed_k": True})
    s, _ = step(DetectorState(), Counters(drafts=0, draft_tokens=0, accepted=0), fixed, config)
    s, ev = step(s, Counters(drafts=200, draft_tokens=200, accepted=150), fixed, config)
    assert [e.kind for e in ev] == ["alarm"] and s.alarm
    assert ev[0].message.startswith("configuration change: 1.00 drafted tokens per step")
    # k as pinned: windows again, no new alarm (the first is still raised)
    s, ev = step(s, Counters(drafts=400, draft_tokens=800, accepted=600), fixed, config)
    assert ev[0].kind == "window" and s.alarms == 1
    # a method whose steps draft fewer than k by design (n-gram) is not judged on it
    s, _ = step(DetectorState(), Counters(drafts=0, draft_tokens=0, accepted=0), BASE, config)
    s, ev = step(s, Counters(drafts=200, draft_tokens=200, accepted=150), BASE, config)
    assert not any(e.message.startswith("configuration") for e in ev)


def test_a_pinned_engine_k_is_what_the_configuration_change_alarm_compares_with() -> None:
    """Declared k=3, its engine measured drafting 2 per step (``engine_k``): a window at 2 per
    step is the configuration as measured (a window, no alarm), where the declared k alone
    would call it a change; 1 per step is a change, named against both k."""
    config = DetectorConfig()
    fixed = BASE.model_copy(update={"fixed_k": True})
    pinned = fixed.model_copy(update={"engine_k": 2.0})
    start = Counters(drafts=0, draft_tokens=0, accepted=0)
    two = Counters(drafts=200, draft_tokens=400, accepted=150)
    s, _ = step(DetectorState(), start, pinned, config)
    s, ev = step(s, two, pinned, config)
    assert [e.kind for e in ev] == ["window"] and not s.alarm
    s, _ = step(DetectorState(), start, fixed, config)
    s, ev = step(s, two, fixed, config)
    assert [e.kind for e in ev] == ["alarm"] and "against the pinned k=3:" in ev[0].message
    s, _ = step(DetectorState(), start, pinned, config)
    s, ev = step(s, Counters(drafts=200, draft_tokens=200, accepted=150), pinned, config)
    assert [e.kind for e in ev] == ["alarm"]
    assert "1.00 drafted tokens per step against the pinned engine k=2 (declared k=3)" in (
        ev[0].message
    )
