"""`specverdict report` on runs measured against the real reference engine: the figures in the
HTML, Markdown and JSON equal the stored ones, every plot is drawn, every manifest is reachable,
and the page fetches nothing."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from specverdict.campaign import build_plan, load_campaign
from specverdict.cli.main import cli as main_cli
from specverdict.measure.results import run_results
from specverdict.measure.summary import tpot
from specverdict.records import SampleRecord
from specverdict.store import SQLiteStore
from tests.conftest import specverdict_cli
from tests.integration.report.conftest import Measured, text_scorer

STAGES = ("function", "side:smoke")
#: the conftest campaign's goodput targets, in seconds
SLO_S = {"ttft": 0.060, "tpot": 0.015}


def good_request(x: SampleRecord) -> bool:
    t = tpot(x)
    return x.ttft_s is not None and x.ttft_s <= 0.060 and (t is None or t <= 0.015)


LOADS = ("concurrency=1", "concurrency=2")


def _ms(x: float | None) -> str:
    """A TPOT as the Markdown report writes it."""
    return "n/a" if x is None else f"{1e3 * x:.2f}"


@pytest.fixture(scope="module")
def store(measured: Measured) -> Iterator[SQLiteStore]:
    s = SQLiteStore(measured.scored_db)
    yield s
    s.close()


def load(folder: Path) -> tuple[str, str, dict[str, Any]]:
    return (
        (folder / "index.html").read_text(),
        (folder / "report.md").read_text(),
        json.loads((folder / "report.json").read_text()),
    )


def sections(html: str) -> dict[str, str]:
    """Stage anchor -> that stage's section of the page."""
    found = re.findall(r'<section id="(stage-[^"]+)".*?</section>', html, re.S)
    bodies = re.findall(r'<section id="stage-[^"]+".*?</section>', html, re.S)
    return dict(zip(found, bodies, strict=True))


def row_html(section: str, run_id: str) -> str:
    m = re.search(rf'<tr class="\w+" data-run-id="{run_id}">(.*?)</tr>', section, re.S)
    assert m, f"no table row for run {run_id}"
    return m.group(1)


def data_values(row: str) -> list[str]:
    return [unescape(v) for v in re.findall(r'data-value="([^"]*)"', row)]


def exact(x: float | None) -> str:
    return "" if x is None else repr(x)


