"""Amplification: seeded and deterministic, type-aware, and kept inside the seeds' domain."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from specverdict.suites.function.amplify import AmplifyConfig, amplify, key
from specverdict.suites.function.humaneval import CONTRACTS, humaneval_tasks
from specverdict.suites.function.profile import Domain, Profile, runs

CONFIG = AmplifyConfig(seed=0, count=40)
#: generator 1 stays inside the seeds' domain; generator 2 widens it (tests/integration/suites/test_edges.py)
MUTATION_ONLY = AmplifyConfig(seed=0, count=40, generator=1)


def test_same_seed_same_inputs_other_seed_other_inputs() -> None:
    seeds = [([1, 2, 3], 2), ([5, -1, 7, 0], 3), ([], 0)]
    first = amplify("t", seeds, CONFIG)
    assert first == amplify("t", seeds, CONFIG)
    assert first != amplify("t", seeds, AmplifyConfig(seed=1, count=40))
    assert first != amplify("other task", seeds, CONFIG)
    assert len(first) == CONFIG.generate
    assert len({key(a) for a in first}) == len(first)  # no duplicates
    assert not {key(a) for a in first} & {key(s) for s in seeds}  # and no seed again


def test_mutants_keep_types_and_ranges() -> None:
    seeds = [([1.5, 2.0], "ab-12", {"k": 1}, True), ([0.5], "x-99", {"z": 3}, False)]
    mutants = amplify("t", seeds, MUTATION_ONLY)
    assert mutants  # the checks below ran
    for args in mutants:
        floats, text, mapping, flag = args
        assert all(type(x) is float and 0.5 <= x <= 2.0 for x in floats)
        assert type(flag) is bool
        left, right = text.split("-")  # the separator stays, digits stay digits
        assert left.isalpha() and left.islower() and set(left) <= set("abx")
        assert right.isdigit() and len(right) == 2 and not right.startswith("0")
        assert all(type(k) is str and type(v) is int and 1 <= v <= 3 for k, v in mapping.items())


def test_inferred_invariants() -> None:
    domain = Domain.infer([([1, 2, 5], "(())", 2), ([0, 3], "()", 1), ([4, 4, 9, 9], "", 3)])
    assert domain.admits(([2, 3, 4], "()()", 2))
    assert not domain.admits(([3, 2], "()", 1))  # every seed list is sorted
    assert not domain.admits(([1, 2], "()", 10))  # 10 is beyond the seeds' range
    assert not domain.admits(([1, 2], "(a)", 1))  # no letters were ever seen there
    assert not domain.admits(([1, 2, 3], "()", 3))  # 3 < len(list) held for every seed
    intervals = Domain.infer([((1, 2), (2, 3)), ((-1, 1), (0, 4)), ((-3, -1), (-5, 5))])
    assert not intervals.admits(((2, 1), (0, 1)))  # start <= end held for every seed
    pairs = Domain.infer([("101", "011"), ("1", "0"), ("1100", "0101")])
    assert not pairs.admits(("10", "011"))  # equal lengths held for every seed
    fixed = Domain.infer([(["(", ")"],), (["((", ")"],)])
    assert not fixed.admits((["(", ")", ")"],))  # every seed list had two items


def test_runs_and_leading_zeros() -> None:
    assert runs("ab-12 X") == [
        ("lower", 0, 2),
        ("other", 2, 1),
        ("digit", 3, 2),
        ("other", 5, 1),
        ("upper", 6, 1),
    ]
    profile = Profile()
    profile.add("10-20")
    assert profile.admits("21-10")
    assert not profile.admits("01-21")  # no seed number starts with 0
    assert not profile.admits("3-20")  # ... nor is a digit short (run lengths 2..2)


def test_contracts_hold_for_every_generated_input() -> None:
    tasks = {t.task_id: t for t in humaneval_tasks()}
    checked = 0
    for task_id, contract in CONTRACTS.items():
        task = tasks[task_id]
        if task.base_inputs is None:
            continue  # recorded at run time (HumanEval/32): covered by the sandbox tests
        generated = amplify(task_id, task.base_inputs, CONFIG, contract)
        assert generated, task_id
        assert all(contract(a) for a in generated), task_id
        checked += 1
    assert checked  # some contract was checked, not every one skipped


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-50, 50), st.text("abc -", max_size=6)), min_size=1, max_size=4)
)
def test_everything_generated_is_admitted_by_the_domain(seeds: list[tuple[int, str]]) -> None:
    domain = Domain.infer(seeds)
    generated = amplify("prop", seeds, AmplifyConfig(count=10, generator=1))
    # some seed lists generate nothing (``[(0, "")]``, say): such an example checks nothing and
    # is not counted (Hypothesis fails the test when no example is left)
    assume(generated)
    for args in generated:
        assert domain.admits(args)
        assert (type(args[0]), type(args[1])) == (int, str)
