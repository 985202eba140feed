"""The hand-written SVG charts: well-formed, named for assistive technology, escaped, and told
apart without colour."""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET

import pytest

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
    nice_ticks,
)

NS = "{http://www.w3.org/2000/svg}"
EVIL = '<script>alert(1)</script> & "q"'


def charts() -> dict[str, str]:
    return {
        "line": line_chart(
            "c-line",
            "Speed-up " + EVIL,
            "desc " + EVIL,
            "k",
            "speed-up",
            [
                Series("mtp", (Point(1, 1.2, 1.1, 1.3), Point(2, 1.4, 1.2, 1.6))),
                Series("ngram " + EVIL, (Point(2, 0.9, 0.8, 1.0),)),
                Series("draft", (Point(1, 1.0), Point(3, 1.1))),
            ],
            refs=[RefLine(1.0, "1×"), RefLine(1.05, "min")],
        ),
        "interval": interval_chart(
            "c-int",
            "Quality",
            "d",
            "drop (pp)",
            [IntervalRow(EVIL, 0.5, -2.0, 3.0, "pass")],
            refs=[RefLine(0.0, "0"), RefLine(2.0, "margin 2 pp")],
        ),
        "box": box_chart(
            "c-box", "TPOT", "d", "ms", [BoxRow(EVIL, (1.0, 2.0, 3.0)), BoxRow("e", ())]
        ),
        "bar": bar_chart(
            "c-bar", "Decomposition", "d", "x", ("MAL", "R"), [BarRow(EVIL, (2.0, 1.5), "S = 1.33")]
        ),
    }


@pytest.mark.parametrize("kind", ["line", "interval", "box", "bar"])
def test_every_chart_is_well_formed_named_and_escaped(kind: str) -> None:
    svg = charts()[kind]
    root = ET.fromstring(svg)  # raises on any unescaped text
    assert root.tag == f"{NS}svg" and root.get("role") == "img"
    cid = root.get("id")
    assert root.get("aria-labelledby") == f"{cid}-title {cid}-desc"
    assert root.find(f"{NS}title").get("id") == f"{cid}-title"  # type: ignore[union-attr]
    assert root.find(f"{NS}desc").get("id") == f"{cid}-desc"  # type: ignore[union-attr]
    assert "<script" not in svg and "&lt;script&gt;" in svg
    texts = "".join(root.itertext())
    assert EVIL in texts  # the label survives as text, not markup
    assert root.get("viewBox", "").startswith("0 0 ") and root.get("width") == "100%"
    # every mark carries its exact value for a pointer or a screen reader
    marks = [g for g in root.iter(f"{NS}g") if g.get("class") == "mark"]
    assert marks and all(m.find(f"{NS}title") is not None for m in marks)


def test_series_differ_in_marker_and_dash_not_only_in_colour() -> None:
    root = ET.fromstring(charts()["line"])
    legend = [g for g in root.iter(f"{NS}g") if g.get("class") == "legend-item"]
    assert len(legend) == 3
    shapes = [[c.tag for c in g if c.tag not in (f"{NS}line", f"{NS}text")] for g in legend]
    assert len({tuple(s) for s in shapes}) == 3  # circle, square, triangle
    dashes = [g.find(f"{NS}line").get("stroke-dasharray") for g in legend]  # type: ignore[union-attr]
    assert len(set(dashes)) == 3
    refs = [g for g in root.iter(f"{NS}g") if g.get("class") == "ref-line"]
    assert ["".join(g.itertext()) for g in refs] == ["1×", "min"]  # labelled, not colour-coded


def test_bars_differ_in_fill_pattern() -> None:
    root = ET.fromstring(charts()["bar"])
    fills = [
        r.get("fill")
        for g in root.iter(f"{NS}g")
        if g.get("class") == "mark"
        for r in g.iter(f"{NS}rect")
    ]
    assert fills == ["#0072B2", "url(#c-bar-hatch)"]
    assert root.find(f".//{NS}pattern[@id='c-bar-hatch']") is not None


def test_a_box_row_without_values_says_so() -> None:
    assert "no values" in "".join(ET.fromstring(charts()["box"]).itertext())


@pytest.mark.parametrize(
    ("lo", "hi"),
    [
        (0.0, 1.0),
        (0.83, 1.27),
        (-2.5, 3.1),
        (5.0, 5.0),
        # a float apart: a step that small would not move a tick (latencies alike but for
        # their last bit once spanned such a range and the ticks never ended)
        (20.2, math.nextafter(20.2, 21.0)),
    ],
)
def test_nice_ticks_cover_the_range_with_round_steps(lo: float, hi: float) -> None:
    ticks = nice_ticks(lo, hi)
    assert ticks[0] <= lo and ticks[-1] >= hi
    steps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
    assert len(steps) == 1
    (step,) = steps
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert round(mantissa, 6) in (1.0, 2.0, 5.0)
