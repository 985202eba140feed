"""Generator 8's special values: the pools part the answers they were chosen for, and each kind
reaches an argument of its type, within its gates."""

from __future__ import annotations

import math

from specverdict.suites.function import growth, regrow, scale, special
from specverdict.suites.function.eight import Forecast, free
from specverdict.suites.function.profile import Domain


def _fermat(n: int) -> bool:
    return n == 2 or (n > 2 and pow(2, n - 1, n) == 1)


def _miller_rabin(n: int, bases: tuple[int, ...]) -> bool:
    if n < 2 or any(n % p == 0 for p in bases):
        return n in bases
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in bases:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _prime(n: int) -> bool:
    return n > 1 and all(n % d for d in range(2, math.isqrt(n) + 1))


def test_the_whole_number_pools_part_the_tests_they_stand_for() -> None:
    assert not any(_prime(n) for n in (*special.SQUARES, *special.PRODUCTS))
    # trial division by 2, 3 and 5 only calls the squares and products above 5 prime
    above_five = [n for n in (*special.SQUARES, *special.PRODUCTS) if math.gcd(n, 30) == 1]
    assert len(above_five) >= 15
    assert not any(_prime(n) for n in special.PSEUDOPRIMES)
    assert 341 in special.PSEUDOPRIMES and _fermat(341)  # Fermat's test to base 2
    assert _miller_rabin(1373653, (2, 3)) and _miller_rabin(25326001, (2, 3, 5))
    assert _miller_rabin(3215031751, (2, 3, 5, 7))
    assert all(_prime(n) for n in special.PRIMES) and max(special.PRIMES) > 10**9
    assert 257 in special.WIDE and any(n > 2**53 and n % 2 for n in special.WIDE)
    assert 2**63 in special.WIDE  # a power of two past a signed 64-bit integer's range


def test_the_other_pools_part_float_arithmetic_from_exact() -> None:
    assert int(0.49999999999999994 + 0.5) == 1 and round(0.49999999999999994) == 0
    assert float("2.49999999999999999") == 2.5  # a decimal a float reads as a half
    for a, b in special.FRACTIONS:
        assert (int(a) / int(b)) * (int(b) / int(a)) != 1.0
    powers = special._powers([3, 10])
    assert 243 in powers and 1000 in powers  # math.log(243, 3) < 5, math.log(1000, 10) < 3
    assert all(math.log(p, 3) != round(math.log(p, 3)) for p in powers if p % 3 == 0)


def test_number_strings_keep_the_seed_s_shape() -> None:
    found = [v for _, v in special.variants("15.7", 0, [], special.Reading())]
    assert "0.49999999999999994" in found and "2.5" in found
    assert all(special.shape(v) == "9.9" for v in found)
    negative = [v for _, v in special.variants("-15.5", 0, [], special.Reading())]
    assert "-0.49999999999999994" in negative and all(v.startswith("-") for v in negative)
    assert "3/11" in [v for _, v in special.variants("1/5", 0, [], special.Reading())]
    assert "1373653" in [v for _, v in special.variants("10", 0, [], special.Reading())]


def test_string_kinds_and_their_gates() -> None:
    found = list(special.variants("report.txt", 0, [], special.Reading()))
    assert ("newline-end", "report.txt\n") in found and ("newline-end", "report.txt\t") in found
    assert ("blank", " ") in found and ("case-unicode", "ßeport.txt") in found
    spaced = [k for k, _ in special.variants("a b", 0, [], special.Reading())]
    assert "newline-end" not in spaced  # between words a newline is whitespace to some readings
    gated = special.Reading(padded=False, blank=False, letters=False)
    assert {k for k, _ in special.variants("word", 0, [], gated)} == {"length"}
    searched = special.Reading(searched=frozenset({0}))
    assert "blank" not in [k for k, _ in special.variants("ab", 0, [], searched)]
    filters = special.Reading(searched=frozenset({0}), filters=frozenset({0}))
    assert ("searched-empty", "") in list(special.variants("ab", 0, [], filters))
    lengths = [
        len(v) for k, v in special.variants("abc", 0, [], special.Reading()) if k == "length"
    ]
    assert 49 in lengths and 341 in lengths


