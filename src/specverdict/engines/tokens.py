"""Output tokens counted by the harness, not believed from the server.

A server's ``usage.completion_tokens`` is the denominator of TPOT and the numerator of output
throughput, so a server that overstates it (a bug, a proxy, a patched build) looks faster by the
same factor with identical timing. The runner therefore counts every answer's tokens itself with
the engine's own tokenizer, over its tokenize endpoint, and stores the count beside the server's
(``SampleRecord.extra["counted_tokens"]``); speed figures use the counted one
(``measure.summary.output_tokens``) and the verdict compares the two (``speed.tokens``).

The endpoints, by engine (request body -> answer), from the engines' sources:

- vLLM ``POST /tokenize`` (``TokenizeCompletionRequest``): ``{"model", "prompt",
  "add_special_tokens"}`` -> ``{"count", "max_model_len", "tokens"}``; SGLang's ``/tokenize``
  takes the same body and answers ``tokens`` and ``count``; the reference server follows vLLM.
- llama.cpp ``POST /tokenize``: ``{"content", "add_special"}`` -> ``{"tokens": [...]}``.

The text is counted without special tokens: an answer's text holds none (the end-of-sequence
token a server counts is not in it, nor a stop string it cut off), so the counted figure is at
most a few tokens under an honest server's, the same on both arms of a lossless pair. A server
that lies in its tokenize endpoint as well is beyond this check; a tokenizer file read locally
would not be, and is not built yet. The count is asked after the request's slot is released, so
that it never delays a measured request's own timing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import httpx

TokenizeStyle = Literal["vllm", "llamacpp"]
#: how long a tokenize call may take before the answer stays uncounted
TOKENIZE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class TokenCounter:
    """Counts text on a server's tokenize endpoint; ``source`` names it for the manifest."""

    url: str
    style: TokenizeStyle
    model: str

    @property
    def source(self) -> str:
        return f"{self.style} tokenize endpoint {self.url}"

    def body(self, text: str) -> dict[str, Any]:
        if self.style == "llamacpp":
            return {"content": text, "add_special": False}
        return {"model": self.model, "prompt": text, "add_special_tokens": False}

    async def count(self, client: httpx.AsyncClient, text: str) -> int | None:
        """The number of tokens of ``text``, or None when the server did not give one."""
        try:
            resp = await client.post(self.url, json=self.body(text), timeout=TOKENIZE_TIMEOUT_S)
        except httpx.HTTPError:
            return None
        if resp.status_code != 200:
            return None
        try:
            payload = resp.json()
        except ValueError:
            return None
        return _count(payload)


def _count(payload: Any) -> int | None:
    if not isinstance(payload, dict):
        return None
    count = payload.get("count")
    if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
        return count
    tokens = payload.get("tokens")
    return len(tokens) if isinstance(tokens, list) else None


async def find_counter(
    client: httpx.AsyncClient, base_url: str, style: TokenizeStyle | None, model: str
) -> TokenCounter | None:
    """The server's tokenize endpoint when it answers a probe with a plausible count (a short
    text is one token or more, and not more tokens than bytes); None when it has none."""
    if style is None:
        return None
    counter = TokenCounter(base_url.rstrip("/") + "/tokenize", style, model)
    probe = "def add(a, b):\n    return a + b\n"
    n = await counter.count(client, probe)
    if n is None or not 1 <= n <= len(probe.encode()):
        return None
    return counter
