"""Generated function tasks: families of small Python functions a few-million-parameter model can
learn, with varied names, constants, argument names and docstring phrasings.

A family draws one *instance* from a random generator: the function's name and arguments, its
docstring, a canonical body and an input sampler. ``make_instance`` runs the canonical body on
sampled inputs (trusted code written here, executed in-process) to pick hidden test inputs whose
expected outputs take at least two distinct values, so that a constant stub cannot pass.

Pipeline families (filter, map, reduce over a list) are built from a predicate and a transform;
some predicate x transform combinations never appear in training (``held_out``) and are drawn
only for evaluation: they test composition, not recall.
"""

from __future__ import annotations

import copy
import hashlib
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Args = tuple[Any, ...]
Sampler = Callable[[random.Random], Args]


@dataclass(frozen=True)
class Instance:
    """One generated function: ``prompt`` (signature and docstring) + ``body`` is the canonical
    solution; ``inputs`` are its hidden test inputs."""

    family: str
    name: str
    params: tuple[str, ...]
    doc: str
    body: str
    inputs: tuple[Args, ...]
    combo: str = ""

    @property
    def signature(self) -> str:
        return f"def {self.name}({', '.join(self.params)}):"

    def prompt(self, example: tuple[Args, Any] | None = None) -> str:
        lines = [self.signature, f'    """{self.doc}']
        if example is not None:
            args, out = example
            call = ", ".join(repr(a) for a in args)
            lines += ["", f"    >>> {self.name}({call})", f"    {out!r}"]
            lines.append('    """')
        else:
            lines[-1] += '"""'
        return "\n".join(lines) + "\n"

    @property
    def solution(self) -> str:
        return self.body


@dataclass(frozen=True)
class Draft:
    """What a family returns before test inputs are chosen."""

    name: str
    params: tuple[str, ...]
    doc: str
    body: str
    sampler: Sampler
    combo: str = ""


# -- vocabulary -----------------------------------------------------------------------------

LIST_ARGS = ("nums", "values", "xs", "numbers", "items", "data", "seq", "arr")
STR_ARGS = ("text", "s", "word", "line", "string")
WORDS_ARGS = ("words", "names", "tokens", "strings")
DICT_ARGS = ("d", "counts", "table", "mapping", "scores")
INT_ARGS = ("n", "x", "value", "num", "k")
ELEM = ("x", "n", "v", "item", "value")
ACC = ("result", "out", "acc", "found", "kept")
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def pick(rng: random.Random, options: tuple[str, ...]) -> str:
    return options[rng.randrange(len(options))]


def ints(rng: random.Random, lo: int = -9, hi: int = 20, max_len: int = 8) -> list[int]:
    return [rng.randint(lo, hi) for _ in range(rng.randint(0, max_len))]


# -- predicates and transforms --------------------------------------------------------------


@dataclass(frozen=True)
class Pred:
    kind: str
    code: str  # with {x}
    phrase: str  # "that are {phrase}"


def draw_pred(rng: random.Random) -> Pred:
    c = rng.randint(1, 12)
    kinds: list[tuple[str, str, tuple[str, ...]]] = [
        ("gt", f"{{x}} > {c}", (f"greater than {c}", f"larger than {c}", f"above {c}")),
        ("lt", f"{{x}} < {c}", (f"less than {c}", f"smaller than {c}", f"below {c}")),
        ("ge", f"{{x}} >= {c}", (f"at least {c}", f"greater than or equal to {c}")),
        ("le", f"{{x}} <= {c}", (f"at most {c}", f"less than or equal to {c}")),
        ("eq", f"{{x}} == {c}", (f"equal to {c}",)),
        ("ne", f"{{x}} != {c}", (f"not equal to {c}", f"different from {c}")),
        ("even", "{x} % 2 == 0", ("even",)),
        ("odd", "{x} % 2 == 1", ("odd",)),
        ("neg", "{x} < 0", ("negative",)),
        ("pos", "{x} > 0", ("positive",)),
    ]
    d = rng.randint(2, 5)
    kinds.append(("div", f"{{x}} % {d} == 0", (f"divisible by {d}", f"a multiple of {d}")))
    kinds.append(("ndiv", f"{{x}} % {d} != 0", (f"not divisible by {d}",)))
    lo = rng.randint(-3, 6)
    hi = lo + rng.randint(2, 8)
    kinds.append(
        (
            "between",
            f"{lo} <= {{x}} <= {hi}",
            (f"between {lo} and {hi} inclusive", f"in the range {lo} to {hi} inclusive"),
        )
    )
    kind, code, phrases = kinds[rng.randrange(len(kinds))]
    return Pred(kind, code, pick(rng, phrases))


@dataclass(frozen=True)
class Trans:
    kind: str
    code: str  # with {x}
    phrase: str  # "{phrase} of each ..." or "each ... {phrase}"


def draw_trans(rng: random.Random) -> Trans:
    c = rng.randint(2, 9)
    kinds: list[tuple[str, str, tuple[str, ...]]] = [
        ("mul", f"{{x}} * {c}", (f"multiplied by {c}", f"times {c}")),
        ("add", f"{{x}} + {c}", (f"plus {c}", f"increased by {c}")),
        ("sub", f"{{x}} - {c}", (f"minus {c}", f"decreased by {c}")),
        ("sq", "{x} * {x}", ("squared",)),
        ("neg", "-{x}", ("negated",)),
        ("mod", f"{{x}} % {c}", (f"modulo {c}",)),
        ("fdiv", f"{{x}} // {c}", (f"floor-divided by {c}",)),
        ("affine", f"{{x}} * {c} + 1", (f"multiplied by {c}, plus 1",)),
    ]
    kind, code, phrases = kinds[rng.randrange(len(kinds))]
    return Trans(kind, code, pick(rng, phrases))


def held_out(combo: str) -> bool:
    """Combinations reserved for evaluation (about one in five)."""
    return int(hashlib.sha256(combo.encode()).hexdigest()[:8], 16) % 5 == 0


