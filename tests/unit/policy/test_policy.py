"""The policy from verdicts: ADOPT cells only, vLLM's per-batch-size k schedule, and the
median - MAD rule of vLLM's tune_speculative_k on the same sweep data, with the reason where
the two differ."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from specverdict.campaign import build_plan, load_campaign
from specverdict.campaign.plan import Plan
from specverdict.policy import build_policy, madrule
from specverdict.policy.build import pair_key
from specverdict.policy.model import Expectations, Figure, OverridesTarget, PairEvidence
from specverdict.verdict.model import PairVerdict, Reason, Verdict

CAMPAIGN = """\
name: policy-test
engine: {kind: vllm, launch: {}}
model: {family: specverdict-reference, served_name: reference-target}
quantization: fp32
candidates:
  - {method: eagle, k: [1, 3], draft: drafter}
stages:
  function: {suite: builtin-code@1, samples: {first: 4}}
load: {concurrency: [1, 8, 32]}
"""


@pytest.fixture
def plan(tmp_path: Path) -> Plan:
    path = tmp_path / "c.yaml"
    path.write_text(CAMPAIGN)
    return build_plan(load_campaign(path))


def verdict(
    load: int,
    k: int,
    v: Verdict,
    speedup: tuple[float, float, float] | None,
    gate: str = "",
) -> PairVerdict:
    status = {"REJECT": "reject", "INCONCLUSIVE": "inconclusive", "INVALID": "invalid"}
    reasons = (Reason(gate=gate, status=status[v], message=f"{gate} decided"),) if gate else ()
    return PairVerdict(
        stage="function",
        suite="builtin-code@1",
        load=f"concurrency={load}",
        baseline="none",
        candidate=f"eagle k={k}",
        baseline_run_ids=(f"b{load}",),
        candidate_run_ids=(f"c{load}k{k}",),
        verdict=v,
        reasons=reasons,
        speedup=None if speedup is None else speedup[1],
        speedup_interval=None if speedup is None else (speedup[0], speedup[2]),
    )


def evidence(base: list[float], cand: list[float], mal: float = 2.2) -> PairEvidence:
    return PairEvidence(
        acceptance=Figure(point=0.6, lower=0.55, upper=0.65),
        mean_accepted_length=Figure(point=mal, lower=mal - 0.1, upper=mal + 0.1),
        dispersion=1.5,
        baseline_throughputs=tuple(base),
        candidate_throughputs=tuple(cand),
    )


#: the sweep: per concurrency, the baseline's and each k's output tok/s over three executions
SWEEP = {
    # c=1: both ADOPT; k=3 best on throughput and on the speed-up interval: both rules agree
    1: ([10.0, 10.2, 9.9], {1: [13.0, 13.1, 12.9], 3: [17.0, 17.2, 16.9]}),
    # c=8: k=3 is fastest but REJECT on quality; k=1 ADOPT
    8: ([60.0, 61.0, 59.0], {1: [70.0, 70.5, 69.5], 3: [90.0, 91.0, 89.0]}),
    # c=32: k=1 a bit faster on median but INCONCLUSIVE on the speed interval; k=3 REJECT
    32: ([200.0, 230.0, 170.0], {1: [215.0, 240.0, 214.0], 3: [150.0, 151.0, 149.0]}),
}
VERDICTS = [
    verdict(1, 1, "ADOPT", (1.2, 1.3, 1.4)),
    verdict(1, 3, "ADOPT", (1.6, 1.7, 1.8)),
    verdict(8, 1, "ADOPT", (1.1, 1.17, 1.25)),
    verdict(8, 3, "REJECT", (1.4, 1.5, 1.6), "quality.noninferiority"),
    verdict(32, 1, "INCONCLUSIVE", (0.9, 1.08, 1.3), "speed.interval"),
    verdict(32, 3, "REJECT", (0.7, 0.75, 0.8), "speed.min_speedup"),
]


def build(plan: Plan) -> tuple[object, Expectations]:
    ev = {}
    for v in VERDICTS:
        c = int(v.load.removeprefix("concurrency="))
        k = int(v.candidate.removeprefix("eagle k="))
        base, cands = SWEEP[c]
        ev[pair_key(v)] = evidence(base, cands[k], mal=1.0 + 0.6 * k)
    overrides = OverridesTarget(manifest="/srv/overrides.yaml", root="/srv/mounts")
    return build_policy(plan, VERDICTS, ev, overrides)


def test_each_cell_runs_its_best_adopt_candidate_and_off_without_one(plan: Plan) -> None:
    policy, _ = build(plan)
    (stage,) = policy.stages  # type: ignore[attr-defined]
    choice = {c.concurrency: c.choice for c in stage.cells}
    assert choice == {1: "eagle k=3", 8: "eagle k=1", 32: "none"}
    off = stage.cells[2]
    assert off.engine_args == ()  # the baseline: no speculative flags
    assert "no candidate is ADOPT" in off.why and "speed.interval" in off.why
    on = stage.cells[0]
    assert on.speedup_interval == (1.6, 1.8)
    assert on.engine_args[0] == "--speculative-config"
    assert json.loads(on.engine_args[1]) == {
        "method": "eagle",
        "num_speculative_tokens": 3,
        "model": "drafter",
    }


def test_vllm_schedule_folds_levels_into_num_speculative_tokens_per_batch_size(
    plan: Plan,
) -> None:
    policy, _ = build(plan)
    config = policy.stages[0].vllm_speculative_config  # type: ignore[attr-defined]
    assert config == {
        "method": "eagle",
        "num_speculative_tokens": 3,
        "model": "drafter",
        "num_speculative_tokens_per_batch_size": [[1, 7, 3], [8, 31, 1], [32, 32, 0]],
    }
    notes = " ".join(policy.stages[0].notes)  # type: ignore[attr-defined]
    assert "above 32 were not measured" in notes


def test_median_mad_rule_on_the_same_sweep_and_why_the_policy_differs(plan: Plan) -> None:
    # The rule itself on the sweep, as vLLM's tuner would see it (batch size = concurrency).
    points = [
        madrule.SweepPoint(c, label, k, t)
        for c, (base, cands) in SWEEP.items()
        for label, k, ts in [("none", 0, base), *((f"eagle k={k}", k, v) for k, v in cands.items())]
        for t in ts
    ]
    rule = {c: m.configuration for c, m in madrule.select(points).items()}
    assert rule == {1: "eagle k=3", 8: "eagle k=3", 32: "eagle k=1"}
    # c=32: k=1's median 215 - 1.4826 * MAD 1 = 213.5 beats the baseline's 200 - 1.4826 * 30
    policy, _ = build(plan)
    cells = {c.concurrency: c for c in policy.stages[0].cells}  # type: ignore[attr-defined]
    assert cells[1].mad_rule.agrees and cells[1].mad_rule.why == ""
    for c in (8, 32):
        assert not cells[c].mad_rule.agrees
        assert cells[c].mad_rule.choice == rule[c]
    assert cells[8].mad_rule.why.startswith("quality gate: ")
    assert "REJECT" in cells[8].mad_rule.why
    assert cells[32].mad_rule.why.startswith("interval: ")
    assert "INCONCLUSIVE" in cells[32].mad_rule.why


def test_rule_prefers_the_smaller_k_within_its_tie_band() -> None:
    pts = [
        madrule.SweepPoint(1, "a", 2, 100.0),
        madrule.SweepPoint(1, "b", 4, 100.5),  # within 1 %: tied, the smaller k wins
    ]
    assert madrule.select(pts)[1].configuration == "a"
    pts.append(madrule.SweepPoint(1, "c", 5, 110.0))
    assert madrule.select(pts)[1].configuration == "c"


def test_expectations_pin_adopt_cells_with_intervals_runs_and_overrides(plan: Plan) -> None:
    _, exp = build(plan)
    assert exp.schema_version == 1
    assert [(e.load, e.configuration) for e in exp.expectations] == [
        ("concurrency=1", "eagle k=3"),
        ("concurrency=8", "eagle k=1"),
    ]
    first = exp.expectations[0]
    assert first.run_ids == ("c1k3",) and first.baseline_run_ids == ("b1",)
    assert first.mean_accepted_length.lower == pytest.approx(2.7)
    assert exp.overrides is not None and exp.overrides.root == "/srv/mounts"
    with pytest.raises(ValidationError):
        first.k = 9  # frozen
    again = Expectations.model_validate_json(exp.model_dump_json())
    assert again == exp


def test_policy_command_writes_files(
    plan: Plan, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from specverdict.cli import policy as cli_policy
    from specverdict.cli.main import cli

    campaign = tmp_path / "c.yaml"
    campaign.write_text(CAMPAIGN)

    def fake_evidence(store: object, verdicts: object, ks: object) -> dict[object, PairEvidence]:
        return {pair_key(v): evidence([10.0], [20.0]) for v in VERDICTS}

    monkeypatch.setattr(cli_policy, "open_registry", lambda db: None)
    monkeypatch.setattr(cli_policy, "campaign_verdicts", lambda store, plan: VERDICTS)
    monkeypatch.setattr(cli_policy, "collect_evidence", fake_evidence)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli, ["policy", str(campaign), "--db", str(tmp_path / "r.db"), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "vLLM: --speculative-config" in result.output
    written = Expectations.model_validate_json((out / "expectations.json").read_text())
    assert len(written.expectations) == 2
    assert json.loads((out / "policy.json").read_text())["schema_version"] == 1


def test_a_configuration_run_anyway_is_pinned_with_a_warning_and_watch_reads_it(
    plan: Plan, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing ADOPT at concurrency 32: `policy --configuration 'eagle k=1'` pins that
    configuration wherever it was measured, says where it is not ADOPT, records the verdict,
    and `watch` accepts the file (before: an empty file and "known: none")."""
    from specverdict.cli import policy as cli_policy
    from specverdict.cli.main import cli
    from specverdict.watch.expect import choose

    campaign = tmp_path / "c.yaml"
    campaign.write_text(CAMPAIGN)
    monkeypatch.setattr(cli_policy, "open_registry", lambda db: None)
    monkeypatch.setattr(cli_policy, "campaign_verdicts", lambda store, plan: VERDICTS[4:])
    monkeypatch.setattr(
        cli_policy,
        "collect_evidence",
        lambda store, verdicts, ks: {pair_key(v): evidence([10.0], [11.0]) for v in VERDICTS},
    )
    args = ["policy", str(campaign), "--db", str(tmp_path / "r.db"), "--out"]
    plain = CliRunner().invoke(cli, [*args, str(tmp_path / "plain")])
    assert plain.exit_code == 0, plain.output
    assert "pins nothing" in plain.output and "--configuration LABEL" in plain.output
    runner = CliRunner()
    pinned = runner.invoke(cli, [*args, str(tmp_path / "out"), "--configuration", "eagle k=1"])
    assert pinned.exit_code == 0, pinned.output
    assert (
        "warning: eagle k=1 in stage function at concurrency=32 is INCONCLUSIVE "
        "(speed.interval: speed.interval decided): pinned anyway" in pinned.output
    )
    written = Expectations.model_validate_json((tmp_path / "out" / "expectations.json").read_text())
    (e,) = written.expectations
    assert (e.configuration, e.load, e.verdict, e.k) == (
        "eagle k=1",
        "concurrency=32",
        "INCONCLUSIVE",
        1,
    )
    chosen, base = choose(written, None, None, "expectations.json")
    assert chosen == e and base.fixed_k and base.k == 1
    unknown = runner.invoke(cli, [*args, str(tmp_path / "x"), "--configuration", "mtp k=9"])
    assert unknown.exit_code == 2
    assert (
        "--configuration 'mtp k=9': no candidate of the campaign; known: eagle k=1, eagle k=3"
        in (unknown.output)
    )


