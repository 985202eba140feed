"""What a task's docstring states about its inputs, and generator 4's domain read from it.

Generators 2 and 3 keep whatever holds for every seed as a rule of the task unless the
docstring says otherwise in a few words (``edges.widen``, ``corners.widen_by_docstring``).
Measured on hand-written wrong solutions, several such chance rules kept out exactly the inputs
that real mistakes trip on: lower-case seeds kept out capitals, seeds without a zero kept out
``0`` even where the docstring says ``0 <= N``, seeds with small negatives kept out large ones,
and a docstring that says "Return sorted unique elements" (of the output) kept the input free of
duplicates. Generator 4 reads the docstring more closely (``read_statement``):

* **stated bounds**: ``0 <= N <= 10000``, ``1 <= len(arr) <= 100``, ``n > 0``: a number or a
  length bound stated for a parameter by name; a stated bound replaces the seeds' range;
* **letter case**: whether it speaks of case at all (lower, upper, capital, case);
* **closed alphabets**: whether it restricts what a string holds ("only", "consisting of",
  "format", brackets, parentheses, digits, hexadecimal, binary): such strings get no new kind
  of character (``charclass.py`` reads this);
* **spaces as separators**: "separated by spaces", "space-delimited": a space there is not
  swapped for a tab or a newline;
* **ties**: whether it asks for unique, distinct or different input items, read outside its
  examples and outside the sentences that say what is returned;
* **quoted marks**: punctuation it quotes (``'.', '?' or '!'``).

``widen_by_statement`` then widens generator 3's domain where the docstring leaves room: every
letter, in both cases where it does not speak of case, where the alphabet is open; equal items
where it does not ask for unique ones; the empty list where it sets no least size (one length
shared by every seed list, longer than a pair, counts as chance); ``0`` for a whole-number
argument whose seeds are all positive where it speaks of integers and does not say positive;
floats down to ``TINY`` where the seeds are positive floats with a fraction; negative items and
numbers down to minus the largest seen where some seed is negative; a digit run one digit
longer than any seed's where the alphabet is open; and the stated bounds over all of these. The task's contract and the reference (it must answer, the same way twice) still
have the last word.
"""

from __future__ import annotations

import ast
import copy
import re
import string
from dataclasses import dataclass, field

from specverdict.suites import pyast
from specverdict.suites.function.boundary import Boundaries
from specverdict.suites.function.profile import Domain, Profile

#: the smallest positive float a position of positive floats is widened to
TINY = 1e-05

_INTEGER = re.compile(r"\bintegers?\b", re.IGNORECASE)
_SPACE = re.compile(r"\bspaces?\b", re.IGNORECASE)
_WHITESPACE = re.compile(r"whitespace|white space", re.IGNORECASE)
_CASE = re.compile(r"lower|upper|capital|\bcase", re.IGNORECASE)
_CLOSED = re.compile(
    r"\bonly\b|consist|composed of|made (?:up )?of|format|bracket|parenthes|digit|hexadecimal"
    r"|binary",
    re.IGNORECASE,
)
_SEPARATOR = re.compile(
    r"separated by (?:a )?(?:single )?spaces?|spaces?[- ](?:separated|delimited)",
    re.IGNORECASE,
)
_TIES = re.compile(r"unique|distinct|different|no duplicat|no repeat", re.IGNORECASE)
_RETURNS = re.compile(r"\breturns?\b|\boutput\b|\bresult\b", re.IGNORECASE)
_QUOTED = re.compile(r"""['"]([^\w\s'"])['"]""")
_NUMBER = r"-?\d+(?:\.\d+)?(?:\s*\^\s*\d+)?"
_SUBJECT = r"len\((?P<len1>\w+)\)|(?P<len2>\w+)\.length|(?P<name>[A-Za-z_]\w*)"
_LE = r"<=|≤|<"
_GE = r">=|≥|>"
_CHAIN = re.compile(
    rf"(?P<lo>{_NUMBER})\s*(?P<op1>{_LE})\s*(?:{_SUBJECT})\s*(?P<op2>{_LE})\s*(?P<hi>{_NUMBER})"
)
_BELOW = re.compile(rf"(?:{_SUBJECT})\s*(?P<op>{_LE}|{_GE})\s*(?P<value>{_NUMBER})(?![\w(.])")
_ABOVE = re.compile(rf"(?<![\w.])(?P<value>{_NUMBER})\s*(?P<op>{_LE})\s*(?:{_SUBJECT})(?!\s*{_LE})")

