"""The catch-rate benchmark's plausible-wrong solutions: its mutants are one-site changes, and
its hand-written classic mistakes pass HumanEval's own tests but fail the amplified ones."""

from __future__ import annotations

import pytest
from benchmarks.catch_rate import CLASSIC, mutants

from specverdict.suites.function.grade import read_detail
from specverdict.suites.function.humaneval import HumanEval

REFERENCE = '''
def f(xs, n):
    """Doc."""
    if n == 0:
        return []
    return [x.lower() for x in xs[:n] if len(x) > 1 and x != ""]
'''


def test_mutants_are_distinct_one_site_changes() -> None:
    found = dict((label, program) for label, program in mutants(REFERENCE))
    labels = set(found)
    assert {"Eq -> NotEq", "Gt -> GtE", "NotEq -> Eq", "And -> Or", "constant 0 -> 1"} <= labels
    assert {"constant 1 -> 2", ".lower() -> .casefold()", "early-return branch removed"} <= labels
    assert "if n != 0" in found["Eq -> NotEq"] and "Doc." not in found["Eq -> NotEq"]
    assert "[x.casefold() for x" in found[".lower() -> .casefold()"]
    assert len(set(found.values())) == len(found)


#: classic mistakes of three kinds: an initial value, a missing zero case, ASCII-only case folding
CAUGHT = ["HumanEval/35", "HumanEval/55", "HumanEval/27", "HumanEval/16"]


@pytest.mark.parametrize("task_id", CAUGHT)
def test_classic_mistakes_pass_base_tests_but_fail_amplified_ones(
    humaneval: HumanEval, task_id: str
) -> None:
    kind, code = CLASSIC[task_id]
    task = humaneval.task(task_id)
    (score,) = humaneval.score_many([(humaneval.sample(task), code)], mode="chat")
    detail = read_detail(score)
    assert detail is not None
    assert detail.base_passed, f"{task_id} ({kind}) should pass HumanEval's own tests"
    assert not score.passed and score.outcome == "failed", f"{task_id} ({kind}) was not caught"