# -- pipeline families ----------------------------------------------------------------------


def _list_sampler(lo: int = -9, hi: int = 20) -> Sampler:
    return lambda rng: (ints(rng, lo, hi),)


def fam_filter(rng: random.Random) -> Draft:
    p, a, x, r = draw_pred(rng), pick(rng, LIST_ARGS), pick(rng, ELEM), pick(rng, ACC)
    name = pick(rng, ("keep", "select", "filter", "only")) + "_" + p.kind
    doc = pick(
        rng,
        (
            f"Return the elements of {a} that are {p.phrase}, in order.",
            f"Return a list of the numbers in {a} that are {p.phrase}.",
        ),
    )
    body = (
        f"    {r} = []\n    for {x} in {a}:\n        if {p.code.format(x=x)}:\n"
        f"            {r}.append({x})\n    return {r}\n"
    )
    return Draft(name, (a,), doc, body, _list_sampler(), f"filter:{p.kind}")


def fam_map(rng: random.Random) -> Draft:
    t, a, x = draw_trans(rng), pick(rng, LIST_ARGS), pick(rng, ELEM)
    name = pick(rng, ("map", "transform", "convert")) + "_" + t.kind
    doc = pick(
        rng,
        (
            f"Return a list with each element of {a} {t.phrase}.",
            f"Return each number in {a} {t.phrase}, keeping the order.",
        ),
    )
    body = f"    return [{t.code.format(x=x)} for {x} in {a}]\n"
    return Draft(name, (a,), doc, body, _list_sampler(), f"map:{t.kind}")


def fam_map_filter(rng: random.Random) -> Draft:
    p, t = draw_pred(rng), draw_trans(rng)
    a, x, r = pick(rng, LIST_ARGS), pick(rng, ELEM), pick(rng, ACC)
    name = f"{t.kind}_{p.kind}_{pick(rng, ('items', 'values', 'list'))}"
    doc = pick(
        rng,
        (
            f"For each element of {a} that is {p.phrase}, collect it {t.phrase}.",
            f"Return the elements of {a} that are {p.phrase}, each {t.phrase}.",
        ),
    )
    body = (
        f"    {r} = []\n    for {x} in {a}:\n        if {p.code.format(x=x)}:\n"
        f"            {r}.append({t.code.format(x=x)})\n    return {r}\n"
    )
    return Draft(name, (a,), doc, body, _list_sampler(), f"map_filter:{t.kind}:{p.kind}")


def fam_count(rng: random.Random) -> Draft:
    p, a, x, r = (
        draw_pred(rng),
        pick(rng, LIST_ARGS),
        pick(rng, ELEM),
        pick(rng, ("count", "total")),
    )
    name = pick(rng, ("count", "how_many", "num")) + "_" + p.kind
    doc = pick(
        rng,
        (
            f"Return how many numbers in {a} are {p.phrase}.",
            f"Count the elements of {a} that are {p.phrase}.",
        ),
    )
    body = (
        f"    {r} = 0\n    for {x} in {a}:\n        if {p.code.format(x=x)}:\n"
        f"            {r} += 1\n    return {r}\n"
    )
    return Draft(name, (a,), doc, body, _list_sampler(), f"count:{p.kind}")


def fam_sum_filter(rng: random.Random) -> Draft:
    p, a, x, r = draw_pred(rng), pick(rng, LIST_ARGS), pick(rng, ELEM), pick(rng, ("total", "s"))
    name = "sum_" + p.kind
    doc = pick(
        rng,
        (
            f"Return the sum of the numbers in {a} that are {p.phrase}.",
            f"Add up the elements of {a} that are {p.phrase}.",
        ),
    )
    body = (
        f"    {r} = 0\n    for {x} in {a}:\n        if {p.code.format(x=x)}:\n"
        f"            {r} += {x}\n    return {r}\n"
    )
    return Draft(name, (a,), doc, body, _list_sampler(), f"sum_filter:{p.kind}")


def fam_sum_map(rng: random.Random) -> Draft:
    t, a, x, r = draw_trans(rng), pick(rng, LIST_ARGS), pick(rng, ELEM), pick(rng, ("total", "s"))
    name = f"sum_{t.kind}"
    doc = f"Return the sum of each element of {a} {t.phrase}."
    body = (
        f"    {r} = 0\n    for {x} in {a}:\n        {r} += {t.code.format(x=x)}\n    return {r}\n"
    )
    return Draft(name, (a,), doc, body, _list_sampler(), f"sum_map:{t.kind}")


def fam_sum_map_filter(rng: random.Random) -> Draft:
    p, t = draw_pred(rng), draw_trans(rng)
    a, x, r = pick(rng, LIST_ARGS), pick(rng, ELEM), pick(rng, ("total", "s"))
    name = f"sum_{t.kind}_{p.kind}"
    doc = f"Return the sum of the elements of {a} that are {p.phrase}, each {t.phrase}."
    body = (
        f"    {r} = 0\n    for {x} in {a}:\n        if {p.code.format(x=x)}:\n"
        f"            {r} += {t.code.format(x=x)}\n    return {r}\n"
    )
    return Draft(name, (a,), doc, body, _list_sampler(), f"sum_map_filter:{t.kind}:{p.kind}")


def fam_extreme(rng: random.Random) -> Draft:
    p, a, x, r = draw_pred(rng), pick(rng, LIST_ARGS), pick(rng, ELEM), pick(rng, ("best", "m"))
    big = rng.random() < 0.5
    default = rng.choice((0, -1, None))
    word, op = ("largest", ">") if big else ("smallest", "<")
    name = f"{'max' if big else 'min'}_{p.kind}"
    doc = f"Return the {word} number in {a} that is {p.phrase}, or {default} if there is none."
    body = (
        f"    {r} = None\n    for {x} in {a}:\n        if {p.code.format(x=x)}:\n"
        f"            if {r} is None or {x} {op} {r}:\n                {r} = {x}\n"
        f"    if {r} is None:\n        return {default}\n    return {r}\n"
    )
    return Draft(name, (a,), doc, body, _list_sampler(), f"extreme:{p.kind}")


