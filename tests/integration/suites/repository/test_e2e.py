"""``repository@1`` end to end on the reference engine: its tiny model answers with text that is
no patch, and every answer must come back scored with a class, not crash the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from specverdict.campaign import build_plan, parse_campaign
from specverdict.run.runner import Runner
from specverdict.sandbox import Sandbox
from specverdict.store import SQLiteStore
from specverdict.suites.repository import Repository
from specverdict.suites.repository.score import read_detail
from tests.conftest import campaign_yaml

# The campaign must name a registered suite to validate; the runner's lookup is patched to
# return the repository suite.
CAMPAIGN = campaign_yaml(
    "repository-e2e",
    candidates=[{"method": "ngram", "k": 3, "params": {"prompt_lookup_min": 1}}],
    stage="repository",
    samples={"ids": ["repository/fahrenheit-to-celsius", "repository/truncate-width"]},
    max_tokens=48,
    concurrency=[2],
    baseline_repeats=None,
)

CLASSES = {
    "resolved",
    "failed",
    "malformed_patch",
    "patch_does_not_apply",
    "empty_patch",
    "timeout",
    "sandbox_violation",
}


def test_a_campaign_scores_the_reference_models_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox: Sandbox
) -> None:
    monkeypatch.setattr(
        "specverdict.run.runner.suite_for", lambda spec: Repository(sandbox=sandbox)
    )
    plan = build_plan(parse_campaign(CAMPAIGN, Path("repository.yaml")))
    store = SQLiteStore(tmp_path / "runs.db")
    runner = Runner(store, log=lambda _: None)
    records = [runner.run_one(plan, spec, 0) for spec in plan.runs]
    assert [r.status for r in records] == ["completed"] * len(plan.runs) == ["completed"] * 2
    for record in records:
        samples = store.samples(record.run_id)
        assert sorted(s.sample_id for s in samples) == [
            "repository/fahrenheit-to-celsius",
            "repository/truncate-width",
        ]
        for sample in samples:
            assert sample.status == "ok" and sample.text
            assert sample.score is not None and sample.score.outcome in CLASSES
            assert not sample.score.passed  # a 64-wide, one-layer model fixes nothing
            detail = read_detail(sample.score)
            assert detail is not None and detail.output_chars == len(sample.text)
            if "@@" not in sample.text and "SEARCH" not in sample.text:
                assert sample.score.outcome == "malformed_patch"
