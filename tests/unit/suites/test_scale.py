"""Generator 6: sizes past the recursion limit, a trailing space, empty strings,
zero-shifted and negated whole numbers and a 1 among large numbers reach the first amplified
inputs of the tasks that admit them, and stay out where the docstring or the reference forbids
them."""

from __future__ import annotations

from specverdict.suites.function import scale
from specverdict.suites.function.amplify import (
    AMPLIFIER_VERSION,
    GENERATORS,
    AmplifyConfig,
    amplify,
)
from specverdict.suites.function.boundary import Boundaries
from specverdict.suites.function.humaneval import humaneval_tasks
from specverdict.suites.function.profile import Args, Domain

CONFIG = AmplifyConfig(seed=0, count=100, generator=6)
TASKS = {t.task_id: t for t in humaneval_tasks()}


def _first(task_id: str, n: int = 100) -> list[Args]:
    t = TASKS[task_id]
    assert t.base_inputs is not None
    made = amplify(task_id, t.base_inputs, CONFIG, t.contract, t.reference, t.entry_point, t.prompt)
    return made[:n]


def _reading(**kw: object) -> scale.Reading:
    base: dict[str, object] = {
        "his": (None, None, None),
        "guarded": frozenset(),
        "stripped": False,
        "bounds": Boundaries(),
    }
    base.update(kw)
    return scale.Reading(**base)  # type: ignore[arg-type]


def test_generator_six_is_kept() -> None:
    assert AMPLIFIER_VERSION == 13 and GENERATORS == (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
    assert CONFIG.generator == 6


def test_scale_grows_numbers_geometrically_and_sequences_past_the_recursion_limit() -> None:
    r = _reading()
    assert [v for k, v in scale.variants(3, 0, r) if k == "scale"] == list(scale.NUMBERS)
    grown = [v for k, v in scale.variants([1, 2], 0, r) if k == "scale"]
    assert grown == [[1, 2] * (scale.LENGTH // 2)]
    assert len(grown[0]) > 1000
    text = [v for k, v in scale.variants("a b", 0, r) if k == "scale"]
    assert len(text[0]) >= scale.LENGTH and text[0].startswith("a b a b")
    assert not [v for k, v in scale.variants("abc", 0, r) if k == "scale"]  # no letter run
    bounded = _reading(his=(100, None, None))
    assert [v for k, v in scale.variants(3, 0, bounded) if k == "scale"] == [30]


def test_space_at_the_end_unless_stripped_or_a_number() -> None:
    r = _reading()
    assert ("space-end", "abc ") in list(scale.variants("abc", 0, r))
    assert ("space-end", ["x ", "y"]) in list(scale.variants(["x", "y"], 0, r))
    assert not [k for k, _ in scale.variants("14.5", 0, r) if k == "space-end"]
    assert not [k for k, _ in scale.variants("abc", 0, _reading(stripped=True)) if k == "space-end"]


def test_empty_string_unless_sized_searched_or_already_empty() -> None:
    r = _reading()
    assert ("string-empty", "") in list(scale.variants("abc", 0, r))
    sized = _reading(bounds=Boundaries(sized=True))
    assert ("string-empty", "") not in list(scale.variants("abc", 0, sized))
    searched = _reading(searched=frozenset({1}))
    assert ("string-empty", "") not in list(scale.variants("abc", 1, searched))
    both = list(scale.candidates([("", "ab")], _reading()))
    assert ("1:string-empty", ("", "")) not in both


def test_sign_shifts_lists_to_zero_and_negates_only_guarded_numbers() -> None:
    r = _reading()
    shifted = [v for k, v in scale.variants([1, 2, 3], 0, r) if k == "sign"]
    assert shifted == [[-1, 0, 1], [-2, -1, 0]]
    assert not [v for k, v in scale.variants(5, 0, r) if k == "sign"]
    assert (
        "sign",
        -5,
    ) in list(scale.variants(5, 0, _reading(guarded=frozenset({0}))))
    positive = _reading(bounds=Boundaries(positive=True), guarded=frozenset({0}))
    assert not [v for k, v in scale.variants(5, 0, positive) if k == "sign"]


def test_guarded_reads_a_small_bound_of_the_reference() -> None:
    src = "def f(n, m):\n    if n < 2:\n        return False\n    if m > 10:\n        return 1\n"
    assert scale.guarded(src, "f") == frozenset({"n"})
    assert scale.guarded("def f(n):\n    if 0 > n:\n        return 0\n", "f") == {"n"}
    assert scale.guarded("def f(n):\n    while n > 0:\n        n -= 1\n", "f") == frozenset()


def test_large_one_puts_a_one_among_large_numbers() -> None:
    r = _reading(large=frozenset({0, 1, 2}))
    found = [a for g, a in scale.candidates([(3, 4, 5)], r) if g == "*:large-one"]
    assert (1, scale.LARGE, scale.LARGE) in found and len(found) == 3


def test_free_keeps_a_fixed_length() -> None:
    domain = Domain.infer([(["a", "b"],), (["c", "d"],)])
    assert not scale.free(domain, 0).admits((["a", "b", "c"],))
    grown = Domain.infer([([1, 1],), ([2, 1, 1],)])
    assert scale.free(grown, 0).admits(([1, 2] * 550,))


def test_humaneval_gets_the_new_kinds() -> None:
    assert any(a[0] == 1100 for a in _first("HumanEval/60"))  # sum_to_n
    assert any(len(a[0]) == scale.LENGTH for a in _first("HumanEval/114"))  # minSubArraySum
    assert any(a[0].endswith(".exe ") for a in _first("HumanEval/141"))  # file_name_check
    assert any(a[0] < 0 for a in _first("HumanEval/31"))  # is_prime: "if n < 2"
    assert (1, 10**9, 10**9) in _first("HumanEval/157")
    assert not any(a[1] == "" for a in _first("HumanEval/18"))  # a searched-for substring
    assert not any(isinstance(a[0], int) and a[0] < 0 for a in _first("HumanEval/60"))
