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
        return _count(await self._post(client, self.url, self.body(text)))

    async def ids(self, client: httpx.AsyncClient, text: str) -> list[int] | None:
        """The token ids of ``text`` (no special tokens), or None when the server gave none."""
        payload = await self._post(client, self.url, self.body(text))
        tokens = payload.get("tokens") if isinstance(payload, dict) else None
        if not isinstance(tokens, list):
            return None
        # llama.cpp answers {"id", "piece"} objects when asked with_pieces; plain ids otherwise
        out = [t.get("id") if isinstance(t, dict) else t for t in tokens]
        if not all(isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in out):
            return None
        return out  # type: ignore[return-value]

    @property
    def detokenize_url(self) -> str:
        return self.url.removesuffix("/tokenize") + "/detokenize"

    async def text(self, client: httpx.AsyncClient, ids: list[int]) -> str | None:
        """The text of token ids, on the server's detokenize endpoint: vLLM's
        ``DetokenizeRequest`` ``{"model", "tokens"}`` answers ``{"prompt"}``, SGLang's the same
        body answers ``{"text"}`` (``serving_tokenize.py``), llama.cpp's ``{"tokens"}`` answers
        ``{"content"}``. None when the server has no such endpoint or answered otherwise."""
        body: dict[str, Any] = {"tokens": ids}
        if self.style != "llamacpp":
            body["model"] = self.model
        payload = await self._post(client, self.detokenize_url, body)
        if not isinstance(payload, dict):
            return None
        for key in ("prompt", "text", "content"):
            if isinstance(payload.get(key), str):
                return str(payload[key])
        return None

    @staticmethod
    async def _post(client: httpx.AsyncClient, url: str, body: dict[str, Any]) -> Any:
        try:
            resp = await client.post(url, json=body, timeout=TOKENIZE_TIMEOUT_S)
        except httpx.HTTPError:
            return None
        if resp.status_code != 200:
            return None
        try:
            return resp.json()
        except ValueError:
            return None


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