def fam_any_all(rng: random.Random) -> Draft:
    p, a, x = draw_pred(rng), pick(rng, LIST_ARGS), pick(rng, ELEM)
    every = rng.random() < 0.5
    if every:
        name = f"all_{p.kind}"
        doc = f"Return True if every number in {a} is {p.phrase}, else False."
        body = (
            f"    for {x} in {a}:\n        if not ({p.code.format(x=x)}):\n"
            "            return False\n    return True\n"
        )
    else:
        name = f"any_{p.kind}"
        doc = f"Return True if some number in {a} is {p.phrase}, else False."
        body = (
            f"    for {x} in {a}:\n        if {p.code.format(x=x)}:\n"
            "            return True\n    return False\n"
        )
    return Draft(name, (a,), doc, body, _list_sampler(), f"{'all' if every else 'any'}:{p.kind}")


def fam_index(rng: random.Random) -> Draft:
    p, a = draw_pred(rng), pick(rng, LIST_ARGS)
    i = pick(rng, ("i", "idx", "pos"))
    last = rng.random() < 0.4
    if last:
        name = f"last_index_{p.kind}"
        doc = f"Return the index of the last element of {a} that is {p.phrase}, or -1."
        body = (
            f"    for {i} in range(len({a}) - 1, -1, -1):\n"
            f"        if {p.code.format(x=f'{a}[{i}]')}:\n            return {i}\n    return -1\n"
        )
    else:
        name = f"first_index_{p.kind}"
        doc = f"Return the index of the first element of {a} that is {p.phrase}, or -1."
        body = (
            f"    for {i} in range(len({a})):\n"
            f"        if {p.code.format(x=f'{a}[{i}]')}:\n            return {i}\n    return -1\n"
        )
    return Draft(name, (a,), doc, body, _list_sampler(), f"index:{p.kind}")


def fam_take(rng: random.Random) -> Draft:
    p, a, x, r = draw_pred(rng), pick(rng, LIST_ARGS), pick(rng, ELEM), pick(rng, ACC)
    n = rng.randint(1, 4)
    name = f"first_{n}_{p.kind}"
    doc = (
        f"Return the first {n} elements of {a} that are {p.phrase} (fewer if there are not enough)."
    )
    body = (
        f"    {r} = []\n    for {x} in {a}:\n        if {p.code.format(x=x)}:\n"
        f"            {r}.append({x})\n            if len({r}) == {n}:\n                break\n"
        f"    return {r}\n"
    )
    return Draft(name, (a,), doc, body, _list_sampler(), f"take:{p.kind}")


def fam_sorted_filter(rng: random.Random) -> Draft:
    p, a, x = draw_pred(rng), pick(rng, LIST_ARGS), pick(rng, ELEM)
    rev = rng.random() < 0.5
    order = "descending" if rev else "ascending"
    name = f"sorted_{p.kind}"
    doc = f"Return the numbers in {a} that are {p.phrase}, sorted in {order} order."
    flag = ", reverse=True" if rev else ""
    body = f"    return sorted([{x} for {x} in {a} if {p.code.format(x=x)}]{flag})\n"
    return Draft(name, (a,), doc, body, _list_sampler(), f"sorted_filter:{p.kind}")


def fam_replace_if(rng: random.Random) -> Draft:
    p, a, x = draw_pred(rng), pick(rng, LIST_ARGS), pick(rng, ELEM)
    v = rng.randint(-1, 9)
    name = f"replace_{p.kind}"
    doc = f"Return a copy of {a} where every number that is {p.phrase} is replaced by {v}."
    body = f"    return [{v} if {p.code.format(x=x)} else {x} for {x} in {a}]\n"
    return Draft(name, (a,), doc, body, _list_sampler(), f"replace_if:{p.kind}")


def fam_partition_count(rng: random.Random) -> Draft:
    p, a, x = draw_pred(rng), pick(rng, LIST_ARGS), pick(rng, ELEM)
    name = f"split_count_{p.kind}"
    doc = f"Return a tuple (yes, no): how many numbers in {a} are {p.phrase}, and how many are not."
    body = (
        f"    yes = 0\n    no = 0\n    for {x} in {a}:\n        if {p.code.format(x=x)}:\n"
        f"            yes += 1\n        else:\n            no += 1\n    return (yes, no)\n"
    )
    return Draft(name, (a,), doc, body, _list_sampler(), f"partition:{p.kind}")


# -- other list families --------------------------------------------------------------------


def fam_running_sum(rng: random.Random) -> Draft:
    a, x, r = pick(rng, LIST_ARGS), pick(rng, ELEM), pick(rng, ACC)
    start = rng.randint(0, 5)
    name = pick(rng, ("running_sum", "prefix_sums", "cumulative"))
    if start:
        doc = f"Return the running totals of {a}, starting from {start}."
    else:
        doc = f"Return the running totals of {a}."
    body = (
        f"    total = {start}\n    {r} = []\n    for {x} in {a}:\n        total += {x}\n"
        f"        {r}.append(total)\n    return {r}\n"
    )
    return Draft(name, (a,), doc, body, _list_sampler(), "running_sum")


def fam_pairwise(rng: random.Random) -> Draft:
    a, i = pick(rng, LIST_ARGS), pick(rng, ("i", "j", "k"))
    op, word = rng.choice((("-", "differences"), ("+", "sums")))
    name = f"pairwise_{word}"
    doc = f"Return the {word} of neighbouring elements of {a}: {a}[i + 1] {op} {a}[i] for each i."
    body = f"    return [{a}[{i} + 1] {op} {a}[{i}] for {i} in range(len({a}) - 1)]\n"
    return Draft(name, (a,), doc, body, _list_sampler(), f"pairwise:{word}")


