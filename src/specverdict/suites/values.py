"""Values crossing the sandbox boundary: a tagged JSON format, its strict parser, and how an
output is compared with its expected value.

Every value is a JSON array whose first item names its type::

    ["none"]  ["bool", true]  ["int", "-0x1f"]  ["float", "0x1.8p+1"]  ["str", "..."]
    ["complex", ["0x1.0p+0", "-0x0.0p+0"]]
    ["list", [v, ...]]  ["tuple", [v, ...]]  ["set", [v, ...]]  ["frozenset", [v, ...]]
    ["dict", [[k, v], ...]]  ["unserializable", "TypeName"]

Integers travel in hexadecimal (no digit limit), floats as ``float.hex`` (exact, and
``inf``/``nan`` survive). The parser accepts exactly this grammar and builds plain built-in
objects, so whatever the sandboxed process printed, the parent only ever compares ``int``,
``float``, ``str`` and containers of them: an object that claims to equal everything cannot
cross. ``unserializable`` (anything else the program returned) never equals an expected value.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Callable, Sequence
from itertools import repeat
from operator import itemgetter
from typing import Any

MAX_DEPTH = 64


class Unserializable:
    """An output of a type the format does not carry; it equals nothing."""

    __slots__ = ("type_name",)

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<unserializable {self.type_name}>"


class TagError(ValueError):
    """The text does not follow the tagged format."""


_SCALARS = {int: "int", float: "float", str: "str"}
#: a list or tuple of at least ``AT_ONCE`` items, all of one of these types, is encoded and
#: decoded without a Python step per item (C-level ``map``): long inputs and outputs are mostly
#: such lists, and a step per item was most of their cost, several times more under a tracer
#: (coverage's); shorter lists are quicker item by item
AT_ONCE = 32
_ENCODE_ALL: dict[type, Callable[[Sequence[Any]], list[Any]]] = {
    int: lambda xs: list(map(list, zip(repeat("int"), map(hex, xs)))),
    float: lambda xs: list(map(list, zip(repeat("float"), map(float.hex, xs)))),
    str: lambda xs: list(map(list, zip(repeat("str"), xs))),
}
_DECODE_ALL: dict[str, Callable[[list[str]], list[Any]]] = {
    "int": lambda texts: list(map(int, texts, repeat(16))),
    "float": lambda texts: list(map(float.fromhex, texts)),
    "str": lambda texts: texts,
}
_first = itemgetter(0)
_second = itemgetter(1)


def _encode_items(value: list[Any] | tuple[Any, ...], depth: int) -> list[Any]:
    kinds = set(map(type, value)) if len(value) >= AT_ONCE else set()
    if len(kinds) == 1 and (at_once := _ENCODE_ALL.get(kinds.pop())) is not None:
        return at_once(value)
    scalar = _SCALARS.get
    out = []
    for v in value:  # whole numbers, floats and strings directly: long lists are mostly those
        tag = scalar(type(v))
        out.append(
            [tag, hex(v) if tag == "int" else v.hex() if tag == "float" else v]
            if tag
            else encode(v, depth + 1)
        )
    return out


def encode(value: Any, depth: int = 0) -> Any:
    """The tagged form of a built-in value (used for inputs the parent sends)."""
    if depth > MAX_DEPTH:
        raise TagError("value nested too deeply")
    t = type(value)
    if value is None:
        return ["none"]
    if t is bool:
        return ["bool", value]
    if t is int:
        return ["int", hex(value)]
    if t is float:
        return ["float", float.hex(value)]
    if t is str:
        return ["str", value]
    if t is complex:
        return ["complex", [float.hex(value.real), float.hex(value.imag)]]
    if t in (list, tuple):
        return [t.__name__, _encode_items(value, depth)]
    if t in (set, frozenset):
        items = sorted((encode(v, depth + 1) for v in value), key=repr)
        return [t.__name__, items]
    if t is dict:
        return ["dict", [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]]
    if t is Unserializable:
        return ["unserializable", value.type_name]
    raise TagError(f"cannot encode a {t.__name__}")


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        raise TagError("unhashable key or set member") from None
    return value


def _decode_items(payload: list[Any], depth: int) -> list[Any]:
    """The items of a list or tuple: at once where every item is ``[tag, text]`` of one of
    ``_DECODE_ALL``'s tags (what ``decode`` of each would give, errors included)."""
    if (
        len(payload) >= AT_ONCE
        and depth < MAX_DEPTH
        and set(map(type, payload)) == {list}
        and set(map(len, payload)) == {2}
        and set(map(type, map(_first, payload))) == {str}
    ):
        tags = set(map(_first, payload))
        if len(tags) == 1 and (tag := tags.pop()) in _DECODE_ALL:
            texts = list(map(_second, payload))
            if set(map(type, texts)) == {str}:
                try:
                    return _DECODE_ALL[tag](texts)
                except ValueError:
                    raise TagError(f"bad {tag}") from None
    return [decode(v, depth + 1) for v in payload]


