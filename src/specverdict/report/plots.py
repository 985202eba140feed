"""The plots of one stage, from its ``StageReport``: what each shows is in design note 007.

Each plot is a ``Figure`` with its SVG (or, when the stage has nothing to draw, the reason why),
a caption, and the numbers drawn as a small table, so the Markdown report and a screen reader get
the same figures as the picture.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from specverdict.campaign.model import Gates
from specverdict.report.model import StageReport
from specverdict.report.svg import (
    BarRow,
    BoxRow,
    IntervalRow,
    Point,
    RefLine,
    Series,
    bar_chart,
    box_chart,
    interval_chart,
    line_chart,
)

#: the plot kinds, in the order a stage shows them
KINDS = (
    "speedup-k",
    "speedup-load",
    "acceptance-position",
    "tpot",
    "quality",
    "decomposition",
    "slices",
)


@dataclass(frozen=True)
class Figure:
    kind: str
    fig_id: str
    title: str
    caption: str
    svg: str | None
    empty: str | None = None  # why there is nothing to draw
    headers: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = field(default_factory=tuple)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


def _f(x: float | None, fmt: str = ".3f") -> str:
    return "n/a" if x is None else format(x, fmt)


def run_name(stage: StageReport, speculation: str, load: str) -> str:
    """A run within a stage plot: its speculation, and its load when the stage ran several."""
    return f"{speculation} @ {load}" if stage.several_loads else speculation


def _speed_refs(gates: Gates) -> list[RefLine]:
    refs = [RefLine(1.0, "1× (no change)")]
    if gates.min_speedup != 1.0:
        refs.append(RefLine(gates.min_speedup, f"min_speedup {gates.min_speedup:g}×"))
    return refs


def speedup_by_k(stage: StageReport, gates: Gates) -> list[Figure]:
    """Per load level: TPOT speed-up with its interval against k, one series per method."""
    out = []
    for load in stage.loads:
        pairs = [
            p
            for p in stage.pairs
            if p.verdict.load == load and p.k is not None and p.verdict.speedup is not None
        ]
        fid = f"{slug(stage.stage)}-speedup-k-{slug(load)}"
        title = f"Speed-up against k per method: stage {stage.stage}, {load}"
        caption = (
            "Speed-up = baseline mean TPOT / candidate mean TPOT, paired by sample, with its "
            "bootstrap interval; dashed lines: no change and min_speedup."
        )
        if not pairs:
            out.append(Figure("speedup-k", fid, title, caption, None, "no speed-up figures"))
            continue
        methods = list(dict.fromkeys(p.method for p in pairs))
        series = []
        rows = []
        for m in methods:
            pts = []
            for p in sorted((p for p in pairs if p.method == m), key=lambda p: p.k or 0):
                lo, hi = p.verdict.speedup_interval or (None, None)
                assert p.verdict.speedup is not None and p.k is not None
                pts.append(Point(p.k, p.verdict.speedup, lo, hi, p.verdict.verdict))
                rows.append(
                    (
                        p.speculation,
                        str(p.k),
                        _f(p.verdict.speedup),
                        _f(lo),
                        _f(hi),
                        p.verdict.verdict,
                    )
                )
            series.append(Series(m, tuple(pts)))
        desc = "; ".join(f"{r[0]}: {r[2]}× [{r[3]}, {r[4]}], {r[5]}" for r in rows)
        svg = line_chart(
            fid,
            title,
            desc,
            "k (draft tokens per step)",
            "speed-up (×)",
            series,
            refs=_speed_refs(gates),
            kind="speedup-k",
        )
        out.append(
            Figure(
                "speedup-k",
                fid,
                title,
                caption,
                svg,
                None,
                ("candidate", "k", "speed-up", "lower", "upper", "verdict"),
                tuple(rows),
            )
        )
    return out


def speedup_by_load(stage: StageReport, gates: Gates) -> list[Figure]:
    """When several load levels were run: speed-up with its interval against the load."""
    if not stage.several_loads:
        return []
    fid = f"{slug(stage.stage)}-speedup-load"
    title = f"Speed-up against load: stage {stage.stage}"
    caption = "TPOT speed-up with its interval at each load level, one series per candidate."
    pairs = [p for p in stage.pairs if p.verdict.speedup is not None]
    if not pairs:
        return [Figure("speedup-load", fid, title, caption, None, "no speed-up figures")]
    names = {p.load_value: p.verdict.load.split("=")[-1] for p in pairs}
    series = []
    rows = []
    for spec in dict.fromkeys(p.speculation for p in pairs):
        pts = []
        for p in sorted((p for p in pairs if p.speculation == spec), key=lambda p: p.load_value):
            lo, hi = p.verdict.speedup_interval or (None, None)
            assert p.verdict.speedup is not None
            pts.append(Point(p.load_value, p.verdict.speedup, lo, hi, p.verdict.verdict))
            rows.append((spec, p.verdict.load, _f(p.verdict.speedup), _f(lo), _f(hi)))
        series.append(Series(spec, tuple(pts)))
    x_label = "request rate (requests/s)" if "rate" in stage.loads[0] else "concurrency"
    desc = "; ".join(f"{r[0]} at {r[1]}: {r[2]}× [{r[3]}, {r[4]}]" for r in rows)
    svg = line_chart(
        fid,
        title,
        desc,
        x_label,
        "speed-up (×)",
        series,
        refs=_speed_refs(gates),
        x_names=names,
        kind="speedup-load",
    )
    return [
        Figure(
            "speedup-load",
            fid,
            title,
            caption,
            svg,
            None,
            ("candidate", "load", "speed-up", "lower", "upper"),
            tuple(rows),
        )
    ]


def acceptance_by_position(stage: StageReport) -> list[Figure]:
    fid = f"{slug(stage.stage)}-acceptance-position"
    title = f"Acceptance by draft position: stage {stage.stage}"
    caption = (
        "Share of verify steps whose drafts were accepted up to and including each position "
        "(accepted per position / drafts); it can only fall with position."
    )
    rows_with = [r for r in stage.rows if r.position_rates]
    if not rows_with:
        why = "no per-position acceptance counts (no candidate run, or the source has none)"
        return [Figure("acceptance-position", fid, title, caption, None, why)]
    series = []
    rows = []
    for r in rows_with:
        name = run_name(stage, r.speculation, r.load)
        series.append(Series(name, tuple(Point(i + 1, v) for i, v in enumerate(r.position_rates))))
        rows.append((name, *(f"{v:.3f}" for v in r.position_rates)))
    width = max(len(r.position_rates) for r in rows_with)
    rows = [row + ("",) * (width + 1 - len(row)) for row in rows]
    desc = "; ".join(f"{row[0]}: {', '.join(v for v in row[1:] if v)}" for row in rows)
    svg = line_chart(
        fid,
        title,
        desc,
        "draft position",
        "accepted share",
        series,
        y_floor=0.0,
        y_ceiling=1.0,
        kind="acceptance-position",
    )
    headers = ("run", *(f"pos {i + 1}" for i in range(width)))
    return [Figure("acceptance-position", fid, title, caption, svg, None, headers, tuple(rows))]


def tpot_distribution(stage: StageReport) -> list[Figure]:
    fid = f"{slug(stage.stage)}-tpot"
    title = f"TPOT distribution per run: stage {stage.stage}"
    caption = (
        "Per-sample time per output token (ms): box from the first to the third quartile, "
        "thick bar at the median, whiskers to the extremes, one circle per sample."
    )
    done = [r for r in stage.rows if r.run_id is not None]
    if not done:
        return [Figure("tpot", fid, title, caption, None, "no completed run")]
    boxes = [BoxRow(run_name(stage, r.speculation, r.load), r.tpots_s) for r in done]
    rows = tuple(
        (
            b.label,
            str(len(b.values)),
            _f(r.summary.tpot_p50_s * 1e3 if r.summary and r.summary.tpot_p50_s else None, ".2f"),
            _f(r.summary.tpot_p95_s * 1e3 if r.summary and r.summary.tpot_p95_s else None, ".2f"),
        )
        for b, r in zip(boxes, done, strict=True)
    )
    desc = "; ".join(f"{r[0]}: n={r[1]}, median {r[2]} ms, p95 {r[3]} ms" for r in rows)
    svg = box_chart(fid, title, desc, "TPOT (ms)", boxes, scale=1e3, kind="tpot")
    return [Figure("tpot", fid, title, caption, svg, None, ("run", "n", "p50 ms", "p95 ms"), rows)]


def quality_drop(stage: StageReport) -> list[Figure]:
    fid = f"{slug(stage.stage)}-quality"
    title = f"Quality drop against the margin: stage {stage.stage}"
    caption = (
        "Paired pass-rate drop (baseline − candidate, percentage points) with its Tango "
        "interval; non-inferior when the whole interval stays left of the margin line."
    )
    pairs = [p for p in stage.pairs if p.quality_drop is not None]
    if not pairs:
        why = next(
            (
                r.message
                for p in stage.pairs
                for r in p.verdict.reasons
                if r.gate.startswith("quality")
            ),
            "no judged pair",
        )
        return [Figure("quality", fid, title, caption, None, why)]
    rows = []
    irows = []
    margin = 0.0
    for p in pairs:
        q = p.quality_drop
        assert q is not None
        margin = q.margin
        name = run_name(stage, p.speculation, p.verdict.load)
        irows.append(IntervalRow(name, 100 * q.drop, 100 * q.lower, 100 * q.upper, q.status))
        rows.append(
            (
                name,
                f"{100 * q.drop:.1f}",
                f"{100 * q.lower:.1f}",
                f"{100 * q.upper:.1f}",
                f"{100 * q.margin:.1f}",
                q.status,
            )
        )
    desc = "; ".join(f"{r[0]}: drop {r[1]} pp [{r[2]}, {r[3]}], {r[5]}" for r in rows)
    refs = [RefLine(0.0, "0 (no drop)"), RefLine(100 * margin, f"margin {100 * margin:g} pp")]
    svg = interval_chart(
        fid,
        title,
        desc,
        "pass-rate drop (percentage points)",
        irows,
        refs=refs,
        kind="quality",
        fmt=".1f",
    )
    headers = ("candidate", "drop pp", "lower", "upper", "margin", "status")
    return [Figure("quality", fid, title, caption, svg, None, headers, tuple(rows))]


def decomposition(stage: StageReport) -> list[Figure]:
    fid = f"{slug(stage.stage)}-decomposition"
    title = f"Speed-up decomposition: stage {stage.stage}"
    caption = (
        "S = MAL / R: tokens per verify step (MAL, bonus token included) against the cost of a "
        "speculative step in baseline steps (R); a high MAL eaten by a high R gains nothing."
    )
    pairs = [p for p in stage.pairs if p.decomposition is not None]
    if not pairs:
        why = "no decomposition: it needs a mean accepted length and both arms' TPOT"
        return [Figure("decomposition", fid, title, caption, None, why)]
    bars = []
    rows = []
    for p in pairs:
        d = p.decomposition
        assert d is not None
        name = run_name(stage, p.speculation, p.verdict.load)
        bars.append(
            BarRow(
                name,
                (d.mal, d.step_cost),
                f"S = {d.mal:.2f} / {d.step_cost:.2f} = {d.speedup:.2f}×",
            )
        )
        rows.append((name, f"{d.mal:.3f}", f"{d.step_cost:.3f}", f"{d.speedup:.3f}"))
    desc = "; ".join(f"{r[0]}: MAL {r[1]}, R {r[2]}, S {r[3]}" for r in rows)
    svg = bar_chart(
        fid,
        title,
        desc,
        "MAL (tokens per step) and R (step cost in baseline steps)",
        ("MAL", "step cost R"),
        bars,
        refs=[RefLine(1.0, "1")],
        kind="decomposition",
    )
    return [
        Figure(
            "decomposition",
            fid,
            title,
            caption,
            svg,
            None,
            ("candidate", "MAL", "R", "S"),
            tuple(rows),
        )
    ]


def by_slice(stage: StageReport, gates: Gates) -> list[Figure]:
    """When the stage asked for slices: each slice's speed-up with its interval, and its
    acceptance and verdict, next to the whole stage's (a mix can hide where a setting loses)."""
    sliced = [p for p in stage.pairs if p.verdict.slice is not None]
    if not sliced:
        return []
    fid = f"{slug(stage.stage)}-slices"
    title = f"Speed-up and acceptance by slice: stage {stage.stage}"
    caption = (
        "Each slice judged apart on its own samples (its acceptance from their per-request "
        "figures), after the whole stage; dashed lines: no change and min_speedup."
    )
    irows = []
    rows = []
    for p in [q for q in stage.pairs if q.verdict.speedup is not None]:
        v = p.verdict
        assert v.speedup is not None
        lo, hi = v.speedup_interval or (None, None)
        where = v.slice or "whole stage"
        name = f"{run_name(stage, p.speculation.split(' [')[0], v.load)}: {where}"
        acc = _f(v.acceptance_rate)
        irows.append(IntervalRow(name, v.speedup, lo, hi, f"{v.verdict}, acceptance {acc}"))
        rows.append((name, _f(v.speedup), _f(lo), _f(hi), acc, v.verdict))
    if not irows:
        return [Figure("slices", fid, title, caption, None, "no speed-up figures")]
    desc = "; ".join(f"{r[0]}: {r[1]}× [{r[2]}, {r[3]}], acceptance {r[4]}, {r[5]}" for r in rows)
    svg = interval_chart(
        fid, title, desc, "speed-up (×)", irows, refs=_speed_refs(gates), kind="slices"
    )
    headers = ("pair and slice", "speed-up", "lower", "upper", "acceptance", "verdict")
    return [Figure("slices", fid, title, caption, svg, None, headers, tuple(rows))]


def stage_figures(stage: StageReport, gates: Gates) -> list[Figure]:
    # the per-k, per-load and per-pair plots show whole-stage verdicts; slices have their own
    whole = stage.model_copy(
        update={"pairs": tuple(p for p in stage.pairs if p.verdict.slice is None)}
    )
    return [
        *speedup_by_k(whole, gates),
        *speedup_by_load(whole, gates),
        *acceptance_by_position(whole),
        *tpot_distribution(whole),
        *quality_drop(whole),
        *decomposition(whole),
        *by_slice(stage, gates),
    ]