def fam_dedup(rng: random.Random) -> Draft:
    a, x, r = pick(rng, LIST_ARGS), pick(rng, ELEM), pick(rng, ACC)
    name = pick(rng, ("dedup", "unique", "distinct"))
    doc = f"Return the elements of {a} without repeats, keeping the first occurrence of each."
    body = (
        f"    seen = set()\n    {r} = []\n    for {x} in {a}:\n        if {x} not in seen:\n"
        f"            seen.add({x})\n            {r}.append({x})\n    return {r}\n"
    )
    return Draft(name, (a,), doc, body, lambda rng: (ints(rng, 0, 6),), "dedup")


def fam_product(rng: random.Random) -> Draft:
    p, a, x = draw_pred(rng), pick(rng, LIST_ARGS), pick(rng, ELEM)
    name = f"product_{p.kind}"
    doc = f"Return the product of the numbers in {a} that are {p.phrase} (1 if there are none)."
    body = (
        f"    prod = 1\n    for {x} in {a}:\n        if {p.code.format(x=x)}:\n"
        f"            prod *= {x}\n    return prod\n"
    )
    return Draft(name, (a,), doc, body, lambda rng: (ints(rng, -4, 9, 6),), f"product:{p.kind}")


def fam_chunk_sums(rng: random.Random) -> Draft:
    a, i = pick(rng, LIST_ARGS), pick(rng, ("i", "start"))
    n = rng.randint(2, 4)
    name = f"chunk_sums_{n}"
    doc = (
        f"Split {a} into consecutive chunks of {n} (the last may be shorter) and return their sums."
    )
    body = f"    return [sum({a}[{i}:{i} + {n}]) for {i} in range(0, len({a}), {n})]\n"
    return Draft(name, (a,), doc, body, _list_sampler(), "chunk_sums")


def fam_interleave(rng: random.Random) -> Draft:
    a, b = rng.sample(("xs", "ys", "left", "right", "a", "b"), 2)
    name = pick(rng, ("interleave", "zip_merge", "alternate"))
    doc = (
        f"Alternate elements of {a} and {b}, starting with {a}; append what is left of the longer."
    )
    body = (
        f"    out = []\n    for i in range(max(len({a}), len({b}))):\n"
        f"        if i < len({a}):\n            out.append({a}[i])\n"
        f"        if i < len({b}):\n            out.append({b}[i])\n    return out\n"
    )
    return Draft(
        name, (a, b), doc, body, lambda rng: (ints(rng, 0, 9, 5), ints(rng, 0, 9, 5)), "interleave"
    )


def fam_rotate(rng: random.Random) -> Draft:
    a = pick(rng, LIST_ARGS)
    n = rng.randint(1, 3)
    left = rng.random() < 0.5
    name = f"rotate_{'left' if left else 'right'}_{n}"
    side = "left" if left else "right"
    doc = f"Return {a} rotated {n} places to the {side} (an empty list stays empty)."
    cut = f"{n} % len({a})" if left else f"-{n} % len({a})"
    body = f"    if not {a}:\n        return []\n    k = {cut}\n    return {a}[k:] + {a}[:k]\n"
    return Draft(name, (a,), doc, body, lambda rng: (ints(rng, 0, 9, 6),), "rotate")


# -- string families ------------------------------------------------------------------------


def words(rng: random.Random, n_max: int = 6) -> list[str]:
    pool = (
        "apple", "bob", "cat", "dog", "echo", "fig", "gate", "hat", "ice", "jam", "kite",
        "lamp", "moon", "nut", "owl", "pear", "quiz", "rose", "sun", "tree", "urn", "vine",
        "wolf", "box", "yak", "zip", "Anna", "Ben", "Cara", "Dan",
    )  # fmt: skip
    return [rng.choice(pool) for _ in range(rng.randint(0, n_max))]


def text(rng: random.Random) -> str:
    return " ".join(words(rng, 5))


def fam_count_char(rng: random.Random) -> Draft:
    s, ch = pick(rng, STR_ARGS), rng.choice("aeiost")
    name = f"count_{ch}"
    doc = pick(rng, (f"Return how many times '{ch}' occurs in {s}.", f"Count the '{ch}' in {s}."))
    body = (
        f"    n = 0\n    for c in {s}:\n        if c == '{ch}':\n            n += 1\n    return n\n"
    )
    return Draft(name, (s,), doc, body, lambda rng: (text(rng),), "count_char")


def fam_replace_char(rng: random.Random) -> Draft:
    s = pick(rng, STR_ARGS)
    a, b = rng.sample("aeiostn_-", 2)
    name = f"replace_{a}_with_{b}".replace("-", "dash").replace("_with__", "_with_underscore")
    doc = f"Return {s} with every '{a}' replaced by '{b}'."
    body = f"    return {s}.replace('{a}', '{b}')\n"
    return Draft(name, (s,), doc, body, lambda rng: (text(rng),), "replace_char")


def fam_remove_chars(rng: random.Random) -> Draft:
    s = pick(rng, STR_ARGS)
    chars = "".join(sorted(rng.sample("aeiou", rng.randint(1, 3))))
    name = f"drop_{chars}"
    doc = f"Return {s} without the characters {', '.join(repr(c) for c in chars)}."
    body = f"    return ''.join(c for c in {s} if c not in '{chars}')\n"
    return Draft(name, (s,), doc, body, lambda rng: (text(rng),), "remove_chars")


def fam_word_filter_len(rng: random.Random) -> Draft:
    w, n = pick(rng, WORDS_ARGS), rng.randint(2, 5)
    longer = rng.random() < 0.5
    op, word = (">", "longer than") if longer else ("<", "shorter than")
    name = f"{'long' if longer else 'short'}_words_{n}"
    doc = f"Return the strings in {w} that are {word} {n} characters, in order."
    body = f"    return [t for t in {w} if len(t) {op} {n}]\n"
    return Draft(name, (w,), doc, body, lambda rng: (words(rng),), "word_filter_len")


