"""The model card is rendered from the training report beside the weights."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from specverdict.lab.train.card import render_model_card
from specverdict.reference.weights import SHIPPED

WEIGHTS = Path(__file__).resolve().parents[3] / "src" / "specverdict" / "reference" / "weights"


def _report() -> dict[str, Any]:
    report: dict[str, Any] = json.loads((WEIGHTS / "training_report.json").read_text())
    return report


def test_the_shipped_card_is_the_rendering_of_the_shipped_report() -> None:
    assert render_model_card(_report(), WEIGHTS) == (WEIGHTS / "MODEL_CARD.md").read_text()


def test_the_card_says_the_run_standard_library_share_and_answer_form() -> None:
    report = copy.deepcopy(_report())
    run = report["run"]
    run.pop("stdlib_fraction", None)
    run["command"] = "python -m specverdict.lab.train --stdlib-fraction 0.3"
    run["repository_function"] = 1.0
    card = render_model_card(report, WEIGHTS)
    assert "(30% of its windows kept as" in card
    assert "Every repository bug-fix document answers with one search/replace block" in card
    run["stdlib_fraction"] = 0.4
    run["repository_function"] = 0.0
    card = render_model_card(report, WEIGHTS)
    assert "(40% of its windows kept as" in card
    assert "whole buggy function" not in card
    run.pop("stdlib_fraction")
    run["command"] = "python -m specverdict.lab.train"
    assert "(50% of its windows kept as" in render_model_card(report, WEIGHTS)


def test_the_card_says_the_stub_and_recovery_shares_and_the_pass_rates_by_kind(
    tmp_path: Path,
) -> None:
    report = copy.deepcopy(_report())
    run = report["run"]
    run.update(agent_stub=0.6, repository_stub=0.5, agent_recovery=0.3)
    card = render_model_card(report, WEIGHTS)
    assert "60% of the agent documents and 50% of the repository documents" in card
    assert "30% of the agent documents first make a mistake and recover" in card
    for name in SHIPPED:
        (tmp_path / name).mkdir()
        for f in (WEIGHTS / name).iterdir():
            (tmp_path / name / f.name).symlink_to(f)
    quality = json.loads((WEIGHTS / "quality.json").read_text())
    quality["stages"]["agent"]["none"]["by_kind"] = {
        "bugfix": {"n": 40, "passed": 1},
        "stub": {"n": 80, "passed": 34},
    }
    (tmp_path / "quality.json").write_text(json.dumps(quality))
    card = render_model_card(report, tmp_path)
    assert "The baseline by kind of task: agent bugfix 1 / 40, agent stub 34 / 80," in card


def test_the_card_says_the_precision_the_steps_were_computed_in() -> None:
    report = copy.deepcopy(_report())
    run = report["run"]
    run.pop("precision", None)  # a report from before --precision: bf16 autocast, no probe
    run.pop("precision_probe_seconds", None)
    assert "CPU threads,\nbf16 autocast, AdamW" in render_model_card(report, WEIGHTS)
    run["precision"] = "fp32"
    run["precision_probe_seconds"] = {"fp32": 0.196, "bf16": 1.412}
    card = render_model_card(report, WEIGHTS)
    assert "fp32 (chosen by timing both on this CPU: 0.196 s fp32, 1.412 s bf16), AdamW" in card
    assert "bf16 autocast" not in card


def test_a_warm_start_records_and_the_card_shows_the_phases_before_it(tmp_path: Path) -> None:
    """``lineage_of`` reads the report beside the warm start's target: the phases its run
    recorded, then that run; the card lists them in order."""
    from specverdict.lab.train.card import lineage_of, phase_summary

    first = copy.deepcopy(_report())
    first.pop("lineage", None)
    first["target"]["steps"] = 300
    first["run"]["command"] = "python -m specverdict.lab.train --out one"
    (tmp_path / "one" / "target").mkdir(parents=True)
    (tmp_path / "one" / "training_report.json").write_text(json.dumps(first))
    second = copy.deepcopy(first)
    second["run"]["command"] = "python -m specverdict.lab.train --out two"
    second["lineage"] = lineage_of(tmp_path / "one" / "target")
    assert second["lineage"] == [phase_summary(first)]
    (tmp_path / "two" / "target").mkdir(parents=True)
    (tmp_path / "two" / "training_report.json").write_text(json.dumps(second))
    third = copy.deepcopy(first)
    third["lineage"] = lineage_of(tmp_path / "two" / "target")
    assert [p["command"] for p in third["lineage"]] == [
        "python -m specverdict.lab.train --out one",
        "python -m specverdict.lab.train --out two",
    ]
    card = render_model_card(third, WEIGHTS)
    assert card.index("| 1 | `python -m specverdict.lab.train --out one`") < card.index(
        "| 2 | `python -m specverdict.lab.train --out two`"
    )
    assert lineage_of(tmp_path / "nowhere" / "target") == [] and lineage_of(None) == []
    # a run that kept its target (draft and MTP head only) is no phase of the target
    kept = copy.deepcopy(second)
    kept["target"]["steps"] = 0
    (tmp_path / "kept" / "target").mkdir(parents=True)
    (tmp_path / "kept" / "training_report.json").write_text(json.dumps(kept))
    assert lineage_of(tmp_path / "kept" / "target") == second["lineage"]


def test_a_run_that_kept_the_target_shows_the_phases_that_trained_it() -> None:
    """A run that only trains the draft and the MTP head (``--target-steps 0``) on a warm-started
    target: the card's target row adds up the phases that trained it, not this run's zero."""
    report = copy.deepcopy(_report())
    report["target"].update({"steps": 0, "train_seconds": 0.0})
    phase = {
        "command": "python -m specverdict.lab.train",
        "precision": "fp32",
        "target_valid_loss": 3.5,
        "function_pass_by_step": [],
        "total_seconds": 60.0,
    }
    report["lineage"] = [
        {**phase, "target_steps": 1800, "target_train_seconds": 2306.5},
        {**phase, "target_steps": 700, "target_train_seconds": 1177.3},
        {**phase, "target_steps": 300, "target_train_seconds": 763.0},
    ]
    card = render_model_card(report, WEIGHTS)
    assert "| 2,800 (1800 + 700 + 300, 3 phases) | 4247 s |" in card
    report["lineage"] = []
    report["target"].update({"steps": 1500, "train_seconds": 1628.2})
    assert "| 1500 | 1628 s |" in render_model_card(report, WEIGHTS)


def test_the_shipped_weights_descend_from_the_shipped_base() -> None:
    """``make train`` fine-tunes ``models/base`` (what ``make train-base`` trained from scratch):
    the shipped report's first phases are the base's own lineage, the base was trained from
    scratch and then warm-started once, and the fine-tunes kept its tokenizer and its shape."""
    from specverdict.lab.train.card import lineage_of

    base = WEIGHTS.parents[3] / "models" / "base" / "target"
    lineage = lineage_of(base)
    assert [p["target_steps"] for p in lineage] == [1800, 700]
    assert "--init-target" not in lineage[0]["command"]
    assert "--init-target .train/phase1/target" in lineage[1]["command"]
    assert _report()["lineage"][:2] == lineage
    for name in ("tokenizer.json", "config.json"):
        assert (base / name).read_bytes() == (WEIGHTS / "target" / name).read_bytes(), name


def test_the_card_lists_the_modules_trained_on_the_frozen_target() -> None:
    report = _report()
    card = render_model_card(report, WEIGHTS)
    assert "## Modules trained on the frozen target" in card
    for name in ("medusa", "dflash", "eagle3", "dspark"):
        m = report[name]
        assert f"| {name} |" in card
        assert str(m["top1_agreement_by_position"]) in card
        assert f"`{m['command']}`" in card
        assert (WEIGHTS / name / "model.safetensors").stat().st_size <= 2**20
    m = report["dspark"]
    assert f"Brier score {m['confidence_brier']}" in card
    assert f"expected calibration error {m['confidence_ece']}" in card
    bare = {k: v for k, v in report.items() if k not in ("medusa", "dflash", "eagle3", "dspark")}
    assert "## Modules trained on the frozen target" not in render_model_card(bare, WEIGHTS)
