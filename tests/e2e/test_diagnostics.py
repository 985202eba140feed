"""Diagnostics end to end on the reference engine: a silent loader fault is triaged."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.cli.runs import override_drift
from specverdict.engines.launcher import LaunchedServer, free_port
from specverdict.errors import ConfigError
from specverdict.run.runner import Runner
from specverdict.store import SQLiteStore
from specverdict.verdict import campaign_verdicts
from tests.conftest import server_cmd
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
    audit = store.get_run(broken.run_id).manifest.audits.loader
    assert audit is not None
    (finding,) = audit.findings
    assert finding.startswith("draft:") and "left at initialisation" in finding
    assert f"audits: loader: {finding}" in triage.message
    clean_audit = store.get_run(v.candidate_run_ids[0]).manifest.audits.loader
    assert clean_audit is not None and clean_audit.audit is not None
    assert clean_audit.audit.clean is True and clean_audit.findings == ()


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


def test_a_speculative_config_the_server_silently_drops_is_invalid(tmp_path: Path) -> None:
    """Launch mode, real reference servers: the candidate's server accepts its speculative
    config and runs without it (a lost override). Its speed-up can only be drift: the verdict
    is INVALID with the server's own draft count, and the baseline is checked the same way."""
    text = campaign_text(samples="{first: 6}", max_tokens=24).replace(
        "engine: {kind: reference}",
        "engine: {kind: reference, launch: {env: {SPECVERDICT_REFERENCE_FAULT: speculation-off}}}",
    )
    plan = build_plan(parse_campaign(text, Path("s.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    Runner(store, log=quiet).run_plan(plan)
    (v,) = campaign_verdicts(store, plan)
    assert v.verdict == "INVALID", [str(r) for r in v.reasons]
    (gate,) = [r for r in v.reasons if r.gate == "speculation"]
    assert gate.status == "invalid"
    assert gate.message.startswith(f"candidate run {v.candidate_run_ids[0]} (")
    assert "drafted 0 tokens in 6 requests: speculation is off on this server" in gate.message
    # an A/A pair in all but name: whatever order and warm-up leave, no speed-up is claimed
    speed = v.reason("speed.tpot")
    assert speed is not None and speed.status != "pass", speed.message
    # without the fault the same campaign's servers speculate as declared
    clean = build_plan(
        parse_campaign(campaign_text(samples="{first: 6}", max_tokens=24), Path("c.yaml"))
    )
    store2 = SQLiteStore(tmp_path / "clean.db")
    Runner(store2, log=quiet).run_plan(clean)
    (ok,) = campaign_verdicts(store2, clean)
    good = ok.reason("speculation")
    assert good is not None and good.status == "pass", [str(r) for r in ok.reasons]
    assert good.message == "actual speculation matches the declared one in 2 execution(s)"


class OneServer:
    """One reference server on one port that a person reconfigures between runs: the pause
    restarts it with the flags of the configuration announced (or, when ``forgetful``, leaves
    it as it is, as someone who pressed Enter without reconfiguring)."""

    MTP = ("--speculative-config", '{"method": "mtp", "num_speculative_tokens": 2}')

    def __init__(self, forgetful: bool = False) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.forgetful = forgetful
        self.asked: list[str] = []
        self.server: LaunchedServer | None = None

    def reconfigure(self, message: str) -> None:
        self.asked.append(message)
        if self.server is not None and self.forgetful:
            return
        if self.server is not None:
            self.server.stop()
        flags = () if "no speculation" in message else self.MTP
        self.server = LaunchedServer(
            server_cmd(self.port, "--per-request-spec-decode-metrics", "summary", *flags), self.url
        ).start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()


@pytest.mark.parametrize("forgetful", [False, True])
def test_one_attached_server_reconfigured_between_runs_is_checked(
    tmp_path: Path, forgetful: bool
) -> None:
    text = campaign_text(
        samples="{first: 4}",
        max_tokens=24,
        engine_extra=", base_url: '{url}', reconfigure: between-runs",
    )
    one = OneServer(forgetful)
    plan = build_plan(parse_campaign(text.replace("{url}", one.url), Path("r.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    with pytest.raises(ConfigError, match="needs someone to reconfigure the server"):
        Runner(store, log=quiet).run_plan(plan)
    try:
        Runner(store, log=quiet, reconfigure=one.reconfigure).run_plan(plan)
    finally:
        one.stop()
    assert [m.split(" (")[0] for m in one.asked] == [
        f"set the server at {one.url} up for no speculation",
        f"set the server at {one.url} up for speculation mtp k=2",
    ]
    (v,) = campaign_verdicts(store, plan)
    gate = v.reason("speculation")
    assert gate is not None
    if forgetful:  # the candidate ran on the plain server
        assert v.verdict == "INVALID" and gate.status == "invalid"
        assert "drafted 0 tokens in 4 requests" in gate.message
    else:
        assert gate.status == "pass", [str(r) for r in v.reasons]