def fam_word_prefix(rng: random.Random) -> Draft:
    w, ch = pick(rng, WORDS_ARGS), rng.choice("abcdmprst")
    name = f"starting_with_{ch}"
    ends = rng.random() < 0.3
    if ends:
        name = f"ending_with_{ch}"
        doc = f"Return the strings in {w} that end with '{ch}'."
        body = f"    return [t for t in {w} if t.endswith('{ch}')]\n"
    else:
        doc = f"Return the strings in {w} that start with '{ch}'."
        body = f"    return [t for t in {w} if t.startswith('{ch}')]\n"
    return Draft(name, (w,), doc, body, lambda rng: (words(rng, 8),), "word_prefix")


def fam_join(rng: random.Random) -> Draft:
    w = pick(rng, WORDS_ARGS)
    sep = rng.choice((", ", "-", " | ", "/", "+", "; "))
    upper = rng.random() < 0.3
    name = pick(rng, ("join_words", "glue", "combine"))
    item = "t.upper()" if upper else "t"
    extra = " in upper case" if upper else ""
    doc = f"Join the strings in {w}{extra} with {sep!r} between them."
    body = f"    return {sep!r}.join({item} for t in {w})\n"
    return Draft(name, (w,), doc, body, lambda rng: (words(rng),), "join")


def fam_reverse_words(rng: random.Random) -> Draft:
    s = pick(rng, STR_ARGS)
    each = rng.random() < 0.5
    if each:
        name = "reverse_each_word"
        doc = f"Return {s} with the letters of each space-separated word reversed."
        body = f"    return ' '.join(w[::-1] for w in {s}.split(' '))\n"
    else:
        name = "reverse_word_order"
        doc = f"Return the words of {s} (split on spaces) in reverse order, joined by one space."
        body = f"    return ' '.join(reversed({s}.split()))\n"
    return Draft(name, (s,), doc, body, lambda rng: (text(rng),), f"reverse_words:{each}")


def fam_caesar(rng: random.Random) -> Draft:
    s, k = pick(rng, STR_ARGS), rng.randint(1, 5)
    name = f"shift_letters_{k}"
    doc = f"Shift each lowercase letter of {s} {k} places forward in the alphabet, wrapping z to a; keep other characters."
    body = (
        f"    out = ''\n    for c in {s}:\n        if 'a' <= c <= 'z':\n"
        f"            out += chr((ord(c) - ord('a') + {k}) % 26 + ord('a'))\n"
        "        else:\n            out += c\n    return out\n"
    )
    return Draft(name, (s,), doc, body, lambda rng: (text(rng),), "caesar")


def fam_count_vowels(rng: random.Random) -> Draft:
    s = pick(rng, STR_ARGS)
    cons = rng.random() < 0.4
    if cons:
        name = "count_consonants"
        doc = f"Return how many characters of {s} are lowercase letters other than a, e, i, o, u."
        body = f"    return sum(1 for c in {s} if 'a' <= c <= 'z' and c not in 'aeiou')\n"
    else:
        name = "count_vowels"
        doc = f"Return how many characters of {s} are one of a, e, i, o, u (lowercase)."
        body = f"    return sum(1 for c in {s} if c in 'aeiou')\n"
    return Draft(name, (s,), doc, body, lambda rng: (text(rng),), f"vowels:{cons}")


def fam_capitalize(rng: random.Random) -> Draft:
    w = pick(rng, WORDS_ARGS)
    name = pick(rng, ("capitalize_all", "title_words"))
    doc = f"Return the strings in {w} with their first letter upper-cased and the rest lower-cased."
    body = f"    return [t.capitalize() for t in {w}]\n"
    return Draft(name, (w,), doc, body, lambda rng: (words(rng),), "capitalize")


def fam_repeat_chars(rng: random.Random) -> Draft:
    s, n = pick(rng, STR_ARGS), rng.randint(2, 3)
    name = f"repeat_each_{n}"
    doc = f"Return {s} with every character repeated {n} times."
    body = f"    return ''.join(c * {n} for c in {s})\n"
    return Draft(name, (s,), doc, body, lambda rng: (" ".join(words(rng, 2)),), "repeat_chars")


def fam_char_positions(rng: random.Random) -> Draft:
    s, ch = pick(rng, STR_ARGS), rng.choice("aeost")
    name = f"positions_of_{ch}"
    doc = f"Return the indexes at which '{ch}' occurs in {s}."
    body = f"    return [i for i, c in enumerate({s}) if c == '{ch}']\n"
    return Draft(name, (s,), doc, body, lambda rng: (text(rng),), "char_positions")


def fam_word_lengths(rng: random.Random) -> Draft:
    w = pick(rng, WORDS_ARGS)
    name = pick(rng, ("lengths", "word_lengths", "sizes"))
    doc = f"Return a dict mapping each string in {w} to its length."
    body = f"    return {{t: len(t) for t in {w}}}\n"
    return Draft(name, (w,), doc, body, lambda rng: (words(rng),), "word_lengths")


def fam_strip_prefix(rng: random.Random) -> Draft:
    s = pick(rng, STR_ARGS)
    prefix = rng.choice(("re", "un", "pre", "ab", "x_"))
    name = f"strip_{prefix.strip('_')}"
    doc = f"Return {s} without the prefix '{prefix}' if it starts with it, else {s} unchanged."
    body = (
        f"    if {s}.startswith('{prefix}'):\n        return {s}[{len(prefix)}:]\n    return {s}\n"
    )

    def sample(rng: random.Random) -> Args:
        w = rng.choice(words(rng, 1) or ["dog"])
        return ((prefix + w) if rng.random() < 0.5 else w,)

    return Draft(name, (s,), doc, body, sample, "strip_prefix")


