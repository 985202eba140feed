"""Every parse of Python source in the suites goes through the lock of ``suites.pyast``:
agent episodes and scoring parse in worker threads, and CPython 3.11 can raise ``SystemError:
AST constructor recursion depth mismatch`` when two threads parse at once (cpython#106905; it
stopped a demo run with a traceback)."""

from __future__ import annotations

import ast
from pathlib import Path

import specverdict.suites

SUITES = Path(specverdict.suites.__file__).parent


def test_no_suite_module_calls_ast_parse_directly() -> None:
    offenders = []
    for path in sorted(SUITES.rglob("*.py")):
        if path.name == "pyast.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "parse"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "ast"
            ):
                offenders.append(f"{path.relative_to(SUITES)}:{node.lineno}")
    assert offenders == [], "use specverdict.suites.pyast.parse"
