"""A scorer of your own, for a tool-calling workload: does the model's first answer call a tool
the row offers, with arguments that follow the tool's schema, on the file the task names?
(A format check of the kind teams write for their own traffic.)

specverdict calls ``score(row, answer, tool_calls)`` for every answered sample: ``row`` is the
dataset row as JSON, ``answer`` the model's text, ``tool_calls`` the calls it decoded (OpenAI
format). Return a bool, or a dict with ``passed`` and optionally ``outcome`` (a failure class
the report counts) and ``detail``.
"""

from __future__ import annotations

import json
from typing import Any


def score(row: dict[str, Any], answer: str, tool_calls: list[dict[str, Any]]) -> dict[str, Any]:
    if not tool_calls:
        return {"passed": False, "outcome": "no_tool_call", "detail": answer[:80]}
    call = tool_calls[0]["function"]
    tools = {t["function"]["name"]: t["function"]["parameters"] for t in row["tools"]}
    if call["name"] not in tools:
        return {"passed": False, "outcome": "unknown_tool", "detail": call["name"]}
    try:
        args = json.loads(call["arguments"])
    except (TypeError, ValueError):
        return {"passed": False, "outcome": "invalid_arguments", "detail": str(call["arguments"])}
    schema = tools[call["name"]]
    missing = [k for k in schema.get("required", []) if k not in args]
    extra = [k for k in args if k not in schema.get("properties", {})]
    if missing or extra or not isinstance(args, dict):
        return {"passed": False, "outcome": "invalid_arguments", "detail": f"{missing} {extra}"}
    if args.get("path") not in (None, row["metadata"]["file"]):
        return {"passed": False, "outcome": "wrong_file", "detail": args.get("path")}
    return {"passed": True}
