"""The held-out sets of plausible-wrong HumanEval solutions (``benchmarks/heldout_wrong.py``, the
second set, ``benchmarks/heldout_wrong2.py``, the third, ``benchmarks/heldout_wrong3.py``, the
fourth, ``benchmarks/heldout_wrong4.py``, the fifth, ``benchmarks/heldout_wrong5.py``, the sixth,
``benchmarks/heldout_wrong6.py``, the seventh, ``benchmarks/heldout_wrong7.py``, the eighth,
``benchmarks/heldout_wrong8.py``, the ninth, ``benchmarks/heldout_wrong9.py``, the tenth,
``benchmarks/heldout_wrong10.py``, the eleventh, ``benchmarks/heldout_wrong11.py``, and the
twelfth and thirteenth, ``benchmarks/heldout_wrong12.py`` and ``heldout_wrong13.py``) are sound,
checked without the amplifier: every entry's task
exists, its solution has the prompt's signature and passes HumanEval's own tests, and it differs
from the reference on its witness; each set is as large and as spread as it says, the second set
repeats no entry of the first, the third none of the first two, the fourth none of the first
three, the fifth none of the first four, the sixth none of the first five, the seventh none of the
first six, the eighth none of the first seven, the ninth none of the first eight, the tenth none
of the first nine, and the eleventh none of the first ten. The twelfth and thirteenth sample the
natural distribution of model mistakes over HumanEval/0-81 and 82-163, with no rule against an
earlier set's mistake: ``heldout_catch.repeats`` tells those entries apart."""

from __future__ import annotations

import ast
from collections import Counter
from types import ModuleType

import pytest
from benchmarks.heldout_catch import (
    CONTRACT_DIGITS,
    CONTRACT_ITEMS,
    SETS,
    Problem,
    check,
    earlier_entries,
    load_set,
    repeats,
    verify,
    within_contract,
)
from benchmarks.heldout_wrong import Wrong

from specverdict.sandbox import Sandbox
from specverdict.suites.function.humaneval import humaneval_tasks
from tests.conftest import local_sandbox

#: the fewest distinct tasks each set covers
MIN_TASKS = {
    "heldout_wrong": 45,
    "heldout_wrong2": 50,
    "heldout_wrong3": 55,
    "heldout_wrong4": 55,
    "heldout_wrong5": 60,
    "heldout_wrong6": 60,
    "heldout_wrong7": 44,
    "heldout_wrong8": 26,
    "heldout_wrong9": 13,
    "heldout_wrong10": 10,
    "heldout_wrong11": 6,
    "heldout_wrong12": 31,
    "heldout_wrong13": 29,
}
#: the fewest entries each set holds and the fewest of each kind it has; the seventh set, written
#: once six sets had taken most of the small-input mistakes the base tests miss, is smaller and
#: has only two order-ties entries; the eighth, written after seven, is smaller still, and the
#: ninth, written after eight, smaller again, with a single empty-negative entry; the tenth,
#: written after nine, smaller still, with a single type-boundary entry; the eleventh, written
#: after ten, is the smallest, with model-style entries only
MIN_ENTRIES = {name: 70 for name in MIN_TASKS} | {
    "heldout_wrong7": 47,
    "heldout_wrong8": 28,
    "heldout_wrong9": 14,
    "heldout_wrong10": 10,
    "heldout_wrong11": 6,
    "heldout_wrong12": 37,
    "heldout_wrong13": 40,
}
MIN_PER_KIND = {name: 5 for name in MIN_TASKS} | {
    "heldout_wrong7": 2,
    "heldout_wrong8": 3,
    "heldout_wrong9": 1,
    "heldout_wrong10": 1,
    "heldout_wrong11": 6,
    "heldout_wrong12": 2,
    "heldout_wrong13": 3,
}
#: kinds a set has no entry of: the eighth set found none of these three that no earlier set had
#: and the base tests missed, the ninth none of these two, the tenth none of these three, the
#: eleventh none of these four
ABSENT_KINDS: dict[str, set[str]] = {
    "heldout_wrong8": {"string-off-by-one", "empty-negative", "order-ties"},
    "heldout_wrong9": {"string-off-by-one", "order-ties"},
    "heldout_wrong10": {"string-off-by-one", "empty-negative", "order-ties"},
    "heldout_wrong11": {"type-boundary", "string-off-by-one", "empty-negative", "order-ties"},
}


@pytest.fixture(scope="module")
def heldout_sandbox() -> Sandbox:
    return local_sandbox()


@pytest.fixture(scope="module", params=SETS)
def held(request: pytest.FixtureRequest) -> ModuleType:
    name: str = request.param
    return load_set(name)


