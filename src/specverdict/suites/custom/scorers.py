"""How a dataset row's answer is scored: every scorer returns the project's ``Score``, so the
quality gates and reports work on your data as on the built-in suites.

- ``reference``: the row's ``reference`` against the answer (exact, normalized, regex, numeric,
  json; see ``campaign.model.ReferenceScorer``);
- ``tests``: the row's Python tests in the sandbox against the program the answer makes;
- ``python``: your function ``module:function(row, answer, tool_calls)``, in this process;
- ``command``: your program in the sandbox, JSON in on stdin, JSON out on stdout.

A scorer that cannot judge an answer (your function raised, your program printed no score)
gives outcome ``scorer_error``, a failure with the reason in ``detail``.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import sys
import textwrap
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from specverdict.campaign.model import CommandScorer, PythonScorer, ReferenceScorer, TestsScorer
from specverdict.errors import ConfigError
from specverdict.records import Score
from specverdict.sandbox import Execution, Limits, Sandbox
from specverdict.suites import pyast
from specverdict.suites.agent.testrun import sandbox_runner
from specverdict.suites.codeextract import truncate_at_stops
from specverdict.suites.custom.rows import Row

Answer = tuple[str, Sequence[dict[str, Any]]]  # text, tool calls

_NUMBER = re.compile(r"[-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_FENCE = re.compile(r"```[ \t]*(?:python|py)?[ \t]*\n(.*?)```", re.S)


def _score(passed: bool, outcome: str, detail: str | None = None) -> Score:
    return Score(passed=passed, outcome=outcome, detail=detail)


def normalize(text: str) -> str:
    """Case-folded, NFKC, whitespace collapsed, surrounding punctuation and quotes dropped."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(folded.split()).strip(" .,;:!?\"'`")


def last_number(text: str) -> float | None:
    found = _NUMBER.findall(text)
    for raw in reversed(found):
        try:
            return float(raw.replace(",", ""))
        except ValueError:
            continue
    return None


def first_json(text: str) -> tuple[bool, Any]:
    """The first JSON value that starts at a ``{`` or ``[`` of the answer (or the whole answer)."""
    decoder = json.JSONDecoder()
    try:
        return True, json.loads(text)
    except ValueError:
        pass
    for i, ch in enumerate(text):
        if ch in "{[":
            try:
                return True, decoder.raw_decode(text, i)[0]
            except ValueError:
                continue
    return False, None


def check_reference(cfg: ReferenceScorer, row: Row) -> None:
    """Refuse at load what could never match: a reference pattern that is not a regex, a
    numeric reference that is not a number."""
    ref = row.reference
    if cfg.reference == "regex":
        if not isinstance(ref, str):
            raise ValueError("field reference: a regex scorer needs a string pattern")
        try:
            re.compile(ref)
        except re.error as exc:
            raise ValueError(f"field reference: not a regular expression: {exc}") from None
    if cfg.reference == "numeric" and (
        isinstance(ref, bool) or not isinstance(ref, int | float | str) or _float(ref) is None
    ):
        raise ValueError(f"field reference: a numeric scorer needs a number, got {ref!r}")


def _float(value: object) -> float | None:
    try:
        return float(str(value).replace(",", ""))
    except ValueError:
        return None


def score_reference(cfg: ReferenceScorer, row: Row, answer: str) -> Score:
    ref = row.reference
    mode = cfg.reference
    if mode == "exact":
        ok = answer.strip() == str(ref).strip()
    elif mode == "normalized":
        ok = normalize(answer) == normalize(str(ref))
    elif mode == "regex":
        ok = re.search(str(ref), answer) is not None
    elif mode == "numeric":
        got, want = last_number(answer), _float(ref)
        assert want is not None  # checked at load
        if got is None:
            return _score(False, "no_answer", "no number in the answer")
        ok = abs(got - want) <= cfg.tolerance * max(1.0, abs(want))
    else:
        found, value = first_json(answer)
        if not found:
            return _score(False, "no_answer", "no JSON value in the answer")
        ok = value == ref
    return _score(ok, "passed" if ok else "wrong_answer")


