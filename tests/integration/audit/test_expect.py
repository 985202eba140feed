"""``specverdict expect``: the textbook formula, claims, step costs, and a real measured run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specverdict.measure.results import run_results
from specverdict.store import SQLiteStore
from tests.conftest import campaign_yaml, specverdict_cli

CAMPAIGN = campaign_yaml(
    "expect-e2e",
    candidates=[{"method": "draft_model", "k": 3}],
    max_tokens=24,
    gates={"alpha": 0.05, "margin": 0.02, "min_speedup": 1.05},
)


def expect_json(*args: str, code: int | None = 0) -> dict[str, object]:
    """``expect --json``; ``code`` 1 when the claim is not attainable, None when that depends on
    what a run measured (then the exit code must agree with the answer's ``attainable``)."""
    proc = specverdict_cli("expect", *args, "--json")
    out: dict[str, object] = json.loads(proc.stdout) if proc.stdout else {}
    expected = code if code is not None else (1 if out.get("attainable") is False else 0)
    assert proc.returncode == expected, proc.stderr
    return out


@pytest.mark.parametrize("a, k", [(0.7, 4), (0.5, 1), (0.9, 7), (0.0, 3)])
def test_iid_reproduces_the_textbook_formula(a: float, k: int) -> None:
    out = expect_json("--acceptance", str(a), "--k", str(k))
    textbook = (1 - a ** (k + 1)) / (1 - a)
    assert out["expected_accepted_length"] == pytest.approx(textbook, rel=1e-12)
    # no costs given: R = 1 is assumed and said so, and the speed-up is E itself
    assert out["step_cost"] == 1.0
    assert out["expected_speedup"] == pytest.approx(textbook, rel=1e-12)
    assert out["sources"]["step_cost"].startswith("assumed")  # type: ignore[index]
    assert out["assumptions"]


def test_costs_and_a_claim_beyond_k_plus_one() -> None:
    out = expect_json(
        "--acceptance", "0.8", "--k", "3", "--draft-cost", "0.05", "--verify-cost", "1.1,1.2,1.3",
        "--claim", "4.5x", code=1,
    )  # fmt: skip
    e = (1 - 0.8**4) / 0.2
    assert out["step_cost"] == pytest.approx(1.3 + 3 * 0.05)  # V_k for k = 3
    assert out["expected_speedup"] == pytest.approx(e / 1.45)
    assert out["required_accepted_length"] == pytest.approx(4.5 * 1.45)
    assert out["attainable"] is False  # needs 6.5 tokens per step, k + 1 = 4
    assert out["plausible"] is False
    assert str(out["claim_verdict"]).startswith("unattainable")
    text = specverdict_cli("expect", "--acceptance", "0.8", "--k", "3", "--claim", "4.5")
    assert text.returncode == 1 and "not attainable at k = 3" in text.stdout


def test_per_position_and_plausibility() -> None:
    out = expect_json("--per-position", "0.9,0.8,0.5", "--verify-cost", "1.2", "--claim", "2x")
    assert out["k"] == 3
    assert out["expected_accepted_length"] == pytest.approx(1 + 0.9 + 0.72 + 0.36)
    assert out["position_rates"] == pytest.approx([0.9, 0.72, 0.36])
    assert out["required_accepted_length"] == pytest.approx(2.4)
    assert out["attainable"] is True and out["plausible"] is True
    hard = expect_json("--per-position", "0.6,0.3", "--claim", "2.0x")
    assert hard["attainable"] is True and hard["plausible"] is False  # 1.78 < 2.0


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--acceptance", "0.7"], "--acceptance needs --k"),
        (["--acceptance", "1.5", "--k", "2"], "--acceptance must be in [0, 1]"),
        (["--acceptance", "0.7", "--per-position", "0.5", "--k", "1"], "exactly one of"),
        (["--per-position", "0.5,0.4", "--k", "3"], "--per-position has 2 values for --k 3"),
        (["--per-position", "0.5,x"], "expected comma-separated numbers"),
        (["--acceptance", "0.5", "--k", "2", "--claim", "fast"], "--claim fast"),
        (["--acceptance", "0.5", "--k", "3", "--verify-cost", "1,1"], "none for k = 3"),
        (["--acceptance", "0.5", "--k", "3", "--draft-cost", "-1"], "c_draft must be"),
        (["--run", "abc", "--db", "/nonexistent/runs.db"], "no run registry at"),
    ],
)
def test_usage_errors_exit_2(args: list[str], expected: str) -> None:
    proc = specverdict_cli("expect", *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], proc.stderr


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    root = tmp_path_factory.mktemp("expect")
    campaign = root / "campaign.yaml"
    campaign.write_text(CAMPAIGN)
    db = root / "runs.db"
    # --force: the built-in suite has no scorer, which the pre-flight checklist reports
    proc = specverdict_cli("run", str(campaign), "--db", str(db), "--force")
    assert proc.returncode == 0, proc.stderr
    runs = SQLiteStore(db).list_runs()
    cand = next(r.run_id for r in runs if r.spec.speculation.method != "none")
    base = next(r.run_id for r in runs if r.spec.speculation.method == "none")
    return db, cand, base