def fam_count_words(rng: random.Random) -> Draft:
    s = pick(rng, STR_ARGS)
    name = pick(rng, ("word_counts", "count_words", "tally"))
    doc = f"Return a dict mapping each space-separated word of {s} to how many times it occurs."
    body = (
        f"    counts = {{}}\n    for w in {s}.split():\n        counts[w] = counts.get(w, 0) + 1\n"
        "    return counts\n"
    )
    return Draft(name, (s,), doc, body, lambda rng: (" ".join(words(rng, 7)),), "count_words")


# -- dict families --------------------------------------------------------------------------


def small_dict(rng: random.Random) -> dict[str, int]:
    keys = rng.sample("abcdefgh", rng.randint(0, 5))
    return {k: rng.randint(-3, 12) for k in keys}


def fam_dict_get(rng: random.Random) -> Draft:
    d, key = pick(rng, DICT_ARGS), pick(rng, ("key", "name", "k"))
    default = rng.randint(-1, 5)
    name = pick(rng, ("lookup", "get_or_default", "fetch"))
    doc = f"Return {d}[{key}] if {key} is in {d}, else {default}."
    body = f"    if {key} in {d}:\n        return {d}[{key}]\n    return {default}\n"
    return Draft(
        name, (d, key), doc, body, lambda rng: (small_dict(rng), rng.choice("abcdefgh")), "dict_get"
    )


def fam_keys_where(rng: random.Random) -> Draft:
    p, d = draw_pred(rng), pick(rng, DICT_ARGS)
    name = f"keys_{p.kind}"
    doc = f"Return the sorted keys of {d} whose value is {p.phrase}."
    body = f"    return sorted(k for k, v in {d}.items() if {p.code.format(x='v')})\n"
    return Draft(name, (d,), doc, body, lambda rng: (small_dict(rng),), f"keys_where:{p.kind}")


def fam_dict_map(rng: random.Random) -> Draft:
    t, d = draw_trans(rng), pick(rng, DICT_ARGS)
    name = f"values_{t.kind}"
    doc = f"Return a new dict with the same keys as {d} and each value {t.phrase}."
    body = f"    return {{k: {t.code.format(x='v')} for k, v in {d}.items()}}\n"
    return Draft(name, (d,), doc, body, lambda rng: (small_dict(rng),), f"dict_map:{t.kind}")


def fam_dict_sum(rng: random.Random) -> Draft:
    p, d = draw_pred(rng), pick(rng, DICT_ARGS)
    name = f"total_{p.kind}"
    doc = f"Return the sum of the values of {d} that are {p.phrase}."
    body = f"    return sum(v for v in {d}.values() if {p.code.format(x='v')})\n"
    return Draft(name, (d,), doc, body, lambda rng: (small_dict(rng),), f"dict_sum:{p.kind}")


def fam_invert(rng: random.Random) -> Draft:
    d = pick(rng, DICT_ARGS)
    name = pick(rng, ("invert", "flip", "swap_keys_values"))
    doc = f"Return a dict mapping each value of {d} to its key (later keys win on ties)."
    body = f"    return {{v: k for k, v in {d}.items()}}\n"
    return Draft(name, (d,), doc, body, lambda rng: (small_dict(rng),), "invert")


def fam_argmax_key(rng: random.Random) -> Draft:
    d = pick(rng, DICT_ARGS)
    big = rng.random() < 0.5
    name = "best_key" if big else "worst_key"
    word = "largest" if big else "smallest"
    fn = "max" if big else "min"
    doc = f"Return the key of {d} with the {word} value, or None if {d} is empty."
    body = f"    if not {d}:\n        return None\n    return {fn}({d}, key={d}.get)\n"
    return Draft(name, (d,), doc, body, lambda rng: (small_dict(rng),), f"argkey:{big}")


# -- arithmetic and control flow ------------------------------------------------------------


def fam_clamp(rng: random.Random) -> Draft:
    n = pick(rng, INT_ARGS)
    lo = rng.randint(-5, 5)
    hi = lo + rng.randint(3, 12)
    name = pick(rng, ("clamp", "bound", "limit"))
    doc = f"Return {n} limited to the range [{lo}, {hi}]."
    body = f"    if {n} < {lo}:\n        return {lo}\n    if {n} > {hi}:\n        return {hi}\n    return {n}\n"
    return Draft(name, (n,), doc, body, lambda rng: (rng.randint(lo - 8, hi + 8),), "clamp")


def fam_fizz(rng: random.Random) -> Draft:
    n = pick(rng, INT_ARGS)
    a, b = rng.sample((2, 3, 4, 5, 7), 2)
    wa, wb = rng.sample(("Fizz", "Buzz", "Foo", "Bar", "Ping", "Pong"), 2)
    name = f"{wa.lower()}_{wb.lower()}"
    doc = (
        f"Return '{wa}{wb}' if {n} is divisible by both {a} and {b}, '{wa}' if only by {a}, "
        f"'{wb}' if only by {b}, else str({n})."
    )
    body = (
        f"    if {n} % {a} == 0 and {n} % {b} == 0:\n        return '{wa}{wb}'\n"
        f"    if {n} % {a} == 0:\n        return '{wa}'\n"
        f"    if {n} % {b} == 0:\n        return '{wb}'\n    return str({n})\n"
    )
    return Draft(name, (n,), doc, body, lambda rng: (rng.randint(1, 60),), "fizz")


def fam_piecewise(rng: random.Random) -> Draft:
    n = pick(rng, INT_ARGS)
    c1 = rng.randint(-3, 5)
    c2 = c1 + rng.randint(2, 8)
    la, lb, lc = rng.sample(("low", "mid", "high", "small", "big", "cold", "warm", "hot"), 3)
    name = pick(rng, ("classify", "bucket", "grade"))
    doc = f"Return '{la}' if {n} is below {c1}, '{lb}' if it is below {c2}, else '{lc}'."
    body = (
        f"    if {n} < {c1}:\n        return '{la}'\n    if {n} < {c2}:\n        return '{lb}'\n"
        f"    return '{lc}'\n"
    )
    return Draft(name, (n,), doc, body, lambda rng: (rng.randint(c1 - 6, c2 + 6),), "piecewise")


