"""Small hand-written SVG charts: lines with intervals, horizontal intervals, boxes and bars.

Every chart is a complete ``<svg>`` element that scales to its container (``viewBox``, width
100%), names itself for assistive technology (``role="img"``, ``<title>`` and ``<desc>`` joined by
``aria-labelledby``) and stays readable without colour: series differ in marker shape and line
dash as well as hue (the Okabe-Ito palette, distinguishable under the common colour-vision
deficiencies), bars differ in hatching, reference lines carry their own text label, and every mark
has a ``<title>`` with its exact value. All text is escaped; nothing is fetched.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

import numpy as np

#: Okabe & Ito (2008), "Color Universal Design": hues kept apart under colour-vision deficiencies
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
MARKERS = ("circle", "square", "triangle", "diamond", "cross", "plus", "down")
DASHES = ("", "6 3", "2 3", "8 3 2 3", "12 4", "4 2 1 2", "1 2")
REF_DASHES = ("5 4", "2 3")
HALO = 'paint-order="stroke" stroke="#fff" stroke-width="3"'  # keeps text legible over lines
ROW_LABEL = 16  # height of the text line above each row of a row chart
SIDE = 16  # side margin of row charts: labels sit above their row, so the plot spans the width
CHAR_W = 6.6  # mean width of a 12 px character, for wrapping labels
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"


@dataclass(frozen=True)
class Point:
    """One observation: ``y`` at ``x`` with an optional interval ``[lo, hi]``."""

    x: float
    y: float
    lo: float | None = None
    hi: float | None = None
    note: str = ""
    #: further values marked as short ticks on the whisker (e.g. a p90 between p50 and p99)
    ticks: tuple[float, ...] = ()


@dataclass(frozen=True)
class Series:
    name: str
    points: tuple[Point, ...]


@dataclass(frozen=True)
class RefLine:
    """A labelled reference line at ``value`` on the value axis (dashed, never colour alone)."""

    value: float
    label: str


@dataclass(frozen=True)
class IntervalRow:
    label: str
    point: float
    lo: float | None = None
    hi: float | None = None
    note: str = ""


@dataclass(frozen=True)
class BoxRow:
    label: str
    values: tuple[float, ...]


@dataclass(frozen=True)
class BarRow:
    label: str
    values: tuple[float, ...]
    note: str = ""


@dataclass
class _Canvas:
    """An SVG under construction: the plot area is [left, left + w] x [top, top + h]."""

    chart_id: str
    width: float
    height: float
    left: float
    top: float
    w: float
    h: float
    parts: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        self.parts.append(text)

    def render(self, title: str, desc: str, kind: str) -> str:
        cid = escape(self.chart_id)
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-kind="{escape(kind)}" '
            f'id="{cid}" viewBox="0 0 {self.width:.0f} {self.height:.0f}" width="100%" '
            f'style="max-width:{self.width:.0f}px" role="img" '
            f'aria-labelledby="{cid}-title {cid}-desc" font-family="{escape(FONT)}" '
            f'font-size="12">'
            f'<title id="{cid}-title">{escape(title)}</title>'
            f'<desc id="{cid}-desc">{escape(desc)}</desc>'
            f'<rect x="0" y="0" width="{self.width:.0f}" height="{self.height:.0f}" '
            'fill="#ffffff"/>'
        )
        return head + "".join(self.parts) + "</svg>"


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering [lo, hi] (steps of 1, 2 or 5 times a power of ten)."""
    if not math.isfinite(lo) or not math.isfinite(hi):
        return [0.0, 1.0]
    if hi - lo <= 1e-9 * max(abs(lo), abs(hi)):  # equal, or too close for a step to move t
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / max(count, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks = []
    t = start
    while t <= hi + step * 1e-9:
        ticks.append(round(t, 12))
        t += step
    if ticks[-1] < hi:
        ticks.append(round(t, 12))
    return ticks


def fmt_tick(v: float) -> str:
    return f"{v:g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.1e}"


def _span(values: Sequence[float], pad: float = 0.05) -> tuple[float, float]:
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return 0.0, 1.0
    lo, hi = min(finite), max(finite)
    if hi == lo:
        d = abs(lo) * 0.1 or 1.0
        return lo - d, hi + d
    d = (hi - lo) * pad
    return lo - d, hi + d


def _scale(v: float, lo: float, hi: float, a: float, b: float) -> float:
    return a + (v - lo) / (hi - lo) * (b - a) if hi != lo else (a + b) / 2


def marker(shape: str, x: float, y: float, color: str, size: float = 4.5) -> str:
    """A marker drawn so that its shape alone tells the series apart."""
    s = size
    style = f'fill="{color}" stroke="{color}" stroke-width="1.5"'
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{s:.1f}" {style}/>'
    if shape == "square":
        return f'<rect x="{x - s:.1f}" y="{y - s:.1f}" width="{2 * s:.1f}" height="{2 * s:.1f}" {style}/>'
    if shape in ("triangle", "down"):
        d = -1 if shape == "triangle" else 1
        pts = f"{x:.1f},{y + d * s * 1.2:.1f} {x - s * 1.1:.1f},{y - d * s * 0.8:.1f} {x + s * 1.1:.1f},{y - d * s * 0.8:.1f}"
        return f'<polygon points="{pts}" {style}/>'
    if shape == "diamond":
        pts = f"{x:.1f},{y - s * 1.3:.1f} {x + s:.1f},{y:.1f} {x:.1f},{y + s * 1.3:.1f} {x - s:.1f},{y:.1f}"
        return f'<polygon points="{pts}" {style}/>'
    if shape == "cross":
        return (
            f'<path d="M{x - s:.1f},{y - s:.1f}L{x + s:.1f},{y + s:.1f}M{x - s:.1f},{y + s:.1f}'
            f'L{x + s:.1f},{y - s:.1f}" stroke="{color}" stroke-width="2.5" fill="none"/>'
        )
    return (
        f'<path d="M{x - s:.1f},{y:.1f}L{x + s:.1f},{y:.1f}M{x:.1f},{y - s:.1f}L{x:.1f},{y + s:.1f}" '
        f'stroke="{color}" stroke-width="2.5" fill="none"/>'
    )


def _style(i: int) -> tuple[str, str, str]:
    """Series i's colour, marker and dash; past the palette's length the marker and the dash
    shift against the colour, so no two of the first 49 series look alike."""
    turn = i // len(PALETTE)
    return (
        PALETTE[i % len(PALETTE)],
        MARKERS[(i + turn) % len(MARKERS)],
        DASHES[(i + 2 * turn) % len(DASHES)],
    )


LEGEND_LINE = 15  # px per text line of a legend entry


def _wrap(text: str, chars: int) -> list[str]:
    return textwrap.wrap(text, max(chars, 12), break_on_hyphens=False) or [text]


def _legend_lines(names: Sequence[str], width: float, left: float) -> list[list[str]]:
    """Each legend entry's text, wrapped to the width left of the line-and-marker sample."""
    return [_wrap(n, int((width - left - 46) / CHAR_W)) for n in names]


def _legend_height(lines: Sequence[Sequence[str]]) -> float:
    return sum(LEGEND_LINE * len(x) + 4 for x in lines) + 8


def _legend(c: _Canvas, lines: Sequence[Sequence[str]], y0: float) -> None:
    """One entry per series: a dashed line sample, the marker, the name (wrapped if long)."""
    y = y0
    for i, text in enumerate(lines):
        color, shape, dash = _style(i)
        x = c.left
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        spans = "".join(
            f'<tspan x="{x + 38:.1f}" dy="{0 if j == 0 else LEGEND_LINE}">{escape(t)}</tspan>'
            for j, t in enumerate(text)
        )
        c.add(
            f'<g class="legend-item"><line x1="{x:.1f}" y1="{y:.1f}" x2="{x + 30:.1f}" '
            f'y2="{y:.1f}" stroke="{color}" stroke-width="2"{dash_attr}/>'
            f"{marker(shape, x + 15, y, color)}"
            f'<text x="{x + 38:.1f}" y="{y + 4:.1f}">{spans}</text></g>'
        )
        y += LEGEND_LINE * len(text) + 4


def _axes(
    c: _Canvas,
    x_ticks: Sequence[float],
    y_ticks: Sequence[float],
    x_range: tuple[float, float],
    y_range: tuple[float, float],
    x_label: str,
    y_label: str,
    x_names: dict[float, str] | None = None,
) -> None:
    x0, x1 = c.left, c.left + c.w
    y0, y1 = c.top + c.h, c.top
    c.add('<g class="axes" stroke="#444" fill="#222">')
    for t in y_ticks:
        y = _scale(t, *y_range, y0, y1)
        c.add(
            f'<line x1="{x0:.1f}" y1="{y:.1f}" x2="{x1:.1f}" y2="{y:.1f}" stroke="#ddd" '
            f'stroke-width="1"/><text x="{x0 - 6:.1f}" y="{y + 4:.1f}" text-anchor="end" '
            f'stroke="none">{escape(fmt_tick(t))}</text>'
        )
    for t in x_ticks:
        x = _scale(t, *x_range, x0, x1)
        name = (x_names or {}).get(t, fmt_tick(t))
        c.add(
            f'<line x1="{x:.1f}" y1="{y0:.1f}" x2="{x:.1f}" y2="{y0 + 5:.1f}"/>'
            f'<text x="{x:.1f}" y="{y0 + 18:.1f}" text-anchor="middle" stroke="none">'
            f"{escape(name)}</text>"
        )
    c.add(
        f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y0:.1f}"/>'
        f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x0:.1f}" y2="{y1:.1f}"/>'
        f'<text x="{(x0 + x1) / 2:.1f}" y="{y0 + 36:.1f}" text-anchor="middle" stroke="none">'
        f"{escape(x_label)}</text>"
    )
    if y_label:
        yc = (y0 + y1) / 2
        c.add(
            f'<text x="14" y="{yc:.1f}" text-anchor="middle" stroke="none" '
            f'transform="rotate(-90 14 {yc:.1f})">{escape(y_label)}</text>'
        )
    c.add("</g>")


