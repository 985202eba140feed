"""The plots of one stage, from its ``StageReport``: what each shows is in design note 007.

Each plot is a ``Figure`` with its SVG (or, when the stage has nothing to draw, the reason why),
a caption, and the numbers drawn as a small table, so the Markdown report and a screen reader get
the same figures as the picture.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from specverdict.campaign.model import Gates
from specverdict.measure.steps import StepCurve
from specverdict.measure.summary import SPEED_METRIC_WORDS, RunSummary
from specverdict.report.model import RunRow, StageReport
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
    "throughput-load",
    "latency-load",
    "latency-throughput",
    "acceptance-position",
    "acceptance-step",
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
        words = SPEED_METRIC_WORDS[stage.speed_metric]
        caption = (
            f"Speed-up on {words} (the stage's speed metric) = baseline mean / candidate mean, "
            "paired by sample, with its interval; dashed lines: no change and min_speedup."
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
    caption = (
        f"Speed-up on {SPEED_METRIC_WORDS[stage.speed_metric]} with its interval at each load "
        "level, one series per candidate."
    )
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


def _load_axis(stage: StageReport) -> tuple[str, dict[float, str]]:
    """The load axis: its label, and each level's value named as the campaign wrote it."""
    label = "request rate (requests/s)" if "rate" in stage.loads[0] else "concurrency"
    return label, {r.load_value: r.load.split("=")[-1] for r in stage.rows}


def _by_run(stage: StageReport) -> dict[str, list[RunRow]]:
    """The stage's completed runs per speculation (baseline first), each in load order."""
    out: dict[str, list[RunRow]] = {}
    for r in sorted(stage.rows, key=lambda r: (r.role != "baseline", r.load_value)):
        if r.summary is not None:
            out.setdefault(r.speculation, []).append(r)
    return out


def throughput_by_load(stage: StageReport) -> list[Figure]:
    """Absolute output tokens/s of every run against the load, the baseline among them."""
    fid = f"{slug(stage.stage)}-throughput-load"
    title = f"Output tokens/s against load: stage {stage.stage}"
    caption = (
        "Each run's output tokens over its wall time (first send to last arrival), one line "
        "per configuration, the baseline included: absolute figures, not ratios."
    )
    series = []
    rows = []
    for spec, runs in _by_run(stage).items():
        pts = [
            Point(r.load_value, r.summary.tokens_per_s)
            for r in runs
            if r.summary is not None and r.summary.tokens_per_s is not None
        ]
        if pts:
            series.append(Series(spec, tuple(pts)))
            rows += [
                (spec, r.load, _f(r.summary.tokens_per_s if r.summary else None, ".1f"))
                for r in runs
            ]
    if not series:
        return [Figure("throughput-load", fid, title, caption, None, "no throughput figures")]
    x_label, names = _load_axis(stage)
    desc = "; ".join(f"{r[0]} at {r[1]}: {r[2]} tokens/s" for r in rows)
    svg = line_chart(
        fid,
        title,
        desc,
        x_label,
        "output tokens/s",
        series,
        x_names=names,
        y_floor=0.0,
        kind="throughput-load",
    )
    headers = ("run", "load", "tokens/s")
    return [Figure("throughput-load", fid, title, caption, svg, None, headers, tuple(rows))]


#: the latency percentiles drawn against load: (label, summary fields p50, p90, p99)
PERCENTILE_PLOTS = (
    ("TPOT", ("tpot_p50_s", "tpot_p90_s", "tpot_p99_s")),
    ("ITL", ("itl_p50_s", "itl_p90_s", "itl_p99_s")),
)


def latency_by_load(stage: StageReport) -> list[Figure]:
    """TPOT and ITL percentiles against the load: one plot per metric, one line per run (its
    median), a bar from p50 up to p99 with a tick at p90."""
    out = []
    x_label, names = _load_axis(stage)
    for metric, fields in PERCENTILE_PLOTS:
        fid = f"{slug(stage.stage)}-latency-load-{slug(metric)}"
        title = f"{metric} p50 / p90 / p99 against load: stage {stage.stage}"
        caption = (
            f"{metric} in ms: the marker and line at the median, the bar up to p99 with a tick "
            "at p90; series side by side at each load level."
        )
        series = []
        rows = []
        for spec, runs in _by_run(stage).items():
            pts = []
            for r in runs:
                s = r.summary
                assert s is not None
                p50, p90, p99 = (_ms(s, f) for f in fields)
                rows.append((spec, r.load, _f(p50, ".2f"), _f(p90, ".2f"), _f(p99, ".2f")))
                if p50 is None:
                    continue
                ticks = (p90,) if p90 is not None else ()
                note = f"p90 {_f(p90, '.2f')}, p99 {_f(p99, '.2f')} ms"
                pts.append(Point(r.load_value, p50, p50, p99, note, ticks))
            if pts:
                series.append(Series(spec, tuple(pts)))
        if not series:
            why = f"no {metric} figures (no completed run with two or more output chunks)"
            out.append(Figure("latency-load", fid, title, caption, None, why))
            continue
        desc = "; ".join(f"{r[0]} at {r[1]}: p50 {r[2]}, p90 {r[3]}, p99 {r[4]} ms" for r in rows)
        svg = line_chart(
            fid,
            title,
            desc,
            x_label,
            f"{metric} (ms)",
            series,
            x_names=names,
            y_floor=0.0,
            dodge=10.0,
            kind="latency-load",
        )
        headers = ("run", "load", "p50 ms", "p90 ms", "p99 ms")
        out.append(Figure("latency-load", fid, title, caption, svg, None, headers, tuple(rows)))
    return out


