"""The SGLang gauge source's claim, in simulation: counting each gauge value as the logging
interval's 40 verify steps (a lower bound) keeps the detector's false alarms at or below the
configured rate, and still finds a drop. Each simulated value is what SGLang's scheduler logs:
the mean accept length (accepted drafts + 1) over ``40 * batch`` verify steps of the truncated
geometric law at the band's edge, written into the exposition of
tests/fixtures/sglang/metrics-gauges-1.txt and read by the source."""

from __future__ import annotations

import numpy as np

from specverdict.watch.counter_sources import SGLangGaugeSource
from specverdict.watch.detect import Counters, DetectorConfig, DetectorState, step
from tests.conftest import FIXTURES, untraced
from tests.unit.watch.test_detect import BASE, K, step_law

TEXT = (FIXTURES / "sglang" / "metrics-gauges-1.txt").read_text()
GAUGE = 'tp_rank="0"} 2.6875'


def run_length(
    rng: np.random.Generator, mean_accepted: float, batch: int, limit: int, config: DetectorConfig
) -> int | None:
    """Windows until the first alarm (None: none within ``limit`` scrapes)."""
    law = step_law(mean_accepted)
    src = SGLangGaugeSource()
    state = DetectorState()
    last: Counters | None = None
    for i in range(limit):
        steps = src.steps * batch
        value = 1.0 + float(rng.multinomial(steps, law) @ np.arange(K + 1)) / steps
        last = src.read(TEXT.replace(GAUGE, f'tp_rank="0"}} {value!r}'), last).counters
        state, events = step(state, last, BASE, config)
        if any(e.kind == "alarm" for e in events):
            return i
    return None


def test_false_alarms_at_most_the_configured_rate() -> None:
    config = DetectorConfig(arl0=100.0, min_drafts=1)
    rng = np.random.default_rng(11)
    # batch 1: the 40 steps are the true count: the configured rate, within simulation error
    lengths = [run_length(rng, BASE.mal_lower - 1.0, 1, 5_000, config)]
    with untraced():  # the first run traced, the others repeat its code
        lengths += [run_length(rng, BASE.mal_lower - 1.0, 1, 5_000, config) for _ in range(59)]
    assert all(n is not None for n in lengths)
    measured = 1.0 / float(np.mean([n for n in lengths if n is not None]))
    assert 0.6 * 0.01 < measured < 1.5 * 0.01, measured
    # batch 4: 160 steps behind each value, counted as 40: far fewer false alarms
    with untraced():
        long = [run_length(rng, BASE.mal_lower - 1.0, 4, 400, config) for _ in range(10)]
    alarms = sum(n is not None for n in long)
    assert alarms <= 2, long  # at the configured rate about 98 % of 400-window runs alarm


def test_a_drop_is_still_found() -> None:
    # MAL 2.1 (the band's edge) -> 1.7, batch 4: found within a few gauge values (4 or 5 here)
    config = DetectorConfig(min_drafts=1)
    delays = [run_length(np.random.default_rng(s), 0.7, 4, 50, config) for s in range(10)]
    assert all(d is not None and d <= 6 for d in delays), delays
