"""Generator 4: its own variants reach the amplified inputs ahead of the cut, stay
in the domain the docstring leaves, and every kind is made for HumanEval."""

from __future__ import annotations

from typing import Any

from specverdict.suites.function.amplify import (
    AMPLIFIER_VERSION,
    GENERATORS,
    AmplifyConfig,
    amplify,
    key,
)
from specverdict.suites.function.boundary import boundaries
from specverdict.suites.function.corners import docstring, widen_by_docstring
from specverdict.suites.function.edges import widen
from specverdict.suites.function.humaneval import humaneval_tasks
from specverdict.suites.function.profile import Args, Domain
from specverdict.suites.function.stated import parameters, read_statement, widen_by_statement
from specverdict.suites.function.task import FunctionTask
from specverdict.suites.function.variants import KINDS, variant_inputs
from tests.conftest import untraced

CONFIG = AmplifyConfig(seed=0, count=100, generator=4)
TASKS = {t.task_id: t for t in humaneval_tasks()}


def _first(task_id: str, n: int = 100) -> list[Args]:
    """The first ``n`` inputs generator 4 makes for a task (the ground truth keeps at most 100
    of them, in this order)."""
    t = TASKS[task_id]
    assert t.base_inputs is not None
    return amplify(
        task_id, t.base_inputs, CONFIG, t.contract, t.reference, t.entry_point, t.prompt
    )[:n]


def _args(task_id: str) -> tuple[Any, ...]:
    t: FunctionTask = TASKS[task_id]
    return (t.base_inputs, CONFIG, t.contract, t.reference, t.entry_point, t.prompt)


def test_generator_four_stays_selectable() -> None:
    assert 4 in GENERATORS and AMPLIFIER_VERSION > 4
    assert AmplifyConfig(generator=4).generator == 4


def test_spaces_tabs_and_case_reach_the_first_inputs() -> None:
    spaces = [a[0] for a in _first("HumanEval/140", 60)]
    assert any("\t" in s or "\n" in s for s in spaces)  # the docstring speaks of spaces
    assert any("    " in s for s in spaces)  # a run of three spaces one longer
    words = [a[0] for a in _first("HumanEval/19", 60)]
    assert any("  " in s for s in words)  # a doubled separator
    palindromes = [a[0] for a in _first("HumanEval/48", 60)]
    assert any(s != s.lower() for s in palindromes)  # capitals, though every seed is lower-case


def test_the_docstring_keeps_what_it_states() -> None:
    letters = [a[0] for a in amplify("HumanEval/111", *_args("HumanEval/111"))]
    assert letters and all(s == s.lower() for s in letters)  # "lowercase letters"
    assert all(" " not in s[:1] + s[-1:] for s in letters)  # no space moved to an end
    binary = [a for a in amplify("HumanEval/11", *_args("HumanEval/11"))]
    assert all(set(a[0] + a[1]) <= {"0", "1"} for a in binary)  # "consisting only of 1s and 0s"
    assert (0,) in _first("HumanEval/84")  # "Constraints: 0 ≤ N ≤ 10000"
    assert all(0 <= a[0] <= 10000 for a in amplify("HumanEval/84", *_args("HumanEval/84")))


def test_empty_and_duplicated_items_where_no_rule_forbids_them() -> None:
    made = [a[0] for a in _first("HumanEval/34")]  # "Return sorted unique elements"
    assert [] in made and any(len(set(xs)) < len(xs) for xs in made)


def test_every_kind_is_made_for_humaneval() -> None:
    seen: set[str] = set()
    for task in humaneval_tasks():
        if task.base_inputs is None:
            continue
        bounds = boundaries(task.reference, task.entry_point, task.prompt)
        doc = docstring(task.prompt, task.entry_point)
        params = parameters(task.reference, task.entry_point)
        statement = read_statement(doc, task.entry_point, params)
        domain = widen_by_docstring(widen(Domain.infer(task.base_inputs), bounds), bounds, doc)
        domain = widen_by_statement(domain, bounds, statement, params)
        found = variant_inputs(task.base_inputs, domain, statement)
        seen |= {g.split(":")[1] for g, args in found if domain.admits(args)}
    assert seen == set(KINDS), set(KINDS) ^ seen


def test_generator_four_is_deterministic_distinct_and_keeps_contracts() -> None:
    for task in humaneval_tasks()[:40]:
        if task.base_inputs is None:
            continue
        args = (task.contract, task.reference, task.entry_point, task.prompt)
        made = amplify(task.task_id, task.base_inputs, CONFIG, *args)
        with untraced():  # the same run again, for its result
            again = amplify(task.task_id, task.base_inputs, CONFIG, *args)
        assert made == again
        keys = [key(a) for a in made]
        assert len(set(keys)) == len(keys) and not set(keys) & {key(s) for s in task.base_inputs}
        if task.contract is not None:
            assert all(task.contract(a) for a in made), task.task_id