def _ref_line_h(c: _Canvas, ref: RefLine, y_range: tuple[float, float], index: int) -> None:
    """A horizontal reference line; labels alternate right and left so close lines stay legible."""
    if not y_range[0] <= ref.value <= y_range[1]:
        return
    y = _scale(ref.value, *y_range, c.top + c.h, c.top)
    if index % 2 == 0:
        x, anchor = c.left + c.w - 4, "end"
    else:
        x, anchor = c.left + 6, "start"
    c.add(
        f'<g class="ref-line"><line x1="{c.left:.1f}" y1="{y:.1f}" x2="{c.left + c.w:.1f}" '
        f'y2="{y:.1f}" stroke="#222" stroke-width="1.2" stroke-dasharray="{REF_DASHES[index % 2]}"/>'
        f'<text x="{x:.1f}" y="{y - 4:.1f}" text-anchor="{anchor}" font-size="11" '
        f"{HALO}>{escape(ref.label)}</text></g>"
    )


def _ref_line_v(c: _Canvas, ref: RefLine, x_range: tuple[float, float], index: int) -> None:
    """A vertical reference line, labelled above the plot area (one text row per line)."""
    if not x_range[0] <= ref.value <= x_range[1]:
        return
    x = _scale(ref.value, *x_range, c.left, c.left + c.w)
    anchor = "end" if x > c.left + c.w * 0.7 else "start"
    tx = x - 3 if anchor == "end" else x + 3
    c.add(
        f'<g class="ref-line"><line x1="{x:.1f}" y1="{c.top - 14 * index - 4:.1f}" x2="{x:.1f}" '
        f'y2="{c.top + c.h:.1f}" stroke="#222" stroke-width="1.2" '
        f'stroke-dasharray="{REF_DASHES[index % 2]}"/>'
        f'<text x="{tx:.1f}" y="{c.top - 14 * index - 6:.1f}" text-anchor="{anchor}" '
        f'font-size="11">{escape(ref.label)}</text></g>'
    )


