"""Terminal output fits 80 columns without cutting what matters: the verdict, the load, the
figures; long candidate labels wrap, reasons wrap under themselves, the deciding one first."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from specverdict.campaign import build_plan, load_campaign
from specverdict.cli.validate import plan_table
from specverdict.cli.verdict import render
from specverdict.verdict import judge_pair
from tests.unit.verdict.test_judge import GATES, arm, noisy, samples, twice

DEMO = Path(__file__).resolve().parents[3] / "examples" / "demo.yaml"


def console80() -> Console:
    """A recording console 80 columns wide that prints nowhere."""
    return Console(width=80, record=True, color_system=None, file=io.StringIO())


def printed(*things: object) -> list[str]:
    console = console80()
    for thing in things:
        console.print(thing)
    return console.export_text().splitlines()


def test_the_verdict_table_and_reasons_fit_80_columns() -> None:
    plan = build_plan(load_campaign(DEMO))
    specs = {r.speculation.label: r for r in plan.runs if r.stage == "function"}
    relaxed = next(label for label in specs if "relaxed" in label)
    n = 40
    base = twice(specs["none"], n, [True] * n)
    verdicts = [
        judge_pair(
            base,
            arm(specs[label], samples("c", noisy(n, speed, 2), [True] * n)),
            GATES,
            stage="function",
            candidate_label=label,
            baseline_label="none",
            suite="synth-function@1",
            load="concurrency=8",
        )
        for label, speed in (("mtp k=2", 0.01), (relaxed, 0.03))
    ]
    console = console80()
    render(verdicts, console)
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= 80
    text = "\n".join(lines)
    for v in verdicts:
        assert v.verdict in text
    assert "c=8" in text and "…" not in text  # nothing truncated, only wrapped
    assert "stage function (synth-function@1), speed on TPOT" in text  # the metric is said
    reject = next(v for v in verdicts if v.verdict != "ADOPT")
    header = next(i for i, line in enumerate(lines) if line.startswith(reject.verdict + " "))
    first_reason = lines[header + 1].strip()
    assert first_reason.startswith(">")  # what decided the verdict comes first, marked


def test_the_k_the_engine_ran_is_beside_the_declared_one_within_80_columns() -> None:
    """A candidate declared draft_model k=4 whose engine keeps 3 position counters and drafts 3
    per step: the table's candidate cell and the pair's heading say ``(engine: 3)`` beside the
    declared k, whole, and every line still fits 80 columns."""
    from specverdict.records.acceptance import AcceptanceSummary

    plan = build_plan(load_campaign(DEMO))
    specs = {r.speculation.label: r for r in plan.runs if r.stage == "function"}
    n = 40
    three = AcceptanceSummary(
        source="per-request",
        valid=True,
        drafts=100.0,
        draft_tokens=300.0,
        accepted=180.0,
        accepted_per_pos=(80.0, 60.0, 40.0),
    )
    v = judge_pair(
        twice(specs["none"], n, [True] * n),
        arm(specs["draft_model k=4"], samples("c", noisy(n, 0.01, 2), [True] * n), acc=three),
        GATES,
        stage="function",
        candidate_label="draft_model k=4",
        baseline_label="none",
        suite="synth-function@1",
        load="concurrency=8",
    )
    assert v.verdict == "INVALID" and v.engine_k == 3.0
    console = console80()
    render([v], console)
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in "\n".join(lines)
    assert any(line.startswith("INVALID draft_model k=4 (engine: 3) vs none") for line in lines)
    row = next(line for line in lines if "c=8" in line and "INVALID" in line)
    assert "draft_model k=4" in row and "(engine: 3)" in " ".join(lines)


def test_the_plan_and_run_tables_fit_80_columns() -> None:
    plan = build_plan(load_campaign(DEMO))
    counts = {r.fingerprint: 240 for r in plan.runs}
    lines = printed(plan_table(plan, counts))
    assert max(len(line) for line in lines) <= 80
    assert any("synth-function@1" in line and "c=8" in line for line in lines)
    assert "…" not in "\n".join(lines)


def test_the_runs_table_fits_80_columns_with_the_longest_label() -> None:
    """Every figure of every run stays whole at 80 columns; only the label wraps."""
    from specverdict.cli.runs import summary_table
    from specverdict.measure.results import RunResults
    from specverdict.measure.summary import summarize_samples
    from specverdict.records import RunRecord, SampleRecord
    from specverdict.records.acceptance import AcceptanceSummary

    plan = build_plan(load_campaign(DEMO))
    rows = []
    for n, spec in enumerate(r for r in plan.runs if r.stage == "function"):
        samples = [
            SampleRecord(
                run_id=f"run{n:03d}abcdef",
                sample_id=str(i),
                status="ok",
                completion_tokens=40,
                ttft_s=0.0123,
                e2e_s=0.2345,
                finish_reason="stop",
                extra={"clock": "device", "device_span_s": [i * 0.01, i * 0.01 + 0.2345]},
            )
            for i in range(240)
        ]
        run = RunRecord(
            run_id=f"run{n:03d}abcdef",
            fingerprint=spec.fingerprint,
            spec=spec,
            repeat=0,
            status="completed",
            created_at=0.0,
        )
        acceptance = AcceptanceSummary(
            source="per-request", valid=True, acceptance_rate=0.6789, mean_accepted_length=2.37
        )
        rows.append(
            RunResults(run=run, summary=summarize_samples(samples, 9.9), acceptance=acceptance)
        )
    lines = printed(summary_table(rows))
    text = "\n".join(lines)
    assert max(len(line) for line in lines) <= 80
    assert "…" not in text
    assert text.count("240/240") == len(rows) and text.count("  12/12 ") == len(rows)
    assert "relaxed_topk=3" in text  # the longest label is folded, not cut
    assert "modelled device clock" in text  # the caption says which clock timed the figures
