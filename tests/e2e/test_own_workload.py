"""The worked example of docs/workloads.md, run as the page says: two stages on files of your
own (function prompts with per-row tests in the sandbox; tool-calling chats scored by your own
Python function), on the reference engine, through the CLI, to verdicts and a report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import specverdict_cli

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "own-workload"


def test_your_own_prompts_and_scorer_get_verdicts(tmp_path: Path) -> None:
    work = tmp_path / "own-workload"
    shutil.copytree(EXAMPLE, work)  # as a user's folder: the campaign names files beside it
    campaign, db = work / "campaign.yaml", tmp_path / "runs.db"
    ran = specverdict_cli("run", str(campaign), "--db", str(db), timeout=900)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    # run ends with the verdict matrix per stage and the next commands
    assert "stage function (dataset:functions.jsonl@1), speed on TPOT" in ran.stdout
    assert "stage side:tools (dataset:chat.jsonl@1)" in ran.stdout
    assert "next: specverdict report" in ran.stdout and "next: specverdict policy" in ran.stdout
    judged = specverdict_cli("verdict", str(campaign), "--db", str(db), "--json")
    out = json.loads(judged.stdout)
    by_stage = {v["stage"]: v for v in out["verdicts"] if v["slice"] is None}
    assert set(by_stage) == {"function", "side:tools"}
    # the function stage is also judged by prompt length, shortest first, on its own samples
    sliced = [v for v in out["verdicts"] if v["slice"] is not None]
    assert [v["slice"] for v in sliced] == ["prompt_tokens<56", "prompt_tokens>=56"]
    assert all(v["stage"] == "function" and v["candidate"] == "mtp k=2" for v in sliced)
    n = [
        next(r for r in v["reasons"] if r["gate"] == "quality.noninferiority")["data"]["n"]
        for v in sliced
    ]
    assert sum(n) == 100 and min(n) >= 20
    whole = by_stage["function"]["base_pass_rate"]
    assert (
        min(v["base_pass_rate"] for v in sliced)
        <= whole
        <= max(v["base_pass_rate"] for v in sliced)
    )
    rates = [v["acceptance_rate"] for v in sliced]
    assert all(r is not None for r in rates)  # recomputed from the slice's per-request figures
    fn, tools = by_stage["function"], by_stage["side:tools"]
    assert fn["suite"] == "dataset:functions.jsonl@1"
    # the rows' own tests give a real quality signal: some pass, some fail, on both arms alike
    assert 0.3 <= fn["base_pass_rate"] <= 0.9 and fn["cand_pass_rate"] == fn["base_pass_rate"]
    gates = {r["gate"]: r for r in fn["reasons"]}
    assert gates["quality.noninferiority"]["status"] in ("pass", "inconclusive")
    assert gates["identity"]["data"]["share"] == 1.0  # lossless MTP: the same answers
    # the user's scorer judged the tool calls (its failure classes, or passes)
    assert tools["base_pass_rate"] is not None and tools["base_pass_rate"] > 0.5
    report = specverdict_cli("report", str(campaign), "--db", str(db), "--out", str(tmp_path / "r"))
    assert report.returncode == 0, report.stderr
    md = (tmp_path / "r" / "report.md").read_text()
    assert "dataset:functions.jsonl@1" in md and "dataset:chat.jsonl@1" in md
    # a changed file is another run: planning again after an edit plans new runs of that stage
    before = json.loads(specverdict_cli("validate", str(campaign), "--json").stdout)
    rows = (work / "chat.jsonl").read_text().splitlines()
    (work / "chat.jsonl").write_text("\n".join(rows[:-1]) + "\n")
    after = json.loads(specverdict_cli("validate", str(campaign), "--json").stdout)
    changed = {a["fingerprint"] for a in after["runs"]} - {b["fingerprint"] for b in before["runs"]}
    assert len(changed) == 2  # the tools stage's baseline and candidate, not the function stage
    assert before["requests"] - after["requests"] == 3  # 3 executions, one row fewer each
