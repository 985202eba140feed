"""``ast.parse`` that threads may call at once.

CPython 3.11 builds the Python objects of a parsed tree with a recursion counter shared by the
interpreter; two threads parsing at the same moment can corrupt it and raise ``SystemError: AST
constructor recursion depth mismatch`` (python/cpython#106905). Agent episodes run their
tests and score answers in worker threads, so every parse in the suites goes through one lock.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    with _LOCK:
        return ast.parse(source, filename)


def parse_expression(source: str, filename: str = "<unknown>") -> ast.Expression:
    """``ast.parse(source, mode="eval")`` under the same lock."""
    with _LOCK:
        return ast.parse(source, filename, mode="eval")
