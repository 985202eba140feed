"""`specverdict verdict` and `compare` on runs measured against the real reference engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import campaign_yaml, specverdict_cli

CAMPAIGN = campaign_yaml(
    "verdict-e2e", first=6, gates={"alpha": 0.05, "margin": 0.02, "min_speedup": 1.05}
)


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("verdict")
    campaign = root / "campaign.yaml"
    campaign.write_text(CAMPAIGN)
    db = root / "runs.db"
    proc = specverdict_cli("run", str(campaign), "--db", str(db), "--force")
    assert proc.returncode == 0, proc.stderr
    return campaign, db


def test_reference_runs_are_never_adopted_on_quality_grounds(measured: tuple[Path, Path]) -> None:
    campaign, db = measured
    proc = specverdict_cli("verdict", str(campaign), "--db", str(db), "--json")
    out = json.loads(proc.stdout)
    assert out["schema_version"] == 1
    (v,) = out["verdicts"]
    # the built-in suite has no scorer: quality cannot be decided, so no ADOPT
    assert v["verdict"] in ("INCONCLUSIVE", "REJECT")
    assert proc.returncode == {"INCONCLUSIVE": 3, "REJECT": 1}[v["verdict"]]
    gates = {r["gate"]: r for r in v["reasons"]}
    assert gates["quality.signal"]["status"] == "inconclusive"
    assert gates["pairing"]["status"] == "pass"
    assert gates["acceptance"]["data"]["source"] == "per-request"
    assert gates["identity"]["data"]["share"] == 1.0  # greedy speculation is lossless
    assert v["stage"] == "function" and v["candidate"] == "mtp k=2"
    assert len(v["baseline_run_ids"]) == len(v["candidate_run_ids"]) == 1


def test_fail_on_chooses_which_verdicts_fail(measured: tuple[Path, Path]) -> None:
    campaign, db = measured
    assert (
        specverdict_cli(
            "verdict", str(campaign), "--db", str(db), "--fail-on", "invalid"
        ).returncode
        == 0
    )
    table = specverdict_cli("verdict", str(campaign), "--db", str(db), "--fail-on", "adopt,invalid")
    assert table.returncode == 0
    assert "stage function (builtin-code@1)" in table.stdout
    assert "quality.signal: no quality signal" in table.stdout


def test_compare_judges_two_stored_runs(measured: tuple[Path, Path]) -> None:
    campaign, db = measured
    runs = json.loads(specverdict_cli("verdict", str(campaign), "--db", str(db), "--json").stdout)
    runs = runs["verdicts"][0]
    base, cand = runs["baseline_run_ids"][0], runs["candidate_run_ids"][0]
    proc = specverdict_cli("compare", base, cand, "--db", str(db), "--json")
    (v,) = json.loads(proc.stdout)["verdicts"]
    assert v["verdict"] == runs["verdict"]
    assert v["speedup"] == pytest.approx(runs["speedup"])
    # the same run against itself is refused as a comparison
    same = json.loads(specverdict_cli("compare", base, base, "--db", str(db), "--json").stdout)[
        "verdicts"
    ][0]
    assert same["verdict"] == "INVALID"


@pytest.mark.parametrize(
    "args, expected",
    [
        (["verdict", "{campaign}", "--fail-on", "maybe"], "unknown verdict 'MAYBE'"),
        (["compare", "nope", "nada"], "no run 'nope'"),
        (["verdict", "{campaign}", "--db", "{missing}"], "no run registry at"),
        (["compare", "a", "b", "--margin", "1.5"], "gate settings"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    measured: tuple[Path, Path], args: list[str], expected: str
) -> None:
    campaign, db = measured
    filled = [a.format(campaign=campaign, missing=campaign.parent / "none.db") for a in args]
    if "--db" not in filled:
        filled += ["--db", str(db)]
    proc = specverdict_cli(*filled)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], proc.stderr