Range = tuple[float | None, float | None]


@dataclass(frozen=True, slots=True)
class Statement:
    """What a docstring states about the inputs (module docstring); ``values`` and ``lengths``
    map a parameter's name to its stated ``(lo, hi)``, ``None`` where unstated."""

    values: dict[str, Range] = field(default_factory=dict)
    lengths: dict[str, Range] = field(default_factory=dict)
    cased: bool = False
    closed: bool = False
    spaces: bool = False
    whitespace: bool = False
    separator: bool = False
    integers: bool = False
    ties_forbidden: bool = False
    marks: tuple[str, ...] = ()


def parameters(reference: str, entry_point: str) -> tuple[str, ...]:
    """The positional parameters of ``entry_point`` in ``reference``, in order."""
    try:
        tree = pyast.parse(reference)
    except SyntaxError:
        return ()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            return tuple(a.arg for a in (*node.args.posonlyargs, *node.args.args))
    return ()


def _value(text: str) -> float:
    if "^" in text:
        base, power = text.split("^")
        return float(base) ** int(power)
    return float(text)


def _bound(
    found: dict[str, Range], name: str, lo: float | None, hi: float | None, strict: bool
) -> None:
    """Record ``lo <= name`` or ``name <= hi`` (``strict``: ``<``, one inside for integers)."""
    old_lo, old_hi = found.get(name, (None, None))
    if lo is not None:
        old_lo = lo + 1 if strict and lo.is_integer() else lo
    if hi is not None:
        old_hi = hi - 1 if strict and hi.is_integer() else hi
    found[name] = (old_lo, old_hi)


def _subject(match: re.Match[str]) -> tuple[str, bool]:
    """The parameter a match names and whether it is its length."""
    length = match.group("len1") or match.group("len2")
    return (length, True) if length else (match.group("name"), False)


def _stated_bounds(doc: str, params: tuple[str, ...]) -> tuple[dict[str, Range], dict[str, Range]]:
    values: dict[str, Range] = {}
    lengths: dict[str, Range] = {}
    for line in doc.splitlines():
        if ">>>" in line or "=>" in line or "->" in line:
            continue  # an example, not a statement
        for m in _CHAIN.finditer(line):
            name, is_len = _subject(m)
            if name in params:
                where = lengths if is_len else values
                _bound(where, name, _value(m.group("lo")), None, m.group("op1") == "<")
                _bound(where, name, None, _value(m.group("hi")), m.group("op2") == "<")
        chained = {m.span() for m in _CHAIN.finditer(line)}
        for pattern in (_BELOW, _ABOVE):
            for m in pattern.finditer(line):
                if any(a <= m.start() < b for a, b in chained):
                    continue
                name, is_len = _subject(m)
                if name not in params:
                    continue
                value, op = _value(m.group("value")), m.group("op")
                upper = (op in ("<=", "≤", "<")) == (pattern is _BELOW)
                strict = op in ("<", ">")
                where = lengths if is_len else values
                _bound(where, name, None if upper else value, value if upper else None, strict)
    return values, lengths


def _sentences(doc: str) -> list[str]:
    """The docstring's sentences, example lines left out."""
    prose = "\n".join(
        line for line in doc.splitlines() if ">>>" not in line and not line.strip().startswith("#")
    )
    return [s for s in re.split(r"(?<=[.!?])\s+|\n\s*\n", prose) if s.strip()]


def read_statement(doc: str, entry_point: str, params: tuple[str, ...]) -> Statement:
    """What ``doc``, the docstring of ``entry_point``, states about its inputs."""
    name = re.compile(rf"\b{re.escape(entry_point)}\b") if entry_point else None
    sentences = [name.sub("", s) if name else s for s in _sentences(doc)]  # not its own name
    prose = " ".join(sentences)
    ties = any(_TIES.search(s) and not _RETURNS.search(s) for s in sentences)
    values, lengths = _stated_bounds(doc, params)
    return Statement(
        values=values,
        lengths=lengths,
        cased=_CASE.search(prose) is not None,
        closed=_CLOSED.search(prose) is not None,
        spaces=_SPACE.search(prose) is not None,
        whitespace=_WHITESPACE.search(prose) is not None,
        integers=_INTEGER.search(prose) is not None,
        separator=_SEPARATOR.search(prose) is not None,
        ties_forbidden=ties,
        marks=tuple(sorted(set(_QUOTED.findall(prose)))),
    )