def _row_label(c: _Canvas, y: float, label: str) -> None:
    c.add(f'<text class="row-label" x="{SIDE:.1f}" y="{y:.1f}" {HALO}>{escape(label)}</text>')


def line_chart(
    chart_id: str,
    title: str,
    desc: str,
    x_label: str,
    y_label: str,
    series: Sequence[Series],
    *,
    refs: Sequence[RefLine] = (),
    x_names: dict[float, str] | None = None,
    y_floor: float | None = None,
    y_ceiling: float | None = None,
    width: float = 560,
    kind: str = "line",
    x_nice: bool = False,
    dodge: float = 0.0,
    sort_x: bool = True,
) -> str:
    """Points joined per series, with vertical interval whiskers; integer-like x values are
    ticked where the data are (``x_names`` renames them, e.g. load levels), or at round values
    with ``x_nice`` (a continuous x, such as a throughput, whose data would crowd the axis).
    ``dodge``: pixels between series at one x, so that their whiskers do not cover each other.
    ``sort_x=False`` joins a series' points in the order given (a curve through load levels)."""
    xs = sorted({p.x for s in series for p in s.points})
    ys = [v for s in series for p in s.points for v in (p.y, p.lo, p.hi, *p.ticks) if v is not None]
    ys += [r.value for r in refs]
    y_range = _span(ys, 0.08)
    if y_floor is not None:
        y_range = (max(y_range[0], y_floor), y_range[1])
    if y_ceiling is not None:
        y_range = (y_range[0], min(y_range[1], y_ceiling))
    y_ticks = [t for t in nice_ticks(*y_range) if y_range[0] <= t <= y_range[1]]
    x_range = _span(xs, 0.12) if len(xs) > 1 else (xs[0] - 1, xs[0] + 1) if xs else (0.0, 1.0)
    if x_nice and len(xs) == 1:
        x_range = (xs[0] * 0.8, xs[0] * 1.2) if xs[0] else (-1.0, 1.0)
    x_ticks = (
        [t for t in nice_ticks(*x_range, count=4) if x_range[0] <= t <= x_range[1]]
        if x_nice
        else xs
    )
    plot_h = 220
    legend = _legend_lines([s.name for s in series], width, 58)
    c = _Canvas(
        chart_id, width, 40 + plot_h + 48 + _legend_height(legend), 58, 30, width - 78, plot_h
    )
    _axes(c, x_ticks, y_ticks, x_range, y_range, x_label, y_label, x_names)
    for j, ref in enumerate(refs):
        _ref_line_h(c, ref, y_range, j)
    for i, s in enumerate(series):
        shift = dodge * (i - (len(series) - 1) / 2)
        color, shape, dash = _style(i)
        pts = sorted(s.points, key=lambda p: p.x) if sort_x else list(s.points)
        coords = [
            (
                _scale(p.x, *x_range, c.left, c.left + c.w) + shift,
                _scale(p.y, *y_range, c.top + c.h, c.top),
            )
            for p in pts
        ]
        c.add(f'<g class="series" data-series="{escape(s.name)}">')
        if len(coords) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
            dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
            c.add(
                f'<polyline points="{path}" fill="none" stroke="{color}" '
                f'stroke-width="2"{dash_attr}/>'
            )
        for p, (x, y) in zip(pts, coords, strict=True):
            tip = f"{s.name}: {x_names.get(p.x, fmt_tick(p.x)) if x_names else fmt_tick(p.x)}"
            tip += f" → {p.y:.3f}"
            if p.lo is not None and p.hi is not None:
                ylo = _scale(max(p.lo, y_range[0]), *y_range, c.top + c.h, c.top)
                yhi = _scale(min(p.hi, y_range[1]), *y_range, c.top + c.h, c.top)
                c.add(
                    f'<path class="whisker" d="M{x:.1f},{ylo:.1f}V{yhi:.1f}M{x - 5:.1f},'
                    f'{ylo:.1f}h10M{x - 5:.1f},{yhi:.1f}h10" stroke="{color}" '
                    'stroke-width="1.5" fill="none"/>'
                )
                tip += f" [{p.lo:.3f}, {p.hi:.3f}]"
            for v in p.ticks:
                if y_range[0] <= v <= y_range[1]:
                    yt = _scale(v, *y_range, c.top + c.h, c.top)
                    c.add(
                        f'<path class="whisker" d="M{x - 4:.1f},{yt:.1f}h8" stroke="{color}" '
                        'stroke-width="3" fill="none"/>'
                    )
            if p.note:
                tip += f" ({p.note})"
            c.add(f'<g class="mark"><title>{escape(tip)}</title>{marker(shape, x, y, color)}</g>')
        c.add("</g>")
    _legend(c, legend, c.top + c.h + 56)
    return c.render(title, desc, kind)


