"""Run one test function of a repository and report it on a private line (trusted program).

Reads a nonce from stdin, then replaces stdin with /dev/null and keeps a private copy of
stdout, so the code under test cannot read the nonce again nor close the line's stream. The
job (``job.json``) names the test module and function (or ``Class.method``, a
``unittest.TestCase`` method run through unittest). The report is one JSON line carrying
the nonce; the parent only counts a test as passed when the process exited 0 and its last
line is that report with ``"status": "pass"`` (a forged line lacks the nonce, an early exit
lacks the line).
"""

import contextlib
import importlib
import json
import os
import re
import sys
import types
import unittest

#: the line of a traceback that names the exception
ERROR_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b")


def run_test(module: types.ModuleType, name: str) -> tuple[str, str | None, str] | None:
    """Call ``name`` (a function, or ``Class.method``); a unittest case runs through unittest
    and its failures come back as a (status, type, detail) triple; None when it passed."""
    owner, _, method = name.rpartition(".")
    if not owner:
        getattr(module, name)()
        return None
    cls = getattr(module, owner)
    if isinstance(cls, type) and issubclass(cls, unittest.TestCase):
        result = unittest.TestResult()
        cls(method).run(result)
        for status, found in (("fail", result.failures), ("error", result.errors)):
            if found:
                lines = found[0][1].strip().splitlines() or ["?"]
                named = [line for line in lines if ERROR_LINE.match(line)]
                kind, _, detail = (named or lines)[-1].partition(": ")
                return status, kind, detail
        if result.skipped or result.testsRun != 1:
            return "skip", None, "skipped"
        return None
    instance = cls()
    for hook in ("setUp", "setup_method"):
        if hasattr(instance, hook):
            getattr(instance, hook)()
    getattr(instance, method)()
    return None


def main() -> None:
    nonce = sys.stdin.readline().strip()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    report = os.fdopen(os.dup(1), "w", encoding="utf-8")
    with open("job.json", encoding="utf-8") as fh:
        job = json.load(fh)
    status, kind, detail = "pass", None, None
    try:
        module = importlib.import_module(job["module"])
        outcome = run_test(module, job["function"])
        if outcome is not None:
            status, kind, detail = outcome
    except AssertionError as exc:
        status, kind, detail = "fail", "AssertionError", str(exc)
    except BaseException as exc:
        status, kind, detail = "error", type(exc).__name__, str(exc)
    with contextlib.suppress(BaseException):
        sys.stdout.flush()
    line = {"nonce": nonce, "status": status, "type": kind, "detail": (detail or "")[:300]}
    report.write("\n" + json.dumps(line) + "\n")
    report.flush()
    os._exit(0)


main()
