"""EvalPlus-format suites, on small files written here in EvalPlus's release format.

The format follows what EvalPlus itself reads (evalplus/evalplus@26d6d00:
``evalplus/data/humaneval.py`` ``get_human_eval_plus``, ``evalplus/data/mbpp.py``
``get_mbpp_plus`` and ``mbpp_deserialize_inputs``, ``evalplus/evaluate.py``): one JSON object
per line with ``task_id``, ``prompt``, ``entry_point``, ``canonical_solution``, ``base_input``,
``plus_input`` (lists of argument lists) and ``atol``; optionally gzipped. The tasks below are
written for these tests; only their ids and shapes mirror the real files.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from specverdict.sandbox import Sandbox
from specverdict.suites import get_suite
from specverdict.suites.codeextract import FUNCTION_STOPS
from specverdict.suites.function.evalplus import HumanEvalPlus, MbppPlus, evalplus_tasks
from specverdict.suites.function.grade import ScoringPolicy, read_detail

HUMANEVAL_ROWS: list[dict[str, Any]] = [
    {
        "task_id": "HumanEval/0",
        "prompt": 'def clip(x, lo, hi):\n    """Limit x to [lo, hi]."""\n',
        "entry_point": "clip",
        "canonical_solution": "    return max(lo, min(x, hi))\n",
        "base_input": [[5, 0, 10], [-1, 0, 10]],
        "plus_input": [[11, 0, 10], [3, 3, 3], [2.5, 0, 1.5]],
        "atol": 0,
        "contract": "    assert lo <= hi\n",
    },
    {
        "task_id": "HumanEval/32",
        "prompt": 'def find_zero(xs: list):\n    """A zero of sum(c * x**i)."""\n',
        "entry_point": "find_zero",
        "canonical_solution": (
            "    f = lambda x: sum(c * x ** i for i, c in enumerate(xs))\n"
            "    lo, hi = -100.0, 100.0\n"
            "    for _ in range(200):\n"
            "        mid = (lo + hi) / 2\n"
            "        if f(lo) * f(mid) <= 0:\n"
            "            hi = mid\n"
            "        else:\n"
            "            lo = mid\n"
            "    return lo\n"
        ),
        "base_input": [[[1, 2]], [[-6, 11, -6, 1]]],
        "plus_input": [[[-1, 0, 0, 1]]],
        "atol": 1e-4,
    },
    {
        "task_id": "HumanEval/2",
        "prompt": 'def third(x):\n    """x / 3."""\n',
        "entry_point": "third",
        "canonical_solution": "    return x / 3\n",
        "base_input": [[1.0]],
        "plus_input": [[2.0], [10.0]],
        "atol": 1e-3,
    },
]

MBPP_ROWS: list[dict[str, Any]] = [
    {
        "task_id": "Mbpp/2",
        "prompt": '"""\nWrite a function to find the shared elements of two tuples.\n'
        'assert set(similar_elements((3, 4), (4, 5))) == set((4,))\n"""\n',
        "entry_point": "similar_elements",
        "canonical_solution": "def similar_elements(a, b):\n    return tuple(set(a) & set(b))\n",
        "base_input": [[[3, 4, 5, 6], [5, 7, 4, 10]]],
        "plus_input": [[[1, 2, 3], [3, 2, 1]], [[], [1]]],
        "atol": 0,
    },
    {
        "task_id": "Mbpp/252",
        "prompt": '"""\nWrite a function to convert a complex number to polar coordinates.\n"""\n',
        "entry_point": "convert",
        "canonical_solution": "import cmath\ndef convert(z):\n    return cmath.polar(z)\n",
        "base_input": [["(1+2j)"]],
        "plus_input": [["(-3-4j)"], ["5j"]],
        "atol": 0,
    },
]


def _write(path: Path, rows: list[dict[str, Any]], gz: bool) -> Path:
    text = "".join(json.dumps(r) + "\n" for r in rows)
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    return path


@pytest.fixture
def he_plus(sandbox: Sandbox, tmp_path: Path) -> HumanEvalPlus:
    path = _write(tmp_path / "HumanEvalPlus.jsonl.gz", HUMANEVAL_ROWS, gz=True)
    return HumanEvalPlus(path=path, sandbox=sandbox, cache_dir=tmp_path, policy=ScoringPolicy())