def _numbers(p: Profile) -> list[float]:
    return [v for v in p.pool if type(v) in (int, float)]


def _widen_numbers(p: Profile, b: Boundaries, s: Statement, scalar: bool) -> None:
    nums = _numbers(p)
    if p.lo is None or p.hi is None or not nums:
        return
    if p.lo < 0 < p.hi:  # some seed is negative: as negative as the largest is positive
        p.lo = min(p.lo, -p.hi)
    if all(type(v) is float for v in nums) and p.lo > 0 and not all(v.is_integer() for v in nums):
        p.lo = min(p.lo, TINY)
    elif (
        scalar and all(type(v) is int for v in nums) and p.lo > 0 and s.integers and not b.positive
    ):
        p.lo = 0


def _widen_case(p: Profile) -> None:
    lower, upper = p.alphabet.get("lower"), p.alphabet.get("upper")
    if (lower is None) == (upper is None):
        return  # no letters, or both cases already
    letters = {c.lower() for c in (lower or set()) | (upper or set())}
    p.alphabet["lower"] = set(letters)
    p.alphabet["upper"] = {c.upper() for c in letters}
    for runs in (p.run_lo, p.run_hi):
        pick = min if runs is p.run_lo else max
        seen = [runs[c] for c in ("lower", "upper") if c in runs]
        runs["lower"] = runs["upper"] = pick(seen)


def _widen(p: Profile, b: Boundaries, s: Statement, scalar: bool) -> None:
    _widen_numbers(p, b, s, scalar)
    if not s.ties_forbidden:
        p.distinct = False
    if p.alphabet and not s.closed:
        for cls, letters in (("lower", string.ascii_lowercase), ("upper", string.ascii_uppercase)):
            if cls in p.alphabet:
                p.alphabet[cls] = set(letters)
        if not s.cased:
            _widen_case(p)
        if "digit" in p.run_hi:
            p.run_hi["digit"] += 1
    for child in (p.item, p.key, p.value):
        if child is not None:
            _widen(child, b, s, False)


def _apply_bounds(p: Profile, stated: Range, is_len: bool) -> None:
    lo, hi = stated
    if is_len:
        lengths = [len(v) for v in p.pool if isinstance(v, str | list | tuple | dict | set)]
        if lo is not None and p.len_lo is not None:
            p.len_lo = min([int(lo), *lengths])  # never beyond a seed
        return
    seen = _numbers(p)
    if lo is not None and p.lo is not None:
        p.lo = min([lo, *seen])
    if hi is not None and p.hi is not None:
        p.hi = max([hi, *seen])


def widen_by_statement(
    domain: Domain, bounds: Boundaries, statement: Statement, params: tuple[str, ...]
) -> Domain:
    """Generator 4's domain: generator 3's widened where the docstring leaves room, and the
    stated bounds over it (module docstring)."""
    wide = copy.deepcopy(domain)
    for i, p in enumerate(wide.args):
        _widen(p, bounds, statement, scalar=True)
        sequences = p.pool and all(type(v) in (list, tuple) for v in p.pool)
        fixed = p.len_lo == p.len_hi and p.count > 1
        if fixed and sequences and (p.len_lo or 0) > 2 and all(type(v) is list for v in p.pool):
            fixed = False  # every seed list of one length beyond a pair: a chance rule
        if sequences and p.len_lo is not None and not fixed and not bounds.sized:
            p.len_lo = 0  # the empty list, where no least size is stated
        name = params[i] if i < len(params) else ""
        if name in statement.values:
            _apply_bounds(p, statement.values[name], is_len=False)
        if name in statement.lengths:
            _apply_bounds(p, statement.lengths[name], is_len=True)
    return wide
