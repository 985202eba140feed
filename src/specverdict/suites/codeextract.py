"""From a model's raw output to the program that is run.

Completion endpoint: the prompt followed by the completion, cut at the first stop sequence (so
that scoring does not depend on whether the engine honoured ``stop``).

Chat endpoint: the code is taken from the answer's fenced blocks (```` ``` ```` or ``~~~``,
tagged ``python``/``py``/``python3`` or untagged; an unterminated last block, as when
``max_tokens`` cuts the answer, runs to the end), tolerating prose around them and
``<think>`` sections. The block chosen is the last one defining the entry point, preceded by
earlier blocks that only define things (helpers); without such a block, the longest block.
Without fences, the whole answer if it parses, else the longest parseable run of lines from the
first ``def``/``import``/``class`` line (or, when none parses, everything from that line: broken
code is reported as a syntax error, not as no code). If the code defines a function or class at
top level, the program is the prompt followed by the code (the prompt brings its imports and
helpers; the answer's definition replaces the stub); otherwise the code is taken as the
function's body and appended to the prompt, indented if it is not.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Sequence

from specverdict.suites import pyast

#: stop sequences for completing a function body (Codex paper, Chen et al. 2021, section 2.3)
FUNCTION_STOPS = ("\ndef ", "\nclass ", "\nif __name__", "\nprint(", "\n#")

_FENCE = re.compile(
    r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[\w+.-]*)[^\n]*\n(?P<body>.*?)"
    r"(?:^[ \t]*(?P=fence)[ \t]*$|\Z)",
    re.MULTILINE | re.DOTALL,
)
_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL)
_PYTHON_TAGS = {"", "python", "py", "python3", "py3"}
_CODE_START = re.compile(r"^(def |async def |class |import |from |@)")


def truncate_at_stops(text: str, stops: Sequence[str]) -> str:
    """``text`` up to the earliest occurrence of any stop sequence."""
    cut = min((i for s in stops if s and (i := text.find(s)) != -1), default=len(text))
    return text[:cut]


def completion_program(prompt: str, completion: str, stops: Sequence[str]) -> str:
    return prompt + truncate_at_stops(completion, stops)


def _parses(code: str) -> bool:
    try:
        pyast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def _defines_anything(code: str) -> bool:
    """Whether ``code`` has a top-level function or class (then it is a program, not a body)."""
    try:
        tree = pyast.parse(code)
    except (SyntaxError, ValueError):
        return re.search(r"^(async\s+def|def|class)\s", code, re.M) is not None
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return any(isinstance(n, kinds) for n in tree.body)


def defines(code: str, name: str) -> bool:
    """Whether ``code`` defines function ``name`` at top level (by syntax, or by a ``def``
    line when the code does not parse)."""
    try:
        tree = pyast.parse(code)
    except (SyntaxError, ValueError):
        return re.search(rf"^(async\s+)?def\s+{re.escape(name)}\s*\(", code, re.M) is not None
    return any(
        isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name for n in tree.body
    )


def _only_definitions(code: str) -> bool:
    try:
        tree = pyast.parse(code)
    except (SyntaxError, ValueError):
        return False
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)
    return bool(tree.body) and all(isinstance(n, kinds) for n in tree.body)


def _unfenced(text: str) -> str | None:
    if text.strip() and _parses(text):
        return text
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if _CODE_START.match(line)), None)
    if start is None:
        return None
    for end in range(len(lines), start, -1):
        chunk = "\n".join(lines[start:end])
        if _parses(chunk):
            return chunk.rstrip() + "\n"
    return "\n".join(lines[start:]) + "\n"  # broken code is still code: it fails to compile


def extract_code(answer: str, entry_point: str | None = None) -> str | None:
    """The code in a chat answer, or None when there is none."""
    text = _THINK.sub("", answer)
    blocks = [
        m.group("body")
        for m in _FENCE.finditer(text)
        if m.group("lang").lower() in _PYTHON_TAGS and m.group("body").strip()
    ]
    if not blocks:
        return _unfenced(text)
    if entry_point is not None:
        chosen = [i for i, b in enumerate(blocks) if defines(b, entry_point)]
        if chosen:
            last = chosen[-1]
            helpers = [
                b for b in blocks[:last] if _only_definitions(b) and not defines(b, entry_point)
            ]
            return "\n\n".join([*helpers, blocks[last]])
    return max(blocks, key=len)


def _hoist_future(code: str) -> str:
    """``from __future__`` imports must come first; move them there."""
    future = re.findall(r"^from __future__ import [^\n]*\n?", code, re.M)
    if not future:
        return code
    rest = re.sub(r"^from __future__ import [^\n]*\n?", "", code, flags=re.M)
    return "".join(f if f.endswith("\n") else f + "\n" for f in future) + rest


def chat_program(prompt: str, entry_point: str, answer: str) -> str | None:
    """The program for a chat answer (module docstring), or None when it holds no code."""
    code = extract_code(answer, entry_point)
    if code is None:
        return None
    if _defines_anything(code):
        return _hoist_future(prompt.rstrip("\n") + "\n\n\n" + code)
    body = code.strip("\n")
    first = next((line for line in body.splitlines() if line.strip()), "")
    if not first.startswith((" ", "\t")):
        body = textwrap.indent(body, "    ")
    return prompt + body + "\n"