def interval_chart(
    chart_id: str,
    title: str,
    desc: str,
    x_label: str,
    rows: Sequence[IntervalRow],
    *,
    refs: Sequence[RefLine] = (),
    width: float = 560,
    kind: str = "interval",
    fmt: str = ".3f",
) -> str:
    """One row per item, labelled above it: a point (diamond) with its interval as a horizontal
    bar with end caps; reference lines (zero, a margin) labelled above the plot."""
    values = [v for r in rows for v in (r.point, r.lo, r.hi) if v is not None]
    values += [r.value for r in refs]
    x_range = _span(values, 0.08)
    ticks = [t for t in nice_ticks(*x_range) if x_range[0] <= t <= x_range[1]]
    row_h = ROW_LABEL + 24
    top = 12 + 14 * len(refs)
    c = _Canvas(
        chart_id,
        width,
        top + row_h * len(rows) + 50,
        SIDE,
        top,
        width - 2 * SIDE,
        row_h * len(rows),
    )
    _axes(c, ticks, [], x_range, (0, 1), x_label, "")
    for j, ref in enumerate(refs):
        _ref_line_v(c, ref, x_range, j)
    for i, r in enumerate(rows):
        y0 = c.top + row_h * i
        y = y0 + ROW_LABEL + 10
        x = _scale(r.point, *x_range, c.left, c.left + c.w)
        tip = f"{r.label}: {format(r.point, fmt)}"
        c.add('<g class="row">')
        _row_label(c, y0 + ROW_LABEL - 3, r.label)
        if r.lo is not None and r.hi is not None:
            xl = _scale(r.lo, *x_range, c.left, c.left + c.w)
            xh = _scale(r.hi, *x_range, c.left, c.left + c.w)
            c.add(
                f'<path class="whisker" d="M{xl:.1f},{y:.1f}H{xh:.1f}M{xl:.1f},{y - 6:.1f}v12'
                f'M{xh:.1f},{y - 6:.1f}v12" stroke="#0072B2" stroke-width="2" fill="none"/>'
            )
            tip += f" [{format(r.lo, fmt)}, {format(r.hi, fmt)}]"
        if r.note:
            tip += f" ({r.note})"
        c.add(
            f'<g class="mark"><title>{escape(tip)}</title>{marker("diamond", x, y, "#0072B2")}</g>'
        )
        c.add("</g>")
    return c.render(title, desc, kind)