def _ms(summary: RunSummary, name: str) -> float | None:
    v = getattr(summary, name)
    return None if v is None else 1e3 * float(v)


#: the latency each stage's speed metric puts against throughput (a summary's median field)
LATENCY_OF_METRIC = {
    "tpot": ("TPOT", "tpot_p50_s"),
    "ttft": ("TTFT", "ttft_p50_s"),
    "e2e": ("end-to-end latency", "e2e_p50_s"),
    "output_throughput": ("end-to-end latency", "e2e_p50_s"),
}


def latency_by_throughput(stage: StageReport) -> list[Figure]:
    """Median latency (the stage's speed metric) against output tokens/s, one curve per
    configuration through its load levels: down and to the right is better."""
    words, field_name = LATENCY_OF_METRIC[stage.speed_metric]
    fid = f"{slug(stage.stage)}-latency-throughput"
    title = f"Median {words} against output tokens/s: stage {stage.stage}"
    caption = (
        f"One curve per configuration through its load levels: median {words} (ms) against "
        "the run's output tokens/s; lower and further right is better."
    )
    series = []
    rows = []
    for spec, runs in _by_run(stage).items():
        pts = []
        for r in runs:
            assert r.summary is not None
            thr, lat = r.summary.tokens_per_s, _ms(r.summary, field_name)
            rows.append((spec, r.load, _f(thr, ".1f"), _f(lat, ".2f")))
            if thr is not None and lat is not None:
                pts.append(Point(thr, lat, note=r.load))
        if pts:
            series.append(Series(spec, tuple(pts)))
    if not series:
        why = f"no runs with both throughput and {words}"
        return [Figure("latency-throughput", fid, title, caption, None, why)]
    desc = "; ".join(f"{r[0]} at {r[1]}: {r[2]} tokens/s, {r[3]} ms" for r in rows)
    svg = line_chart(
        fid,
        title,
        desc,
        "output tokens/s",
        f"median {words} (ms)",
        series,
        y_floor=0.0,
        x_nice=True,
        sort_x=False,
        kind="latency-throughput",
    )
    headers = ("run", "load", "tokens/s", "median ms")
    return [Figure("latency-throughput", fid, title, caption, svg, None, headers, tuple(rows))]


def _runs_name(stage: StageReport, speculation: str, loads: list[str]) -> str:
    """One configuration at several load levels, named once: ``mtp k=2 @ all 3 loads``,
    ``mtp k=2 @ concurrency=1, 8``."""
    if not stage.several_loads:
        return speculation
    if len(loads) == len(stage.loads) > 1:
        return f"{speculation} @ all {len(loads)} loads"
    head, _, _ = loads[0].partition("=")
    values = ", ".join(load.partition("=")[2] or load for load in loads)
    return f"{speculation} @ {head}={values}"


K = TypeVar("K", bound=Hashable)


def _merged(stage: StageReport, curves: Sequence[tuple[RunRow, K]]) -> list[tuple[str, K]]:
    """Runs whose curves are identical as drawn (equal keys) as one line with one label naming
    them all, in the order first met: overlapping lines would hide all but the last."""
    groups: dict[K, dict[str, list[str]]] = {}
    for r, key in curves:
        groups.setdefault(key, {}).setdefault(r.speculation, []).append(r.load)
    return [
        ("; ".join(_runs_name(stage, spec, loads) for spec, loads in runs.items()), key)
        for key, runs in groups.items()
    ]


def _not_drawn(names: Sequence[str], why: str) -> str:
    """The caption's note of the runs a plot leaves out, and why (nothing when none is)."""
    return f" Not drawn, {why}: {', '.join(names)}." if names else ""


