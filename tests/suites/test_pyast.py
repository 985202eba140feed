"""Every parse of Python source in the suites goes through the lock of ``suites.pyast``:
agent episodes and scoring parse in worker threads, and CPython 3.11 can raise ``SystemError:
AST constructor recursion depth mismatch`` when two threads parse at once (cpython#106905; it
stopped a demo run with a traceback)."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import specverdict.suites
from specverdict.suites import pyast

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


def test_parses_from_many_threads_agree() -> None:
    source = "\n".join(f"def test_{i}():\n    assert {i} == {i}" for i in range(50))
    names: list[list[str]] = []

    def work() -> None:
        for _ in range(20):
            tree = pyast.parse(source)
            names.append([n.name for n in tree.body if isinstance(n, ast.FunctionDef)])

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(names) == 160 and all(n == names[0] for n in names) and len(names[0]) == 50
