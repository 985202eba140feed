"""Diagnostics end to end on the reference engine: a silent loader fault is triaged."""

from __future__ import annotations

from pathlib import Path

from specverdict.campaign import build_plan, parse_campaign
from specverdict.cli.runs import override_drift
from specverdict.runner import Runner
from specverdict.store import SQLiteStore
from specverdict.verdict import campaign_verdicts
from tests.e2e.test_runner import campaign_text, quiet


def test_a_silently_skipped_draft_tensor_is_triaged_as_a_draft_path_problem(
    tmp_path: Path,
) -> None:
    text = campaign_text(
        candidates="  - {method: draft_model, k: 3}", samples="{first: 6}", max_tokens=40
    )
    clean = build_plan(parse_campaign(text, Path("d.yaml")))
    # the same configuration (same fingerprint) started in an environment that changes what
    # the loader does: the engine comes up normally, outputs stay correct
    faulty = build_plan(
        parse_campaign(
            text.replace(
                "engine: {kind: reference}",
                "engine: {kind: reference, launch: {env: "
                "{SPECVERDICT_REFERENCE_FAULT: 'draft-skip=transformer.h.0.*'}}}",
            ),
            Path("d.yaml"),
        )
    )
    assert [r.fingerprint for r in clean.runs] == [r.fingerprint for r in faulty.runs]
    store = SQLiteStore(tmp_path / "runs.db")
    runner = Runner(store, log=quiet)
    runner.run_one(clean, clean.runs[0], 0)
    runner.run_one(clean, clean.runs[1], 0)
    broken = runner.run_one(faulty, faulty.runs[1], 1)
    (v,) = campaign_verdicts(store, clean)
    triage = v.reason("triage")
    assert triage is not None, [str(r) for r in v.reasons]
    assert triage.message.startswith(f"run {broken.run_id}: acceptance")
    assert "greedy outputs still 100% identical" in triage.message
    assert "suspect the draft path" in triage.message
    assert triage.data["rate"] < 0.75 * triage.data["reference"]
    # the loader audit of the faulty run names the skipped tensors, and the triage carries it
    audit = store.get_run(broken.run_id).manifest["audits"]["loader"]
    (finding,) = audit["findings"]
    assert finding.startswith("draft:") and "left at initialisation" in finding
    assert f"audits: loader: {finding}" in triage.message
    clean_audit = store.get_run(v.candidate_run_ids[0]).manifest["audits"]["loader"]
    assert clean_audit["clean"] is True and clean_audit["findings"] == []


def test_an_override_lost_between_runs_makes_the_verdict_invalid(tmp_path: Path) -> None:
    mount = tmp_path / "mount"
    (mount / "draft").mkdir(parents=True)
    (mount / "draft" / "generation_config.json").write_text('{"patched": true}\n')
    manifest = tmp_path / "overrides.yaml"
    manifest.write_text('files:\n  draft/generation_config.json:\n    marker: "patched"\n')
    text = campaign_text(samples="{first: 2}", max_tokens=8) + (
        f"audits: {{overrides: {{manifest: '{manifest}', root: '{mount}'}}}}\n"
    )
    plan = build_plan(parse_campaign(text, Path("o.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    runner = Runner(store, log=quiet)
    runner.run_one(plan, plan.runs[0], 0)
    runner.run_one(plan, plan.runs[1], 0)
    (mount / "draft" / "generation_config.json").unlink()  # the container was re-created
    runner.run_one(plan, plan.runs[1], 1)
    (v,) = campaign_verdicts(store, plan)
    assert v.verdict == "INVALID"
    drift = v.reason("overrides")
    assert drift is not None and drift.message.startswith(
        "overrides drifted: draft/generation_config.json was in place"
    )
    last = max(store.list_runs(), key=lambda r: r.created_at)
    (line,) = override_drift(store, last)
    assert line.startswith("overrides drifted: draft/generation_config.json") and "missing" in line