def test_watch_on_an_empty_expectations_file_says_what_to_run() -> None:
    from specverdict.errors import ConfigError
    from specverdict.watch.expect import choose

    empty = Expectations(campaign="c", engine="vllm", expectations=())
    with pytest.raises(ConfigError, match=r"known: none\): the policy pins ADOPT configurations"):
        choose(empty, None, None, "expectations.json")


def test_an_engine_running_another_k_is_pinned_with_it_and_watch_compares_with_it(
    plan: Plan, tmp_path: Path
) -> None:
    """eagle k=3 whose engine keeps one position counter and drafts 1 token per step: the
    judge makes the pair INVALID naming both; `--configuration 'eagle k=3'` pins it with
    engine_k 1 beside k 3, its warning and the cell's why say so, and watch's
    configuration-change alarm compares a window with the engine's k: 1 token per step is what
    was measured, half a token is a change. An expectations file written before engine_k
    (no such key) still loads, and watch compares with the declared k as before."""
    from specverdict.policy.build import pinned_anyway
    from specverdict.records.acceptance import AcceptanceSummary
    from specverdict.verdict import judge_pair
    from specverdict.watch.detect import Baseline, Counters, DetectorConfig, DetectorState, step
    from specverdict.watch.expect import choose, load_expectations
    from tests.unit.verdict.test_judge import GATES, arm, noisy, samples, twice

    specs = {r.speculation.label: r for r in plan.runs if r.load.label == "concurrency=8"}
    one = AcceptanceSummary(
        source="metrics-delta",
        valid=True,
        drafts=200.0,
        draft_tokens=200.0,
        accepted=120.0,
        accepted_per_pos=(120.0,),
    )
    n = 30
    v = judge_pair(
        twice(specs["none"], n, [True] * n),
        arm(specs["eagle k=3"], samples("c", noisy(n, 0.012, 2), [True] * n), acc=one),
        GATES,
        stage="function",
        candidate_label="eagle k=3",
        baseline_label="none",
        suite="builtin-code@1",
        load="concurrency=8",
    )
    assert v.verdict == "INVALID" and v.engine_k == 1.0
    assert v.candidate_label == "eagle k=3 (engine: 1)"
    ev = {pair_key(v): evidence([10.0], [11.0], mal=1.6)}
    (e,), warnings = pinned_anyway(plan, [v], ev, ["eagle k=3"])
    assert (e.configuration, e.k, e.engine_k, e.verdict) == ("eagle k=3", 3, 1.0, "INVALID")
    assert warnings[0].startswith("eagle k=3 (engine: 1) in stage function at concurrency=8")
    policy, exp = build_policy(plan, [v], ev, pin=["eagle k=3"])
    (cell,) = policy.stages[0].cells
    assert cell.choice == "none" and "eagle k=3 (engine: 1) INVALID" in cell.why
    assert cell.considered[0].engine_k == 1.0
    assert exp.expectations == (e,)
    path = tmp_path / "expectations.json"
    path.write_text(exp.model_dump_json(indent=2))
    chosen, base = choose(load_expectations(path), None, None, str(path))
    assert (chosen.engine_k, base.k, base.engine_k, base.fixed_k) == (1.0, 3, 1.0, True)

    def first_window(base: Baseline, drafts: float, tokens: float) -> list[str]:
        config = DetectorConfig()
        s, _ = step(DetectorState(), Counters(drafts=0, draft_tokens=0, accepted=0), base, config)
        _, events = step(
            s, Counters(drafts=drafts, draft_tokens=tokens, accepted=0.6 * drafts), base, config
        )
        return [x.message for x in events if x.kind == "alarm"]

    assert first_window(base, 200, 200) == []  # the engine's k, as measured
    (alarm,) = first_window(base, 200, 100)
    assert "0.50 drafted tokens per step against the pinned engine k=1 (declared k=3)" in alarm
    # a file written before engine_k: no key, the declared k as before
    raw = json.loads(path.read_text())
    del raw["expectations"][0]["engine_k"]
    path.write_text(json.dumps(raw))
    old, old_base = choose(load_expectations(path), None, None, str(path))
    assert old.engine_k is None and old_base.engine_k is None
    (alarm,) = first_window(old_base, 200, 200)
    assert "1.00 drafted tokens per step against the pinned k=3" in alarm


