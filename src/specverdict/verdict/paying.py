"""Where a candidate stops paying: over a stage's load levels, the highest at which its
speed-up is shown (the interval's lower bound above 1) and the lowest above that at which it
is shown to lose (the upper bound below 1), as one line a reader can act on.

Speculation is known to turn into a loss past some batch size; a sweep's levels are chosen
around the server's saturation so that this line has levels on both sides. Levels where the
interval holds 1 are neither: the line says the candidate is not shown to pay there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from specverdict.verdict.model import PairVerdict


@dataclass(frozen=True)
class Paying:
    """One candidate of one stage over its load levels."""

    stage: str
    candidate: str
    #: the highest load whose speed-up interval lies above 1, and the lowest above it whose
    #: interval lies below 1 (labels as the verdicts name them); None when there is none
    pays_up_to: str | None
    loses_from: str | None
    line: str


def load_number(label: str) -> float:
    """A verdict's load label as a number: ``concurrency=8`` is 8, ``rate=2.5/s`` is 2.5."""
    try:
        return float(label.split("=", 1)[1].removesuffix("/s"))
    except (IndexError, ValueError):
        return 0.0


def _speed(v: PairVerdict) -> str:
    if v.speedup is None:
        return "no speed-up"
    if v.speedup_interval is None:
        return f"{v.speedup:.2f}x"
    lo, hi = v.speedup_interval
    return f"{v.speedup:.2f}x [{lo:.2f}, {hi:.2f}]"


def paying(verdicts: Iterable[PairVerdict]) -> list[Paying]:
    """Per stage and candidate measured at two load levels or more (whole stages, not
    slices): where its speed-up is shown, and where it is shown to lose."""
    groups: dict[tuple[str, str], list[PairVerdict]] = {}
    for v in verdicts:
        if v.slice is None:
            groups.setdefault((v.stage, v.candidate), []).append(v)
    out = []
    for (stage, cand), group in groups.items():
        if len({v.load for v in group}) < 2:
            continue
        vs = sorted(group, key=lambda v: load_number(v.load))
        pays = [v for v in vs if v.speedup_interval is not None and v.speedup_interval[0] > 1]
        top = pays[-1] if pays else None
        above = vs if top is None else vs[vs.index(top) + 1 :]
        loses = next(
            (v for v in above if v.speedup_interval is not None and v.speedup_interval[1] < 1),
            None,
        )
        parts = [f"{cand} in stage {stage}:"]
        if top is None:
            parts.append(f"not shown to pay at any load ({vs[0].load} to {vs[-1].load})")
        elif top is vs[-1]:
            parts.append(f"pays at every load up to {top.load} ({_speed(top)})")
        else:
            parts.append(f"pays up to {top.load} ({_speed(top)})")
        if loses is not None:
            parts.append(f"and loses at {loses.load} ({_speed(loses)})")
        elif top is not None and top is not vs[-1]:
            parts.append(f"and is not shown to pay above it ({vs[-1].load}: {_speed(vs[-1])})")
        line = " ".join(parts)
        out.append(
            Paying(
                stage,
                cand,
                top.load if top else None,
                loses.load if loses else None,
                line,
            )
        )
    return out
