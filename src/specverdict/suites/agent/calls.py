"""Tool calls as the server returned them, decoded and classified.

A streamed answer carries its tool calls as deltas (OpenAI's format: the first delta of a call
has its ``index``, ``id`` and function ``name``; later deltas with the same ``index`` carry more of
the ``arguments`` string). The streaming client keeps the deltas in arrival order;
``merge_deltas`` puts each call back together. A server that sends whole calls in one delta (the
reference engine does) gives one delta per call, which merges to itself.

A call is *decoded* when it has a function name and its arguments are a JSON object. Anything
else is a parse failure with a class: ``no_name``, ``bad_json`` (the arguments are not JSON),
``not_object`` (JSON, but not an object). Text that holds a tool-call marker while the server
returned no tool calls is a parse failure too (``unparsed_text``): the model meant to call a tool
and the server's parser could not read it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

ParseError = Literal["no_name", "bad_json", "not_object"]

#: markers of a tool call written as text (Hermes, Mistral, Llama 3, Qwen3-Coder formats)
TEXT_MARKERS = ("<tool_call>", "[TOOL_CALLS]", "<|python_tag|>", "<function=")


@dataclass(frozen=True, slots=True)
class DecodedCall:
    """One tool call. ``args`` is the decoded arguments object, None when ``error`` is set."""

    id: str
    name: str
    arguments: str
    args: dict[str, Any] | None
    error: ParseError | None = None

    def to_message(self) -> dict[str, Any]:
        """The call as it goes back to the server in the assistant message."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


def merge_deltas(deltas: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Whole calls ``{"id", "name", "arguments"}`` from streamed deltas, in index order. A delta
    without ``index`` starts a new call when it has an id or a name, else continues the last."""
    calls: dict[int, dict[str, Any]] = {}
    last: int | None = None
    for delta in deltas:
        if not isinstance(delta, dict):
            continue
        index = delta.get("index")
        if not isinstance(index, int):
            starts = bool(delta.get("id")) or bool((delta.get("function") or {}).get("name"))
            index = (max(calls) + 1 if calls else 0) if starts or last is None else last
        call = calls.setdefault(index, {"id": "", "name": "", "arguments": ""})
        last = index
        if isinstance(delta.get("id"), str) and not call["id"]:
            call["id"] = delta["id"]
        function = delta.get("function") or {}
        if isinstance(function, dict):
            if isinstance(function.get("name"), str) and function["name"]:
                call["name"] = call["name"] or function["name"]
            arguments = function.get("arguments")
            if isinstance(arguments, str):
                call["arguments"] += arguments
            elif isinstance(arguments, dict):  # some servers send the object itself
                call["arguments"] += json.dumps(arguments)
    return [calls[i] for i in sorted(calls)]


def decode_calls(deltas: Sequence[dict[str, Any]], id_prefix: str = "call") -> list[DecodedCall]:
    """Merge and decode the calls of one response; ids are filled in when the server gave none."""
    out: list[DecodedCall] = []
    for n, call in enumerate(merge_deltas(deltas)):
        call_id = call["id"] or f"{id_prefix}-{n}"
        name, text = call["name"], call["arguments"]
        if not name:
            out.append(DecodedCall(call_id, name, text, None, "no_name"))
            continue
        try:
            value = json.loads(text) if text.strip() else {}
        except ValueError:
            out.append(DecodedCall(call_id, name, text, None, "bad_json"))
            continue
        if not isinstance(value, dict):
            out.append(DecodedCall(call_id, name, text, None, "not_object"))
            continue
        out.append(DecodedCall(call_id, name, text, value))
    return out


def unparsed_call_text(text: str) -> bool:
    """Whether ``text`` holds a tool call the server did not turn into ``tool_calls``."""
    return any(marker in text for marker in TEXT_MARKERS)
