"""The reference engine's loader audit before a run: the load report comes through the adapter
(over HTTP, here replaced), and each model is audited against the checkpoint the campaign names,
else the directory the report says the engine loaded it from."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.audit.inventory import inventory_checkpoint
from specverdict.audit.loader import LoadedModel, LoadedTensor
from specverdict.campaign import build_plan, parse_campaign
from specverdict.engines.reference import ReferenceAdapter
from specverdict.records import LoaderOutcome
from specverdict.reference.weights import shipped
from specverdict.run.preflight import loader_audit
from tests.conftest import campaign_yaml

CAMPAIGN = campaign_yaml(
    "preflight",
    candidates=[{"method": "draft_model", "k": 3}],
    first=2,
    max_tokens=8,
    warmup=None,
    baseline_repeats=None,
)


def loaded(role: str, path: str | None, skip: str = "") -> LoadedModel:
    """What the engine reports for a shipped checkpoint, every tensor loaded but ``skip``."""
    tensors = inventory_checkpoint(shipped(role)).tensors
    return LoadedModel(
        role=role,
        path=path,
        loaded=tuple(
            LoadedTensor(name=t.name, shape=t.shape, dtype=t.dtype)
            for t in tensors
            if t.name != skip
        ),
        origin="http://engine/debug/load_report",
    )


def audit_with(
    monkeypatch: pytest.MonkeyPatch, report: list[LoadedModel], extra: str = ""
) -> LoaderOutcome | None:
    asked: list[str] = []

    def load_report(self: ReferenceAdapter, base_url: str, timeout_s: float = 10.0) -> object:
        asked.append(base_url)
        return report

    monkeypatch.setattr(ReferenceAdapter, "load_report", load_report)
    plan = build_plan(parse_campaign(CAMPAIGN + extra, Path("p.yaml")))
    out = loader_audit(plan.campaign, plan.runs[1], "http://127.0.0.1:9")
    assert asked == ["http://127.0.0.1:9"]
    return out


def test_the_reported_directories_are_the_checkpoints_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    report = [
        loaded("target", str(shipped("target"))),
        loaded("draft", str(shipped("draft")), skip="transformer.wte.weight"),
    ]
    outcome = audit_with(monkeypatch, report)
    assert outcome is not None and outcome.error is None and outcome.audit is not None
    models = {m.model: m for m in outcome.audit.models}
    assert models["target"].checkpoint == str(shipped("target"))
    assert models["draft"].checkpoint == str(shipped("draft"))
    assert outcome.findings == ("draft: 1 embedding tensor in the checkpoint was not loaded",)


def test_a_checkpoint_the_campaign_names_wins_over_the_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    report = [loaded("target", "/nowhere/target"), loaded("draft", "/nowhere/draft")]
    named = f"audits: {{loader: {{checkpoint: '{shipped('target')}', draft_checkpoint: '{shipped('draft')}'}}}}\n"
    outcome = audit_with(monkeypatch, report, named)
    assert outcome is not None and outcome.audit is not None, outcome
    assert outcome.audit.clean is True


def test_a_model_the_report_gives_no_directory_is_an_audit_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    report = [loaded("target", str(shipped("target"))), loaded("draft", None)]
    outcome = audit_with(monkeypatch, report)
    assert outcome is not None and outcome.audit is None and outcome.findings == ()
    assert outcome.error == (
        "loader audit could not run: the engine's load report names no checkpoint for "
        "model 'draft': give audits.loader.checkpoint / draft_checkpoint"
    )