@pytest.fixture(scope="module")
def problems(heldout_sandbox: Sandbox, held: ModuleType) -> list[Problem]:
    return verify(heldout_sandbox, held.ENTRIES, held.KINDS)


def test_the_set_is_large_and_spread_over_the_kinds(held: ModuleType) -> None:
    entries: tuple[Wrong, ...] = held.ENTRIES
    name = held.__name__.rpartition(".")[2]
    assert len(entries) >= MIN_ENTRIES[name]
    assert len({e.task_id for e in entries}) >= MIN_TASKS[name]
    kinds = Counter(e.kind for e in entries)
    assert set(kinds) == set(held.KINDS) - ABSENT_KINDS.get(name, set()), kinds
    assert min(kinds.values()) >= MIN_PER_KIND[name], kinds
    assert all(e.description and "\n" not in e.description for e in entries)
    pairs = [(e.task_id, e.solution.strip()) for e in entries]
    assert len(set(pairs)) == len(pairs), "an entry is listed twice"


def test_the_second_set_repeats_no_entry_of_the_first() -> None:
    first, second = load_set("heldout_wrong"), load_set("heldout_wrong2")
    assert second.KINDS == first.KINDS
    solutions = {(e.task_id, e.solution.strip()) for e in first.ENTRIES}
    descriptions = {(e.task_id, e.description) for e in first.ENTRIES}
    for e in second.ENTRIES:
        assert (e.task_id, e.solution.strip()) not in solutions, e.task_id
        assert (e.task_id, e.description) not in descriptions, e.task_id


#: the sets written under the rule that they repeat no earlier set's entry
NO_REPEATS = SETS[: SETS.index("heldout_wrong11") + 1]


@pytest.mark.parametrize(
    ("later", "earlier"), [(name, NO_REPEATS[:n]) for n, name in enumerate(NO_REPEATS) if n >= 2]
)
def test_a_later_set_repeats_no_entry_of_the_earlier_ones(
    later: str, earlier: tuple[str, ...]
) -> None:
    new = load_set(later)
    old = [load_set(name) for name in earlier]
    solutions = {(e.task_id, e.solution.strip()) for s in old for e in s.ENTRIES}
    descriptions = {(e.task_id, e.description) for s in old for e in s.ENTRIES}
    assert all(new.KINDS == s.KINDS for s in old)
    for e in new.ENTRIES:
        assert (e.task_id, e.solution.strip()) not in solutions, e.task_id
        assert (e.task_id, e.description) not in descriptions, e.task_id


def _params(source: str, name: str) -> list[str] | None:
    """The parameter names of the top-level function ``name`` in ``source``."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return [a.arg for a in node.args.args]
    return None


def test_every_task_exists_and_every_solution_has_the_prompts_signature(
    held: ModuleType,
) -> None:
    by_id = {t.task_id: t for t in humaneval_tasks()}
    for e in held.ENTRIES:
        assert e.task_id in by_id, e.task_id
        task = by_id[e.task_id]
        expected = _params(task.prompt, task.entry_point)
        assert expected is not None
        assert _params(e.solution, task.entry_point) == expected, e.task_id


def test_every_entry_passes_the_base_tests_and_is_wrong_on_its_witness(
    problems: list[Problem],
) -> None:
    assert not problems, "\n".join(p.describe() for p in problems)


def test_the_check_rejects_a_right_entry_and_one_that_fails_the_base_tests(
    heldout_sandbox: Sandbox,
) -> None:
    right = Wrong(
        "HumanEval/35",
        "model-style",
        "the reference written again: right on every input",
        "def max_element(l: list):\n    return max(l)\n",
        ([3, 9, 1],),
    )
    failing = Wrong(
        "HumanEval/35",
        "model-style",
        "fails the base tests",
        "def max_element(l: list):\n    return min(l)\n",
        ([3, 9, 1],),
    )
    unknown = Wrong("HumanEval/999", "nonsense", "no such task", "def f():\n    pass\n", ())
    found = verify(heldout_sandbox, (right, failing, unknown))
    whats = {(p.entry, p.what.split(" (")[0]) for p in found}
    assert (0, "right on its witness") in whats
    assert (1, "fails HumanEval's base tests") in whats
    assert (2, "unknown kind 'nonsense'") in whats
    assert (2, "no such task") in whats
    assert not any(p.entry == 1 and p.what.startswith("right") for p in found)


def test_the_size_contract_counts_digits_items_and_characters() -> None:
    assert within_contract(([1] * CONTRACT_ITEMS, "a" * CONTRACT_ITEMS, 10**999, True))
    assert not within_contract(([1] * (CONTRACT_ITEMS + 1),))
    assert not within_contract(("a" * (CONTRACT_ITEMS + 1),))
    assert not within_contract((-(10**CONTRACT_DIGITS),))
    assert not within_contract(([["x" * (CONTRACT_ITEMS + 1)]],))
    assert within_contract(({"k": [0] * 10},))
    assert not within_contract(({"k": [0] * (CONTRACT_ITEMS + 1)},))


#: max_element testing each item against the whole list: quadratic, never wrong in value
_SLOW_SCAN = """
def max_element(l: list):
    best = l[0]
    for i in range(len(l)):
        if all(l[i] >= x for x in l):
            best = l[i]
            break
    return best
