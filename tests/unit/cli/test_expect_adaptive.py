"""``specverdict expect --adaptive``: the fixed-k prediction at k, said to bound an adaptive
run's accepted length."""

from __future__ import annotations

import json

from tests.unit.cli.test_expect_golden import refused, run_main


def test_the_prediction_is_the_fixed_k_one_marked_as_an_upper_bound() -> None:
    args = ("expect", "--acceptance", "0.7", "--k", "7", "--draft-cost", "0.05")
    code, fixed, _ = run_main(*args, "--json")
    code_a, adaptive, err = run_main(*args, "--adaptive", "--json")
    assert code == code_a == 0, err
    f, a = json.loads(fixed), json.loads(adaptive)
    assert a["expected_accepted_length"] == f["expected_accepted_length"]
    assert a["expected_speedup"] == f["expected_speedup"]
    (said,) = [x for x in a["assumptions"] if x not in f["assumptions"]]
    assert said.startswith("adaptive verification verifies 1 to k drafts per step")
    assert "bounds the adaptive run's E from above" in said
    code, text, _ = run_main(*args, "--adaptive")
    assert "assumed: adaptive verification verifies 1 to k drafts per step" in text


def test_adaptive_with_a_k_schedule_is_refused_in_one_line() -> None:
    message = refused("--acceptance", "0.7", "--k-schedule", "[[1, 8, 4]]", "--adaptive")
    assert message.startswith("--adaptive with --k-schedule: adaptive verification goes with")