def test_every_figure_equals_the_stored_one(measured: Measured, store: SQLiteStore) -> None:
    html, md, data = load(measured.scored)
    secs = sections(html)
    assert len(data["stages"]) == len(secs) == 2
    checked = 0
    timed = dict.fromkeys(STAGES, 0)
    for stage, sec in zip(data["stages"], secs.values(), strict=True):
        base_rate = {}
        for row in stage["rows"]:
            run_id = row["run_id"]
            assert run_id is not None and row["run_ids"] == [run_id]
            res = run_results(store, run_id, SLO_S)
            s, acc = res.summary, res.acceptance
            # JSON: the stored figures, not a re-computation that could drift
            assert row["summary"] == s.model_dump(mode="json")
            assert row["acceptance"] == acc.model_dump(mode="json")
            assert row["acceptance_rate"] == acc.acceptance_rate
            assert row["mean_accepted_length"] == acc.mean_accepted_length
            assert row["failure_rate"] == s.errored / s.samples
            if row["role"] == "candidate":
                assert acc.valid and acc.drafts
                assert row["position_rates"] == [a / acc.drafts for a in acc.accepted_per_pos]
                assert len(row["position_rates"]) == row["k"]
            # quality: the scores attached to the stored outputs
            samples = store.samples(run_id)
            passed = sum(text_scorer(x.text).passed for x in samples if x.status == "ok")
            q = row["quality"]
            assert (q["passed"], q["samples"]) == (passed, len(samples))
            assert q["pass_rate"] == passed / len(samples)
            lo, hi = q["interval"]
            assert lo <= q["pass_rate"] <= hi
            if row["role"] == "baseline":
                base_rate[row["load"]] = q["pass_rate"]
                assert row["retention"] is None
            elif base_rate[row["load"]]:
                assert row["retention"] == pytest.approx(q["pass_rate"] / base_rate[row["load"]])
            # HTML: the exact stored values in data-value, in column order, and as displayed
            tr = row_html(sec, run_id)
            assert data_values(tr) == [
                exact(acc.acceptance_rate),
                exact(acc.mean_accepted_length),
                exact(s.tokens_per_s),
                exact(s.ttft_p50_s),  # one cell: p50 / p95, sorted by the p50
                exact(s.tpot_p50_s),
                exact(s.goodput_per_s),
                exact(s.errored / s.samples),
                exact(q["pass_rate"]),
                exact(row["retention"]),
            ]
            assert s.tokens_per_s is not None
            assert f">{s.tokens_per_s:.1f}<" in tr
            # on the host clock a loaded machine can read a short answer's tokens in one
            # event: its TPOT is then not measured, and shown as such
            if s.tpot_p50_s is None:
                assert '<td class="num" data-value="">n/a</td>' in tr
            else:
                assert s.tpot_p95_s is not None
                assert f">{1e3 * s.tpot_p50_s:.1f} / {1e3 * s.tpot_p95_s:.1f}<" in tr
                timed[stage["stage"]] += 1
            assert f"{100 * q['pass_rate']:.1f}% [{100 * lo:.1f}%, {100 * hi:.1f}%]<br>" in tr
            assert ", ".join(f"{k} {v}" for k, v in sorted(s.finish_reasons.items())) in tr
            # goodput, counted here apart: answered requests within both targets
            good = [x for x in samples if x.status == "ok" and good_request(x)]
            assert s.good_requests == len(good) and f"<br>{len(good)}/{s.ok} good<" in tr
            # Markdown: the same figures on the run's line
            line = next(x for x in md.splitlines() if x.startswith("|") and f"| {run_id} |" in x)
            assert f"| {s.tokens_per_s:.1f} |" in line
            assert f"| {1e3 * s.ttft_p50_s:.1f} |" in line  # type: ignore[operator]
            assert f"| {_ms(s.tpot_p50_s)} |" in line
            if acc.acceptance_rate is not None:
                assert f"| {acc.acceptance_rate:.3f} |" in line
            checked += 1
    assert checked == 16  # 2 stages x 2 loads x (baseline + 3 candidates)
    assert all(timed[st] > 0 for st in STAGES), timed  # the TPOT cells were checked


def test_verdicts_are_those_of_the_verdict_command(measured: Measured) -> None:
    html, md, data = load(measured.scored)
    args = ["verdict", str(measured.campaign), "--db", str(measured.scored_db), "--json"]
    expected = json.loads(CliRunner().invoke(main_cli, args).stdout)["verdicts"]
    assert data["schema_version"] == 1
    got = [p["verdict"] for st in data["stages"] for p in st["pairs"]]
    assert got == expected and len(got) == 12
    for v in expected:
        assert f"{v['verdict']}: {v['candidate']}" in unescape(html)
        assert f"#### {v['verdict']}: {v['candidate']}" in md
        for r in v["reasons"]:
            assert r["message"] in unescape(html)
    # the speed-up intervals drawn are the verdicts' intervals
    for v in expected:
        lo, hi = v["speedup_interval"]
        assert f"{v['speedup']:.3f}× [{lo:.3f}, {hi:.3f}]" in unescape(html)


def test_each_stage_says_its_speed_metric_and_its_goodput_targets(measured: Measured) -> None:
    html, md, data = load(measured.scored)
    secs = sections(unescape(html))
    assert {st["stage"]: st["speed_metric"] for st in data["stages"]} == {
        "function": "tpot",
        "side:smoke": "e2e",
    }
    assert all(st["slo_ms"] == {"ttft": 60.0, "tpot": 15.0} for st in data["stages"])
    fn, side = secs["stage-function"], secs["stage-side-smoke"]
    assert "speed judged on TPOT · goodput SLO ttft ≤ 60 ms, tpot ≤ 15 ms" in " ".join(fn.split())
    assert "speed judged on end-to-end latency" in " ".join(side.split())
    assert '<th scope="col">goodput/s</th>' in fn
    # each card gives its pair's goodput, baseline / candidate, as the runs table has them
    goodput = {
        r["run_id"]: r["summary"]["goodput_per_s"] for st in data["stages"] for r in st["rows"]
    }
    for p in (p for st in data["stages"] for p in st["pairs"]):
        b, c = (goodput[p["verdict"][k][0]] for k in ("baseline_run_ids", "candidate_run_ids"))
        assert f"goodput base/cand {b:.2f} / {c:.2f} requests/s" in unescape(html)
    for p in (p for st in data["stages"] for p in st["pairs"]):
        v = p["verdict"]
        words = "TPOT" if v["stage"] == "function" else "end-to-end latency"
        gate = next(r for r in v["reasons"] if r["gate"] == f"speed.{v['speed_metric']}")
        assert words in gate["message"] and gate["data"]["metric"] == v["speed_metric"]
    # the matrix and the cards name the metric beside each speed-up
    assert re.search(r"\d\.\d{3}× \[[^]]+\] e2e<", side)
    assert re.search(r"\d\.\d{3}× \[[^]]+\] TPOT<", fn)
    assert "speed judged on end-to-end latency" in md and "goodput/s (good/answered)" in md