def box_chart(
    chart_id: str,
    title: str,
    desc: str,
    x_label: str,
    rows: Sequence[BoxRow],
    *,
    width: float = 560,
    kind: str = "box",
    scale: float = 1.0,
) -> str:
    """Horizontal box plots, one row per run labelled above it: the box spans the quartiles, the
    thick bar is the median, whiskers reach the minimum and maximum, every value is a circle."""
    vals = [v * scale for r in rows for v in r.values]
    x_range = _span(vals, 0.05)
    ticks = [t for t in nice_ticks(*x_range) if x_range[0] <= t <= x_range[1]]
    row_h = ROW_LABEL + 26
    c = _Canvas(
        chart_id, width, 10 + row_h * len(rows) + 50, SIDE, 10, width - 2 * SIDE, row_h * len(rows)
    )
    _axes(c, ticks, [], x_range, (0, 1), x_label, "")

    def sx(v: float) -> float:
        return _scale(v * scale, *x_range, c.left, c.left + c.w)

    for i, r in enumerate(rows):
        y0 = c.top + row_h * i
        y = y0 + ROW_LABEL + 12
        c.add('<g class="row">')
        _row_label(c, y0 + ROW_LABEL - 3, r.label)
        if r.values:
            q0, q1, q2, q3, q4 = (float(v) for v in np.percentile(r.values, [0, 25, 50, 75, 100]))
            tip = (
                f"{r.label}: n={len(r.values)}, min {q0 * scale:.3g}, Q1 {q1 * scale:.3g}, "
                f"median {q2 * scale:.3g}, Q3 {q3 * scale:.3g}, max {q4 * scale:.3g}"
            )
            c.add(
                f'<g class="mark"><title>{escape(tip)}</title>'
                f'<path d="M{sx(q0):.1f},{y:.1f}H{sx(q1):.1f}M{sx(q3):.1f},{y:.1f}H{sx(q4):.1f}'
                f'M{sx(q0):.1f},{y - 6:.1f}v12M{sx(q4):.1f},{y - 6:.1f}v12" stroke="#333" '
                f'stroke-width="1.5" fill="none"/>'
                f'<rect x="{sx(q1):.1f}" y="{y - 9:.1f}" width="{max(sx(q3) - sx(q1), 1):.1f}" '
                f'height="18" fill="#cfe3f2" stroke="#0072B2" stroke-width="1.5"/>'
                f'<line x1="{sx(q2):.1f}" y1="{y - 9:.1f}" x2="{sx(q2):.1f}" y2="{y + 9:.1f}" '
                f'stroke="#000" stroke-width="3"/>'
            )
            for v in r.values:
                c.add(
                    f'<circle cx="{sx(v):.1f}" cy="{y:.1f}" r="2" fill="none" stroke="#222" '
                    'stroke-width="0.8"/>'
                )
            c.add("</g>")
        else:
            c.add(
                f'<text x="{c.left + 4:.1f}" y="{y + 4:.1f}" font-style="italic">no values</text>'
            )
        c.add("</g>")
    return c.render(title, desc, kind)