def test_list_and_joint_kinds() -> None:
    found = list(special.variants([1, 3, 5], 0, [], special.Reading()))
    assert ("list-empty", []) in found and ("list-equal", [0, 0, 0]) in found
    assert ("list-run-end", [1, 3, 5, 5, 5]) in found
    assert ("list-last-twice", [1, 3, 5, 5]) in found
    assert ("int-pseudoprime", [1, 3, 341]) in found  # the last item from the pools
    joint = [a for g, a, _ in special.candidates([(2, 3, 5)], special.Reading())]
    assert (2000, 3000, 5000) in joint  # relations kept, past the small-integer cache
    pairs = [a for g, a, _ in special.candidates([("1/5", "5/1")], special.Reading())]
    assert ("3/11", "11/3") in pairs
    tie = [a for g, a, _ in special.candidates([([1.0, 2.5], 0.5)], special.Reading())]
    assert ([1.0, 2.5, 1.0], 0.0) in tie  # a repeat with a threshold of 0
    empty = [a for g, a, _ in special.candidates([(["ab"], "a")], special.Reading())]
    assert (["ab", ""], "") in empty


def test_pool_values_take_the_seeds_in_turn() -> None:
    seeds = [(1,), (2,), (3,)]
    found = [(g, a) for g, a, _ in special.candidates(seeds, special.Reading())]
    squares = [a for g, a in found if g == "0:int-square"]
    assert squares == [(v,) for v in special.SQUARES]  # each value once, in order


def test_free_lifts_values_upwards_and_keeps_signs_order_and_stated_bounds() -> None:
    domain = Domain.infer([(3, [1, 2, 3], "ab"), (7, [2, 4], "cde")])
    wide = free(domain, (0, 1, 2), (10**6, None, None), special.Reading())
    assert not wide.admits((2 * 10**6, [1, 2, 341], "ab\n"))  # past the stated bound
    assert wide.admits((999_983, [1, 2, 341], "ab\n"))
    assert not wide.admits((-5, [1, 2, 3], "ab"))  # no negative numbers where none was seen
    assert wide.admits((0, [0, 1, 2], "")) and not wide.admits((3, [3, 2, 1], "ab"))  # sorted
    assert not wide.admits((3, [1, 1, 2], "ab"))  # distinct items stay distinct
    positive = free(domain, (0,), (None,), special.Reading(positive=True))
    assert not positive.admits((0, [1, 2, 3], "ab"))


def test_forecast_reads_generator_seven_s_counts() -> None:
    linear = Forecast(small=1024 * 3, large=4096 * 3)
    assert linear.within(4096) and not linear.within(10**9)
    assert Forecast(small=12, large=14).within(10**9)  # work that does not follow the value
    assert not Forecast(small=1024 * 3, large=-1).within(5000)


def test_hidden_work_and_membership_are_read_from_the_reference() -> None:
    summed = "def f(n):\n    return sum(range(n))\n"
    looped = "def f(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t\n"
    assert growth.hidden(summed, "f") == {"n"} and growth.hidden(looped, "f") == frozenset()
    assert growth.hidden("def f(n):\n    return 2 ** n\n", "f") == {"n"}
    found = "def f(xs, sub):\n    return [x for x in xs if sub in x]\n"
    counted = "def f(s, sub):\n    return s.count(sub) + len(sub)\n"
    assert scale.membership(found, "f") == {"sub"} and scale.membership(counted, "f") == set()


def test_extreme_last_lists_and_wide_rows() -> None:
    grown = regrow.extreme_last([4, 2, 3], 8)
    assert grown[-1] == 2 and 2 not in grown[:-1] and len(grown) == 8
    longest = regrow.extreme_last(["a", "bbb", "cc"], 6)
    assert longest[-1] == "bbb" and all(len(s) < 3 for s in longest[:-1])
    assert regrow.extreme_last([1, 1], 8) is None and regrow.extreme_last([[1]], 8) is None
    rows = regrow.inner([[1, 2], [3]], 5)
    assert rows == [[1, 2, 3, 4, 5], [3, 3, 3, 3, 3]]  # grown as generator 7 grows a list
