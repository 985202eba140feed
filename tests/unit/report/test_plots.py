"""The stage plots on a hand-made stage: throughput and latency percentiles against load,
latency against throughput, acceptance curves deduplicated, and no quality interval drawn for a
pair without a quality signal. Every drawn figure is checked against the numbers given."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from specverdict.campaign.model import Gates
from specverdict.measure.steps import step_curve, step_curves
from specverdict.measure.summary import RunSummary
from specverdict.records import SampleRecord
from specverdict.report.model import PairView, QualityDrop, RunRow, SliceSteps, StageReport
from specverdict.report.plots import stage_figures
from specverdict.report.svg import _style
from specverdict.verdict import PairVerdict, Reason

SVG = "{http://www.w3.org/2000/svg}"


def summary(tps: float, tpot_ms: float, itl_ms: float) -> RunSummary:
    return RunSummary(
        samples=10,
        ok=10,
        errored=0,
        output_tokens=100,
        tokens_per_s=tps,
        ttft_p50_s=0.1,
        ttft_p95_s=0.2,
        tpot_p50_s=tpot_ms / 1e3,
        tpot_p95_s=1.5 * tpot_ms / 1e3,
        mean_tpot_s=tpot_ms / 1e3,
        tpot_p90_s=1.4 * tpot_ms / 1e3,
        tpot_p99_s=2 * tpot_ms / 1e3,
        itl_p50_s=itl_ms / 1e3,
        itl_p90_s=1.3 * itl_ms / 1e3,
        itl_p99_s=3 * itl_ms / 1e3,
        e2e_p50_s=1.0 + tpot_ms / 100,
        finish_reasons={"stop": 10},
        errors={},
    )


def row(spec: str, load: int, tps: float, tpot_ms: float, rates: tuple[float, ...]) -> RunRow:
    return RunRow(
        label=spec,
        speculation=spec,
        role="baseline" if spec == "none" else "candidate",
        method=spec.split(maxsplit=1)[0],
        k=int(spec[-1]) if spec != "none" else None,
        load=f"concurrency={load}",
        load_value=load,
        fingerprint=f"{spec}-{load}",
        run_id=f"{spec}-{load}",
        run_ids=(f"{spec}-{load}",),
        summary=summary(tps, tpot_ms, tpot_ms * 0.9),
        position_rates=rates,
    )


def pair(spec: str, load: int, signal: bool) -> PairView:
    msg = "drop 1.0 pp [-3.0, 5.0] ..." if signal else "no quality signal: both arms pass 0"
    verdict = PairVerdict(
        stage="function",
        suite="s@1",
        load=f"concurrency={load}",
        baseline="none",
        candidate=spec,
        baseline_run_ids=("b",),
        candidate_run_ids=("c",),
        verdict="INCONCLUSIVE",
        reasons=(Reason(gate="quality.noninferiority", status="inconclusive", message=msg),),
        speedup=1.2,
        speedup_interval=(1.1, 1.3),
    )
    drop = QualityDrop(drop=0.01, lower=-0.03, upper=0.05, margin=0.05, status="inconclusive")
    return PairView(
        baseline_label="none",
        candidate_label=spec,
        speculation=spec,
        method=spec.split(maxsplit=1)[0],
        k=int(spec[-1]),
        load_value=load,
        verdict=verdict,
        health=(),
        quality_drop=drop if signal else None,
    )


SAME = (0.8, 0.6, 0.4)
ROWS = (
    row("none", 1, 100.0, 10.0, ()),
    row("none", 4, 300.0, 14.0, ()),
    row("mtp k=3", 1, 150.0, 6.0, SAME),
    row("mtp k=3", 4, 390.0, 9.0, SAME),  # the same curve at both loads
    row("ngram k=3", 1, 110.0, 9.0, (0.5, 0.2, 0.1)),
    row("ngram k=3", 4, 280.0, 15.0, SAME),  # and ngram at load 4 too
)
STAGE = StageReport(
    stage="function",
    suite="s@1",
    engine="reference",
    model="m",
    quantization="fp32",
    loads=("concurrency=1", "concurrency=4"),
    rows=ROWS,
    pairs=(pair("mtp k=3", 1, True), pair("ngram k=3", 1, False)),
    manifests=(),
)


def figures() -> dict[str, list[ET.Element]]:
    out: dict[str, list[ET.Element]] = {}
    for f in stage_figures(STAGE, Gates()):
        if f.svg is not None:
            out.setdefault(f.kind, []).append(ET.fromstring(f.svg))
    return out


def marks(svg: ET.Element) -> dict[str, list[str]]:
    """Series name -> the tooltips of its marks."""
    return {
        g.attrib["data-series"]: [
            "".join(m.find(f"{SVG}title").itertext())  # type: ignore[arg-type]
            for m in g.iter(f"{SVG}g")
            if m.attrib.get("class") == "mark"
        ]
        for g in svg.iter(f"{SVG}g")
        if g.attrib.get("class") == "series"
    }


def test_absolute_tokens_per_second_against_load_for_every_run_and_the_baseline() -> None:
    (svg,) = figures()["throughput-load"]
    drawn = marks(svg)
    assert list(drawn) == ["none", "mtp k=3", "ngram k=3"]  # the baseline first
    assert drawn["none"] == ["none: 1 → 100.000", "none: 4 → 300.000"]
    assert drawn["mtp k=3"] == ["mtp k=3: 1 → 150.000", "mtp k=3: 4 → 390.000"]


def test_tpot_and_itl_percentiles_against_load() -> None:
    tpot, itl = figures()["latency-load"]
    assert "TPOT" in "".join(tpot.find(f"{SVG}title").itertext())  # type: ignore[arg-type]
    drawn = marks(tpot)
    # the median as the point, the bar from p50 to p99, p90 said
    assert drawn["mtp k=3"][1] == "mtp k=3: 4 → 9.000 [9.000, 18.000] (p90 12.60, p99 18.00 ms)"
    assert marks(itl)["none"][0].startswith("none: 1 → 9.000 [9.000, 27.000]")
    # series side by side at one load level: no two markers of one x on the same spot
    xs = [
        float(m.attrib["cx"])
        for m in tpot.iter(f"{SVG}circle")
        if m.attrib.get("cx") and m.attrib.get("r") == "4.5"
    ]
    assert len(xs) == len(set(xs))


def test_latency_against_throughput_is_one_curve_per_configuration() -> None:
    (svg,) = figures()["latency-throughput"]
    drawn = marks(svg)
    assert list(drawn) == ["none", "mtp k=3", "ngram k=3"]
    assert drawn["none"] == [
        "none: 100 → 10.000 (concurrency=1)",
        "none: 300 → 14.000 (concurrency=4)",
    ]
    # the throughput axis is ticked at round values, not at each run's figure
    ticks = [
        "".join(t.itertext())
        for t in svg.iter(f"{SVG}text")
        if t.attrib.get("text-anchor") == "middle" and t.attrib.get("y", "").startswith("2")
    ]
    assert ticks and all(float(t) % 50 == 0 for t in ticks if re.fullmatch(r"[\d.]+", t))


def test_identical_acceptance_curves_are_one_line_naming_every_run() -> None:
    (svg,) = figures()["acceptance-position"]
    names = list(marks(svg))
    assert names == [
        "mtp k=3 @ all 2 loads; ngram k=3 @ concurrency=4",
        "ngram k=3 @ concurrency=1",
    ]


def test_no_quality_interval_for_a_pair_without_a_quality_signal() -> None:
    (fig,) = [f for f in stage_figures(STAGE, Gates()) if f.kind == "quality"]
    assert [r[0] for r in fig.rows] == ["mtp k=3 @ concurrency=1"]
    assert "Not drawn, no quality signal: ngram k=3 @ concurrency=1." in fig.caption
    assert fig.svg is not None and fig.svg.count('class="whisker"') == 1


def test_the_speed_up_captions_name_the_stages_metric() -> None:
    on_e2e = STAGE.model_copy(update={"speed_metric": "e2e"})
    caps = {f.kind: f.caption for f in stage_figures(on_e2e, Gates())}
    assert "on end-to-end latency" in caps["speedup-k"] and "on end-to-end" in caps["speedup-load"]
    # and latency against throughput plots that metric's median
    (lt,) = [f for f in stage_figures(on_e2e, Gates()) if f.kind == "latency-throughput"]
    assert "end-to-end latency" in lt.title and lt.rows[0][3] == "1100.00"


def test_series_past_the_palette_still_look_different() -> None:
    styles = [_style(i) for i in range(14)]
    assert len(set(styles)) == 14
    assert styles[0][0] == styles[7][0] and styles[0][1:] != styles[7][1:]


def step_sample(sid: str, accepted: list[int], drafted: int, tokens: int) -> SampleRecord:
    return SampleRecord.model_validate(
        {
            "run_id": "r",
            "sample_id": sid,
            "status": "ok",
            "completion_tokens": tokens,
            "acceptance": {
                "num_draft_tokens": drafted * len(accepted),
                "num_accepted_draft_tokens": sum(accepted),
                "per_step_accepted": accepted,
                "per_step_drafted": [drafted] * len(accepted),
            },
        }
    )


# mtp: steps at positions 1, 4, 5 and 1, 3 (each request's steps cover its output)
MTP = [step_sample("a", [2, 0, 1], 2, 7), step_sample("b", [1, 1], 2, 5)]
# ngram: one step at position 1 of an output of 9 tokens (misses drafted nothing)
NGRAM = [step_sample("a", [2], 2, 9)]
SHORT = {"short": {"b"}}


def with_steps(r: RunRow, samples: list[SampleRecord] | None) -> RunRow:
    if samples is None:
        return r
    return r.model_copy(
        update={
            "steps": step_curve(samples, 2),
            "slice_steps": tuple(
                SliceSteps(label=k, curve=c) for k, c in step_curves(samples, SHORT, 2).items()
            ),
        }
    )


STEPPED = STAGE.model_copy(
    update={
        "rows": tuple(
            with_steps(r, {"mtp k=3": MTP, "ngram k=3": NGRAM}.get(r.speculation))
            if r.load == "concurrency=1" or r.speculation == "mtp k=3"
            else r
            for r in ROWS
        )
    }
)


def test_acceptance_against_output_position_one_line_per_candidate_and_per_slice() -> None:
    whole, short = (f for f in stage_figures(STEPPED, Gates()) if f.kind == "acceptance-step")
    assert whole.svg is not None and short.svg is not None
    drawn = marks(ET.fromstring(whole.svg))
    # mtp's curve is the same at both loads: one line naming both; x at each bin's middle
    assert drawn == {
        "mtp k=3 @ all 2 loads": [
            "mtp k=3 @ all 2 loads: 0.5 → 0.750 (3/4 accepted, 2 requests)",
            "mtp k=3 @ all 2 loads: 2.5 → 0.500 (1/2 accepted, 1 request)",
            "mtp k=3 @ all 2 loads: 4.5 → 0.250 (1/4 accepted, 1 request)",
        ],
        "ngram k=3 @ concurrency=1": [
            "ngram k=3 @ concurrency=1: 0.5 → 1.000 (2/2 accepted, 1 request)"
        ],
    }
    assert whole.rows[0] == ("mtp k=3 @ all 2 loads", "0-1", "3", "4", "0.750", "2")
    assert "Not drawn, no per-step arrays: ngram k=3 @ concurrency=4." in whole.caption
    # ngram's one step covers 3 of its 9 tokens: its positions are lower bounds, and it says so
    assert "Positions are lower bounds for ngram k=3 @ concurrency=1" in whole.caption
    assert "mtp" not in whole.caption.split("lower bounds for")[1]
    # the slice: only sample b, whose steps are at positions 1 and 3
    assert short.title.endswith("slice short")
    assert marks(ET.fromstring(short.svg))["mtp k=3 @ all 2 loads"] == [
        "mtp k=3 @ all 2 loads: 0.5 → 0.500 (1/2 accepted, 1 request)",
        "mtp k=3 @ all 2 loads: 2.5 → 0.500 (1/2 accepted, 1 request)",
    ]


def test_no_per_step_data_is_said_plainly_not_drawn_as_an_empty_plot() -> None:
    (fig,) = [f for f in stage_figures(STAGE, Gates()) if f.kind == "acceptance-step"]
    assert fig.svg is None
    assert fig.empty is not None and fig.empty.startswith("no per-step acceptance was reported")
    assert "--per-request-spec-decode-metrics detailed" in fig.empty
