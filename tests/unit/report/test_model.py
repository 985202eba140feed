"""The report model on a hand-made registry: quality figures, gate health, the per-sample
supplement (discordant and greedy-divergent samples with the first differing character marked)
and planned runs that never ran."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest
from click.testing import CliRunner

from specverdict.campaign import build_plan, parse_campaign
from specverdict.campaign.plan import Plan
from specverdict.campaign.spec import RunSpec
from specverdict.cli.main import cli as main_cli
from specverdict.records import RunManifest, RunRecord, SampleRecord, Score
from specverdict.report import campaign_report, render_html, render_markdown, runs_report
from specverdict.report.html import highlight
from specverdict.report.model import health_of, quality_of
from specverdict.stats import wilson_interval
from specverdict.store import SQLiteStore
from specverdict.verdict import PairVerdict, Reason
from tests.conftest import campaign_yaml
from tests.integration.report.test_export import drafting_three  # noqa: F401  (the fixture)

CAMPAIGN = campaign_yaml(
    "synthetic",
    model={"family": "fam", "served_name": "target"},
    quantization="int4",
    first=3,
    max_tokens=8,
    warmup=None,
    baseline_repeats=None,
)

# (sample id, baseline text, candidate text, baseline passes, candidate passes)
SAMPLES = [
    ("s0", "return a + b\n", "return a + b\n", True, True),
    ("s1", "return x<y\n", "return x>y\n", True, False),  # differs at character 8
    ("s2", "pass", "pass  # more", False, False),  # the candidate runs on past the end
]


@pytest.fixture
def plan() -> Plan:
    return build_plan(parse_campaign(CAMPAIGN, Path("synthetic.yaml")))


def _store(tmp_path: Path, plan: Plan, *, candidate_runs: bool = True) -> SQLiteStore:
    store = SQLiteStore(tmp_path / "runs.db")
    base_spec, cand_spec = plan.runs
    arms: list[tuple[RunSpec, int]] = [(base_spec, 1), (cand_spec, 2)]
    for spec, which in arms if candidate_runs else arms[:1]:
        run = store.create_run(spec, 0, RunManifest(launch_command=("engine", "--k", str(which))))
        for sid, b_text, c_text, b_pass, c_pass in SAMPLES:
            text, passed = (b_text, b_pass) if which == 1 else (c_text, c_pass)
            store.add_sample(
                SampleRecord(
                    run_id=run.run_id,
                    sample_id=sid,
                    status="ok",
                    text=text,
                    finish_reason="stop",
                    completion_tokens=4,
                    ttft_s=0.01,
                    e2e_s=0.01 + 0.003 * which,
                    score=Score(passed=passed, outcome="passed" if passed else "failed"),
                )
            )
        store.update_run(run.run_id, status="completed")
    return store


def test_wilson_interval_matches_published_values() -> None:
    # Newcombe R.G. (1998), Statistics in Medicine 17:857-872, table I (95%, method 3)
    assert wilson_interval(0, 10, 0.05) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(81, 263, 0.05) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    assert wilson_interval(15, 148, 0.05) == pytest.approx((0.0624, 0.1605), abs=1e-4)


def test_quality_counts_failed_requests_as_not_passed() -> None:
    ok = SampleRecord(run_id="r", sample_id="a", status="ok", score=Score(passed=True, outcome="p"))
    err = SampleRecord(run_id="r", sample_id="b", status="error")
    q = quality_of([ok, err], 0.05)
    assert (q.passed, q.samples, q.pass_rate) == (1, 2, 0.5)
    assert quality_of([err], 0.05).pass_rate is None  # nothing scored: no quality figure


@pytest.mark.parametrize(
    ("status", "gate", "message", "health"),
    [
        ("vacuous", "quality.mcnemar", "vacuous (0 discordant pairs)", "vacuous"),
        ("info", "identity", "3 of 3 identical", "reported only"),
        ("invalid", "pairing", "runs differ outside speculation", "rule broken"),
        ("inconclusive", "quality.signal", "no quality signal", "no data"),
        ("inconclusive", "speed.tpot", "no speed-up figure: too few", "no data"),
        ("reject", "speed.tpot", "no worthwhile speed-up: 0.7x [0.6, 0.8]", "decided on data"),
        (
            "inconclusive",
            "quality.noninferiority",
            "no quality signal: both arms pass 0",
            "no data",
        ),
        (
            "inconclusive",
            "speed.tpot",
            "speed-up 1.1x [0.9, 1.3] not established",
            "decided on data",
        ),
        ("pass", "quality.noninferiority", "pass (upper bound ...)", "decided on data"),
    ],
)
def test_gate_health(status: str, gate: str, message: str, health: str) -> None:
    assert health_of(Reason(gate=gate, status=status, message=message)) == health  # type: ignore[arg-type]


def test_discordant_and_divergent_samples_show_both_outputs(tmp_path: Path, plan: Plan) -> None:
    store = _store(tmp_path, plan)
    data = campaign_report(store, plan, "synthetic.yaml")
    (stage,) = data.stages
    (pair,) = stage.pairs
    kinds = [(x.kind, x.sample_id, x.position) for x in pair.supplement]
    assert kinds == [
        ("discordant", "s1", 8),
        ("divergent", "s1", 8),
        ("divergent", "s2", 4),
    ]
    base, cand = stage.rows
    assert base.quality is not None and cand.quality is not None
    assert (base.quality.passed, cand.quality.passed) == (2, 1)
    assert cand.retention == pytest.approx(0.5)
    html = render_html(data)
    # the first differing character is marked in both outputs
    assert '<mark class="diverge">&lt;</mark>y' in html
    assert '<mark class="diverge">&gt;</mark>y' in html
    assert 'pass<span class="sr-only">[first difference: output ends here]</span>' in html
    assert (
        "discordant sample <code>s1</code>" in html
        and "(baseline passed, candidate failed)" in html
    )
    md = render_markdown(data)
    assert "#### discordant sample `s1`" in md and "first difference at character 8" in md
    assert "```text\nreturn x>y\n\n```" in md
    assert "| mtp k=2 | fam" not in md  # labels in tables have their pipes escaped
    assert "mtp k=2 \\| reference \\| fam \\| int4 \\| function builtin-code@1" in md


def test_a_planned_run_that_never_ran_is_a_row_saying_so(tmp_path: Path, plan: Plan) -> None:
    store = _store(tmp_path, plan, candidate_runs=False)
    data = campaign_report(store, plan)
    base, cand = data.stages[0].rows
    assert base.run_id is not None and cand.run_id is None and cand.summary is None
    (pair,) = data.stages[0].pairs
    assert pair.verdict.verdict == "INCONCLUSIVE"
    assert [h.health for h in pair.health] == ["no data"]
    html = render_html(data)
    assert re.search(r'data-run-id="">.*?not run', html, re.S)
    assert "Nothing to draw: no speed-up figures" in html


def test_highlight_escapes_the_text() -> None:
    assert str(highlight("<a>", 1)) == (
        '&lt;<span class="sr-only">[first difference:]</span><mark class="diverge">a</mark>&gt;'
    )
    assert str(highlight("<a>", None)) == "&lt;a&gt;"


def test_candidate_labels_name_each_parameter_once() -> None:
    from specverdict.campaign import build_plan, load_campaign
    from specverdict.report.model import speculation_label

    demo = Path(__file__).resolve().parents[3] / "examples" / "demo.yaml"
    plan = build_plan(load_campaign(demo))
    labels = {speculation_label(r) for r in plan.runs if r.stage == "function"}
    relaxed = next(label for label in labels if "relaxed" in label)
    assert relaxed == "mtp k=2 acceptance=relaxed relaxed_delta=2.0 relaxed_topk=3"
    ngram = next(label for label in labels if label.startswith("ngram"))
    assert ngram == "ngram k=8 (prompt_lookup_max=5, prompt_lookup_min=2)"


def test_the_k_the_engine_ran_is_beside_the_declared_one_in_every_rendering(
    drafting_three: tuple[Path, list[RunRecord]],  # noqa: F811
) -> None:
    """A candidate declared draft_model k=4 whose engine drafts 3 per step with 3 position
    counters: the verdict (the judge's speculation.k reason) says the engine's k, and the
    report names it beside the declared one in its headlines (HTML, Markdown), its candidate
    label and its JSON, pair and run alike; the declared k stays what it was."""
    db, (base, cand) = drafting_three
    data = runs_report(SQLiteStore(db), [base.run_id, cand.run_id])
    (stage,) = data.stages
    (pair,) = stage.pairs
    v = pair.verdict
    assert v.verdict == "INVALID" and v.reason("speculation.k") is not None
    assert (pair.k, pair.engine_k, v.engine_k) == (4, 3.0, 3.0)
    assert pair.speculation == "draft_model k=4"  # anchors and the matrix keep the label
    assert pair.title == "draft_model k=4 (engine: 3)"
    assert pair.candidate_label.startswith("draft_model k=4 (engine: 3) | reference | ")
    html = unescape(render_html(data))
    assert "draft_model k=4 (engine: 3) against none at concurrency=8" in html
    assert "candidate: draft_model k=4 (engine: 3) | reference" in html
    md = render_markdown(data)
    assert "#### INVALID: draft_model k=4 (engine: 3) against none at concurrency=8" in md
    row = next(r for r in stage.rows if r.role == "candidate")
    assert (row.k, row.engine_k, row.drafted_per_step) == (4, 3, 3.0)
    assert next(r for r in stage.rows if r.role == "baseline").engine_k is None
    raw = json.loads(data.model_dump_json())
    (jpair,) = raw["stages"][0]["pairs"]
    assert (jpair["k"], jpair["engine_k"], jpair["verdict"]["engine_k"]) == (4, 3.0, 3.0)
    # a dumped verdict reads back, its engine k read again from its reasons
    assert PairVerdict.model_validate(jpair["verdict"]) == v
    # the verdict command's table and JSON say the same figure
    out = CliRunner().invoke(
        main_cli, ["compare", base.run_id, cand.run_id, "--db", str(db), "--fail-on", "reject"]
    )
    assert out.exit_code == 0, out.output
    assert "draft_model k=4 (engine: 3)" in " ".join(out.output.split())
    args = ["compare", base.run_id, cand.run_id, "--db", str(db), "--json", "--fail-on", "reject"]
    (jv,) = json.loads(CliRunner().invoke(main_cli, args).stdout)["verdicts"]
    assert jv["engine_k"] == 3.0 and jv["candidate"] == "draft_model k=4"
