"""What a HumanEval ``check(candidate)`` function tests, read from its syntax tree.

Each ``candidate(...)`` call's arguments are folded to constants by a small evaluator of
literals and arithmetic (never ``eval``): ``candidate(3 * 19)`` gives the input ``(57,)``. When
some call's arguments are not constants (built in a loop, from ``random`` or from a local
variable), the task's inputs are *recorded* instead, by running ``check`` with a stand-in
candidate in the sandbox (``harness.record_execution``).

How the checks compare outputs also shows in the tree, and fixes the task's comparison:

* ``candidate(x) is True`` ........ ``strict_bool`` (the output must be that bool)
* ``tuple(candidate(x)) == ...`` .. ``sequence`` (a list or a tuple with those items)
* ``assert candidate(x)`` / ``assert not candidate(x)`` .. ``truthy``
* anything else (``==``, ``abs(candidate(x) - y) < tol``) .. ``equal``
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from specverdict.suites import pyast

CompareMode = Literal["equal", "sequence", "truthy", "strict_bool"]

_BINOPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
}


class NotConstantError(Exception):
    """The expression needs more than literals and arithmetic."""


def _bounded(op: type[ast.operator], left: Any, right: Any) -> None:
    """Refuse arithmetic whose result could be huge (``10 ** 10 ** 9``, ``"a" * 10 ** 9``)."""
    if op is ast.Pow and (not isinstance(right, int) or abs(right) > 256):
        raise NotConstantError("exponent too large")
    if op is ast.Mult and any(isinstance(v, str | list | tuple) for v in (left, right)):
        count = right if isinstance(right, int) else left
        if not isinstance(count, int) or count > 100_000:
            raise NotConstantError("repetition too large")


def fold(node: ast.expr) -> Any:
    """The constant value of ``node``; ``NotConstantError`` when it has names, calls or the like."""
    if isinstance(node, ast.Constant) and isinstance(
        node.value, int | float | str | bool | type(None)
    ):
        return node.value
    if isinstance(node, ast.List):
        return [fold(e) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(fold(e) for e in node.elts)
    if isinstance(node, ast.Set):
        return {fold(e) for e in node.elts}
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise NotConstantError("dict unpacking")
        return {fold(k): fold(v) for k, v in zip(node.keys, node.values, strict=True) if k}
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](fold(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = fold(node.left), fold(node.right)
        _bounded(type(node.op), left, right)
        try:
            return _BINOPS[type(node.op)](left, right)
        except (ArithmeticError, TypeError, ValueError) as exc:
            raise NotConstantError(str(exc)) from None
    raise NotConstantError(type(node).__name__)


@dataclass(frozen=True, slots=True)
class CheckFacts:
    """What a ``check`` function tests: the constant inputs (None when some call's arguments
    are not constant, so that the inputs must be recorded) and the comparison it implies."""

    inputs: tuple[tuple[Any, ...], ...] | None
    compare: CompareMode
    calls: int


def _is_candidate_call(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id == "candidate"


_PRIORITY: tuple[CompareMode, ...] = ("strict_bool", "sequence", "truthy")


def _mode(call: ast.Call, parents: dict[ast.AST, ast.AST]) -> CompareMode:
    parent = parents.get(call)
    if isinstance(parent, ast.Compare) and any(
        isinstance(op, ast.Is | ast.IsNot) for op in parent.ops
    ):
        return "strict_bool"
    if (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id == "tuple"
    ):
        return "sequence"
    if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
        parent = parents.get(parent)
    if isinstance(parent, ast.Assert):
        return "truthy"
    return "equal"


def analyse_check(test_source: str) -> CheckFacts:
    """Read a HumanEval ``test`` field (which defines ``check(candidate)``)."""
    tree = pyast.parse(test_source)
    check = next(
        (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"), None
    )
    if check is None:
        raise ValueError("the test code defines no check(candidate) function")
    parents = {child: node for node in ast.walk(check) for child in ast.iter_child_nodes(node)}
    calls = [n for n in ast.walk(check) if isinstance(n, ast.Call) and _is_candidate_call(n)]
    calls.sort(key=lambda c: (c.lineno, c.col_offset))
    inputs: list[tuple[Any, ...]] = []
    constant = True
    for call in calls:
        try:
            if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
                raise NotConstantError("keyword or starred arguments")
            inputs.append(tuple(fold(a) for a in call.args))
        except NotConstantError:
            constant = False
            break
    modes = {_mode(c, parents) for c in calls}
    compare: CompareMode = next((m for m in _PRIORITY if m in modes), "equal")
    return CheckFacts(tuple(inputs) if constant else None, compare, len(calls))
