"""The Markdown report: the HTML report's sections as text, each plot as the table of its numbers."""

from __future__ import annotations

from collections.abc import Sequence

from specverdict.measure.summary import SPEED_METRIC_WORDS
from specverdict.report.html import manifest_highlights, slo_text
from specverdict.report.model import ReportData, RunRow, StageReport
from specverdict.report.outputs import FileOutput
from specverdict.report.plots import stage_figures


def md(text: object) -> str:
    """A table cell: pipes escaped, newlines folded."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _num(x: float | None, fmt: str, scale: float = 1.0) -> str:
    return "n/a" if x is None else format(scale * x, fmt)


def _quality(row: RunRow) -> str:
    q = row.quality
    if q is None:
        return "not run"
    if q.pass_rate is None or q.interval is None:
        return "not scored"
    lo, hi = q.interval
    return f"{100 * q.pass_rate:.1f}% [{100 * lo:.1f}%, {100 * hi:.1f}%] ({q.passed}/{q.samples})"


def _table(headers: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    out = ["| " + " | ".join(md(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(md(c) for c in row) + " |" for row in rows]
    return out


def _fence(text: str) -> list[str]:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return [f"{ticks}text", text, ticks]


def _goodput(row: RunRow) -> str:
    s = row.summary
    if s is None or s.good_requests is None:
        return "n/a"
    return f"{_num(s.goodput_per_s, '.2f')} ({s.good_requests}/{s.ok})"


def _stage(stage: StageReport, data: ReportData) -> list[str]:
    lines = [
        f"## Stage {stage.stage} · {stage.suite}",
        "",
        f"engine {stage.engine} · model family {stage.model} · quantization "
        f"{stage.quantization} · suite {stage.suite} · load {', '.join(stage.loads)} · speed "
        f"judged on {SPEED_METRIC_WORDS[stage.speed_metric]}"
        + (f" · goodput SLO {slo_text(stage.slo_ms)}" if stage.slo_ms else ""),
        "",
        *(line for w in stage.warnings for line in (f"> **Warning:** {w}", "")),
        "### Verdicts",
        "",
        *(f"- {line}" for line in stage.paying),
        *([""] if stage.paying else []),
    ]
    for p in stage.pairs:
        v = p.verdict
        speed = "n/a"
        if v.speedup is not None:
            speed = f"{v.speedup:.3f}×"
            if v.speedup_interval is not None:
                speed += f" [{v.speedup_interval[0]:.3f}, {v.speedup_interval[1]:.3f}]"
            speed += f" on {SPEED_METRIC_WORDS[v.speed_metric]}"
        lines += [
            f"#### {v.verdict}: {p.title or p.speculation} against {v.baseline} at {v.load}",
            "",
            f"- candidate: {p.candidate_label}",
            f"- baseline: {p.baseline_label}",
            f"- speed-up {speed} · acceptance {_num(v.acceptance_rate, '.3f')} · "
            f"MAL {_num(v.mean_accepted_length, '.2f')}",
            *(f"- **{r.gate}** ({r.status}): {r.message}" for r in v.reasons),
            "",
        ]
    if not stage.pairs:
        lines += ["No candidate in this stage.", ""]
    lines += ["### Runs", "", "Times in ms; the first completed execution of each run.", ""]
    rows = []
    for r in stage.rows:
        s = r.summary
        rows.append(
            (
                r.label + (" (baseline)" if r.role == "baseline" else ""),
                r.run_id or "not run",
                _num(r.acceptance_rate, ".3f"),
                _num(r.mean_accepted_length, ".2f"),
                _num(s.tokens_per_s if s else None, ".1f"),
                _num(s.ttft_p50_s if s else None, ".1f", 1e3),
                _num(s.ttft_p95_s if s else None, ".1f", 1e3),
                _num(s.tpot_p50_s if s else None, ".2f", 1e3),
                _num(s.tpot_p95_s if s else None, ".2f", 1e3),
                *((_goodput(r),) if stage.slo_ms else ()),
                _num(r.failure_rate, ".1%"),
                ", ".join(f"{k} {n}" for k, n in sorted(s.finish_reasons.items())) if s else "n/a",
                _quality(r),
                _num(r.retention, ".3f"),
            )
        )
    lines += _table(
        (
            "run",
            "run id",
            "acceptance rate",
            "MAL",
            "tokens/s",
            "TTFT p50",
            "TTFT p95",
            "TPOT p50",
            "TPOT p95",
            *(("goodput/s (good/answered)",) if stage.slo_ms else ()),
            "failure rate",
            "finish reasons",
            "pass rate [interval]",
            "quality retention",
        ),
        rows,
    )
    lines += ["", "### Plots (drawn in index.html)", ""]
    for f in stage_figures(stage, data.gates):
        lines += [f"#### {f.title}", "", f.caption, ""]
        if f.svg is None:
            lines += [f"Nothing to draw: {f.empty}", ""]
        else:
            lines += [*_table(f.headers, list(f.rows)), ""]
    lines += ["### Gate health", ""]
    lines += _table(
        ("candidate", "load", "gate", "status", "health", "why"),
        [
            (p.speculation, p.verdict.load, g.gate, g.status, g.health, g.message)
            for p in stage.pairs
            for g in p.health
        ],
    )
    lines += ["", "### Per-sample supplement", ""]
    any_sample = False
    for p in stage.pairs:
        for x in p.supplement:
            any_sample = True
            where = (
                "identical outputs"
                if x.position is None
                else f"first difference at character {x.position}"
            )
            outcome = (
                f" (baseline {x.base_outcome}, candidate {x.cand_outcome})"
                if x.kind == "discordant"
                else ""
            )
            lines += [
                f"#### {x.kind} sample `{x.sample_id}`: {p.speculation} at {p.verdict.load}"
                f"{outcome}, {where}",
                "",
                "baseline:",
                "",
                *_fence(x.base_text),
                "",
                "candidate:",
                "",
                *_fence(x.cand_text),
                "",
            ]
    if not any_sample:
        lines += ["No discordant or greedy-divergent sample in this stage.", ""]
    lines += ["### Run manifests", "", "Full manifests in index.html and report.json.", ""]
    for m in stage.manifests:
        lines.append(f"- `{m.run_id}` (repeat {m.repeat}, {m.status}): {m.label}")
        for key, value in manifest_highlights(m.manifest):
            if "\n" in value or key.startswith("launch file"):
                lines += [f"  - {key}:", "", *("    " + x for x in _fence(value)), ""]
            else:
                lines.append(f"  - {key}: `{value}`")
    lines.append("")
    return lines


def render_markdown(data: ReportData) -> str:
    g = data.gates
    lines = [
        f"# {data.title}",
        "",
        f"source: `{data.source}` · specverdict {data.specverdict_version} · gates: alpha "
        f"{g.alpha}, margin {g.margin}, min_speedup {g.min_speedup}, max_failure_rate "
        f"{g.max_failure_rate} · speeds timed on the {data.clock}",
        "",
    ]
    engine_line = data.engine_time_line()
    if engine_line is not None:
        lines += [engine_line, ""]
    lines += [
        "Every verdict holds for its own stage, suite, load level and candidate only; there is no "
        "verdict across stages.",
        "",
    ]
    for stage in data.stages:
        lines += _stage(stage, data)
    return "\n".join(lines)


#: ``report.md``: the verdict tables and each run's configuration, for a pull request or a wiki
OUTPUT: FileOutput[ReportData] = FileOutput(
    "markdown",
    "report",
    "report.md",
    "Markdown: the verdict tables and each run's configuration",
    lambda data: render_markdown(data).encode("utf-8"),
)
