"""Drift detection over speculative-decoding counters: pure, no I/O, no clock.

A window is the delta of two scrapes of one target: drafts D (verify steps that drafted),
draft tokens T, accepted tokens A. Its mean accepted count per step is x = A / D (MAL = 1 + x,
acceptance rate = A / T).

Null model: under the pinned expectation the per-step accepted count X has mean
mu0 = MAL_lower - 1 (the lower end of the expectation's interval: a drift is a fall below the
band, not below its middle) and the variance of the truncated geometric law of k drafts each
accepted with one probability a (P(X >= j) = a^j; Leviathan et al. 2023, section 3.1), widened
by the expectation's design effect (steps within one request are correlated). A window's
standardised fall is z = (mu0 - x) / sqrt(dispersion * var0 / D), about N(0, 1) at the edge of
the band and below 0 inside it.

Detector: a one-sided CUSUM (Page 1954) S_n = max(0, S_{n-1} + z_n - kappa), alarm at S_n >= h.
h is computed for a target in-control average run length ARL0 (windows between false alarms at
the edge of the band: the false-alarm rate per window is 1 / ARL0, and lower inside the band)
by the Markov-chain approximation of Brook & Evans (1972), "An approach to the probability
distribution of CUSUM run length", Biometrika 59(3). kappa = delta / 2 is tuned to a fall of
delta standard units per window.

Broken counters alarm at once, without a window: a counter that is not a finite number (NaN,
Inf), and speculative-decoding series absent from the exposition (gone since the last scrape,
or never there): the server no longer speculates, which no window of acceptance would show
(no drafts, no windows, only "waiting for more").

Restarts: a counter that went down, a process start time that changed, or a restart the source
saw in the server's own stream (``Counters.epoch``) is a restart, never a drift: the CUSUM
starts over and the caller re-runs the override audit. A failed scrape marks the target down;
counters are compared again when it answers.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from scipy.special import ndtr, ndtri

from specverdict.campaign.model import FIXED_K_FLOOR
from specverdict.stats.steps import step_variance
from specverdict.verdict.model import k_text

EventKind = Literal["window", "skipped", "restart", "down", "up", "alarm", "clear"]


class Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- the null law of accepted drafts per step ---------------------------------------------------


# --- the CUSUM threshold for a target average run length ----------------------------------------


def cusum_arl(h: float, kappa: float, shift: float = 0.0, states: int = 201) -> float:
    """Average run length of S_n = max(0, S_{n-1} + Z_n - kappa), Z ~ N(shift, 1), alarm at
    S >= h, from S_0 = 0 (Brook & Evans' Markov chain with ``states`` transient states)."""
    if h <= 0:
        return 1.0
    w = 2.0 * h / (2 * states - 1)
    centers = np.arange(states) * w
    diff = centers[None, :] - centers[:, None]  # j - i, in S units
    upper = ndtr(diff + w / 2 + kappa - shift)
    lower = ndtr(diff - w / 2 + kappa - shift)
    p = upper - lower
    p[:, 0] = ndtr(-centers + w / 2 + kappa - shift)
    run = np.linalg.solve(np.eye(states) - p, np.ones(states))
    return float(run[0])


@lru_cache(maxsize=64)
def cusum_threshold(arl0: float, kappa: float) -> float:
    """The h whose in-control ARL is ``arl0`` windows (bisection on :func:`cusum_arl`)."""
    if arl0 <= 1.0:
        raise ValueError("arl0 must exceed 1 window")
    lo, hi = 0.0, 1.0
    while cusum_arl(hi, kappa) < arl0:
        hi *= 2.0
        if hi > 1e3:
            raise ValueError(f"arl0 {arl0:g} is out of reach")
    for _ in range(36):
        mid = (lo + hi) / 2.0
        if cusum_arl(mid, kappa) < arl0:
            lo = mid
        else:
            hi = mid
    return hi


# --- windows and the detector's state -----------------------------------------------------------


class Counters(Frozen):
    """One scrape's cumulative counters; ``start_time`` is the process start (or the counters'
    creation time) when the target exposes it.

    A source whose server keeps no cumulative counters (TensorRT-LLM's drained iteration stats,
    SGLang's gauges) accumulates them itself: ``epoch`` is its count of the restarts it saw
    (``epoch_why`` says how it saw the last one) and ``marks`` its position in the server's
    stream (the last iteration read, the last gauge values)."""

    drafts: float
    draft_tokens: float
    accepted: float
    start_time: float | None = None
    epoch: int = 0
    epoch_why: str = ""
    marks: tuple[float, ...] = ()
    #: the source found none of the speculative-decoding series in the exposition: the server
    #: does not speculate (a restart without its speculative configuration, a lost override)
    absent: bool = False


class Baseline(Frozen):
    """The pinned expectation the detector tests against."""

    mal_lower: float = Field(gt=1.0)
    mal_upper: float | None = None
    acceptance_lower: float | None = None
    acceptance_upper: float | None = None
    k: int = Field(ge=1)
    dispersion: float = Field(default=1.0, ge=1.0)
    #: the method drafts k tokens at every step (MTP, EAGLE, Medusa, a draft model, DFlash): a
    #: window drafting well under k per step ran another configuration (``FIXED_K_FLOOR``)
    fixed_k: bool = False
    #: the k the engine ran when the expectation was measured, when another than the declared
    #: ``k`` (``Expectation.engine_k``): the configuration-change alarm compares against it
    engine_k: float | None = Field(default=None, gt=0)

    @property
    def drafting_k(self) -> float:
        """The k a window's drafted tokens per step are compared with: the engine's, when the
        expectation pinned it, else the declared one."""
        return self.engine_k if self.engine_k is not None else float(self.k)

    @property
    def pinned_k(self) -> str:
        """That k in words: ``k=8``, or ``engine k=3 (declared k=8)``."""
        if self.engine_k is None:
            return f"k={self.k}"
        return f"engine k={k_text(self.engine_k)} (declared k={self.k})"


class DetectorConfig(Frozen):
    arl0: float = Field(default=10_000.0, gt=1.0, description="windows between false alarms")
    kappa: float = Field(default=0.5, gt=0.0, description="reference value, in standard units")
    min_drafts: int = Field(
        default=20, ge=1, description="a window with fewer drafts waits for the next scrape"
    )
    confidence: float = Field(default=0.95, gt=0.0, lt=1.0)

    @property
    def threshold(self) -> float:
        return cusum_threshold(self.arl0, self.kappa)


class Window(Frozen):
    drafts: float
    draft_tokens: float
    accepted: float
    acceptance: float | None
    acceptance_interval: tuple[float, float] | None
    mal: float
    mal_interval: tuple[float, float]
    z: float


class Event(Frozen):
    kind: EventKind
    message: str
    window: Window | None = None


class DetectorState(Frozen):
    last: Counters | None = None
    up: bool = True
    cusum: float = 0.0
    alarm: bool = False
    windows: int = 0
    restarts: int = 0
    alarms: int = 0
    last_window: Window | None = None


def window_of(delta: Counters, base: Baseline, config: DetectorConfig) -> Window:
    d, t, a = delta.drafts, delta.draft_tokens, delta.accepted
    x = a / d
    mu0 = base.mal_lower - 1.0
    sd0 = math.sqrt(base.dispersion * step_variance(mu0, base.k) / d)
    zq = float(ndtri(0.5 + config.confidence / 2.0))
    sd = math.sqrt(base.dispersion * step_variance(x, base.k) / d)
    rate = a / t if t > 0 else None
    rate_ci = None
    if rate is not None:
        half = zq * math.sqrt(base.dispersion * max(rate * (1 - rate), 1e-12) / t)
        rate_ci = (max(0.0, rate - half), min(1.0, rate + half))
    return Window(
        drafts=d,
        draft_tokens=t,
        accepted=a,
        acceptance=rate,
        acceptance_interval=rate_ci,
        mal=1.0 + x,
        mal_interval=(1.0 + max(0.0, x - zq * sd), 1.0 + min(float(base.k), x + zq * sd)),
        z=(mu0 - x) / sd0,
    )


def _broken(last: Counters | None, now: Counters) -> str | None:
    """Why ``now`` alarms by itself (module docstring), or None."""
    values = {"drafts": now.drafts, "draft_tokens": now.draft_tokens, "accepted": now.accepted}
    bad = {k: v for k, v in values.items() if not math.isfinite(v)}
    if bad:
        shown = ", ".join(f"{k}={v:g}" for k, v in bad.items())
        return f"counters that are not finite numbers ({shown}): the target's metrics are broken"
    if now.absent:
        gone = last is not None and not last.absent
        return (
            "the speculative-decoding counters are gone from the exposition"
            if gone
            else "no speculative-decoding counters in the exposition"
        ) + ": the server does not speculate (restarted without its speculative configuration?)"
    return None


def _restarted(last: Counters, now: Counters) -> str | None:
    if now.epoch != last.epoch:
        return now.epoch_why or f"the source saw a restart (epoch {last.epoch} -> {now.epoch})"
    for name in ("drafts", "draft_tokens", "accepted"):
        if getattr(now, name) < getattr(last, name):
            return f"{name} went down ({getattr(last, name):g} -> {getattr(now, name):g})"
    started = (last.start_time, now.start_time)
    if None not in started and now.start_time != last.start_time:
        assert last.start_time is not None and now.start_time is not None
        return f"process start time changed ({last.start_time:g} -> {now.start_time:g})"
    return None


def step(
    state: DetectorState, now: Counters | None, base: Baseline, config: DetectorConfig
) -> tuple[DetectorState, list[Event]]:
    """One scrape (None: it failed) -> the next state and what happened."""
    events: list[Event] = []
    if now is None:
        if state.up:
            events.append(Event(kind="down", message="the target did not answer"))
        return state.model_copy(update={"up": False}), events
    if not state.up:
        events.append(Event(kind="up", message="the target answers again"))
        state = state.model_copy(update={"up": True})
    broken = _broken(state.last, now)
    if broken is not None:
        if not state.alarm:
            events.append(Event(kind="alarm", message=broken))
            state = state.model_copy(update={"alarm": True, "alarms": state.alarms + 1})
        # a NaN is not kept as the last reading: the next finite one is compared with the
        # last finite one (a restart in between still shows)
        if now.absent:
            state = state.model_copy(update={"last": now, "cusum": 0.0})
        return state, events
    if state.last is None:
        return state.model_copy(update={"last": now}), events
    why = _restarted(state.last, now)
    if why is not None:
        events.append(Event(kind="restart", message=why))
        if state.alarm:
            events.append(Event(kind="clear", message="drift alarm reset by the restart"))
        return (
            state.model_copy(
                update={"last": now, "cusum": 0.0, "alarm": False, "restarts": state.restarts + 1}
            ),
            events,
        )
    delta = Counters(
        drafts=now.drafts - state.last.drafts,
        draft_tokens=now.draft_tokens - state.last.draft_tokens,
        accepted=now.accepted - state.last.accepted,
    )
    if delta.drafts < config.min_drafts:
        events.append(
            Event(
                kind="skipped",
                message=f"{delta.drafts:g} drafts since the last window (< {config.min_drafts}): "
                "waiting for more",
            )
        )
        return state, events
    w = window_of(delta, base, config)
    per_step = delta.draft_tokens / delta.drafts
    if base.fixed_k and per_step < FIXED_K_FLOOR * base.drafting_k:
        if not state.alarm:
            events.append(
                Event(
                    kind="alarm",
                    message=f"configuration change: {per_step:.2f} drafted tokens per step "
                    f"against the pinned {base.pinned_k}: the server runs another speculative "
                    "configuration (a lost or changed override), not a drift of acceptance",
                    window=w,
                )
            )
            state = state.model_copy(update={"alarm": True, "alarms": state.alarms + 1})
        return state.model_copy(update={"last": now, "windows": state.windows + 1}), events
    s = max(0.0, state.cusum + w.z - config.kappa)
    h = config.threshold
    events.append(
        Event(kind="window", message=f"MAL {w.mal:.3f}, CUSUM {s:.2f} of {h:.2f}", window=w)
    )
    alarm, alarms = state.alarm, state.alarms
    if not alarm and s >= h:
        alarm, alarms = True, alarms + 1
        events.append(
            Event(
                kind="alarm",
                message=f"drift: MAL {w.mal:.3f} (window) below the expected band from "
                f"{base.mal_lower:.3f}; CUSUM {s:.2f} >= {h:.2f}",
                window=w,
            )
        )
    elif alarm and s == 0.0:
        alarm = False
        events.append(Event(kind="clear", message="MAL back in the expected band"))
    return (
        state.model_copy(
            update={
                "last": now,
                "cusum": s,
                "alarm": alarm,
                "alarms": alarms,
                "windows": state.windows + 1,
                "last_window": w,
            }
        ),
        events,
    )