def acceptance_by_position(stage: StageReport) -> list[Figure]:
    fid = f"{slug(stage.stage)}-acceptance-position"
    title = f"Acceptance by draft position: stage {stage.stage}"
    caption = (
        "Share of verify steps whose drafts were accepted up to and including each position "
        "(accepted per position / drafts); it can only fall with position. Runs with identical "
        "curves share one line, labelled with all of them."
    )
    rows_with = [r for r in stage.rows if r.position_rates]
    if not rows_with:
        why = "no per-position acceptance counts (no candidate run, or the source has none)"
        return [Figure("acceptance-position", fid, title, caption, None, why)]
    # identical as drawn: to the 3 decimals shown
    curves = [(r, tuple(f"{v:.3f}" for v in r.position_rates)) for r in rows_with]
    series = []
    rows = []
    for name, key in _merged(stage, curves):
        series.append(Series(name, tuple(Point(i + 1, float(v)) for i, v in enumerate(key))))
        rows.append((name, *key))
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


#: why an acceptance-against-position plot has nothing to draw
NO_STEPS = (
    "no per-step acceptance was reported: no candidate's answers carried per-step arrays "
    "(vLLM and the reference engine send them at --per-request-spec-decode-metrics detailed; "
    "other engines have none, and an agent episode does not join its turns' arrays)"
)


def acceptance_by_step(stage: StageReport) -> list[Figure]:
    """Acceptance against the output position, one line per candidate: the whole stage, then
    each slice the stage asks for."""
    done = [r for r in stage.rows if r.role == "candidate" and r.run_id is not None]
    out = [_step_figure(stage, None, [(r, r.steps) for r in done])]
    for label in dict.fromkeys(s.label for r in done for s in r.slice_steps):
        curves = [
            (r, next((s.curve for s in r.slice_steps if s.label == label), None)) for r in done
        ]
        out.append(_step_figure(stage, label, curves))
    return out


def _step_figure(
    stage: StageReport, where: str | None, curves: Sequence[tuple[RunRow, StepCurve | None]]
) -> Figure:
    fid = f"{slug(stage.stage)}-acceptance-step" + (f"-{slug(where)}" if where else "")
    title = f"Acceptance against output position: stage {stage.stage}" + (
        f", slice {where}" if where else ""
    )
    caption = (
        "Accepted / drafted tokens of the verify steps that began in each bin of output "
        "positions (output tokens before the step), summed over the requests, from the "
        "engine's per-step arrays; each mark names the requests that reached its bin. Runs "
        "with identical curves share one line."
    )
    drawn = [(r, c) for r, c in curves if c is not None and c.bins]
    if not drawn:
        return Figure("acceptance-step", fid, title, caption, None, NO_STEPS)
    caption += _not_drawn(
        [run_name(stage, r.speculation, r.load) for r, c in curves if c is None or not c.bins],
        "no per-step arrays",
    )
    inexact = [run_name(stage, r.speculation, r.load) for r, c in drawn if c.exact < c.requests]
    if inexact:
        caption += (
            f" Positions are lower bounds for {', '.join(inexact)}: steps that drafted nothing "
            "(an n-gram miss) are not in the engine's arrays, so their tokens are not counted."
        )
    width = drawn[0][1].bin_tokens
    series = []
    rows = []
    for name, curve in _merged(stage, drawn):
        pts = []
        for b in curve.bins:
            rate = b.rate
            plural = "" if b.requests == 1 else "s"
            note = f"{b.accepted}/{b.drafted} accepted, {b.requests} request{plural}"
            span = str(b.start) if b.end - b.start == 1 else f"{b.start}-{b.end - 1}"
            rows.append((name, span, str(b.accepted), str(b.drafted), _f(rate), str(b.requests)))
            if rate is not None:
                pts.append(Point((b.start + b.end - 1) / 2, rate, note=note))
        if pts:
            series.append(Series(name, tuple(pts)))
    desc = "; ".join(f"{r[0]} at {r[1]}: {r[4]} ({r[5]} requests)" for r in rows)
    svg = line_chart(
        fid,
        title,
        desc,
        f"output position (bins of {width} token{'s' if width > 1 else ''})",
        "accepted share of drafted",
        series,
        y_floor=0.0,
        y_ceiling=1.0,
        x_nice=True,
        kind="acceptance-step",
    )
    headers = ("run", "positions", "accepted", "drafted", "rate", "requests")
    return Figure("acceptance-step", fid, title, caption, svg, None, headers, tuple(rows))


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
    silent = [
        run_name(stage, p.speculation, p.verdict.load)
        for p in stage.pairs
        if p.quality_drop is None
    ]
    if pairs:
        caption += _not_drawn(silent, "no quality signal")
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
        *throughput_by_load(whole),
        *latency_by_load(whole),
        *latency_by_throughput(whole),
        *acceptance_by_position(whole),
        *acceptance_by_step(whole),
        *tpot_distribution(whole),
        *quality_drop(whole),
        *decomposition(whole),
        *by_slice(stage, gates),
    ]
