"""Hermes-style tool calls: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``.

Parsing mirrors vLLM's Hermes parser (``vllm/tool_parsers/hermes_tool_parser.py``): the content is
the text before the first ``<tool_call>`` (null when empty); each call becomes an OpenAI tool call
with ``arguments`` as a JSON string; an unterminated last block is still parsed; if any block is
not valid JSON, nothing is treated as a tool call and the text is returned as content.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass

from specverdict.reference.chat import TOOL_CALL_OPEN

_BLOCK = re.compile(r"<tool_call>(.*?)</tool_call>|<tool_call>(.*)", re.DOTALL)


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str

    def to_openai(self, index: int | None = None) -> dict[str, object]:
        out: dict[str, object] = {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }
        if index is not None:
            out = {"index": index, **out}
        return out


def parse_tool_calls(text: str) -> tuple[str | None, list[ToolCall]]:
    if TOOL_CALL_OPEN not in text:
        return text, []
    calls: list[ToolCall] = []
    for match in _BLOCK.finditer(text):
        body = (match.group(1) if match.group(1) is not None else match.group(2)).strip()
        try:
            obj = json.loads(body)
            name = obj["name"]
            args = obj.get("arguments", {})
        except (ValueError, KeyError, TypeError, AttributeError):
            return text, []
        if not isinstance(name, str):
            return text, []
        calls.append(
            ToolCall(
                f"chatcmpl-tool-{secrets.token_hex(8)}", name, json.dumps(args, ensure_ascii=False)
            )
        )
    content = text[: text.index(TOOL_CALL_OPEN)]
    return (content if content.strip() else None), calls


class ToolCallStreamer:
    """Streams content while holding back anything that may start a tool call.

    Text is released up to a ``<tool_call>`` opener, or up to a tail that could still grow into
    one; at the end, the held text is parsed: tool calls if it holds valid ones, else plain content.
    """

    def __init__(self) -> None:
        self.buffer = ""
        self.sent = 0

    def _safe_end(self) -> int:
        at = self.buffer.find(TOOL_CALL_OPEN)
        if at >= 0:
            return at
        for n in range(min(len(TOOL_CALL_OPEN) - 1, len(self.buffer)), 0, -1):
            if TOOL_CALL_OPEN.startswith(self.buffer[-n:]):
                return len(self.buffer) - n
        return len(self.buffer)

    def push(self, text: str, final: bool) -> tuple[str, list[ToolCall]]:
        """Add generated text; return (content to send now, tool calls found at the end)."""
        self.buffer += text
        end = max(self.sent, self._safe_end())
        out, self.sent = self.buffer[self.sent : end], end
        if not final or self.sent >= len(self.buffer):
            return out, []
        _, calls = parse_tool_calls(self.buffer)
        if calls:
            return out, calls
        out, self.sent = out + self.buffer[self.sent :], len(self.buffer)
        return out, []
