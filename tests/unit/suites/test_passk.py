"""pass@k against hand-computed values, and the failure breakdown."""

from __future__ import annotations

import math

import pytest

from specverdict.records import Score
from specverdict.suites.function.grade import FunctionDetail
from specverdict.suites.function.passk import (
    failure_breakdown,
    failure_class,
    mean_pass_at_k,
    pass_at_k,
    task_counts,
)


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (10, 3, 1, 0.3),
        (10, 3, 5, 1 - math.comb(7, 5) / math.comb(10, 5)),  # 1 - 21/252 = 0.91666...
        (10, 0, 5, 0.0),
        (10, 10, 5, 1.0),
        (10, 6, 5, 1.0),  # n - c < k: every draw of 5 holds a passing sample
        (5, 2, 2, 1 - 3 / 10),  # 1 - C(3,2)/C(5,2)
        (1, 1, 1, 1.0),
        (1, 0, 1, 0.0),
        (200, 13, 100, 1 - math.comb(187, 100) / math.comb(200, 100)),
    ],
)
def test_pass_at_k_matches_the_binomial_formula(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_pass_at_k_rejects_impossible_counts() -> None:
    for n, c, k in ((5, 6, 1), (5, 1, 0), (5, 1, 6)):
        with pytest.raises(ValueError):
            pass_at_k(n, c, k)


def test_mean_over_tasks_and_undefined_when_too_few_samples() -> None:
    counts = {"a": (10, 3), "b": (10, 0)}
    assert mean_pass_at_k(counts, 1) == pytest.approx(0.15)
    assert mean_pass_at_k(counts, 11) is None
    assert mean_pass_at_k({}, 1) is None


def _score(passed: bool, outcome: str, base_passed: bool, error_type: str | None = None) -> Score:
    detail = FunctionDetail(
        base_passed=base_passed,
        base_right=3 if base_passed else 1,
        base_total=3,
        plus_right=0,
        plus_total=5,
        error_type=error_type,
    )
    return Score(passed=passed, outcome=outcome, detail=detail.model_dump_json())


def test_counts_for_base_only_and_with_amplified_tests() -> None:
    results = [
        ("t1", _score(True, "passed", True)),
        ("t1", _score(False, "failed", True)),  # right on base inputs only
        ("t1", _score(False, "error", False, "IndexError")),
    ]
    assert task_counts(results) == {"t1": (3, 1)}
    assert task_counts(results, base_only=True) == {"t1": (3, 2)}


def test_failure_breakdown_by_class_and_error_type() -> None:
    scores = [
        _score(True, "passed", True),
        _score(False, "error", False, "IndexError"),
        _score(False, "error", False, "IndexError"),
        _score(False, "error", False, "TypeError"),
        _score(False, "syntax_error", False),
        _score(False, "timeout", False),
        _score(False, "failed", True),
    ]
    assert failure_class(scores[1]) == "error:IndexError"
    assert failure_breakdown(scores) == {
        "error:IndexError": 2,
        "error:TypeError": 1,
        "failed": 1,
        "passed": 1,
        "syntax_error": 1,
        "timeout": 1,
    }
