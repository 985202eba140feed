"""Declared against actual k for a candidate that verifies adaptively: a step verifies 1 to k
drafts per request, so fewer than k per step is what it declared; more than k is not."""

from __future__ import annotations

import pytest

from tests.unit.verdict.test_k_schedule_validity import verdicts

ADAPTIVE = "{method: dspark, k: 7}"  # adaptive by default on vLLM
FIXED = "{method: eagle3, k: 7}"
ADAPTIVE_EAGLE = "{method: eagle3, k: 7, adaptive_verification: true}"


@pytest.mark.parametrize("per_step", [1.0, 1.3, 3.5, 7.0])
@pytest.mark.parametrize("candidate", [ADAPTIVE, ADAPTIVE_EAGLE])
def test_an_adaptive_run_may_verify_one_to_k_per_step(candidate: str, per_step: float) -> None:
    assert verdicts(candidate, "concurrency: 32", per_step, positions=7) == []


@pytest.mark.parametrize("candidate", [ADAPTIVE, ADAPTIVE_EAGLE])
def test_an_adaptive_run_drafting_more_than_k_is_invalid(candidate: str) -> None:
    (message,) = verdicts(candidate, "concurrency: 32", 7.5, positions=7)
    assert "more than the declared k (adaptive verification verifies 1 to k per step)" in message
    (wider,) = verdicts(candidate, "concurrency: 32", 5.0, positions=8)
    assert "more than the declared k" in wider


def test_the_same_method_at_a_fixed_k_still_must_draft_k() -> None:
    (message,) = verdicts(FIXED, "concurrency: 32", 3.5, positions=7)
    assert "eagle3 drafts k tokens per step: the server runs a smaller k" in message
