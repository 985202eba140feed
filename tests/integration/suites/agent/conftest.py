"""Helpers for the agent stage: a scripted model (the sandbox is tests/integration/suites/conftest.py's).

The scripted model stands in for a server only in the agent loop's unit tests: it answers each
turn from a fixed script and keeps every conversation it was sent, so that tests can check the
exact transcript. End-to-end tests use the real reference server instead.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from specverdict.engines.client import StreamedResponse


def call(name: str, args: dict[str, Any] | str, index: int = 0) -> dict[str, Any]:
    """One tool call as a whole delta (the reference engine's form)."""
    text = args if isinstance(args, str) else json.dumps(args)
    return {
        "index": index,
        "id": f"id-{name}-{index}",
        "type": "function",
        "function": {"name": name, "arguments": text},
    }


def answer(text: str = "", calls: Sequence[dict[str, Any]] = (), **kw: Any) -> StreamedResponse:
    finish = "tool_calls" if calls else kw.pop("finish_reason", "stop")
    return StreamedResponse(
        "ok",
        text,
        finish,
        kw.pop("prompt_tokens", 10),
        kw.pop("completion_tokens", 5),
        kw.pop("ttft_s", 0.1),
        kw.pop("e2e_s", 0.3),
        kw.pop("chunk_arrivals_s", (0.1, 0.3)),
        kw.pop("extras", {}),
        None,
        tuple(calls),
        kw.pop("done_s", 0.35),
    )


@dataclass
class Script:
    """Answers turn n with ``turns[n]``; ``sent`` keeps each request's messages and tools."""

    turns: list[StreamedResponse]
    sent: list[list[dict[str, Any]]] = field(default_factory=list)
    tools: list[list[dict[str, Any]]] = field(default_factory=list)

    async def __call__(
        self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> StreamedResponse:
        self.sent.append(json.loads(json.dumps(messages)))
        self.tools.append(list(tools))
        return self.turns[len(self.sent) - 1]
