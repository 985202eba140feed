"""From raw model outputs to programs: stop sequences and code in messy chat answers."""

from __future__ import annotations

import ast

from specverdict.suites.codeextract import (
    FUNCTION_STOPS,
    chat_program,
    completion_program,
    defines,
    extract_code,
    truncate_at_stops,
)

PROMPT = 'from typing import List\n\n\ndef total(xs: List[int]) -> int:\n    """Sum."""\n'


def test_completion_is_cut_at_the_first_stop_sequence() -> None:
    text = "    return sum(xs)\n\n\ndef helper():\n    pass\nprint(total([1]))"
    assert truncate_at_stops(text, FUNCTION_STOPS) == "    return sum(xs)\n\n"
    assert truncate_at_stops("    return 1\n# note\n", FUNCTION_STOPS) == "    return 1"
    program = completion_program(PROMPT, text, FUNCTION_STOPS)
    assert program.endswith("    return sum(xs)\n\n")
    ast.parse(program)


def test_prose_around_a_fenced_block() -> None:
    answer = (
        "Sure! Here is the function:\n\n```python\ndef total(xs):\n    return sum(xs)\n```\n\n"
        "It adds the numbers. Example:\n```python\nprint(total([1, 2]))\n```\nHope it helps."
    )
    assert extract_code(answer, "total") == "def total(xs):\n    return sum(xs)\n"
    program = chat_program(PROMPT, "total", answer)
    assert program is not None
    assert program.startswith("from typing import List")  # the prompt's imports come along
    assert "print(" not in program


def test_last_defining_block_wins_and_helpers_come_with_it() -> None:
    answer = (
        "First attempt:\n```py\ndef total(xs):\n    return 0\n```\nA helper:\n```\n"
        "def add(a, b):\n    return a + b\n```\nFixed:\n```python3\ndef total(xs):\n"
        "    out = 0\n    for x in xs:\n        out = add(out, x)\n    return out\n```"
    )
    code = extract_code(answer, "total")
    assert code is not None
    assert "def add" in code and "return out" in code and "return 0" not in code


def test_tilde_fences_think_sections_and_other_languages() -> None:
    answer = (
        "<think>maybe ```python\ndef total(xs): return -1\n``` no</think>\n"
        "```bash\npython run.py\n```\n~~~python\ndef total(xs):\n    return sum(xs)\n~~~\n"
    )
    assert extract_code(answer, "total") == "def total(xs):\n    return sum(xs)\n"


def test_unterminated_fence_runs_to_the_end() -> None:
    answer = "```python\ndef total(xs):\n    return sum(xs)\n"
    assert extract_code(answer, "total") == "def total(xs):\n    return sum(xs)\n"


def test_unfenced_code_with_prose_after_it() -> None:
    answer = "def total(xs):\n    return sum(xs)\n\nThis function returns the sum of the list."
    code = extract_code(answer, "total")
    assert code == "def total(xs):\n    return sum(xs)\n"
    assert extract_code("I cannot help with that.", "total") is None
    assert chat_program(PROMPT, "total", "No code, sorry.") is None


def test_a_body_only_answer_is_indented_under_the_prompt() -> None:
    program = chat_program(PROMPT, "total", "```python\nreturn sum(xs)\n```")
    assert program == PROMPT + "    return sum(xs)\n"
    namespace: dict[str, object] = {}
    exec(compile(program, "p", "exec"), namespace)  # our own test program
    assert namespace["total"]([1, 2]) == 3  # type: ignore[operator]


def test_future_imports_move_to_the_top() -> None:
    answer = "```python\nfrom __future__ import annotations\n\ndef total(xs):\n    return 1\n```"
    program = chat_program(PROMPT, "total", answer)
    assert program is not None
    assert program.startswith("from __future__ import annotations\n")
    ast.parse(program)


def test_defines_looks_at_top_level_only() -> None:
    assert defines("def total(x):\n    pass\n", "total")
    assert not defines("class A:\n    def total(self):\n        pass\n", "total")
    assert defines("def total(x):\n    return (\n", "total")  # broken code: by its def line