def fam_sign(rng: random.Random) -> Draft:
    n = pick(rng, INT_ARGS)
    w = rng.sample(("negative", "zero", "positive", "minus", "none", "plus"), 3)
    name = pick(rng, ("sign_word", "describe_sign"))
    doc = f"Return '{w[0]}' if {n} < 0, '{w[1]}' if {n} == 0, else '{w[2]}'."
    body = (
        f"    if {n} < 0:\n        return '{w[0]}'\n    if {n} == 0:\n        return '{w[1]}'\n"
        f"    return '{w[2]}'\n"
    )
    return Draft(name, (n,), doc, body, lambda rng: (rng.randint(-3, 3),), "sign")


def fam_digit_sum(rng: random.Random) -> Draft:
    n = pick(rng, INT_ARGS)
    kind = rng.choice(("sum", "count", "product", "max"))
    name = f"digit_{kind}"
    if kind == "sum":
        doc = f"Return the sum of the decimal digits of {n} (ignore the sign)."
        body = f"    return sum(int(c) for c in str(abs({n})))\n"
    elif kind == "count":
        doc = f"Return how many decimal digits {n} has (ignore the sign)."
        body = f"    return len(str(abs({n})))\n"
    elif kind == "product":
        doc = f"Return the product of the decimal digits of {n} (ignore the sign)."
        body = f"    p = 1\n    for c in str(abs({n})):\n        p *= int(c)\n    return p\n"
    else:
        doc = f"Return the largest decimal digit of {n} (ignore the sign)."
        body = f"    return max(int(c) for c in str(abs({n})))\n"
    return Draft(name, (n,), doc, body, lambda rng: (rng.randint(-999, 99999),), f"digit:{kind}")


def fam_collatz(rng: random.Random) -> Draft:
    n = pick(rng, INT_ARGS)
    name = pick(rng, ("collatz_steps", "steps_to_one"))
    doc = (
        f"Return how many steps take {n} to 1, halving even numbers and mapping odd m to 3 * m + 1."
    )
    body = (
        f"    steps = 0\n    while {n} != 1:\n        if {n} % 2 == 0:\n            {n} = {n} // 2\n"
        f"        else:\n            {n} = 3 * {n} + 1\n        steps += 1\n    return steps\n"
    )
    return Draft(name, (n,), doc, body, lambda rng: (rng.randint(1, 40),), "collatz")


def fam_power_above(rng: random.Random) -> Draft:
    n, b = pick(rng, INT_ARGS), rng.randint(2, 4)
    name = f"smallest_power_of_{b}"
    doc = f"Return the smallest power of {b} (1, {b}, {b * b}, ...) that is at least {n}."
    body = f"    p = 1\n    while p < {n}:\n        p *= {b}\n    return p\n"
    return Draft(name, (n,), doc, body, lambda rng: (rng.randint(-2, 100),), "power_above")


def fam_sum_range(rng: random.Random) -> Draft:
    n = pick(rng, INT_ARGS)
    p = draw_pred(rng)
    name = f"sum_upto_{p.kind}"
    doc = f"Return the sum of the integers from 1 to {n} inclusive that are {p.phrase}."
    body = (
        f"    total = 0\n    for i in range(1, {n} + 1):\n        if {p.code.format(x='i')}:\n"
        "            total += i\n    return total\n"
    )
    return Draft(name, (n,), doc, body, lambda rng: (rng.randint(0, 30),), f"sum_range:{p.kind}")


def fam_gcd(rng: random.Random) -> Draft:
    a, b = rng.sample(("a", "b", "m", "n", "x", "y"), 2)
    lcm = rng.random() < 0.4
    name = "lcm" if lcm else pick(rng, ("gcd", "common_divisor"))
    if lcm:
        doc = f"Return the least common multiple of the positive integers {a} and {b}."
        body = (
            f"    x, y = {a}, {b}\n    while y:\n        x, y = y, x % y\n"
            f"    return {a} * {b} // x\n"
        )
    else:
        doc = f"Return the greatest common divisor of the positive integers {a} and {b}."
        body = f"    while {b}:\n        {a}, {b} = {b}, {a} % {b}\n    return {a}\n"
    return Draft(
        name, (a, b), doc, body, lambda rng: (rng.randint(1, 60), rng.randint(1, 60)), f"gcd:{lcm}"
    )


def fam_between(rng: random.Random) -> Draft:
    n, lo, hi = pick(rng, INT_ARGS), "lo", "hi"
    strict = rng.random() < 0.5
    name = "strictly_between" if strict else "in_range"
    if strict:
        doc = f"Return True if {n} is strictly between {lo} and {hi}, else False."
        body = f"    return {lo} < {n} < {hi}\n"
    else:
        doc = f"Return True if {lo} <= {n} <= {hi}, else False."
        body = f"    return {lo} <= {n} <= {hi}\n"

    def sample(rng: random.Random) -> Args:
        a = rng.randint(-5, 5)
        b = a + rng.randint(0, 6)
        return (rng.randint(a - 2, b + 2), a, b)

    return Draft(name, (n, lo, hi), doc, body, sample, f"between:{strict}")


def fam_count_multiples(rng: random.Random) -> Draft:
    n = pick(rng, INT_ARGS)
    a, b = rng.sample((2, 3, 5, 7), 2)
    either = rng.random() < 0.5
    join = "or" if either else "and"
    name = f"count_multiples_{a}_{join}_{b}"
    doc = f"Return how many integers from 1 to {n} are divisible by {a} {join} by {b}."
    body = f"    return sum(1 for i in range(1, {n} + 1) if i % {a} == 0 {join} i % {b} == 0)\n"
    return Draft(name, (n,), doc, body, lambda rng: (rng.randint(0, 50),), f"multiples:{join}")