"""


def test_a_slow_answer_is_wrong_within_the_size_contract_and_left_out_beyond_it(
    heldout_sandbox: Sandbox,
) -> None:
    """An answer quadratic in the length that only runs long: on an ascending list of 60,000
    items (within the contract) it is an entry, only slow; on 400,000 it is beyond the contract,
    whether it runs out of time or returns in time; a wrong value is never "slow"."""
    within = Wrong("HumanEval/35", "model-style", "quadratic", _SLOW_SCAN, (list(range(60000)),))
    beyond = Wrong("HumanEval/35", "model-style", "quadratic", _SLOW_SCAN, (list(range(400000)),))
    right_beyond = Wrong(
        "HumanEval/35",
        "model-style",
        "right, on a witness beyond the contract",
        "def max_element(l: list):\n    return max(l)\n",
        (list(range(CONTRACT_ITEMS + 1)),),
    )
    valued = Wrong(
        "HumanEval/35",
        "model-style",
        "wrong value on a large witness",
        "def max_element(l: list):\n    return max(l[:-1]) if len(l) > 100 else max(l)\n",
        (list(range(CONTRACT_ITEMS * 2)),),
    )
    found = check(heldout_sandbox, (within, beyond, right_beyond, valued))
    assert found.problems == ()
    assert found.slow == {0, 1, 2}
    assert found.beyond == {1, 2}


#: HumanEval/57's first-set mistake (direction from the first two elements) with strict
#: comparisons too: it answers as that entry on that entry's witness and otherwise on its own
_STRICTER = """
def monotonic(l: list):
    if len(l) < 2:
        return True
    increasing = l[1] >= l[0]
    for a, b in zip(l, l[1:]):
        if increasing and b <= a:
            return False
        if not increasing and b >= a:
            return False
    return True
"""


def _again(e: Wrong) -> Wrong:
    """``e``'s mistake written otherwise (the same code, spaced and commented)."""
    return Wrong(e.task_id, e.kind, "the same mistake", f"\n\n{e.solution}\n# again\n", e.witness)


def test_an_entry_making_an_earlier_entry_s_mistake_is_told_apart(
    heldout_sandbox: Sandbox,
) -> None:
    """The first set's two HumanEval/57 entries are two mistakes (a direction taken from the
    first two elements, and from the first and last): each repeats itself written otherwise,
    neither repeats the other, nor does a third that agrees with one on its witness only; an
    entry on another task repeats nothing. On HumanEval/32, whose oracle judges one answer
    alone, two equal wrong roots agree, as do two runs out of time, and a value and a timeout do
    not."""
    first = [e for e in load_set("heldout_wrong").ENTRIES if e.task_id == "HumanEval/57"]
    assert len(first) == 2
    a, b = first
    stricter = Wrong(a.task_id, a.kind, "stricter", _STRICTER, ([1, 2, 2],))
    other = next(e for e in load_set("heldout_wrong2").ENTRIES if e.task_id != "HumanEval/57")
    found = repeats(heldout_sandbox, (b, other, stricter, _again(a)), (a,))
    assert found == {3: a}
    assert repeats(heldout_sandbox, (b,), (a,)) == {}
    zeros = [e for e in load_set("heldout_wrong2").ENTRIES if e.task_id == "HumanEval/32"]
    interval, endless = zeros[0], zeros[2]
    assert interval.witness == endless.witness == ([-1000, 1],)
    found = repeats(heldout_sandbox, (_again(interval), _again(endless)), (endless, interval))
    assert found == {0: interval, 1: endless}
    assert [n for n, _ in earlier_entries("heldout_wrong3")] == ["heldout_wrong"] * len(
        load_set("heldout_wrong").ENTRIES
    ) + ["heldout_wrong2"] * len(load_set("heldout_wrong2").ENTRIES)