@pytest.fixture
def mbpp_plus(sandbox: Sandbox, tmp_path: Path) -> MbppPlus:
    path = _write(tmp_path / "MbppPlus.jsonl", MBPP_ROWS, gz=False)
    return MbppPlus(path=path, sandbox=sandbox, cache_dir=tmp_path)


def test_registered() -> None:
    assert isinstance(get_suite("humaneval-plus@1"), HumanEvalPlus)
    assert isinstance(get_suite("mbpp-plus@1"), MbppPlus)
    chat = get_suite("humaneval-plus-chat@1")
    assert isinstance(chat, HumanEvalPlus) and chat.mode == "chat"


def test_samples(he_plus: HumanEvalPlus, mbpp_plus: MbppPlus) -> None:
    first = he_plus.samples()[0]
    assert first.endpoint == "completions" and first.prompt == HUMANEVAL_ROWS[0]["prompt"]
    assert first.stop == FUNCTION_STOPS
    chat = mbpp_plus.samples()[0]
    assert chat.endpoint == "chat" and chat.messages is not None
    content = chat.messages[0]["content"]
    assert "shared elements" in content and "`similar_elements`" in content


def test_json_inputs_are_reshaped_as_evalplus_does(mbpp_plus: MbppPlus) -> None:
    tasks = {t.task_id: t for t in mbpp_plus.tasks()}
    assert tasks["Mbpp/2"].base_inputs == (((3, 4, 5, 6), (5, 7, 4, 10)),)
    assert tasks["Mbpp/252"].plus_inputs == ((complex(-3, -4),), (5j,))
    assert tasks["Mbpp/2"].oracle == "mbpp:set_eq"


def test_passing_needs_base_and_plus(he_plus: HumanEvalPlus) -> None:
    sample = he_plus.samples()[0]
    right = "    return min(max(x, lo), hi)\n"
    base_only = "    return max(x, lo)\n"  # forgets the upper bound; the base inputs never reach it
    scores = he_plus.score_many([(sample, right), (sample, base_only)])
    assert scores[0].passed
    detail = read_detail(scores[1])
    assert not scores[1].passed and detail is not None and detail.base_passed
    assert (detail.plus_right, detail.plus_total) == (1, 3)


def test_tolerance_and_oracles(he_plus: HumanEvalPlus, mbpp_plus: MbppPlus) -> None:
    zero, third = he_plus.samples()[1], he_plus.samples()[2]
    newton = (
        "    x = 1.0\n    for _ in range(100):\n"
        "        f = sum(c * x ** i for i, c in enumerate(xs))\n"
        "        d = sum(i * c * x ** (i - 1) for i, c in enumerate(xs) if i)\n"
        "        x = x - f / d if d else x + 0.5\n    return x\n"
    )
    scores = he_plus.score_many(
        [
            (zero, newton),  # another zero than the reference's: the oracle accepts it
            (zero, "    return 0.5\n"),
            (third, "    return round(x / 3, 4)\n"),  # within atol 1e-3
            (third, "    return round(x / 3, 1)\n"),
        ]
    )
    assert [s.passed for s in scores] == [True, False, True, False]
    items = [
        (
            mbpp_plus.samples()[0],
            "```python\ndef similar_elements(a, b):\n    return sorted(set(a) & set(b))\n```",
        ),
        (
            mbpp_plus.samples()[0],
            "```python\ndef similar_elements(a, b):\n    assert isinstance(a, tuple)\n    return tuple(x for x in a if x in b)\n```",
        ),
        (mbpp_plus.samples()[1], "```python\ndef convert(z):\n    return (abs(z), 0.0)\n```"),
        (
            mbpp_plus.samples()[1],
            "```python\nimport cmath\ndef convert(z):\n    return cmath.polar(z)\n```",
        ),
    ]
    assert [s.passed for s in mbpp_plus.score_many(items)] == [True, True, False, True]


def test_missing_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="SPECVERDICT_MBPP_PLUS"):
        MbppPlus(path=tmp_path / "absent.jsonl").samples()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"task_id": "Mbpp/1", "prompt": ""}) + "\n")
    with pytest.raises(ValueError, match=r"bad\.jsonl:1"):
        evalplus_tasks(bad, "mbpp")


def test_ground_truth_is_cached_per_file(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.jsonl", HUMANEVAL_ROWS, gz=False)
    b = _write(tmp_path / "b.jsonl", HUMANEVAL_ROWS[:1], gz=False)
    assert HumanEvalPlus(path=a).truth_family() != HumanEvalPlus(path=b).truth_family()