def test_one_section_per_stage_and_every_row_fully_labelled(measured: Measured) -> None:
    html, md, data = load(measured.scored)
    secs = sections(html)
    assert list(secs) == ["stage-function", "stage-side-smoke"]
    ids = {st["stage"]: {r["run_id"] for r in st["rows"]} for st in data["stages"]}
    for (stage, sec), other in zip(
        zip(STAGES, secs.values(), strict=True), reversed(STAGES), strict=True
    ):
        assert f"Stage {stage} · builtin-code@1" in sec
        assert not any(i in sec for i in ids[other]), "a stage section shows another stage's run"
        # the axes every run of the stage shares are stated once, above its runs table
        runs_note = sec[sec.index("<h3>Runs</h3>") : sec.index('class="sortable runs"')]
        for part in ("engine reference", "model specverdict-reference", "quantization fp32"):
            assert part in " ".join(runs_note.split()), runs_note
        assert "suite builtin-code@1" in runs_note
        runs_table = sec[sec.index('class="sortable runs"') :]
        labels = [unescape(x) for x in re.findall(r'<th scope="row">(.*?)</th>', runs_table, re.S)]
        assert len(labels) == 8
        for label in labels:
            # each row: its speculation and, with several loads, its load level
            assert "concurrency=" in label
            assert re.match(
                r"^(none|mtp k=[12]|ngram k=2 \(prompt_lookup_max=3, prompt_lookup_min=1\)) @ ",
                label,
            ), label
        # baseline first at each load level, then candidates by method and k
        order = [x.split(" @ ")[0] for x in labels]
        assert order[:4] == ["none", "mtp k=1", "mtp k=2", order[3]]
        assert order[3].startswith("ngram k=2") and order[4] == "none"
    assert md.count("\n## Stage ") == 2
    assert "there is no verdict across stages" in html and "no verdict across stages" in md


