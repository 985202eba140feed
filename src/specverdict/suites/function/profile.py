"""What a task's seed inputs look like, so that generated inputs stay in the task's domain.

HumanEval states its preconditions in prose ("a list of positive integers", "intervals
(start, end) with start <= end", "strings of 0s and 1s of equal length"); a generated input
outside them makes the reference solution answer *something*, and a correct but different
solution may answer something else. EvalPlus guards against that with hand-written contracts;
here the guard is inferred from the seeds, in the manner of invariant detectors: whatever holds
for every seed at a position is kept for generated inputs too.

Per position (an argument, then recursively items, dict keys and values):

* numbers stay within the seeds' ``[min, max]``;
* strings keep their letters, digits and punctuation in place by class: lower-case letters are
  replaced by lower-case letters seen there, digits by digits, and every other character
  (spaces, brackets, separators) is never changed; a run of letters only grows or shrinks
  within the run lengths the seeds show, a run of digits keeps its length, and a number gains
  no leading zero unless some seed has one;
* sequences and strings keep the seeds' range of lengths (up to twice the longest; exactly the
  one length when every seed has it), and sequences stay sorted, duplicate-free, of one length
  parity, or rectangular when every seed is;
* across arguments: a constant length difference, ``int <= len(seq)`` or ``a <= b`` that holds
  for every seed holds for generated inputs.

An invariant that holds by chance only narrows the generated inputs; it never admits a bad one.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

Args = tuple[Any, ...]
SIZED = (str, list, tuple, dict, set)


def char_class(ch: str) -> str:
    """``lower``, ``upper`` or ``digit`` for ASCII letters and digits; ``other`` for the rest,
    which generated strings never change."""
    if "a" <= ch <= "z":
        return "lower"
    if "A" <= ch <= "Z":
        return "upper"
    if "0" <= ch <= "9":
        return "digit"
    return "other"


def runs(text: str) -> list[tuple[str, int, int]]:
    """Maximal runs of one character class: ``(class, start, length)``."""
    out: list[tuple[str, int, int]] = []
    for cls, group in itertools.groupby(enumerate(text), key=lambda p: char_class(p[1])):
        items = list(group)
        out.append((cls, items[0][0], len(items)))
    return out


def _sorted(seq: Sequence[Any]) -> bool:
    try:
        return all(a <= b for a, b in itertools.pairwise(seq))
    except TypeError:
        return False


def _distinct(seq: Sequence[Any]) -> bool:
    try:
        return len(set(seq)) == len(seq)
    except TypeError:
        return False


@dataclass
class Profile:
    """Facts true of every seed value seen at one position."""

    count: int = 0
    lo: float | None = None
    hi: float | None = None
    alphabet: dict[str, set[str]] = field(default_factory=dict)
    zero_led: bool = False  # some seed has a multi-digit run starting with 0
    run_lo: dict[str, int] = field(default_factory=dict)
    run_hi: dict[str, int] = field(default_factory=dict)
    len_lo: int | None = None
    len_hi: int | None = None
    ordered: bool = True  # every list/tuple seed is sorted
    distinct: bool = True
    parity: int | None = -1  # -1: no sequence seen yet; None: mixed
    rectangular: bool = True
    pool: list[Any] = field(default_factory=list)
    item: Profile | None = None
    key: Profile | None = None
    value: Profile | None = None

    def child(self, name: str) -> Profile:
        existing: Profile | None = getattr(self, name)
        if existing is None:
            existing = Profile()
            setattr(self, name, existing)
        return existing

    def add(self, value: Any) -> None:
        self.count += 1
        if len(self.pool) < 64:
            self.pool.append(value)
        t = type(value)
        if t in (int, float):
            self.lo = value if self.lo is None else min(self.lo, value)
            self.hi = value if self.hi is None else max(self.hi, value)
        elif t is str:
            self._add_str(value)
        if t in SIZED:
            n = len(value)
            self.len_lo = n if self.len_lo is None else min(self.len_lo, n)
            self.len_hi = n if self.len_hi is None else max(self.len_hi, n)
        if t in (list, tuple, set):
            self._add_seq(value)
        elif t is dict:
            for k, v in value.items():
                self.child("key").add(k)
                self.child("value").add(v)

    def _add_str(self, text: str) -> None:
        for cls, start, length in runs(text):
            if cls == "digit" and length > 1 and text[start] == "0":
                self.zero_led = True
            self.alphabet.setdefault(cls, set()).update(text[start : start + length])
            self.run_lo[cls] = min(self.run_lo.get(cls, length), length)
            self.run_hi[cls] = max(self.run_hi.get(cls, length), length)

    def _add_seq(self, seq: Any) -> None:
        if type(seq) is not set:
            self.ordered = self.ordered and _sorted(seq)
            self.distinct = self.distinct and _distinct(seq)
        parity = len(seq) % 2
        self.parity = parity if self.parity in (-1, parity) else None
        inner = [len(x) for x in seq if type(x) in (list, tuple)]
        if inner and (len(inner) != len(seq) or len(set(inner)) > 1):
            self.rectangular = False
        for item in seq:
            self.child("item").add(item)

    # -- checks on generated values ------------------------------------------------------
    def admits(self, value: Any) -> bool:
        """Whether a generated value keeps every invariant of this position."""
        t = type(value)
        bounded = self.lo is not None and self.hi is not None
        if t in (int, float) and bounded and not self.lo <= value <= self.hi:
            return False
        if t is str and not self._admits_str(value):
            return False
        if t in SIZED and self.len_lo is not None and self.len_hi is not None:
            if self.len_lo == self.len_hi and self.count > 1:
                if len(value) != self.len_lo:
                    return False
            elif not self.len_lo <= len(value) <= max(self.len_hi * 2, self.len_hi + 2):
                return False
        if t in (list, tuple, set):
            return self._admits_seq(value)
        if t is dict:
            return all(self._child_admits("key", k) for k in value) and all(
                self._child_admits("value", v) for v in value.values()
            )
        return True

    def _child_admits(self, name: str, value: Any) -> bool:
        child: Profile | None = getattr(self, name)
        return child is None or child.admits(value)

    def _admits_str(self, text: str) -> bool:
        for cls, start, length in runs(text):
            if cls == "other":
                continue
            if (
                cls not in self.alphabet
                or not set(text[start : start + length]) <= self.alphabet[cls]
            ):
                return False
            if not self.run_lo[cls] <= length <= self.run_hi[cls]:
                return False
            if cls == "digit" and length > 1 and text[start] == "0" and not self.zero_led:
                return False
        return True

    def _admits_seq(self, seq: Any) -> bool:
        if type(seq) is not set:
            if self.ordered and self.count > 0 and not _sorted(seq):
                return False
            if self.distinct and not _distinct(seq):
                return False
        if self.parity in (0, 1) and len(seq) % 2 != self.parity:
            return False
        inner = [len(x) for x in seq if type(x) in (list, tuple)]
        if self.rectangular and inner and (len(inner) != len(seq) or len(set(inner)) > 1):
            return False
        return all(self._child_admits("item", item) for item in seq)


@dataclass(frozen=True, slots=True)
class Relation:
    """``kind`` over arguments ``i`` and ``j``: ``len-diff`` (``len(a_i) - len(a_j) == k``),
    ``le-len``/``lt-len`` (``a_i <= / < len(a_j)``), ``le``/``lt`` (``a_i <= / < a_j``)."""

    kind: str
    i: int
    j: int
    k: int = 0

    def holds(self, args: Args) -> bool:
        a, b = args[self.i], args[self.j]
        if self.kind == "len-diff":
            return type(a) in SIZED and type(b) in SIZED and len(a) - len(b) == self.k
        if self.kind in ("le-len", "lt-len"):
            if type(a) is not int or type(b) not in SIZED:
                return True
            return a <= len(b) if self.kind == "le-len" else a < len(b)
        if type(a) not in (int, float) or type(b) not in (int, float):
            return True
        return bool(a <= b) if self.kind == "le" else bool(a < b)


def _relations(seeds: Sequence[Args]) -> list[Relation]:
    arity = len(seeds[0])
    found: list[Relation] = []
    for i, j in itertools.permutations(range(arity), 2):
        col_i = [s[i] for s in seeds]
        col_j = [s[j] for s in seeds]
        if all(type(x) in SIZED for x in col_i + col_j) and i < j:
            diffs = {len(x) - len(y) for x, y in zip(col_i, col_j, strict=True)}
            if len(diffs) == 1:
                found.append(Relation("len-diff", i, j, diffs.pop()))
        if all(type(x) is int for x in col_i) and all(type(y) in SIZED for y in col_j):
            for kind in ("lt-len", "le-len"):
                if all(Relation(kind, i, j).holds(s) for s in seeds):
                    found.append(Relation(kind, i, j))
                    break
        numeric = (int, float)
        if all(type(x) in numeric for x in col_i + col_j):
            for kind in ("lt", "le"):
                if all(Relation(kind, i, j).holds(s) for s in seeds):
                    found.append(Relation(kind, i, j))
                    break
    return found


@dataclass
class Domain:
    """The inferred domain of a task's inputs: one profile per argument and the relations."""

    arity: int
    args: list[Profile]
    relations: list[Relation]

    @classmethod
    def infer(cls, seeds: Sequence[Args]) -> Domain:
        arities = {len(s) for s in seeds}
        if len(arities) != 1:
            raise ValueError("seed inputs differ in arity")
        arity = arities.pop()
        profiles = [Profile() for _ in range(arity)]
        for seed in seeds:
            for profile, value in zip(profiles, seed, strict=True):
                profile.add(value)
        return cls(arity, profiles, _relations(seeds))

    def admits(self, args: Args) -> bool:
        return (
            len(args) == self.arity
            and all(p.admits(v) for p, v in zip(self.args, args, strict=True))
            and all(r.holds(args) for r in self.relations)
        )
