"""Whether the reference's work grows with a number argument's value (generator 5).

Numbers past ``2 ** 53`` are where code that goes through floats (``n / 10``, ``math.pow``,
``math.log10``, ``** (1 / 3)``, ``math.isclose``) stops agreeing with integer arithmetic. Such
a number is only worth trying where the reference answers it at once and exactly. One that
loops up to the value (``range(n)``, ``while i * i <= n: i += 1``, ``n -= 1`` in a loop,
``"x" * n``, ``2 ** n``, a recursion, ``eval``) runs out of time on every one, each timeout
costing the ground truth its per-call limit; one that divides it with ``/`` is itself inexact
there. ``unbounded`` reads the reference's source for the parameters whose values it only
takes apart, scales or compares (``str(n)``, ``n % 10``, ``n //= 10`` while ``n > 0``,
``p *= k`` while ``p < n``, ``abs(n)``): names computed from a parameter (assigned, looped
over, passed to another function of the source) count as the parameter.
"""

from __future__ import annotations

import ast

from specverdict.suites import pyast

#: calls whose work grows with their argument's value
_GROWING = frozenset({"range", "factorial", "repeat", "perm", "comb", "eval"})


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _functions(tree: ast.AST) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def _taint(tree: ast.AST, start: set[str]) -> set[str]:
    """``start`` and every name computed from it, to a fixed point."""
    tainted = set(start)
    functions = _functions(tree)
    while True:
        before = len(tainted)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and node.value:
                if _names(node.value) & tainted:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for t in targets:
                        tainted |= _names(t)
            elif isinstance(node, ast.For | ast.comprehension) and _names(node.iter) & tainted:
                tainted |= _names(node.target)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                called = functions.get(node.func.id)
                args = [*node.args, *(k.value for k in node.keywords)]
                if called is not None and any(_names(a) & tainted for a in args):
                    tainted |= {a.arg for a in (*called.args.posonlyargs, *called.args.args)}
            elif isinstance(node, ast.NamedExpr) and _names(node.value) & tainted:
                tainted.add(node.target.id)
        if len(tainted) == before:
            return tainted


def _call_name(node: ast.Call) -> str:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return ""


def _sequence(node: ast.AST) -> bool:
    return isinstance(node, ast.List | ast.Tuple | ast.ListComp) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str | bytes)
    )


def _grows(tree: ast.AST, tainted: set[str]) -> bool:
    """Whether some loop, repetition or recursion of ``tree`` runs as long as a tainted value."""
    functions = _functions(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _call_name(node)
            args = [*node.args, *(k.value for k in node.keywords)]
            touched = any(_names(a) & tainted for a in args)
            if touched and (
                name in _GROWING or (name in functions and _recursive(functions[name]))
            ):
                return True
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            for a, b in ((node.left, node.right), (node.right, node.left)):
                if _sequence(a) and _names(b) & tainted:
                    return True
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow | ast.Div):
            # 2 ** n grows with n; n / 2 makes the reference itself inexact
            side = node.right if isinstance(node.op, ast.Pow) else node
            if _names(side) & tainted:
                return True
        elif isinstance(node, ast.While) and _steps(node, tainted):
            return True
    return False


def _step(node: ast.AST) -> set[str]:
    """The name ``node`` moves by a constant (``i += 1``, ``n = n - 1``), if any."""
    if (
        isinstance(node, ast.AugAssign)
        and isinstance(node.op, ast.Add | ast.Sub)
        and isinstance(node.value, ast.Constant)
    ):
        return _names(node.target)
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.BinOp):
        value = node.value
        if isinstance(value.op, ast.Add | ast.Sub) and isinstance(value.right, ast.Constant):
            names = {t.id for t in node.targets if isinstance(t, ast.Name)}
            if isinstance(value.left, ast.Name) and value.left.id in names:
                return {value.left.id}
    return set()


def _steps(loop: ast.While, tainted: set[str]) -> bool:
    """A loop that counts one by one towards a tainted value (``while i * i <= n: i += 1``) or
    counts a tainted value down (``n -= 1``): it runs as many times as the value (or its
    root), where ``n //= 10`` or ``p *= k`` runs as many times as its digits."""
    stepped: set[str] = set()
    for node in ast.walk(loop):
        stepped |= _step(node)
    return bool(stepped & tainted or (stepped and _names(loop.test) & tainted))


def _recursive(function: ast.FunctionDef) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == function.name
        for n in ast.walk(function)
    )


def unbounded(reference: str, entry_point: str) -> frozenset[str]:
    """The parameters of ``entry_point`` whose value the reference's work does not grow with
    (module docstring); none where the source does not parse."""
    try:
        tree = pyast.parse(reference)
    except SyntaxError:
        return frozenset()
    entry = _functions(tree).get(entry_point)
    if entry is None:
        return frozenset()
    params = [a.arg for a in (*entry.args.posonlyargs, *entry.args.args)]
    return frozenset(p for p in params if not _grows(tree, _taint(tree, {p})))


def computes_floats(reference: str, entry_point: str) -> bool:
    """Whether the reference divides with ``/``, rounds or writes a float literal: a task whose
    numbers may hold fractions though its seeds are whole."""
    try:
        tree = pyast.parse(reference)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return True
        if isinstance(node, ast.Constant) and type(node.value) is float:
            return True
        if isinstance(node, ast.Call) and _call_name(node) == "round":
            return True
    return False


#: calls whose work in C grows with an argument's value
_HIDDEN_CALLS = frozenset({"factorial", "perm", "comb", "repeat", "eval", "exec"})


def _iterated(tree: ast.AST) -> set[int]:
    """The nodes inside a ``for`` loop's or a comprehension's iterable: the loop over them is
    counted line by line."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            found |= {id(n) for n in ast.walk(node.iter)}
    return found


def _hides(tree: ast.AST, tainted: set[str]) -> bool:
    """Whether some work of ``tree`` that grows with a tainted value runs inside built-ins,
    where counting line events does not see it: a ``range`` not looped over line by line
    (``sum(range(n))``), a repetition (``"x" * n``), a power by it (``2 ** n``, ``pow(2, n)``),
    ``factorial`` and its kin; or a division by or of it, inexact past float precision."""
    looped = _iterated(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _call_name(node)
            args = [*node.args, *(k.value for k in node.keywords)]
            touched = any(_names(a) & tainted for a in args)
            if touched and name == "range" and id(node) not in looped:
                return True
            if touched and name in _HIDDEN_CALLS:
                return True
            if name == "pow" and len(node.args) == 2 and _names(node.args[1]) & tainted:
                return True
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            for a, b in ((node.left, node.right), (node.right, node.left)):
                if _sequence(a) and _names(b) & tainted:
                    return True
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow | ast.Div):
            # 2 ** n grows with n; n / 2 is inexact past float precision
            side = node.right if isinstance(node.op, ast.Pow) else node
            if _names(side) & tainted:
                return True
    return False


def hidden(reference: str, entry_point: str) -> frozenset[str]:
    """The parameters of ``entry_point`` whose value some work of the reference grows with
    inside built-ins (``_hides``); every parameter where the source does not parse."""
    try:
        tree = pyast.parse(reference)
    except SyntaxError:
        return frozenset({"*"})
    entry = _functions(tree).get(entry_point)
    if entry is None:
        return frozenset({"*"})
    params = [a.arg for a in (*entry.args.posonlyargs, *entry.args.args)]
    return frozenset(p for p in params if _hides(tree, _taint(tree, {p})))