def test_every_plot_is_drawn_with_an_accessible_name(measured: Measured) -> None:
    html, _, data = load(measured.scored)
    assert data["stages"]  # the checks below ran
    for stage, sec in zip(data["stages"], sections(html).values(), strict=True):
        figures = re.findall(
            r'<figure class="plot[^"]*" id="([^"]+)" data-kind="([^"]+)">(.*?)</figure>', sec, re.S
        )
        kinds = [k for _, k, _ in figures]
        assert kinds == [
            "speedup-k",
            "speedup-k",
            "speedup-load",
            "throughput-load",
            "latency-load",
            "latency-load",
            "latency-throughput",
            "acceptance-position",
            "acceptance-step",
            "tpot",
            "quality",
            "decomposition",
        ]
        for fid, kind, body in figures:
            svg = re.search(r"<svg .*?</svg>", body, re.S)
            assert svg, f"{fid} has no plot"
            svg_text = svg.group(0)
            assert f'data-kind="{kind}"' in svg_text and 'role="img"' in svg_text
            assert f'aria-labelledby="{fid}-title {fid}-desc"' in svg_text
            assert f'<title id="{fid}-title">' in svg_text and f'<desc id="{fid}-desc">' in svg_text
            assert svg_text.count('class="mark"') > 0
            assert "numbers behind this plot" in body
        marks = {k: b.count('class="mark"') for _, k, b in figures}
        candidates = [r for r in stage["rows"] if r["role"] == "candidate"]
        # one box per run with a measured TPOT
        assert marks["tpot"] == sum(r["summary"]["tpot_p50_s"] is not None for r in stage["rows"])
        assert marks["tpot"] > 0
        # identical curves are drawn once: one mark per position of each distinct curve
        curves = {tuple(f"{v:.3f}" for v in r["position_rates"]) for r in candidates}
        assert marks["acceptance-position"] == sum(len(c) for c in curves)
        # against the output position: one mark per bin that drafted, of each distinct curve
        # (greedy answers at both loads give the same per-step arrays: one line)
        steps = {json.dumps(r["steps"], sort_keys=True) for r in candidates}
        assert all(r["steps"]["requests"] > 0 for r in candidates)
        assert marks["acceptance-step"] == sum(
            sum(b["drafted"] > 0 for b in json.loads(c)["bins"]) for c in steps
        )
        # throughput and latency against load: one mark per completed run
        assert marks["throughput-load"] == marks["latency-throughput"] == len(stage["rows"])
        assert marks["speedup-load"] == marks["decomposition"] // 2 == len(stage["pairs"])
        assert marks["quality"] == len(stage["pairs"])
        desc = re.search(r'<desc id="[^"]+-acceptance-position-desc">(.*?)</desc>', sec, re.S)
        assert desc is not None
        for r in candidates:
            assert ", ".join(f"{v:.3f}" for v in r["position_rates"]) in unescape(desc.group(1))
        quality = re.search(r'data-kind="quality".*?</svg>', sec, re.S)
        assert quality is not None and "margin 10 pp" in quality.group(0)  # the margin is drawn
        assert "min_speedup 1.05×" in sec  # and the bar the speed-up must clear


def test_unscored_quality_says_why_it_has_no_plot(measured: Measured) -> None:
    html, md, data = load(measured.plain)
    sec = next(iter(sections(html).values()))
    quality = re.search(
        r'<figure class="plot empty-plot" id="[^"]+" data-kind="quality">'
        r"(.*?)</figure>",
        sec,
        re.S,
    )
    assert quality is not None and "<svg" not in quality.group(1)
    assert (
        "Nothing to draw: no quality signal: suite builtin-code@1 has no scorer" in quality.group(1)
    )
    assert "not scored" in sec
    assert all(r["quality"]["pass_rate"] is None for st in data["stages"] for r in st["rows"])
    health = re.search(r"<h3>Gate health</h3>.*?</table>", sec, re.S)
    assert health is not None
    rows = re.findall(
        r"<tr>\s*<td>(.*?)</td><td>(.*?)</td><td><code>(.*?)</code></td>\s*"
        r"<td>(.*?)</td><td>(.*?)</td>",
        health.group(0),
        re.S,
    )
    by_gate = {(c, load_, g): h for c, load_, g, _, h in rows}
    assert by_gate[("mtp k=1", "concurrency=1", "quality.signal")] == "no data"
    assert by_gate[("mtp k=1", "concurrency=1", "speed.tpot")] == "decided on data"
    assert by_gate[("mtp k=1", "concurrency=1", "identity")] == "reported only"
    assert "| quality.signal | inconclusive | no data |" in md


def test_every_manifest_is_reachable(measured: Measured, store: SQLiteStore) -> None:
    html, md, data = load(measured.scored)
    runs = store.list_runs()
    assert len(runs) == 16
    for run in runs:
        m = run.manifest.model_dump(mode="json")
        anchor = re.search(
            rf'<div id="run-{run.run_id}" class="manifest-anchor">\s*<details class="manifest">'
            r"(.*?)</details>",
            html,
            re.S,
        )
        assert anchor, f"manifest of {run.run_id} not in the page"
        body = unescape(anchor.group(1))
        assert f'href="#run-{run.run_id}"' in html  # linked from its table row
        assert shlex.join(m["launch_command"]) in body
        assert "speculative configuration as sent" in body
        assert (shlex.join(m["speculative_args"]) or "(none: no speculation)") in body
        assert json.dumps(m["engine_version"], indent=2, sort_keys=True) in body
        assert json.dumps(m, indent=2, sort_keys=True) in body
        assert f"- `{run.run_id}`" in md and shlex.join(m["launch_command"]) in md
    in_json = {x["run_id"]: x["manifest"] for st in data["stages"] for x in st["manifests"]}
    assert in_json == {r.run_id: r.manifest.model_dump(mode="json") for r in runs}


