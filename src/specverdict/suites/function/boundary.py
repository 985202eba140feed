"""Boundary values of a task, read from its reference solution and its docstring with ``ast``.

A plausible bug sits where the reference draws a line: ``n < 2`` against ``n <= 2``, a loop
from 0 against one from 1, a special case for ``n == 0``. The lines are in the reference's
code, so the values on them are read from its syntax tree:

* every number the code compares with (``x < c``, ``x == c``, ``c <= x``), with its neighbours
  ``c - 1`` and ``c + 1`` for integers;
* every other number constant of the code (initial values, ``range`` bounds, slice bounds),
  and the bounds of ``range(...)`` calls;
* the numbers an ``if`` compares an argument with (``if n == 0:``, ``if n < 2:``): the
  special cases of the task, which ``edges.widen`` admits even beyond the seeds' range;
* short string constants the code compares with or looks up (``c == " "``, ``c in "aeiou"``),
  one character at a time for a lookup string.

The docstring adds its examples: the arguments of every ``>>> entry_point(...)`` call (and of
``entry_point(...) == ...`` / ``➞`` lines) that are literals. They are inputs inside the task's
contract by the task's own word, so they also serve as seeds. Whether the prompt speaks of ASCII
is recorded too (``ascii``): such a task's strings are not given non-ASCII letters; and whether
it speaks of positive, non-negative or natural numbers (``nonnegative``, ``positive``), or of
digits (``digits``), which ``edges.widen`` reads to keep numbers from going negative; and
whether it sets a least size ("at least two", "non-empty": ``sized``), which keeps sequences
and strings from getting shorter than every seed.
"""

from __future__ import annotations

import ast
import contextlib
import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from specverdict.suites import pyast

Args = tuple[Any, ...]

#: the longest string constant kept as a boundary value
MAX_STR = 12
#: the largest magnitude of a number kept as a boundary value
MAX_NUMBER = 10**6
#: words of a prompt that keep numbers at or above zero
_NONNEGATIVE = re.compile(
    r"positive|non-?negative|natural|not negative|greater than (?:or equal to )?0|>=? ?0",
    re.IGNORECASE,
)
#: words of a prompt that set a least length
_SIZED = re.compile(r"at least (?:one|two|three|[123])\b|non-?empty|not empty", re.IGNORECASE)
_EXAMPLE = re.compile(r"^\s*(?:>>>\s*)?(?P<call>[A-Za-z_]\w*\s*\(.*\))", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Boundaries:
    """What ``boundaries`` found: numbers, strings, docstring examples, and the ASCII flag."""

    ints: tuple[int, ...] = ()
    limits: tuple[int | float, ...] = ()
    floats: tuple[float, ...] = ()
    strings: tuple[str, ...] = ()
    examples: tuple[Args, ...] = field(default=())
    ascii: bool = False
    nonnegative: bool = False
    positive: bool = False
    digits: bool = False
    sized: bool = False


def _number(node: ast.AST) -> int | float | None:
    """The value of a number literal, negated ones included (``-1``); None otherwise."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _number(node.operand)
        if inner is None:
            return None
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        value = node.value
        if type(value) is bool or abs(value) > MAX_NUMBER:
            return None
        return value
    return None


class _Collector(ast.NodeVisitor):
    def __init__(self, params: set[str]) -> None:
        self.params = params
        self.numbers: list[int | float] = []
        self.edges: list[int | float] = []  # compared with: neighbours too
        self.limits: list[int | float] = []  # a special case of an argument: `if n == 0:`
        self.strings: list[str] = []

    def _is_argument(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id in self.params

    def visit_If(self, node: ast.If) -> None:
        for test in ast.walk(node.test):
            if not isinstance(test, ast.Compare):
                continue
            sides = [test.left, *test.comparators]
            for a, b in itertools.pairwise(sides):
                for arg, const in ((a, b), (b, a)):
                    value = _number(const)
                    if value is not None and self._is_argument(arg):
                        self.limits.append(value)
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # the docstring is read apart
        for stmt in body:
            self.visit(stmt)

    def visit_Compare(self, node: ast.Compare) -> None:
        for side in (node.left, *node.comparators):
            value = _number(side)
            if value is not None:
                self.edges.append(value)
            if isinstance(side, ast.Constant) and type(side.value) is str:
                text = side.value
                if len(text) <= MAX_STR:
                    lookup = any(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
                    self.strings += list(text) if lookup else [text]
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id == "range":
            for arg in node.args:
                value = _number(arg)
                if value is not None:
                    self.edges.append(value)
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        value = _number(node)
        if value is not None:
            self.numbers.append(value)
            return
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = _number(node)
        if value is not None:
            self.numbers.append(value)


def _examples(docstring: str, entry_point: str) -> list[Args]:
    out: list[Args] = []
    for match in _EXAMPLE.finditer(docstring):
        text = match.group("call")
        for end in range(len(text), 0, -1):  # the longest prefix that parses as a call
            if text[end - 1] != ")":
                continue
            try:
                call = pyast.parse_expression(text[:end]).body
            except SyntaxError:
                continue
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id == entry_point
                and not call.keywords
            ):
                with contextlib.suppress(
                    ValueError, TypeError, SyntaxError, MemoryError, RecursionError
                ):
                    out.append(tuple(ast.literal_eval(a) for a in call.args))
            break
    return out


def _entry_docstring(tree: ast.Module, entry_point: str) -> str:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            return ast.get_docstring(node) or ""
    return ""


def boundaries(reference: str, entry_point: str, prompt: str = "") -> Boundaries:
    """The boundary values of a task whose reference program is ``reference``; ``prompt``
    (default: the reference itself) is where the docstring is read."""
    try:
        tree = pyast.parse(reference)
    except SyntaxError:
        return Boundaries()
    params: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            params = {a.arg for a in (*node.args.posonlyargs, *node.args.args)}
    collector = _Collector(params)
    collector.visit(tree)
    try:
        doc_tree = pyast.parse(prompt) if prompt else tree
    except SyntaxError:
        doc_tree = tree
    docstring = _entry_docstring(doc_tree, entry_point)
    ints: set[int] = set()
    floats: set[float] = set()
    for value in collector.edges:
        if type(value) is int:
            ints.update((value - 1, value, value + 1))
        else:
            floats.add(float(value))
    for value in collector.numbers:
        (ints if type(value) is int else floats).add(value)  # type: ignore[arg-type]
    strings = sorted(set(collector.strings))
    return Boundaries(
        ints=tuple(sorted(ints)),
        limits=tuple(sorted(set(collector.limits))),
        floats=tuple(sorted(floats)),
        strings=tuple(strings),
        examples=tuple(_examples(docstring, entry_point)),
        ascii="ascii" in docstring.lower(),
        nonnegative=_NONNEGATIVE.search(docstring) is not None,
        positive="positive" in docstring.lower(),
        digits="digit" in docstring.lower(),
        sized=_SIZED.search(docstring) is not None,
    )