def fam_repeat_string(rng: random.Random) -> Draft:
    n = pick(rng, INT_ARGS)
    a, b = rng.sample(("ab", "x", "-", "ha", "o", "*"), 2)
    name = pick(rng, ("pattern", "stripes"))
    doc = f"Return a string of {n} parts alternating '{a}' and '{b}', starting with '{a}'."
    body = (
        f"    out = ''\n    for i in range({n}):\n        if i % 2 == 0:\n            out += '{a}'\n"
        f"        else:\n            out += '{b}'\n    return out\n"
    )
    return Draft(name, (n,), doc, body, lambda rng: (rng.randint(0, 7),), "alternate_string")


FAMILIES: dict[str, Callable[[random.Random], Draft]] = {
    f.__name__.removeprefix("fam_"): f
    for f in (
        fam_filter,
        fam_map,
        fam_map_filter,
        fam_count,
        fam_sum_filter,
        fam_sum_map,
        fam_sum_map_filter,
        fam_extreme,
        fam_any_all,
        fam_index,
        fam_take,
        fam_sorted_filter,
        fam_replace_if,
        fam_partition_count,
        fam_running_sum,
        fam_pairwise,
        fam_dedup,
        fam_product,
        fam_chunk_sums,
        fam_interleave,
        fam_rotate,
        fam_count_char,
        fam_replace_char,
        fam_remove_chars,
        fam_word_filter_len,
        fam_word_prefix,
        fam_join,
        fam_reverse_words,
        fam_caesar,
        fam_count_vowels,
        fam_capitalize,
        fam_repeat_chars,
        fam_char_positions,
        fam_word_lengths,
        fam_strip_prefix,
        fam_count_words,
        fam_dict_get,
        fam_keys_where,
        fam_dict_map,
        fam_dict_sum,
        fam_invert,
        fam_argmax_key,
        fam_clamp,
        fam_fizz,
        fam_piecewise,
        fam_sign,
        fam_digit_sum,
        fam_collatz,
        fam_power_above,
        fam_sum_range,
        fam_gcd,
        fam_between,
        fam_count_multiples,
        fam_repeat_string,
    )
}

N_TESTS = 6


def compile_function(draft: Draft) -> Callable[..., Any]:
    """The canonical solution as a callable (trusted code written by this module)."""
    namespace: dict[str, Any] = {}
    source = f"def {draft.name}({', '.join(draft.params)}):\n{draft.body}"
    exec(compile(source, f"<synth {draft.name}>", "exec"), namespace)
    fn: Callable[..., Any] = namespace[draft.name]
    return fn


class CallTimeoutError(Exception):
    """A generated (or mutated) function ran past its budget of line events or CPU time."""


class _Spent(BaseException):
    """Raised inside the traced call (past ``except Exception`` in a mutated body)."""


#: the line events one call may execute: the canonical bodies execute at most a few hundred on
#: their sampled inputs, a mutated loop that never ends reaches this in milliseconds
LINE_BUDGET = 100_000


def call(
    fn: Callable[..., Any], args: Args, budget_s: float = 0.05, lines: int = LINE_BUDGET
) -> Any:
    """Call ``fn`` on a copy of ``args``; a mutated loop that never ends raises
    ``CallTimeoutError`` once the call has executed ``lines`` line events (counted by a trace
    function on this thread), or ``budget_s`` of this thread's CPU time where its lines grow
    costly (a number squared, a string doubled, line after line). The count makes which
    mutations survive (the generated files) the same on every host and under any load; the
    CPU time is read on every line once the wall clock says the budget could be spent, so a
    growing value is stopped within a line of the budget. No signal is involved: a budget kept by a profiling timer counted every thread's
    CPU time, worked on the main thread only, and once, in a test process that had run Ray's
    client, never stopped a mutated loop at all."""
    copied = copy.deepcopy(args)
    # a thread's CPU time never exceeds the wall time it has run: the wall clock (a tenth of
    # the CPU clock's cost per line) says when the CPU clock is worth reading
    wall, cpu = time.perf_counter, time.thread_time
    began_wall, began_cpu = wall(), cpu()
    count = 0

    def local(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
            if count > lines or (wall() - began_wall > budget_s and cpu() - began_cpu > budget_s):
                raise _Spent
        return local

    def start(frame: Any, event: str, arg: Any) -> Any:
        return local

    before = sys.gettrace()
    sys.settrace(start)
    try:
        return fn(*copied)
    except _Spent:
        raise CallTimeoutError from None
    finally:
        sys.settrace(before)


def make_instance(family: str, rng: random.Random, split: str) -> Instance | None:
    """Draw one instance of ``family``; None when the draw is unusable for ``split``
    (a held-out combination drawn for training, or outputs that do not vary)."""
    draft = FAMILIES[family](rng)
    if draft.combo and held_out(draft.combo) and split == "train":
        return None
    fn = compile_function(draft)
    inputs: list[Args] = []
    seen: set[str] = set()
    outputs: set[str] = set()
    for _ in range(60):
        args = draft.sampler(rng)
        key = repr(args)
        if key in seen:
            continue
        try:
            out = call(fn, args)
        except Exception:
            continue
        seen.add(key)
        inputs.append(args)
        outputs.add(repr(out))
        if len(inputs) == N_TESTS:
            break
    if len(inputs) < N_TESTS or len(outputs) < 2:
        return None
    return Instance(
        family, draft.name, draft.params, draft.doc, draft.body, tuple(inputs), draft.combo
    )


def example_of(instance: Instance) -> tuple[Args, Any]:
    """The docstring example: the first hidden input with a non-trivial output when possible."""
    fn = compile_function(
        Draft(instance.name, instance.params, instance.doc, instance.body, lambda r: ())
    )
    best = instance.inputs[0]
    for args in instance.inputs:
        out = call(fn, args)
        if out not in ([], 0, None, "", {}, False):
            best = args
            break
    return best, call(fn, best)
