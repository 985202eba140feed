"""A saturation sweep: where each configuration's server stops scaling, and the load levels
around it at which the pairs are then measured.

GuideLLM's ``sweep`` finds a server's saturation by its throughput; speculation is known to
turn into a loss past some batch size (a verify pass of k+1 tokens is cheap while the device
is memory-bound and costs its full share once it is compute-bound), so the levels worth a
verdict are those around the point where the server saturates. The sweep is an exploration,
not a measurement: its executions (a ladder of concurrencies on the first samples of one
stage, one execution each) choose the levels and are never judged; the pairs are measured
afterwards at the chosen levels as any campaign's, with the design fixed before their first
sample (design note 040).

Per configuration and level the sweep reads the output throughput (tokens/s) and the median
TPOT. The configuration *saturates* at the first level whose throughput grew by less than
``gain`` over the level below, or whose median TPOT is more than ``latency`` times that of the
lowest level; its *knee* is the level below that (the highest level that still scaled), or
the top of the ladder when it never saturated. The levels measured are each knee halved,
itself and doubled, pooled over the configurations (a pair compares at one level, so every
configuration runs every chosen level).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from specverdict.campaign.model import Campaign, First, Load
from specverdict.campaign.plan import Plan, build_plan

#: the concurrency ladder a sweep climbs unless told otherwise
DEFAULT_LEVELS = (1, 2, 4, 8, 16, 32)
#: throughput growth below which a level counts as saturated (10%)
DEFAULT_GAIN = 0.10
#: median TPOT above this multiple of the lowest level's counts as saturated
DEFAULT_LATENCY = 2.0
#: at most this many levels are measured after a sweep
MAX_CHOSEN = 5


@dataclass(frozen=True)
class Point:
    """One configuration at one level of the ladder."""

    level: int
    tokens_per_s: float | None
    tpot_p50_s: float | None


@dataclass(frozen=True)
class Knee:
    """Where one configuration stopped scaling: ``level`` (the highest that scaled),
    ``saturated_at`` (the level above it that did not, None when none did) and why."""

    configuration: str
    level: int
    saturated_at: int | None
    why: str
    points: tuple[Point, ...]


def exploration(campaign: Campaign, stage: str, levels: Sequence[int], requests: int) -> Plan:
    """The sweep's plan: ``stage`` alone, on its first ``requests`` samples, at every level of
    the ladder, each configuration executed once (the baseline too: nothing is judged)."""
    section = campaign.stages[stage].model_copy(
        update={"samples": First(first=requests), "slices": []}
    )
    load = Load(
        concurrency=list(levels),
        warmup=campaign.load.warmup,
        repeats=1,
        baseline_repeats=1,
        blocks="off",
    )
    swept = campaign.model_copy(
        update={
            "name": f"{campaign.name}-sweep",
            "stages": {stage: section},
            "load": load,
            "sequential": None,
        }
    )
    return build_plan(swept)


def requests_for(levels: Sequence[int], asked: int | None) -> int:
    """Requests per execution: what was asked, else twice the top level (at least 16), so
    that the top level keeps its requests in flight for two waves."""
    return asked if asked is not None else max(16, 2 * max(levels))


def knee(
    configuration: str,
    points: Sequence[Point],
    gain: float = DEFAULT_GAIN,
    latency: float = DEFAULT_LATENCY,
) -> Knee:
    """The knee of one configuration's ladder (see the module docstring). Levels without a
    throughput (every request failed) end the ladder: the level below is the knee."""
    ladder = sorted(points, key=lambda p: p.level)
    first_tpot = ladder[0].tpot_p50_s if ladder else None
    for below, here in pairwise(ladder):
        if here.tokens_per_s is None or below.tokens_per_s is None:
            return Knee(configuration, below.level, here.level, "no throughput", tuple(ladder))
        growth = here.tokens_per_s / below.tokens_per_s - 1
        if growth < gain:
            why = f"throughput grew {100 * growth:+.0f}% (< {100 * gain:.0f}%)"
            return Knee(configuration, below.level, here.level, why, tuple(ladder))
        if first_tpot and here.tpot_p50_s is not None and here.tpot_p50_s > latency * first_tpot:
            why = f"median TPOT {here.tpot_p50_s / first_tpot:.1f}x the lowest level's"
            return Knee(configuration, below.level, here.level, why, tuple(ladder))
    top = ladder[-1].level if ladder else 1
    return Knee(configuration, top, None, "still scaling at the top of the ladder", tuple(ladder))


def chosen_levels(knees: Sequence[Knee], cap: int | None = None) -> list[int]:
    """The levels the pairs are measured at: each knee halved, itself and doubled (doubled up
    to ``cap`` when given), pooled; at most ``MAX_CHOSEN``, the ones nearest the knees kept."""
    wanted: dict[int, int] = {}  # level -> distance in halvings from the nearest knee
    for k in knees:
        for level, distance in ((max(1, k.level // 2), 1), (k.level, 0), (2 * k.level, 1)):
            if cap is not None and level > cap:
                continue
            wanted[level] = min(distance, wanted.get(level, distance))
    kept = sorted(wanted, key=lambda lv: (wanted[lv], lv))[:MAX_CHOSEN]
    return sorted(kept)