def tests_module(tests: str) -> str:
    """The row's tests as a test module: ``test_*`` functions as written, plain statements
    (asserts) wrapped into one ``test_row``; the solution's names imported first."""
    tree = pyast.parse(tests)
    has_tests = any(
        isinstance(node, ast.FunctionDef) and node.name.startswith("test") for node in tree.body
    )
    body = tests if has_tests else "def test_row():\n" + textwrap.indent(tests.strip(), "    ")
    return "from solution import *  # noqa: F403\n\n" + body + "\n"


def program_of(row: Row, answer: str) -> str | None:
    """The program the answer makes: prompt and completion, or the chat answer's code."""
    if row.prompt is not None:
        return row.prompt + truncate_at_stops(answer, row.stop)
    fenced = _FENCE.findall(answer)
    code = fenced[0] if fenced else answer
    return code if code.strip() else None


def score_tests(cfg: TestsScorer, row: Row, answer: str, sandbox: Sandbox) -> Score:
    program = program_of(row, answer)
    if program is None:
        return _score(False, "no_code", "the answer holds no code")
    assert row.tests is not None  # checked at load
    report = sandbox_runner(sandbox, cfg.timeout_s)(
        {"solution.py": program}, {"test_row.py": tests_module(row.tests)}
    )
    return _score(report.passed, "passed" if report.passed else "tests_failed", report.summary)


def load_function(cfg: PythonScorer, near: Path) -> Callable[..., Any]:
    """Your scorer, imported from where specverdict runs or from beside the dataset file."""
    module, _, name = cfg.python.partition(":")
    if str(near) not in sys.path:
        sys.path.append(str(near))
    try:
        fn = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(
            f"scorer python {cfg.python!r}: cannot import it: {type(exc).__name__}: {exc}"
        ) from None
    if not callable(fn):
        raise ConfigError(f"scorer python {cfg.python!r}: {fn!r} is not a function")
    return fn  # type: ignore[no-any-return]


def from_result(value: object) -> Score:
    """A scorer's result as a ``Score``: a bool, or ``{passed, outcome?, detail?}``."""
    if isinstance(value, bool):
        return _score(value, "passed" if value else "failed")
    if isinstance(value, dict) and isinstance(value.get("passed"), bool):
        passed = value["passed"]
        outcome = value.get("outcome") or ("passed" if passed else "failed")
        detail = value.get("detail")
        return _score(passed, str(outcome), None if detail is None else str(detail))
    return _score(
        False, "scorer_error", f"the scorer returned {value!r:.200}, not a bool or {{passed: bool}}"
    )


def score_python(fn: Callable[..., Any], row: Row, answer: Answer) -> Score:
    try:
        value = fn(row.model_dump(mode="json"), answer[0], list(answer[1]))
    except Exception as exc:
        return _score(False, "scorer_error", f"the scorer raised {type(exc).__name__}: {exc}")
    return from_result(value)


def score_command(cfg: CommandScorer, row: Row, answer: Answer, sandbox: Sandbox) -> Score:
    files = {Path(f).name: Path(f).read_text(encoding="utf-8") for f in cfg.files}
    stdin = json.dumps(
        {"row": row.model_dump(mode="json"), "answer": answer[0], "tool_calls": list(answer[1])}
    )
    # ``{python}``: the interpreter the sandbox runs (one its user may execute)
    program = (
        "import os, sys\n"
        f"argv = [sys.executable if a == '{{python}}' else a for a in {cfg.command!r}]\n"
        "os.execvp(argv[0], argv)\n"
    )
    result = sandbox.run(
        Execution(
            program=program,
            files=files,
            stdin=stdin,
            limits=Limits(wall_s=cfg.timeout_s, cpu_s=max(1, int(cfg.timeout_s))),
            allow_subprocess=True,
        )
    )
    lines = [ln for ln in result.stdout.strip().splitlines() if ln.strip()]
    if result.outcome != "passed" or not lines:
        why = f"the scorer program ended {result.outcome}"
        tail = (result.stderr or "").strip()[-200:]
        return _score(False, "scorer_error", f"{why}: {tail}" if tail else why)
    try:
        value = json.loads(lines[-1])
    except ValueError:
        return _score(False, "scorer_error", f"the scorer printed {lines[-1]!r:.200}, not JSON")
    return from_result(value)
