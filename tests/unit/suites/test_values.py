"""The tagged value format: exact round trips, a strict parser, and type-checked comparison."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from specverdict.suites.values import TagError, Unserializable, decode, encode, equal

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(),
    st.complex_numbers(allow_nan=False),
)
hashables = st.recursive(
    scalars,
    lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=3),
    max_leaves=6,
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.sets(hashables, max_size=3)
        | st.dictionaries(hashables, inner, max_size=3)
    ),
    max_leaves=12,
)


@given(values)
def test_round_trip_is_exact(value: Any) -> None:
    back = decode(encode(value))
    assert back == value
    assert type(back) is type(value)


def test_big_integers_and_special_floats_survive() -> None:
    assert decode(encode(10**5000)) == 10**5000
    assert math.isnan(decode(encode(math.nan)))
    assert decode(encode(-math.inf)) == -math.inf
    assert decode(encode(0.1 + 0.2)) == 0.1 + 0.2


@pytest.mark.parametrize(
    "obj",
    [
        "not a list",
        [],
        ["int", 5],  # an int travels as hex text
        ["float", 1.5],
        ["bool", 1],
        ["list", "abc"],
        ["dict", [["str", "k"]]],
        ["set", [["list", []]]],  # unhashable member
        ["dict", [[["list", []], ["none"]]]],  # unhashable key
        ["object", "os.system"],
        ["none", "extra"],
    ],
)
def test_parser_refuses_anything_off_grammar(obj: Any) -> None:
    with pytest.raises(TagError):
        decode(obj)


def test_nesting_depth_is_bounded() -> None:
    deep: Any = ["none"]
    for _ in range(200):
        deep = ["list", [deep]]
    with pytest.raises(TagError):
        decode(deep)


def test_unserializable_equals_nothing() -> None:
    odd = decode(["unserializable", "Anything"])
    assert isinstance(odd, Unserializable)
    assert not equal(odd, odd)
    assert not equal(odd, 1)
    assert not equal(1, odd)


def test_comparison_follows_python_equality_with_float_tolerance() -> None:
    assert equal(1, 1.0) and equal(True, 1)  # as ``==`` says for built-ins
    assert equal(0.1 + 0.2, 0.3)
    assert equal([1.0, (2.0000001,)], [1.0, (2.0,)])
    assert equal({"a": 1.0000001}, {"a": 1.0})
    assert equal(math.nan, math.nan)
    assert not equal(1.01, 1.0)
    assert not equal([1, 2], (1, 2))  # a list is not a tuple
    assert not equal("1", 1)
    assert not equal([1.0], [1.0, 2.0])
    assert not equal(None, 0)
    assert equal(complex(1, 2), complex(1, 2.0000000001))