def bar_chart(
    chart_id: str,
    title: str,
    desc: str,
    x_label: str,
    names: Sequence[str],
    rows: Sequence[BarRow],
    *,
    refs: Sequence[RefLine] = (),
    width: float = 560,
    kind: str = "bar",
) -> str:
    """Grouped horizontal bars, one group per row labelled above it: one bar per name, told
    apart by fill pattern (solid, hatched, dotted) and labelled with its name and value; the
    row's ``note`` is written under the bars."""
    vals = [v for r in rows for v in r.values] + [r.value for r in refs] + [0.0]
    x_range = (0.0, max(vals) * 1.3 if max(vals) > 0 else 1.0)
    ticks = [t for t in nice_ticks(*x_range) if x_range[0] <= t <= x_range[1]]
    bar_h = 13
    row_h = ROW_LABEL + bar_h * len(names) + 20
    top = 12 + 14 * len(refs)
    legend_h = 18 * len(names) + 8
    c = _Canvas(
        chart_id,
        width,
        top + row_h * len(rows) + 50 + legend_h,
        SIDE,
        top,
        width - 2 * SIDE,
        row_h * len(rows),
    )
    pid = escape(chart_id)
    c.add(
        "<defs>"
        f'<pattern id="{pid}-hatch" patternUnits="userSpaceOnUse" width="6" height="6" '
        'patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/>'
        '<line x1="0" y1="0" x2="0" y2="6" stroke="#D55E00" stroke-width="3"/></pattern>'
        f'<pattern id="{pid}-dots" patternUnits="userSpaceOnUse" width="5" height="5">'
        '<rect width="5" height="5" fill="#fff"/><circle cx="2.5" cy="2.5" r="1.4" '
        'fill="#009E73"/></pattern></defs>'
    )
    fills = ("#0072B2", f"url(#{pid}-hatch)", f"url(#{pid}-dots)")
    strokes = ("#0072B2", "#D55E00", "#009E73")
    _axes(c, ticks, [], x_range, (0, 1), x_label, "")
    for j, ref in enumerate(refs):
        _ref_line_v(c, ref, x_range, j)
    for i, r in enumerate(rows):
        y0 = c.top + row_h * i
        y = y0 + ROW_LABEL + 2
        c.add('<g class="row">')
        _row_label(c, y0 + ROW_LABEL - 3, r.label)
        for k, (name, v) in enumerate(zip(names, r.values, strict=True)):
            x1 = _scale(v, *x_range, c.left, c.left + c.w)
            by = y + bar_h * k
            c.add(
                f'<g class="mark"><title>{escape(f"{r.label}: {name} {v:.3f}")}</title>'
                f'<rect x="{c.left:.1f}" y="{by:.1f}" width="{max(x1 - c.left, 1):.1f}" '
                f'height="{bar_h - 2}" fill="{fills[k % 3]}" stroke="{strokes[k % 3]}"/>'
                f'<text x="{x1 + 4:.1f}" y="{by + bar_h - 3:.1f}" font-size="11">'
                f"{escape(f'{name} {v:.2f}')}</text></g>"
            )
        if r.note:
            c.add(
                f'<text x="{c.left + 4:.1f}" y="{y + bar_h * len(names) + 11:.1f}" '
                f'font-size="11" font-style="italic" {HALO}>{escape(r.note)}</text>'
            )
        c.add("</g>")
    ly = c.top + c.h + 56
    for k, name in enumerate(names):
        c.add(
            f'<g class="legend-item"><rect x="{c.left:.1f}" y="{ly + 18 * k - 6:.1f}" width="24" '
            f'height="11" fill="{fills[k % 3]}" stroke="{strokes[k % 3]}"/>'
            f'<text x="{c.left + 30:.1f}" y="{ly + 18 * k + 4:.1f}">{escape(name)}</text></g>'
        )
    return c.render(title, desc, kind)