def test_a_candidate_with_its_own_k_schedule_is_not_folded_again() -> None:
    from specverdict.campaign.spec import Speculation
    from specverdict.policy.build import vllm_schedule
    from specverdict.policy.model import Cell

    own = Speculation(method="eagle", k=3, k_schedule=((1, 8, 3), (9, 64, 1)))
    cells = [
        Cell(load="concurrency=1", concurrency=1, choice=own.label, speculation=own, why=""),
        Cell(
            load="concurrency=32", concurrency=32, choice="none", speculation=Speculation(), why=""
        ),
    ]
    config, notes = vllm_schedule(cells, {})
    assert config is None
    assert "its own k schedule" in notes[0]


def test_an_adopt_cell_that_verifies_adaptively_writes_enable_adaptive_verification() -> None:
    from pathlib import Path

    from specverdict.campaign import build_plan, parse_campaign
    from specverdict.campaign.spec import Speculation
    from specverdict.engines.vllm import ADAPTIVE_KEY
    from specverdict.policy.build import vllm_schedule
    from specverdict.policy.model import Cell

    text = (
        "name: p\nengine: {kind: vllm, launch: {}}\nmodel: {family: f, served_name: m}\n"
        "quantization: bf16\ncandidates:\n  - {method: dspark, k: 7}\nstages:\n"
        "  function: {suite: builtin-code@1, samples: {first: 1}}\n"
    )
    (run,) = build_plan(parse_campaign(text, Path("p.yaml"))).runs[1:]
    sp = run.speculation
    assert sp.label == "dspark k=7 adaptive"
    cells = [
        Cell(load="concurrency=1", concurrency=1, choice=sp.label, speculation=sp, why=""),
        Cell(load="concurrency=32", concurrency=32, choice=sp.label, speculation=sp, why=""),
        Cell(
            load="concurrency=256",
            concurrency=256,
            choice="none",
            speculation=Speculation(),
            why="",
        ),
    ]
    config, notes = vllm_schedule(cells, {sp.label: run})
    assert config == {"method": "dspark", "num_speculative_tokens": 7, ADAPTIVE_KEY: True}
    assert "verifies adaptively (enable_adaptive_verification: true)" in notes[0]
    assert "not ADOPT at concurrency=256" in notes[1]
