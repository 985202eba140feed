"""The pre-flight checklist: its items from a campaign and the registry, and `run` refusing."""

from __future__ import annotations

import json
from pathlib import Path

from specverdict.campaign import build_plan, parse_campaign
from specverdict.run.checklist import evaluate
from tests.conftest import specverdict_cli

CAMPAIGN = """\
name: checklist
engine: {{kind: {kind}{base}}}
model: {{family: f, served_name: m}}
quantization: bf16
{baseline}candidates:
  - {{method: mtp, k: 2}}
stages:
  function: {{suite: {suite}}}
"""


def items(
    kind: str = "reference", suite: str = "humaneval@1", baseline: str = ""
) -> dict[str, tuple[str, str]]:
    base = (
        ", base_url: 'http://127.0.0.1:9', reconfigure: between-runs" if kind != "reference" else ""
    )
    text = CAMPAIGN.format(kind=kind, base=base, suite=suite, baseline=baseline)
    plan = build_plan(parse_campaign(text, Path("c.yaml")))
    return {i.name: (i.status, i.why) for i in evaluate(plan)}


def test_a_scored_reference_campaign_has_nothing_missing() -> None:
    got = items()
    assert {k: v[0] for k, v in got.items() if v[0] == "missing"} == {}
    assert got["baseline"][0] == "unknown"  # defined, not yet stored
    assert got["audits configured"][0] == "unknown"  # overrides not configured


def test_missing_items() -> None:
    assert items(baseline="baseline: null\n")["baseline"][0] == "missing"
    unscored = items(suite="builtin-code@1")["quality observable"]
    assert unscored[0] == "missing" and "builtin-code@1 has no scorer" in unscored[1]
    assert items(kind="openai")["acceptance recordable"][0] == "missing"
    assert items(kind="vllm")["acceptance recordable"][0] == "unknown"


def test_run_refuses_a_missing_item_unless_forced(tmp_path: Path) -> None:
    campaign = tmp_path / "c.yaml"
    campaign.write_text(
        CAMPAIGN.format(kind="reference", base="", suite="builtin-code@1", baseline="")
    )
    db = str(tmp_path / "runs.db")
    proc = specverdict_cli("run", str(campaign), "--db", db, timeout=120)
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "checklist item(s) missing: quality observable" in line and "--force" in line
    listed = specverdict_cli("checklist", str(campaign), "--db", db, "--json", timeout=120)
    assert listed.returncode == 1
    assert {i["name"] for i in json.loads(listed.stdout)["items"] if i["status"] == "missing"} == {
        "quality observable"
    }


def test_claims_are_checked_against_a_measured_run(tmp_path: Path) -> None:
    from specverdict.run.runner import Runner
    from specverdict.store import SQLiteStore

    text = CAMPAIGN.format(kind="reference", base="", suite="builtin-code@1", baseline="")
    text = text.replace(
        "function: {suite: builtin-code@1}",
        "function: {suite: builtin-code@1, samples: {first: 2}}",
    )
    text += "sampling: {max_tokens: 12}\nclaims:\n  - {source: vendor blog, method: mtp, k: 2, speedup: 9.0}\n"
    plan = build_plan(parse_campaign(text, Path("c.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    before = {i.name: i.why for i in evaluate(plan, store)}["claims are not expectations"]
    assert "vendor blog: mtp k=2 9x: no measured run yet" in before
    for spec in plan.runs:
        Runner(store, log=lambda _: None).run_one(plan, spec, 0)
    after = {i.name: i.why for i in evaluate(plan, store)}["claims are not expectations"]
    assert "vendor blog: mtp k=2 9x: unattainable: 9.00x at k=2" in after, after


def test_episode_suites_count_as_scored() -> None:
    from specverdict.run.checklist import has_scorer
    from specverdict.suites.registry import get_suite

    assert has_scorer(get_suite("agent-tasks@1")) and has_scorer(get_suite("synth-agent@2"))
    assert has_scorer(get_suite("synth-function@1")) and has_scorer(get_suite("synth-repository@2"))
    assert not has_scorer(get_suite("builtin-code@1"))
