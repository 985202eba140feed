"""No stored data crashes a verdict or a report: arbitrary records in a real registry.

Hypothesis writes runs of any shape a registry can hold (no tokens or one, answers in a single
event, missing or non-finite timings, every request failed, junk acceptance fields and counters)
and the commands' own functions must return a verdict with reasons, and a report, every time.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.model import Gates
from specverdict.records import MetricsSnapshot, SampleRecord, Score, Segment
from specverdict.report import write_report_files
from specverdict.report.model import runs_report
from specverdict.store import SQLiteStore
from specverdict.verdict.collect import compare_runs
from specverdict.verdict.model import SEVERITY
from tests.conftest import campaign_yaml

CAMPAIGN = campaign_yaml("props", samples="all", max_tokens=32, warmup=None, baseline_repeats=None)
PLAN = build_plan(parse_campaign(CAMPAIGN, Path("props.yaml")))
BASE, CAND = PLAN.runs[0], PLAN.runs[1]

times = st.one_of(
    st.none(),
    st.floats(min_value=-1.0, max_value=5.0),
    st.sampled_from([0.0, math.nan, math.inf]),
)
junk = st.one_of(st.none(), st.integers(-5, 100), st.floats(allow_nan=True), st.text(max_size=3))
acceptance = st.one_of(
    st.none(),
    st.dictionaries(
        st.sampled_from(
            ["num_draft_tokens", "num_accepted_draft_tokens", "num_spec_steps", "other"]
        ),
        junk,
        max_size=4,
    ),
    st.builds(
        lambda d, a, h: {
            "num_draft_tokens": d,
            "num_accepted_draft_tokens": a,
            "acceptance_histogram": h,
        },
        st.integers(0, 40),
        st.integers(0, 40),
        st.lists(st.integers(0, 10), max_size=4),
    ),
)


@st.composite
def record(draw: st.DrawFn, run_id: str, sample_id: str) -> SampleRecord:
    status = draw(st.sampled_from(["ok", "ok", "ok", "error", "timeout", "cancelled"]))
    ttft = draw(times)
    arrivals = draw(st.lists(st.floats(0.0, 5.0), max_size=4))
    score = draw(
        st.one_of(
            st.none(),
            st.builds(
                lambda p: Score(passed=p, outcome="passed" if p else "failed"), st.booleans()
            ),
        )
    )
    return SampleRecord(
        run_id=run_id,
        sample_id=sample_id,
        status=status,
        text=draw(st.text(max_size=12)),
        finish_reason=draw(st.sampled_from([None, "stop", "length", "abort"])),
        prompt_tokens=draw(st.one_of(st.none(), st.integers(0, 50))),
        completion_tokens=draw(st.one_of(st.none(), st.integers(0, 3), st.integers(0, 40))),
        ttft_s=ttft,
        e2e_s=draw(st.one_of(times, st.just(ttft))),  # single-event answers: e2e == ttft
        chunk_arrivals_s=tuple(sorted(arrivals)),
        error=None if status == "ok" else draw(st.sampled_from(["HTTP 500: x", "ReadError: y"])),
        acceptance=draw(acceptance),
        score=score,
    )


@st.composite
def arm(draw: st.DrawFn, run_id: str) -> list[SampleRecord]:
    ids = draw(st.lists(st.integers(0, 15), max_size=12, unique=True))
    return [draw(record(run_id, f"builtin-code/{i}")) for i in ids]


counters = st.one_of(
    st.none(),
    st.just("garbage {{{\n"),
    st.builds(
        lambda d, a: (
            f"vllm:spec_decode_num_draft_tokens_total {d}\n"
            f"vllm:spec_decode_num_accepted_tokens_total {a}\n"
        ),
        st.integers(0, 100),
        st.integers(0, 100),
    ),
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    base=arm("base"),
    cand=arm("cand"),
    before=counters,
    after=counters,
    second_baseline=st.booleans(),
    margin=st.sampled_from([0.01, 0.05, 0.2]),
)
def test_any_stored_runs_give_a_verdict_with_reasons_and_a_report(
    base: list[SampleRecord],
    cand: list[SampleRecord],
    before: str | None,
    after: str | None,
    second_baseline: bool,
    margin: float,
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "runs.db")
        runs: dict[str, Any] = {}
        for name, spec, records, repeat in (
            ("base", BASE, base, 0),
            ("cand", CAND, cand, 0),
            *((("base2", BASE, base, 1),) if second_baseline else ()),
        ):
            run = store.create_run(spec, repeat)
            runs[name] = run
            for r in records:
                store.add_sample(r.model_copy(update={"run_id": run.run_id}))
            for phase, text in (("before", before), ("after", after)):
                if text is not None:
                    store.add_snapshot(
                        MetricsSnapshot(run_id=run.run_id, phase=phase, taken_at=1.0, text=text)
                    )
            segment = Segment(
                requests=len(records),
                answered=len(records),
                samples=len(records),
                failed=0,
                wall_s=1.0,
            )
            runs[name] = store.update_run(
                run.run_id, status="completed", manifest={"segments": [segment]}
            )
        gates = Gates(alpha=0.05, margin=margin, min_speedup=1.0)
        verdict = compare_runs(store, runs["base"], runs["cand"], gates)
        assert verdict.verdict in SEVERITY
        assert verdict.reasons and all(r.message for r in verdict.reasons)
        if verdict.speedup is not None:
            assert math.isfinite(verdict.speedup)
        data = runs_report(store, [runs["base"].run_id, runs["cand"].run_id], gates)
        files = write_report_files(data, Path(tmp) / "report")
        assert files["html"].read_text().startswith("<!doctype html>")
        assert verdict.verdict in files["markdown"].read_text()
        store.close()
