"""Generator 5, the default: its own inputs reach the first amplified inputs of the tasks whose
references admit them, stay out where the reference or the prompt forbids them, and every kind
is made for HumanEval."""

from __future__ import annotations

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
from specverdict.suites.function.extended import (
    KINDS,
    extended_inputs,
    reach,
    widen_for_kinds,
    widen_from_one,
)
from specverdict.suites.function.humaneval import humaneval_tasks
from specverdict.suites.function.letters import ACCENTED, ascii_only
from specverdict.suites.function.profile import Args, Domain
from specverdict.suites.function.stated import parameters, read_statement, widen_by_statement
from tests.conftest import untraced

CONFIG = AmplifyConfig(seed=0, count=100, generator=5)
TASKS = {t.task_id: t for t in humaneval_tasks()}


def _first(task_id: str, n: int = 100) -> list[Args]:
    t = TASKS[task_id]
    assert t.base_inputs is not None
    made = amplify(task_id, t.base_inputs, CONFIG, t.contract, t.reference, t.entry_point, t.prompt)
    return made[:n]


def test_generator_five_is_kept() -> None:
    assert AMPLIFIER_VERSION == 13 and GENERATORS == (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
    assert CONFIG.generator == 5


def test_large_numbers_where_the_reference_takes_them_apart() -> None:
    digits = [a[0] for a in _first("HumanEval/131")]  # str(n): digits
    assert 10**17 - 1 in digits
    assert any(10**17 - 1 in a[0] for a in _first("HumanEval/104"))  # an item of a list
    assert all(a[0] < 2**53 for a in _first("HumanEval/31"))  # is_prime loops up to n
    assert all(a[0] <= 1000 for a in _first("HumanEval/156"))  # "1 <= num <= 1000"


def test_zero_below_a_least_seed_of_one() -> None:
    assert (0,) in _first("HumanEval/31") and (0,) in _first("HumanEval/106")


def test_accents_only_where_the_task_is_not_ascii() -> None:
    def accented(task_id: str) -> bool:
        return any(set(repr(a)) & set(ACCENTED.values()) for a in _first(task_id))

    assert accented("HumanEval/27")  # flip_case: the prompt speaks of no alphabet
    assert not accented("HumanEval/66")  # "the upper characters' ASCII codes"
    assert not accented("HumanEval/89")  # the reference's alphabet is written out


def test_every_kind_is_made_for_humaneval() -> None:
    seen: set[str] = set()
    for task in humaneval_tasks():
        if task.base_inputs is None:
            continue
        bounds = boundaries(task.reference, task.entry_point, task.prompt)
        params = parameters(task.reference, task.entry_point)
        doc = docstring(task.prompt, task.entry_point)
        statement = read_statement(doc, task.entry_point, params)
        where = reach(task.reference, task.entry_point, params, statement)
        domain = widen_by_docstring(widen(Domain.infer(task.base_inputs), bounds), bounds, doc)
        domain = widen_from_one(widen_by_statement(domain, bounds, statement, params), bounds)
        wide = widen_for_kinds(domain, bounds, where)
        plain = ascii_only(task.prompt, task.reference)
        found = extended_inputs(task.base_inputs, where, plain)
        seen |= {g.split(":")[1] for g, args in found if wide.admits(args)}
    assert seen == set(KINDS), set(KINDS) ^ seen


def test_generator_five_is_deterministic_distinct_and_keeps_contracts() -> None:
    for task in humaneval_tasks()[:60]:
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
