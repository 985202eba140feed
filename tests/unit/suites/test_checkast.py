"""Reading HumanEval's check functions: constant inputs, recorded inputs, comparison modes."""

from __future__ import annotations

import ast

import pytest

from specverdict.suites.function.checkast import NotConstantError, analyse_check, fold
from specverdict.suites.function.humaneval import read_problems


def _fold(text: str) -> object:
    return fold(ast.parse(text, mode="eval").body)


def test_folds_literals_and_arithmetic() -> None:
    assert _fold("3 * 19 * 3") == 171
    assert _fold("'abcde' + 'cade'") == "abcdecade"
    assert _fold("[1, -2, (3, {4: 'x'}), 0**0, 2.0/3.0]") == [1, -2, (3, {4: "x"}), 1, 2.0 / 3.0]
    assert _fold("{1, 2} ") == {1, 2}


@pytest.mark.parametrize(
    "text", ["x", "len('a')", "10 ** 10 ** 9", "'a' * 10 ** 9", "[*a]", "1 / 0"]
)
def test_refuses_names_calls_and_huge_results(text: str) -> None:
    with pytest.raises(NotConstantError):
        _fold(text)


def test_synthetic_checks() -> None:
    facts = analyse_check(
        "def check(candidate):\n"
        "    assert candidate([1, 2], 3) == 4\n"
        "    assert abs(candidate([], 2 * 3) - 1.0) < 1e-6\n"
    )
    assert facts.inputs == (([1, 2], 3), ([], 6))
    assert facts.compare == "equal"
    assert analyse_check("def check(candidate):\n    assert not candidate('(')\n").compare == (
        "truthy"
    )
    loop = analyse_check("def check(candidate):\n    for x in range(3):\n        candidate(x)\n")
    assert loop.inputs is None
    with pytest.raises(ValueError, match="check"):
        analyse_check("def test():\n    pass\n")


def test_humaneval_checks_that_need_recording_and_their_comparisons() -> None:
    facts = {p["task_id"]: analyse_check(p["test"]) for p in read_problems()}
    assert len(facts) == 164
    recorded = sorted(t for t, f in facts.items() if f.inputs is None)
    assert recorded == [f"HumanEval/{n}" for n in (151, 32, 38, 44, 50, 53)]
    modes = {t: f.compare for t, f in facts.items() if f.compare != "equal"}
    assert modes == {
        "HumanEval/33": "sequence",
        "HumanEval/37": "sequence",
        "HumanEval/52": "truthy",
        "HumanEval/56": "truthy",
        "HumanEval/61": "truthy",
        "HumanEval/72": "strict_bool",
    }
    assert facts["HumanEval/25"].inputs is not None
    assert (3 * 19 * 3 * 19,) in facts["HumanEval/25"].inputs
