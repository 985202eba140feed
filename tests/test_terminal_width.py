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
from tests.verdict.test_judge import GATES, arm, noisy, samples, twice

DEMO = Path(__file__).resolve().parents[1] / "examples" / "demo.yaml"


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
    reject = next(v for v in verdicts if v.verdict != "ADOPT")
    header = next(i for i, line in enumerate(lines) if line.startswith(reject.verdict + " "))
    first_reason = lines[header + 1].strip()
    assert first_reason.startswith(">")  # what decided the verdict comes first, marked


def test_the_plan_and_run_tables_fit_80_columns() -> None:
    plan = build_plan(load_campaign(DEMO))
    counts = {r.fingerprint: 240 for r in plan.runs}
    lines = printed(plan_table(plan, counts))
    assert max(len(line) for line in lines) <= 80
    assert any("synth-function@1" in line and "c=8" in line for line in lines)
    assert "…" not in "\n".join(lines)