def test_run_measures_acceptance_and_step_cost(measured: tuple[Path, str, str]) -> None:
    db, cand, base = measured
    # measured step costs move with the host's load: 1.5x may or may not be attainable
    out = expect_json("--run", cand, "--db", str(db), "--claim", "1.5x", code=None)
    store = SQLiteStore(db)
    results = run_results(store, cand)
    acc = results.acceptance
    assert acc.drafts and acc.accepted is not None
    m = out["measured"]
    assert isinstance(m, dict)
    assert m["run_id"] == cand and m["baseline_run_id"] == base and m["k"] == 3
    # per-position conditional acceptance from the run's counts: a_i = A_i / A_{i-1}, A_0 = D
    counts = [acc.drafts, *acc.accepted_per_pos]
    assert out["conditional_acceptance"] == pytest.approx(
        [counts[i + 1] / counts[i] for i in range(3)]
    )
    # E from the positions equals the run's own mean accepted length
    assert out["expected_accepted_length"] == pytest.approx(acc.mean_accepted_length)
    # R measured against the baseline: R = TPOT_cand · MAL / TPOT_base, so S = TPOT ratio
    tb = run_results(store, base).summary.mean_tpot_s
    tc = results.summary.mean_tpot_s
    assert tb and tc
    assert out["step_cost"] == pytest.approx(tc * acc.mean_accepted_length / tb)
    assert out["expected_speedup"] == pytest.approx(tb / tc)
    assert str(out["sources"]["acceptance"]).startswith(f"measured: run {cand}")  # type: ignore[index]
    assert str(out["sources"]["step_cost"]).startswith("measured")  # type: ignore[index]
    assert out["required_accepted_length"] == pytest.approx(1.5 * out["step_cost"])  # type: ignore[operator]
    # a shorter k uses the first positions and says the step cost was measured at k = 3
    short = expect_json("--run", cand, "--db", str(db), "--k", "1")
    assert short["conditional_acceptance"] == out["conditional_acceptance"][:1]  # type: ignore[index]
    assert any("measured at k = 3" in a for a in short["assumptions"])  # type: ignore[attr-defined]
    # given costs win over the measured one
    given = expect_json("--run", cand, "--db", str(db), "--verify-cost", "1.0")
    assert given["step_cost"] == pytest.approx(1.0)


def test_run_errors(measured: tuple[Path, str, str]) -> None:
    db, cand, base = measured
    for args, expected in (
        (["--run", base], "is a baseline"),
        (["--run", cand, "--k", "4"], "exceeds the run's k = 3"),
        (["--run", "nope"], "no run 'nope'"),
    ):
        proc = specverdict_cli("expect", *args, "--db", str(db))
        assert proc.returncode == 2, proc.stdout
        assert expected in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