def decode(obj: Any, depth: int = 0) -> Any:
    """Build the value a tagged JSON object describes; anything off-grammar is a ``TagError``."""
    if depth > MAX_DEPTH:
        raise TagError("value nested too deeply")
    if type(obj) is not list or not obj or type(obj[0]) is not str:
        raise TagError("a value must be a list starting with its tag")
    tag, rest = obj[0], obj[1:]
    if tag == "none" and not rest:
        return None
    if len(rest) != 1:
        raise TagError(f"tag {tag!r} takes one payload")
    payload = rest[0]
    if tag == "bool" and type(payload) is bool:
        return payload
    if tag == "int" and type(payload) is str:
        try:
            return int(payload, 16)
        except ValueError:
            raise TagError("bad int") from None
    if tag == "float" and type(payload) is str:
        try:
            return float.fromhex(payload)
        except ValueError:
            raise TagError("bad float") from None
    if tag == "str" and type(payload) is str:
        return payload
    if tag == "complex" and type(payload) is list and len(payload) == 2:
        try:
            return complex(float.fromhex(payload[0]), float.fromhex(payload[1]))
        except (TypeError, ValueError):
            raise TagError("bad complex") from None
    if tag == "unserializable" and type(payload) is str:
        return Unserializable(payload[:100])
    if type(payload) is not list:
        raise TagError(f"tag {tag!r} needs a list payload")
    if tag == "list":
        return _decode_items(payload, depth)
    if tag == "tuple":
        return tuple(_decode_items(payload, depth))
    if tag in ("set", "frozenset"):
        items = [_hashable(decode(v, depth + 1)) for v in payload]
        return set(items) if tag == "set" else frozenset(items)
    if tag == "dict":
        out: dict[Any, Any] = {}
        for pair in payload:
            if type(pair) is not list or len(pair) != 2:
                raise TagError("a dict item must be a [key, value] pair")
            out[_hashable(decode(pair[0], depth + 1))] = decode(pair[1], depth + 1)
        return out
    raise TagError(f"unknown tag {tag!r} or wrong payload type")


def _number(x: Any) -> bool:
    return type(x) in (int, float, complex)


def _close(out: float, exp: float, atol: float, rtol: float) -> bool:
    if math.isnan(exp) or math.isnan(out):
        return math.isnan(exp) and math.isnan(out)
    if math.isinf(exp) or math.isinf(out):
        return out == exp
    return abs(out - exp) <= atol + rtol * abs(exp)


def equal(out: Any, exp: Any, atol: float = 1e-6, rtol: float = 1e-7) -> bool:
    """``out == exp`` as Python says for built-ins (so ``1 == 1.0 == True``), except that where
    either side is a float the numbers need only be close (``|out - exp| <= atol + rtol*|exp|``,
    NaN equal to NaN), elementwise through lists, tuples and dict values of the same type and
    shape. This is EvalPlus's float rule generalised to nested containers."""
    if type(out) is Unserializable or type(exp) is Unserializable:
        return False
    if _number(out) and _number(exp) and (type(out) is complex or type(exp) is complex):
        return abs(complex(out) - complex(exp)) <= atol + rtol * abs(complex(exp))
    if _number(out) and _number(exp) and (type(out) is float or type(exp) is float):
        return _close(float(out), float(exp), atol, rtol)
    if out == exp:
        return True
    if type(out) is not type(exp):
        return False
    if type(exp) in (list, tuple):
        return len(out) == len(exp) and all(
            equal(o, e, atol, rtol) for o, e in zip(out, exp, strict=True)
        )
    if type(exp) is dict:
        return out.keys() == exp.keys() and all(equal(out[k], exp[k], atol, rtol) for k in exp)
    return False


class _Short(reprlib.Repr):
    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 200:  # past what ``repr`` may print (4300 digits) and the width
            return f"<int of {x.bit_length()} bits>"
        return super().repr_int(x, level)


_short = _Short()
_short.maxstring = 60
_short.maxother = 60
_short.maxlist = _short.maxtuple = _short.maxset = _short.maxdict = 8
_short.maxlevel = 3


def short_repr(value: Any) -> str:
    """A bounded repr of a decoded value, for details shown to users."""
    return _short.repr(value)
