"""``bfcl@1`` (stage ``agent``): single-turn tool calling from the Berkeley Function Calling
Leaderboard's offline categories, scored by our own AST checker.

Data: the ``bfcl-eval`` wheel (pinned ``BFCL_VERSION``, Apache-2.0 per its package metadata,
``License: Apache 2.0``), obtained at preparation time with ``pip download bfcl-eval==<version>
--no-deps`` into ``~/.cache/specverdict/wheels`` and read from the wheel's zip (``bfcl_eval/data/``),
never imported. Categories: ``simple`` (BFCL's ``simple_python``), ``multiple``, ``parallel``,
``parallel_multiple`` and ``irrelevance``; sample ids are BFCL's own (``simple_python_0``, ...).

Each question is sent as a chat request with the functions as OpenAI ``tools``: BFCL's schema
types become JSON Schema types (``dict`` -> ``object``, ``float`` -> ``number``, ``tuple`` ->
``array``, ``any`` -> no constraint) and dots in function names become underscores (OpenAI's
name pattern has no dots); the checker maps names back.

The checker judges the tool calls the server returned against BFCL's possible answers (each
parameter lists its accepted values; ``""`` marks an optional one that may be left out). Its
failure classes follow BFCL's error taxonomy: ``ast_decoder:decoder_failed`` (no decodable tool
call), ``simple_function_checker:wrong_count`` / ``multiple_function_checker:wrong_count`` /
``parallel_function_checker_no_order:wrong_count``, ``simple_function_checker:wrong_func_name``,
``...:missing_required``, ``...:unexpected_param``, ``...:missing_optional`` (an optional
parameter left out although the answer needs it), ``type_error:simple``, ``type_error:nested``,
``value_error:string`` (strings compare lower-cased without spaces and ``,./-_*^``),
``value_error:list/tuple``, ``value_error:dict_key``, ``value_error:dict_value``,
``value_error:others``, ``parallel_function_checker_no_order:cannot_find_match`` (parallel calls
are matched in any order) and ``irrelevance_error:decoder_success`` (a call where none fits).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specverdict.errors import ConfigError
from specverdict.records import Score
from specverdict.suites.agent.calls import decode_calls
from specverdict.suites.agent.suite import AgentSample
from specverdict.suites.base import Sample, Suite
from specverdict.suites.cache import cache_root

BFCL_VERSION = "2026.3.23"
#: our category name -> BFCL's file stem
CATEGORIES: dict[str, str] = {
    "simple": "simple_python",
    "multiple": "multiple",
    "parallel": "parallel",
    "parallel_multiple": "parallel_multiple",
    "irrelevance": "irrelevance",
}
_TYPES = {"dict": "object", "float": "number", "tuple": "array", "list": "array", "bool": "boolean"}
_PYTHON: dict[str, type] = {
    "float": float,
    "integer": int,
    "boolean": bool,
    "string": str,
    "array": list,
    "tuple": list,
    "dict": dict,
}
_STANDARDIZE = re.compile(r"[ ,./\-_*^]")


def default_cache() -> Path:
    return cache_root() / "wheels"


def wheel_path(cache_dir: Path | None = None) -> Path:
    return (cache_dir or default_cache()) / f"bfcl_eval-{BFCL_VERSION}-py3-none-any.whl"


def prepare(cache_dir: Path | None = None) -> Path:
    """Download the pinned wheel into the cache unless it is there; return its path."""
    path = wheel_path(cache_dir)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "pip", "download", f"bfcl-eval=={BFCL_VERSION}"]
        done = subprocess.run(
            [*command, "--no-deps", "--only-binary", ":all:", "-d", str(path.parent)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0 or not path.exists():
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
            raise ConfigError(f"cannot download bfcl-eval=={BFCL_VERSION}: {' '.join(tail)}")
    return path


@dataclass(frozen=True, slots=True)
class BfclItem:
    id: str
    category: str
    messages: tuple[dict[str, Any], ...]
    functions: tuple[dict[str, Any], ...]
    answers: tuple[dict[str, dict[str, list[Any]]], ...]


def _lines(z: zipfile.ZipFile, name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in z.read(name).decode().splitlines() if line.strip()]


def load_items(wheel: Path) -> list[BfclItem]:
    """Every item of the offline categories, in category then file order."""
    items: list[BfclItem] = []
    with zipfile.ZipFile(wheel) as z:
        for category, stem in CATEGORIES.items():
            questions = _lines(z, f"bfcl_eval/data/BFCL_v4_{stem}.json")
            answers: dict[str, Any] = {}
            if category != "irrelevance":
                answer_file = f"bfcl_eval/data/possible_answer/BFCL_v4_{stem}.json"
                answers = {a["id"]: a["ground_truth"] for a in _lines(z, answer_file)}
            for q in questions:
                items.append(
                    BfclItem(
                        q["id"],
                        category,
                        tuple(q["question"][0]),
                        tuple(q["function"]),
                        tuple(answers.get(q["id"], ())),
                    )
                )
    return items


def openai_name(name: str) -> str:
    return name.replace(".", "_")


def to_json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A BFCL parameter schema as JSON Schema (types renamed, nested schemas converted)."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            if value != "any":
                out["type"] = _TYPES.get(value, value)
        elif key == "properties" and isinstance(value, dict):
            out["properties"] = {k: to_json_schema(v) for k, v in value.items()}
        elif key == "items" and isinstance(value, dict):
            out["items"] = to_json_schema(value)
        else:
            out[key] = value
    return out


def to_tools(functions: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    return tuple(
        {
            "type": "function",
            "function": {
                "name": openai_name(f["name"]),
                "description": f.get("description", ""),
                "parameters": to_json_schema(f.get("parameters", {"type": "dict"})),
            },
        }
        for f in functions
    )


# --- the checker ----------------------------------------------------------------------------


class CheckError(Exception):
    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


def _standardize(value: Any) -> Any:
    if isinstance(value, str):
        return _STANDARDIZE.sub("", value).lower().replace("'", '"')
    if isinstance(value, list | tuple):
        return [_standardize(v) for v in value]
    if isinstance(value, dict):
        return {k: _standardize(v) for k, v in value.items()}
    return value


def _type_ok(value: Any, bfcl_type: str) -> bool:
    if bfcl_type in ("any", ""):
        return True
    if bfcl_type == "float":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if bfcl_type == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if bfcl_type == "boolean":
        return isinstance(value, bool)
    if bfcl_type == "string":
        return isinstance(value, str)
    if bfcl_type in ("array", "tuple"):
        return isinstance(value, list)
    if bfcl_type == "dict":
        return isinstance(value, dict)
    return True


def _check_dict(param: str, value: dict[str, Any], possible: list[Any]) -> None:
    dicts = [p for p in possible if isinstance(p, dict)]
    last = CheckError("value_error:dict_value", f"{param}: {value!r} matches no accepted value")
    for accepted in dicts:
        unknown = [k for k in value if k not in accepted]
        if unknown:
            last = CheckError("value_error:dict_key", f"{param}: unexpected keys {unknown}")
            continue
        bad = [
            k
            for k, options in accepted.items()
            if (k in value and _standardize(value[k]) not in _standardize(list(options)))
            or (k not in value and "" not in options)
        ]
        if not bad:
            return
        last = CheckError("value_error:dict_value", f"{param}: wrong values for {bad}")
    raise last


def check_call(
    function: dict[str, Any],
    name: str,
    args: dict[str, Any],
    answer: dict[str, dict[str, list[Any]]],
) -> None:
    """Raise ``CheckError`` unless the call (BFCL name) matches ``answer`` for ``function``."""
    expected = next(iter(answer))
    if name != expected:
        raise CheckError(
            "simple_function_checker:wrong_func_name", f"called {name!r}, expected {expected!r}"
        )
    params = function.get("parameters", {})
    props: dict[str, Any] = params.get("properties", {})
    for req in params.get("required", []):
        if req not in args:
            raise CheckError("simple_function_checker:missing_required", f"missing {req!r}")
    possible = answer[expected]
    for param, value in args.items():
        if param not in props or param not in possible:
            raise CheckError("simple_function_checker:unexpected_param", f"unexpected {param!r}")
        spec = props[param]
        kind = spec.get("type", "any")
        accepted = possible[param]
        # As in BFCL, an accepted value of another type than the schema's stands for a variable
        # (``"data['sales']"`` for an array): a value of that type is then not a type error.
        variable = {type(a) for a in accepted if a != ""} - {_PYTHON.get(kind)}
        if not _type_ok(value, kind) and type(value) not in variable:
            raise CheckError("type_error:simple", f"{param}: {value!r} is not of type {kind}")
        item_type = (spec.get("items") or {}).get("type")
        listed = _standardize(value) in [_standardize(a) for a in accepted]
        # an accepted list whose items break the schema follows the answer key's own item type
        if (
            isinstance(value, list)
            and item_type
            and not listed
            and not all(_type_ok(v, item_type) for v in value)
        ):
            raise CheckError("type_error:nested", f"{param}: items are not all of type {item_type}")
        if isinstance(value, dict):
            _check_dict(param, value, accepted)
        elif not listed:
            what = (
                "value_error:string"
                if isinstance(value, str)
                else "value_error:list/tuple"
                if isinstance(value, list)
                else "value_error:others"
            )
            raise CheckError(what, f"{param}: {value!r} is not one of {accepted!r}")
    for param, accepted in possible.items():
        if param not in args and "" not in accepted:
            raise CheckError("simple_function_checker:missing_optional", f"missing {param!r}")


def _match_all(
    calls: list[tuple[str, dict[str, Any]]],
    answers: Sequence[dict[str, dict[str, list[Any]]]],
    functions: dict[str, dict[str, Any]],
) -> bool:
    """Whether the calls match the answers one to one, in any order (backtracking)."""
    if not answers:
        return not calls
    first, rest = answers[0], answers[1:]
    function = functions.get(next(iter(first)), {})
    for i, (name, args) in enumerate(calls):
        try:
            check_call(function, name, args, first)
        except CheckError:
            continue
        if _match_all(calls[:i] + calls[i + 1 :], rest, functions):
            return True
    return False


def judge(item: BfclItem, tool_calls: Sequence[dict[str, Any]]) -> Score:
    """Score the tool calls a server returned for ``item``."""
    decoded = decode_calls(tool_calls)
    back = {openai_name(f["name"]): f["name"] for f in item.functions}
    functions = {f["name"]: f for f in item.functions}
    if item.category == "irrelevance":
        good = [c for c in decoded if c.error is None]
        if good:
            names = [c.name for c in good]
            return Score(
                passed=False, outcome="irrelevance_error:decoder_success", detail=f"called {names}"
            )
        return Score(passed=True, outcome="passed")
    broken = [c for c in decoded if c.error is not None]
    if not decoded or broken:
        why = f"{broken[0].error}: {broken[0].arguments[:200]!r}" if broken else "no tool call"
        return Score(passed=False, outcome="ast_decoder:decoder_failed", detail=why)
    calls = [(back.get(c.name, c.name), c.args or {}) for c in decoded]
    if item.category in ("simple", "multiple"):
        if len(calls) != 1:
            prefix = "simple" if item.category == "simple" else "multiple"
            return Score(
                passed=False,
                outcome=f"{prefix}_function_checker:wrong_count",
                detail=f"{len(calls)} calls, expected 1",
            )
        answer = item.answers[0]
        try:
            check_call(functions.get(next(iter(answer)), {}), *calls[0], answer)
        except CheckError as exc:
            return Score(passed=False, outcome=exc.kind, detail=exc.detail)
        return Score(passed=True, outcome="passed")
    if len(calls) != len(item.answers):
        return Score(
            passed=False,
            outcome="parallel_function_checker_no_order:wrong_count",
            detail=f"{len(calls)} calls, expected {len(item.answers)}",
        )
    if _match_all(calls, item.answers, functions):
        return Score(passed=True, outcome="passed")
    return Score(
        passed=False,
        outcome="parallel_function_checker_no_order:cannot_find_match",
        detail=json.dumps([[n, a] for n, a in calls])[:500],
    )


class Bfcl(Suite):
    name = "bfcl"
    mode = "chat"  # its endpoint, known without preparing its data
    version = 1
    stage = "agent"
    source = (
        f"bfcl-eval {BFCL_VERSION} wheel from PyPI (bfcl_eval/data: simple_python, multiple, "
        "parallel, parallel_multiple, irrelevance), read at run time"
    )
    licence = "Apache-2.0 (bfcl-eval package metadata: 'License: Apache 2.0')"

    def __init__(self, cache_dir: Path | None = None) -> None:
        self._cache_dir = cache_dir
        self._items: dict[str, BfclItem] | None = None

    def items(self) -> dict[str, BfclItem]:
        if self._items is None:
            self._items = {i.id: i for i in load_items(prepare(self._cache_dir))}
        return self._items

    def samples(self) -> list[Sample]:
        return [
            AgentSample(
                id=item.id,
                endpoint="chat",
                messages=item.messages,
                task_id=item.id,
                tools=to_tools(item.functions),
            )
            for item in self.items().values()
        ]

    def score(self, sample: Sample, text: str, tool_calls: Sequence[dict[str, Any]]) -> Score:
        return judge(self.items()[sample.id], tool_calls)