EXTERNAL = re.compile(r"""(?:src|href|xlink:href|action)\s*=\s*["']?\s*(?:https?:)?//""", re.I)


def test_the_page_fetches_nothing(measured: Measured) -> None:
    for folder in (measured.scored, measured.plain):
        html = (folder / "index.html").read_text()
        assert not EXTERNAL.search(html)
        assert "<link" not in html and "@import" not in html and "@font-face" not in html
        assert not re.search(r"<script[^>]*\bsrc=", html)
        assert not re.search(r"url\((?!#)", html)  # only in-document pattern references
        assert "<img" not in html and "<iframe" not in html
    assert EXTERNAL.search('<img src="https://example.org/x.png">')  # the check can fail


def test_the_terminal_gets_a_compact_verdict_table(measured: Measured) -> None:
    out = measured.stdout
    assert "stage function (builtin-code@1)" in out and "stage side:smoke (builtin-code@1)" in out
    assert out.index("stage function") < out.index("stage side:smoke")
    assert f"report: {measured.scored / 'index.html'}" in out
    data = json.loads((measured.scored / "report.json").read_text())
    for st in data["stages"]:
        for p in st["pairs"]:
            assert p["verdict"]["verdict"] in out


def test_run_ids_are_judged_as_compare_judges_them(measured: Measured, tmp_path: Path) -> None:
    data = json.loads((measured.scored / "report.json").read_text())
    rows = [r for r in data["stages"][0]["rows"] if r["load"] == "concurrency=1"]
    base, *cands = (r["run_id"] for r in rows)
    out = tmp_path / "runs"
    proc = specverdict_cli(
        "report", base, *cands[:2], "--db", str(measured.scored_db), "--out", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads((out / "report.json").read_text())
    (stage,) = got["stages"]
    assert [r["run_id"] for r in stage["rows"]] == [base, *cands[:2]]
    for pair, cand in zip(stage["pairs"], cands[:2], strict=True):
        args = ["compare", base, cand, "--db", str(measured.scored_db), "--json"]
        assert [pair["verdict"]] == json.loads(CliRunner().invoke(main_cli, args).stdout)[
            "verdicts"
        ]
    assert (out / "index.html").exists() and (out / "report.md").exists()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["nope", "nada"], "no run 'nope'"),
        (["nope"], "neither a campaign file nor enough run ids"),
        (["{campaign}", "--margin", "0.5"], "apply to run ids"),
        (["{campaign}", "--db", "{missing}"], "no run registry at"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    measured: Measured, tmp_path: Path, args: list[str], expected: str
) -> None:
    filled = [a.format(campaign=measured.campaign, missing=tmp_path / "none.db") for a in args]
    if "--db" not in filled:
        filled += ["--db", str(measured.db)]
    proc = specverdict_cli("report", *filled, "--out", str(tmp_path / "out"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], proc.stderr
    assert not (tmp_path / "out").exists()


def test_the_plan_and_the_report_agree_on_what_was_planned(measured: Measured) -> None:
    plan = build_plan(load_campaign(measured.campaign))
    data = json.loads((measured.plain / "report.json").read_text())
    fingerprints = [r["fingerprint"] for st in data["stages"] for r in st["rows"]]
    assert sorted(fingerprints) == sorted(s.fingerprint for s in plan.runs)
    assert sum(len(st["pairs"]) for st in data["stages"]) == len(plan.pairs)


def test_the_report_reads_each_runs_samples_once(measured: Measured) -> None:
    """Verdicts, run rows, step curves and supplements of one report all read the same runs:
    each run's samples come from the registry once, and the report is the one written."""
    from specverdict.report.model import campaign_report

    reads: list[str] = []

    class Counting(SQLiteStore):
        def samples(self, run_id: str) -> list[SampleRecord]:
            reads.append(run_id)
            return super().samples(run_id)

    plan = build_plan(load_campaign(measured.campaign))
    store = Counting(measured.scored_db)
    try:
        data = campaign_report(store, plan)
    finally:
        store.close()
    assert reads and len(reads) == len(set(reads)), sorted(reads)
    written = json.loads((measured.plain / "report.json").read_text())
    assert len(data.stages) == len(written["stages"])
